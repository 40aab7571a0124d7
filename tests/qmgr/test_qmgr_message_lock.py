"""MQGMO_LOCK on the embedded queue manager: a lock lives no longer than its connection
(a dropped or dead one's ends with recovery, every one with a restart), and it never
touches BackoutCount (see mqjms/qmgr/locking.py; the contract's rules are
tests/conformance/test_contract_message_lock.py)."""

from __future__ import annotations

import gc

from mqjms.mq import MQMD, C
from mqjms.qmgr import RECOVERY_INTERVAL, QueueManager
from mqjms.transport import Browse

IN_BROWSE = C.MQOO_INPUT_SHARED | C.MQOO_BROWSE


def _lock_first(qm: QueueManager, queue: str) -> None:
    """Lock the first message of ``queue`` on a connection then dropped without MQDISC."""
    conn = qm.connect()
    handle = conn.open(queue, IN_BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is not None
    assert conn.lock_browsed(handle)


def test_the_lock_of_a_dropped_connection_ends_with_recovery(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "LOCK.Q")
    qm.connect().put("LOCK.Q", MQMD(), b"locked")
    _lock_first(qm, "LOCK.Q")
    other = qm.connect()
    handle = other.open("LOCK.Q", C.MQOO_INPUT_SHARED)
    gc.collect()  # the connection is gone, as a killed process's would be
    got = other.get(handle, wait=RECOVERY_INTERVAL + 1)
    assert got is not None and (got[1], got[0].BackoutCount) == (b"locked", 0)


def test_a_restart_ends_every_lock(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "LOCK.Q")
    conn = qm.connect()
    conn.put("LOCK.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"locked")
    handle = conn.open("LOCK.Q", IN_BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is not None
    assert conn.lock_browsed(handle)
    qm.restart()
    assert qm.queue_depth("LOCK.Q") == 1
    again = qm.connect()
    got = again.get(again.open("LOCK.Q", C.MQOO_INPUT_SHARED))
    assert got is not None and (got[1], got[0].BackoutCount) == (b"locked", 0)
