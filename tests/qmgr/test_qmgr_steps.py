"""A consumer's step in one database transaction: the puts of the message it finished
(under syncpoint), its MQCMIT, and the MQGET of the next (issue 9: syncpoint puts
batched). The outcome is that of the calls in turn; a put that fails raises PutFailed
and commits nothing."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import (
    Capability,
    ConnectionWrapper,
    Handle,
    PutFailed,
    SyncpointPut,
    backout_and_get,
    commit_and_get,
    put_and_commit,
)

IN, OUT, TRIGGERED, INITQ = "STEP.IN", "STEP.OUT", "STEP.TRIGGERED", "STEP.INITQ"


@pytest.fixture
def conn(qm: QueueManager) -> QMConnection:
    qm.define_queue("QLOCAL", IN)
    qm.define_queue("QLOCAL", OUT, {"DEFPSIST": "YES"})
    for body in (b"first", b"second"):
        qm.connect().put(IN, MQMD(Persistence=C.MQPER_PERSISTENT), body)
    return qm.connect("steps")


def _begins(conn: QMConnection) -> list[str]:
    seen: list[str] = []
    conn._db.set_trace_callback(lambda sql: seen.append(sql) if sql.startswith("BEGIN") else None)
    return seen


def test_the_sends_the_commit_and_the_next_get_are_one_transaction(
    qm: QueueManager, conn: QMConnection
) -> None:
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    first = conn.get(handle, syncpoint=True)
    assert first is not None and first[1] == b"first"
    begins = _begins(conn)
    puts = [
        SyncpointPut(OUT, MQMD(Format=C.MQFMT_STRING), b"reply 1"),
        SyncpointPut(OUT, MQMD(Format=C.MQFMT_STRING, Persistence=C.MQPER_NOT_PERSISTENT), b"2"),
    ]
    second = conn.commit_and_get(handle, puts)
    assert len(begins) == 1, begins
    assert second is not None and second[1] == b"second"
    # "first" gone with the commit; "second", got in the unit of work, out of CURDEPTH
    assert qm.queue_depth(IN) == 0 and qm.uncommitted_messages(IN) == 1
    reader = qm.connect()
    out = reader.open(OUT, C.MQOO_INPUT_SHARED)
    replies = [reader.get(out) for _ in range(2)]
    assert [r[1] for r in replies if r is not None] == [b"reply 1", b"2"]
    # put as MQPUT1 puts: a new MsgId, the queue's DEFPSIST for "as queue default"
    assert [r[0].Persistence for r in replies if r is not None] == [
        C.MQPER_PERSISTENT,
        C.MQPER_NOT_PERSISTENT,
    ]
    assert all(r is not None and r[0].MsgId != b"\0" * 24 for r in replies)
    conn.put_and_commit([SyncpointPut(OUT, MQMD(), b"last")])
    assert len(begins) == 2 and qm.queue_depth(IN) == 0 and qm.queue_depth(OUT) == 1


def test_a_put_that_fails_commits_nothing_and_the_unit_of_work_can_back_out(
    qm: QueueManager, conn: QMConnection
) -> None:
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    puts = [SyncpointPut(OUT, MQMD(), b"made"), SyncpointPut("NO.SUCH.Q", MQMD(), b"fails")]
    for step in (lambda: conn.commit_and_get(handle, puts), lambda: conn.put_and_commit(puts)):
        with pytest.raises(PutFailed) as caught:
            step()
        assert caught.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        assert caught.value.put is puts[1]
        assert conn.in_unit_of_work  # the get is still in flight: nothing was committed
        # "first" got in the unit of work is out of CURDEPTH; "second" waits
        assert qm.queue_depth(OUT) == 0 and qm.queue_depth(IN) == 1
    conn.backout()
    assert qm.queue_depth(IN) == 2
    again = conn.get(handle, syncpoint=True)
    assert again is not None and again[1] == b"first" and again[0].BackoutCount == 1
    conn.commit()


def test_a_put_to_a_full_queue_fails_the_step_with_2053(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "STEP.FULL", {"MAXDEPTH": 1})
    conn = qm.connect()
    conn.put("STEP.FULL", MQMD(), b"fills it")
    with pytest.raises(PutFailed) as caught:
        conn.put_and_commit([SyncpointPut("STEP.FULL", MQMD(), b"one too many")])
    assert caught.value.reason == C.MQRC_Q_FULL and qm.queue_depth("STEP.FULL") == 1


def test_a_put_in_a_step_triggers_as_a_put_under_syncpoint_does(qm: QueueManager) -> None:
    # seed 003 item 10: the trigger message of a put in a unit of work is made available
    # when the unit of work commits: here, in the same transaction
    qm.define_queue("QLOCAL", INITQ)
    qm.define_process("STEP.PROC", {"APPLICID": "/bin/true"})
    qm.define_queue(
        "QLOCAL",
        TRIGGERED,
        {"TRIGGER": True, "TRIGTYPE": "FIRST", "INITQ": INITQ, "PROCESS": "STEP.PROC"},
    )
    watcher = qm.connect("watcher")
    watcher.open(INITQ, C.MQOO_INPUT_SHARED)  # the initiation queue is served
    conn = qm.connect()
    conn.put_and_commit([SyncpointPut(TRIGGERED, MQMD(), b"work")])
    assert qm.queue_depth(TRIGGERED) == 1 and qm.queue_depth(INITQ) == 1


def test_a_get_that_fails_after_the_commit_leaves_the_commit_done(
    qm: QueueManager, conn: QMConnection
) -> None:
    # as MQCMIT then MQGET: the commit stands, and the get's failure is the next get's
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    qm.alter_queue(IN, {"GET": "DISABLED"})
    got = conn.commit_and_get(handle, [SyncpointPut(OUT, MQMD(), b"sent")])
    assert got is None and not conn.in_unit_of_work
    assert qm.queue_depth(IN) == 1 and qm.queue_depth(OUT) == 1
    with pytest.raises(MQError) as caught:
        conn.get(handle, syncpoint=True)
    assert caught.value.reason == C.MQRC_GET_INHIBITED


def test_the_contract_helpers_make_the_calls_in_turn_where_there_is_no_step(
    qm: QueueManager, conn: QMConnection
) -> None:
    class NoSteps(ConnectionWrapper):
        @property
        def capabilities(self) -> frozenset[Capability]:
            return self.inner.capabilities - {Capability.COMMIT_AND_GET, Capability.PUTS_IN_STEP}

    plain = NoSteps(conn)
    handle = plain.open(IN, C.MQOO_INPUT_SHARED)
    assert plain.get(handle, syncpoint=True) is not None
    got = commit_and_get(plain, handle, wait=0, puts=[SyncpointPut(OUT, MQMD(), b"sent")])
    assert got is not None and got[1] == b"second" and qm.queue_depth(OUT) == 1
    with pytest.raises(PutFailed) as caught:
        put_and_commit(plain, [SyncpointPut("NO.SUCH.Q", MQMD(), b"x")])
    assert caught.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert conn.in_unit_of_work
    put_and_commit(plain, [])  # a plain MQCMIT
    assert not conn.in_unit_of_work and qm.queue_depth(IN) == 0


def test_a_connection_that_commits_and_gets_in_one_step_without_puts_gets_them_first(
    qm: QueueManager, conn: QMConnection
) -> None:
    # a transport written before puts in a step: COMMIT_AND_GET alone, the one-argument
    # commit_and_get; the helpers put first, then take its step
    class OneArgument(ConnectionWrapper):
        steps = 0

        @property
        def capabilities(self) -> frozenset[Capability]:
            return self.inner.capabilities - {Capability.PUTS_IN_STEP}

        def commit_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:  # type: ignore[override]
            self.steps += 1
            return conn.commit_and_get(handle)

    older = OneArgument(conn)
    handle = older.open(IN, C.MQOO_INPUT_SHARED)
    assert older.get(handle, syncpoint=True) is not None
    got = commit_and_get(older, handle, wait=0, puts=[SyncpointPut(OUT, MQMD(), b"sent")])
    assert got is not None and got[1] == b"second" and older.steps == 1
    assert qm.queue_depth(OUT) == 1
    put_and_commit(older, [SyncpointPut(OUT, MQMD(), b"again")])
    assert qm.queue_depth(OUT) == 2 and not conn.in_unit_of_work


# ---------------------------------------------------------------- MQBACK + MQGET in one step
def test_the_backout_and_the_next_get_are_one_transaction(
    qm: QueueManager, conn: QMConnection
) -> None:
    # seed 002: "Whenever a message is rolled back by an application, the queue manager
    # automatically increments the value of the BackoutCount field for the message" -- in
    # the step too: a failed delivery's MQBACK and the MQGET after it bring the message
    # straight back, BackoutCount + 1, and what the unit of work put vanishes, as with the
    # calls in turn
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    first = conn.get(handle, syncpoint=True)
    assert first is not None and first[0].BackoutCount == 0
    conn.put(OUT, MQMD(), b"withdrawn", syncpoint=True)
    begins = _begins(conn)
    again = conn.backout_and_get(handle)
    assert len(begins) == 1, begins
    assert again is not None and again[1] == b"first" and again[0].BackoutCount == 1
    assert again[0].MsgId == first[0].MsgId
    assert qm.queue_depth(OUT) == 0 and qm.uncommitted_messages(OUT) == 0
    assert conn.in_unit_of_work and qm.uncommitted_messages(IN) == 1
    third = conn.backout_and_get(handle)
    assert third is not None and third[0].BackoutCount == 2
    conn.commit()
    assert qm.queue_depth(IN) == 1  # "second" is left


def test_a_backout_step_without_a_unit_of_work_is_a_get(
    qm: QueueManager, conn: QMConnection
) -> None:
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    got = conn.backout_and_get(handle)
    assert got is not None and got[1] == b"first" and got[0].BackoutCount == 0


def test_a_get_that_fails_after_the_backout_leaves_the_backout_done(
    qm: QueueManager, conn: QMConnection
) -> None:
    handle = conn.open(IN, C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    qm.alter_queue(IN, {"GET": "DISABLED"})
    assert conn.backout_and_get(handle) is None and not conn.in_unit_of_work
    qm.alter_queue(IN, {"GET": "ENABLED"})
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == b"first" and got[0].BackoutCount == 1


def test_the_backout_helper_makes_the_calls_in_turn_where_there_is_no_step(
    qm: QueueManager, conn: QMConnection
) -> None:
    class NoSteps(ConnectionWrapper):
        @property
        def capabilities(self) -> frozenset[Capability]:
            return self.inner.capabilities - {Capability.BACKOUT_AND_GET}

    events: list[str] = []
    for connection in (NoSteps(conn), ConnectionWrapper(conn)):
        handle = connection.open(IN, C.MQOO_INPUT_SHARED)
        first = connection.get(handle, syncpoint=True)
        assert first is not None
        count = first[0].BackoutCount
        begins = _begins(conn)
        got = backout_and_get(
            connection, handle, wait=0, backed_out=lambda: events.append("backed out")
        )
        assert got is not None and got[0].MsgId == first[0].MsgId
        assert got[0].BackoutCount == count + 1
        # the wrapper keeps the step: one transaction; without it, MQBACK then MQGET
        assert len(begins) == (2 if isinstance(connection, NoSteps) else 1), begins
        connection.backout()
    assert events == ["backed out", "backed out"]
