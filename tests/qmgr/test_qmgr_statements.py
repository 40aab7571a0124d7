"""The SQL statements a message costs on the embedded queue manager (issue 9, target 2).

Counted with sqlite3's ``set_trace_callback`` on the connection's own handle, the same on
any machine, never timed. Python reports a statement once more for each SQLite trigger it
fires or step it runs (``depth_up``/``depth_down``/``depth_got`` keep the queue's depth):
an INSERT or DELETE of a message shows three times, and so does the UPDATE of a get under
syncpoint or its backout (CURDEPTH leaves out uncommitted gets). The counts below are what
the trace shows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.errors import MQError
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.qmgr.connection_state import TRACKED

QUEUE = "APP.STATEMENTS"


def traced(conn: QMConnection, call: Callable[[], object]) -> list[str]:
    """The statements ``call`` runs on ``conn``'s SQLite connection."""
    statements: list[str] = []
    db = conn._db  # the connection's own SQLite handle: what it runs is the cost
    db.set_trace_callback(statements.append)
    try:
        call()
    finally:
        db.set_trace_callback(None)
    return [" ".join(s.split()) for s in statements]


@pytest.fixture
def qm(tmp_path: Path) -> QueueManager:
    manager = QueueManager(tmp_path / "qm")
    manager.define_queue("QLOCAL", QUEUE)
    return manager


def test_a_put_reads_the_queue_and_the_qmgr_attributes_in_one_statement(
    qm: QueueManager,
) -> None:
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"warm")  # first-use work
    assert conn.get(handle) is not None

    put = traced(conn, lambda: conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"m"))
    # BEGIN, the queue's row with the qmgr's attributes, INSERT (+2 trigger), COMMIT
    assert len(put) == 6, put
    assert not any(s.startswith("SELECT value FROM meta") for s in put), put
    get = traced(conn, lambda: conn.get(handle, syncpoint=True))
    # BEGIN, the queue's row with its head message, UPDATE (+2 trigger: depth_got), COMMIT
    assert len(get) == 6, get
    commit = traced(conn, conn.commit)
    # BEGIN, DELETE (+1 for depth_down, whose WHEN skips a message got in the unit of
    # work; +2 for bodies_gone, whose DELETE of a body stored apart is a lookup in an
    # empty table), the look for a get noted nowhere, COMMIT
    assert len(commit) == 7, commit
    conn.disconnect()


def test_an_alter_qmgr_by_another_connection_is_seen_by_the_next_put(
    qm: QueueManager, tmp_path: Path
) -> None:
    # the attributes are read with the queue's row inside each put's transaction, never
    # cached: an ALTER QMGR from elsewhere (another process, another QueueManager) applies
    # at once
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT)
    conn.put(handle, MQMD(), b"x" * 40_000)
    other = QueueManager(tmp_path / "qm")
    other.alter_qmgr({"MAXMSGL": 32_768})
    with pytest.raises(MQError) as err:
        conn.put(handle, MQMD(), b"x" * 40_000)
    assert err.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    other.alter_qmgr({"MAXMSGL": 4_194_304})
    conn.put(handle, MQMD(), b"x" * 40_000)
    assert qm.queue_depth(QUEUE) == 2
    conn.disconnect()
    other.close()


def test_a_put_through_an_alias_reads_the_alias_then_its_target(qm: QueueManager) -> None:
    qm.define_queue("QALIAS", "APP.ALIAS", {"TARGET": QUEUE})
    qm.alter_qmgr({"MAXMSGL": 32_768})
    conn = qm.connect()
    handle = conn.open("APP.ALIAS", C.MQOO_OUTPUT)
    conn.put(handle, MQMD(), b"x" * 32_768)
    put = traced(conn, lambda: conn.put(handle, MQMD(), b"y"))
    assert len(put) == 7, put  # BEGIN, alias + attrs, target, INSERT (+2), COMMIT
    with pytest.raises(MQError) as err:
        conn.put(handle, MQMD(), b"x" * 32_769)
    assert err.value.reason == C.MQRC_MSG_TOO_BIG_FOR_Q_MGR
    conn.disconnect()


def test_a_get_inhibited_by_another_connection_is_refused_at_once(
    qm: QueueManager, tmp_path: Path
) -> None:
    # a plain get reads the queue's row with its first message, inside its transaction:
    # GET(DISABLED) from elsewhere applies to the next get, and the message stays
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for body in (b"one", b"two"):
        conn.put(handle, MQMD(), body)
    assert conn.get(handle)[1] == b"one"
    other = QueueManager(tmp_path / "qm")
    other.alter_queue(QUEUE, {"GET": "DISABLED"})
    with pytest.raises(MQError) as err:
        conn.get(handle)
    assert err.value.reason == C.MQRC_GET_INHIBITED
    other.alter_queue(QUEUE, {"GET": "ENABLED"})
    assert conn.get(handle)[1] == b"two"
    assert conn.get(handle) is None  # an empty queue: the row alone, no message
    other.close()
    conn.disconnect()


