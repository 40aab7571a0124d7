"""Closing, reopening and restarting the embedded queue manager inside one process
(issue 2, MQI semantics).

Closing every QueueManager object (``embedded.close_all()``) and opening the directory
again must keep persistent messages. A *restart* (mqjms/qmgr/manager.py: the first use
after the machine boots, or ``QueueManager.restart()``, refused while another process
has it open) drops non-persistent messages and backs out leftover units of work.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager
from mqjms.transport import connect, embedded

IN = C.MQOO_INPUT_SHARED


def bodies(url: str, queue: str) -> list[tuple[int, bytes]]:
    conn = connect(url)
    handle = conn.open(queue, IN)
    out = []
    while (got := conn.get(handle)) is not None:
        out.append((got[0].BackoutCount, got[1]))
    conn.disconnect()
    return out


def test_persistent_messages_survive_closing_and_reopening(
    qm: QueueManager, embedded_url: str
) -> None:
    # issue 2, Done when: persistent messages survive closing and reopening the queue manager
    qm.define_queue("QLOCAL", "LC.Q")
    conn = connect(embedded_url)
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"p1")
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"n1")
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"p2", syncpoint=True)
    conn.commit()
    embedded.close_all()
    reopened = embedded.queue_manager(embedded_url)
    persistent = [(0, b"p1"), (0, b"p2")]
    assert [b for b in bodies(embedded_url, "LC.Q") if b != (0, b"n1")] == persistent
    conn = connect(embedded_url)
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"p1")
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"n1")
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"p2")
    reopened.restart()
    assert bodies(embedded_url, "LC.Q") == persistent


def test_restart_with_a_new_queue_manager_object(qmgr_dir: Path) -> None:
    first = QueueManager(qmgr_dir)
    first.define_queue("QLOCAL", "LC.Q", {"DEFPSIST": "YES"})
    conn = first.connect()
    conn.put("LC.Q", MQMD(), b"as queue default: persistent")
    conn.put("LC.Q", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"gone at restart")
    first.close()
    with QueueManager(qmgr_dir) as second:
        second.restart()
        assert second.queue_depth("LC.Q") == 1
        conn2 = second.connect()
        got = conn2.get(conn2.open("LC.Q", IN))
        assert got is not None and got[1] == b"as queue default: persistent"


def test_non_persistent_messages_do_not_survive_a_restart(
    qm: QueueManager, embedded_url: str
) -> None:
    qm.define_queue("QLOCAL", "LC.Q")  # DEFPSIST(NO)
    conn = connect(embedded_url)
    for i in range(3):
        conn.put("LC.Q", MQMD(), b"%d" % i)
    assert qm.queue_depth("LC.Q") == 3
    qm.restart()
    assert qm.queue_depth("LC.Q") == 0
    assert bodies(embedded_url, "LC.Q") == []


def test_restart_ends_this_objects_connections(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "LC.Q", {"DEFPSIST": "YES"})
    conn = qm.connect()
    conn.put("LC.Q", MQMD(), b"x")
    handle = conn.open("LC.Q", IN)
    conn.get(handle, syncpoint=True)
    qm.restart()
    with pytest.raises(MQError) as err:
        conn.commit()
    assert err.value.reason == C.MQRC_HCONN_ERROR
    fresh = qm.connect()
    md, data = fresh.get(fresh.open("LC.Q", IN))
    assert (data, md.BackoutCount) == (b"x", 1)


def test_restart_refused_while_another_opener_remains(qmgr_dir: Path) -> None:
    # a restart while another process (here: another QueueManager object, which holds
    # its own lock) has the queue manager open is refused, and nothing is lost
    keeper = QueueManager(qmgr_dir)
    other = QueueManager(qmgr_dir)
    try:
        keeper.define_queue("QLOCAL", "LC.Q")
        other.connect().put("LC.Q", MQMD(), b"transient")
        with pytest.raises(MQError) as err:
            other.restart()
        assert err.value.reason == C.MQRC_OBJECT_IN_USE
        assert keeper.queue_depth("LC.Q") == 1
        keeper.close()
        other.restart()  # now it is the only one
        assert other.queue_depth("LC.Q") == 0
    finally:
        other.close()
        keeper.close()


def test_closing_backs_out_units_of_work(qmgr_dir: Path) -> None:
    # manager.py: units of work left open are backed out (BackoutCount + 1); processes
    # that die are covered in test_qmgr_multiprocess
    first = QueueManager(qmgr_dir)
    first.define_queue("QLOCAL", "LC.IN", {"DEFPSIST": "YES"})
    first.define_queue("QLOCAL", "LC.OUT", {"DEFPSIST": "YES"})
    producer = first.connect()
    producer.put("LC.IN", MQMD(), b"one")
    producer.put("LC.IN", MQMD(), b"two")
    worker = first.connect()
    handle = worker.open("LC.IN", IN)
    assert worker.get(handle, syncpoint=True)[1] == b"one"
    worker.put("LC.OUT", MQMD(), b"uncommitted", syncpoint=True)
    first.close()  # ends every connection: their units of work are backed out
    with QueueManager(qmgr_dir) as second:
        conn = second.connect()
        h = conn.open("LC.IN", IN)
        got = [(md.BackoutCount, data) for md, data in iter(lambda: conn.get(h), None)]
        assert got == [(1, b"one"), (0, b"two")]
        assert second.queue_depth("LC.OUT") == 0


def test_closed_queue_manager_refuses_connections(qmgr_dir: Path) -> None:
    manager = QueueManager(qmgr_dir)
    manager.close()
    with pytest.raises(MQError) as err:
        manager.connect()
    assert err.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE


def test_connections_of_a_closed_queue_manager_are_ended(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "LC.Q")
    conn = qm.connect()
    qm.close()
    with pytest.raises(MQError) as err:
        conn.put("LC.Q", MQMD(), b"x")
    assert err.value.reason == C.MQRC_HCONN_ERROR


def test_queue_definitions_and_attributes_survive_a_restart(
    qm: QueueManager, embedded_url: str
) -> None:
    qm.define_queue("QLOCAL", "LC.Q", {"BOTHRESH": 4, "BOQNAME": "LC.BO", "MSGDLVSQ": "FIFO"})
    qm.alter_qmgr({"DEADQ": "LC.DLQ"})
    qm.restart()
    embedded.close_all()
    conn = connect(embedded_url)
    got = conn.inquire(
        "LC.Q", [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME, C.MQIA_MSG_DELIVERY_SEQUENCE]
    )
    assert got == {
        C.MQIA_BACKOUT_THRESHOLD: 4,
        C.MQCA_BACKOUT_REQ_Q_NAME: "LC.BO",
        C.MQIA_MSG_DELIVERY_SEQUENCE: C.MQMDS_FIFO,
    }
    assert conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]) == {C.MQCA_DEAD_LETTER_Q_NAME: "LC.DLQ"}


def test_new_queue_manager_has_the_default_objects(qm: QueueManager) -> None:
    names = set(qm.queue_names())
    assert {
        "SYSTEM.DEAD.LETTER.QUEUE",
        "SYSTEM.DEFAULT.LOCAL.QUEUE",
        "SYSTEM.DEFAULT.MODEL.QUEUE",
    } <= names
    assert qm.display_qmgr(["DEADQ"])["DEADQ"] == "SYSTEM.DEAD.LETTER.QUEUE"


def test_backout_count_survives_a_restart(qm: QueueManager, embedded_url: str) -> None:
    qm.define_queue("QLOCAL", "LC.Q", {"DEFPSIST": "YES"})
    conn = connect(embedded_url)
    conn.put("LC.Q", MQMD(), b"poison")
    handle = conn.open("LC.Q", IN)
    conn.get(handle, syncpoint=True)
    conn.backout()
    qm.restart()
    embedded.close_all()
    assert bodies(embedded_url, "LC.Q") == [(1, b"poison")]


def test_unit_of_work_of_a_dropped_connection_is_backed_out(qm: QueueManager) -> None:
    import gc

    from mqjms.qmgr import RECOVERY_INTERVAL

    qm.define_queue("QLOCAL", "LC.Q")
    qm.connect().put("LC.Q", MQMD(), b"held")

    def worker() -> None:
        conn = qm.connect()
        handle = conn.open("LC.Q", IN)
        assert conn.get(handle, syncpoint=True)[1] == b"held"
        # the connection goes out of scope without commit, backout or disconnect

    worker()
    gc.collect()
    conn = qm.connect()
    got = conn.get(conn.open("LC.Q", IN), wait=RECOVERY_INTERVAL + 1)
    assert got is not None
    assert (got[1], got[0].BackoutCount) == (b"held", 1)