def test_a_backout_of_gets_alone_looks_for_no_puts(qm: QueueManager) -> None:
    # MQBACK of a unit of work that only got (a listener's failed delivery): the gets
    # return with BackoutCount + 1, and no statement looks for puts it never made
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"m")
    assert conn.get(handle, syncpoint=True) is not None
    backout = traced(conn, conn.backout)
    # BEGIN, UPDATE the gets (+2 trigger), the look for a get noted nowhere, COMMIT
    assert len(backout) == 6, backout
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[0].BackoutCount == 1
    conn.put(handle, MQMD(), b"put in the unit of work", syncpoint=True)
    backout = traced(conn, conn.backout)
    assert len(backout) > 5, backout  # with a put: it vanishes (seed 003: triggers too)
    assert qm.queue_depth(QUEUE) == 1
    got = conn.get(handle)
    assert got is not None and got[1] == b"m" and got[0].BackoutCount == 2
    conn.disconnect()


def test_a_commit_ends_its_unit_of_work_message_by_message(qm: QueueManager) -> None:
    # MQCMIT and MQBACK find the messages of the connection's unit of work by their row
    # ids (a statement through messages_uow costs several times as much for one message)
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"got")
    assert conn.get(handle, syncpoint=True) is not None
    conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), b"put", syncpoint=True)
    commit = traced(conn, conn.commit)
    deletes = [s for s in commit if s.startswith("DELETE FROM messages")]
    updates = [s for s in commit if s.startswith("UPDATE messages")]
    assert deletes and all("WHERE id = " in s for s in deletes), commit
    assert updates and all("WHERE id = " in s for s in updates), commit
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == b"put"
    backout = traced(conn, conn.backout)
    assert all("WHERE id = " in s for s in backout if s.startswith("UPDATE messages")), backout
    assert conn.get(handle) is not None and qm.queue_depth(QUEUE) == 0
    conn.disconnect()


def test_a_put_in_the_unit_of_work_noted_nowhere_is_still_committed(qm: QueueManager) -> None:
    # the ids are a shortcut, never the only way: a message of the unit of work that the
    # connection did not note (a put by some future path) is found through messages_uow
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    conn.put(handle, MQMD(), b"noted", syncpoint=True)
    conn.put(handle, MQMD(), b"not noted", syncpoint=True)
    conn._uow.put_ids.pop()
    conn.commit()
    assert qm.queue_depth(QUEUE) == 2
    assert [conn.get(handle)[1] for _ in range(2)] == [b"noted", b"not noted"]
    conn.disconnect()


def test_a_get_in_the_unit_of_work_noted_nowhere_is_still_committed(qm: QueueManager) -> None:
    # a get the connection did not note would stay in flight after MQCMIT, and be
    # redelivered once the connection ended: a duplicate. It is found through messages_uow
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for body in (b"noted", b"not noted"):
        conn.put(handle, MQMD(), body)
    assert conn.get(handle, syncpoint=True) is not None
    assert conn.get(handle, syncpoint=True) is not None
    conn._uow.got_ids.pop()
    conn.commit()
    conn.disconnect()
    assert qm.queue_depth(QUEUE) == 0
    other = qm.connect()
    assert other.get(other.open(QUEUE, C.MQOO_INPUT_SHARED)) is None
    other.disconnect()


def test_a_get_in_the_unit_of_work_noted_nowhere_is_still_backed_out(qm: QueueManager) -> None:
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    for body in (b"noted", b"not noted"):
        conn.put(handle, MQMD(), body)
    assert conn.get(handle, syncpoint=True) is not None
    assert conn.get(handle, syncpoint=True) is not None
    conn._uow.got_ids.pop()
    conn.backout()
    got = [conn.get(handle) for _ in range(2)]  # both available again, at once
    assert [(md.BackoutCount, data) for md, data in got] == [(1, b"noted"), (1, b"not noted")]
    conn.disconnect()


def test_a_large_unit_of_work_is_ended_through_the_index(qm: QueueManager) -> None:
    # past TRACKED messages the ids are no longer kept: one statement ends them all
    conn = qm.connect()
    handle = conn.open(QUEUE, C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    count = TRACKED + 4
    for i in range(count):
        conn.put(handle, MQMD(), b"%d" % i)
    for _ in range(count):
        assert conn.get(handle, syncpoint=True) is not None
        conn.put(handle, MQMD(), b"new", syncpoint=True)
    assert len(conn._uow.got_ids) == len(conn._uow.put_ids) == TRACKED + 1
    commit = traced(conn, conn.commit)
    assert any("WHERE uow = " in s for s in commit if s.startswith("DELETE")), commit
    assert any("WHERE uow = " in s for s in commit if s.startswith("UPDATE")), commit
    assert qm.queue_depth(QUEUE) == count
    for _ in range(count):
        assert conn.get(handle, syncpoint=True) is not None
    conn.backout()
    assert qm.queue_depth(QUEUE) == count
    assert all(conn.get(handle)[0].BackoutCount == 1 for _ in range(count))
    conn.disconnect()
