"""The seed-002 component itself, per delivery style, on the embedded queue manager:
``SynchronousPoisonFlow`` (JMS sessions) and ``ListenerPoisonFlow`` (Worker threads)
over one ``PoisonHandler``: which unit of work a requeue is made in, what ends it, what
is logged when (pending, then completed or backed out) and when hooks run."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture

import mqjms
from mqjms.backout import (
    DeliveryStyle,
    FailureMemory,
    ListenerPoisonFlow,
    PendingMove,
    PoisonEvent,
    PoisonHandler,
    PoisonOutcome,
    StagedPoisonFlow,
    SynchronousPoisonFlow,
    UnitOfWorkMode,
    dead_letter_queue,
)
from mqjms.mq import MQMD, C, MQError, parse_chain
from mqjms.mq.jms import parse_jms_folders
from mqjms.qmgr import QueueManager
from mqjms.semantics import put_and_commit
from mqjms.transport import Connection, Handle, connect

IN, BOQ, DLQ = "FLOW.IN", "FLOW.BACKOUT", "FLOW.DEAD"
BOTHRESH = 2


# --------------------------------------------------------------------------- fixtures
@pytest.fixture
def events() -> Iterator[list[dict[str, Any]]]:
    """Every structlog event logged during the test."""
    was_configured = structlog.is_configured()
    old = structlog.get_config()
    capture = LogCapture()
    structlog.configure(
        processors=[capture],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=False,
    )
    try:
        yield capture.entries
    finally:
        if was_configured:
            structlog.configure(**old)
        else:
            structlog.reset_defaults()


@pytest.fixture
def mq(qm: QueueManager) -> QueueManager:
    qm.define_queue("QLOCAL", IN, {"BOTHRESH": BOTHRESH, "BOQNAME": BOQ}, replace=True)
    qm.define_queue("QLOCAL", BOQ, {}, replace=True)
    qm.define_queue("QLOCAL", DLQ, {}, replace=True)
    qm.alter_qmgr({"DEADQ": DLQ})
    return qm


@pytest.fixture
def conn(mq: QueueManager, embedded_url: str) -> Iterator[Connection]:
    c = connect(embedded_url)
    yield c
    c.disconnect()


@pytest.fixture
def handle(conn: Connection) -> Handle:
    return conn.open(IN, C.MQOO_INPUT_AS_Q_DEF)


def names(entries: list[dict[str, Any]]) -> list[str]:
    return [e["event"] for e in entries if str(e.get("event", "")).startswith("poison.")]


def got_with(conn: Connection, handle: Handle, backouts: int, **md: Any) -> tuple[MQMD, bytes]:
    """Put a message, back it out ``backouts`` times and get it under syncpoint."""
    conn.put(IN, MQMD(Format=C.MQFMT_STRING, **md), b"poison?")
    for _ in range(backouts):
        assert conn.get(handle, syncpoint=True) is not None
        conn.backout()
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[0].BackoutCount == backouts
    return got


def break_every_queue(qm: QueueManager) -> None:
    """Neither BOQNAME nor the dead-letter queue will take a message."""
    qm.alter_queue(IN, {"BOQNAME": "FLOW.NO.SUCH.QUEUE"})
    qm.alter_qmgr({"DEADQ": "FLOW.NO.SUCH.DLQ"})


class Hooks:
    def __init__(self) -> None:
        self.seen: list[tuple[str, PoisonEvent]] = []

    def hook(self, name: str) -> Any:
        return lambda event: self.seen.append((name, event))

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.seen]


# --------------------------------------------------------------------------- the decision
def test_the_decision_is_backout_count_against_bothresh(mq, conn, handle):
    # seed 002: nothing is inquired while BackoutCount is 0; BackoutCount < BOTHRESH is
    # delivered, >= BOTHRESH is poison; BOTHRESH 0 disables poison handling
    handler = PoisonHandler()
    flow = SynchronousPoisonFlow(handler, conn, mode=UnitOfWorkMode.TRANSACTED)
    md, data = got_with(conn, handle, 0)
    assert flow.screen(handle, md, data) is None and handler.cache.inquiries == 0
    conn.backout()
    md, data = conn.get(handle, syncpoint=True) or (MQMD(), b"")
    assert md.BackoutCount == 1 and data == b"poison?"
    assert flow.screen(handle, md, data) is None and handler.cache.inquiries == 1
    attrs = handler.cache.get(conn, IN)
    assert PoisonHandler.threshold_reached(BOTHRESH, attrs)
    assert not PoisonHandler.threshold_reached(BOTHRESH - 1, attrs)
    mq.alter_queue(IN, {"BOTHRESH": 0})
    assert not PoisonHandler.threshold_reached(99, PoisonHandler().cache.get(conn, IN))


def test_dead_letter_queue_is_the_queue_managers_current_deadq(mq, conn):
    # seed 002 + recent fix: DEADQ is never cached, so ALTER QMGR DEADQ applies at once
    assert dead_letter_queue(conn) == DLQ
    mq.alter_qmgr({"DEADQ": "FLOW.OTHER.DLQ"})
    assert dead_letter_queue(conn) == "FLOW.OTHER.DLQ"
    mq.alter_qmgr({"DEADQ": ""})
    assert dead_letter_queue(conn) == ""


# --------------------------------------------------------------------------- SYNCHRONOUS
def test_transacted_requeue_is_pending_until_the_commit(mq, conn, handle, events):
    # seed 002 synchronous: "the moving of the message to the backout queue is not
    # committed until the transaction is committed": logged as pending, then moved;
    # hooks run once, after the commit
    hooks = Hooks()
    handler = PoisonHandler(hooks=[hooks.hook("handler")])
    flow = SynchronousPoisonFlow(handler, conn, mode=UnitOfWorkMode.TRANSACTED)
    md, data = got_with(conn, handle, BOTHRESH)
    event = flow.screen(handle, md, data)
    assert event is not None and event.outcome is PoisonOutcome.MOVED
    assert event.style is DeliveryStyle.SYNCHRONOUS and event.destination == BOQ
    assert names(events) == ["poison.move_pending"] and hooks.seen == []
    assert flow.pending == (event,)
    conn.commit()
    flow.committed()
    assert names(events) == ["poison.move_pending", "poison.moved"]
    assert [(n, e.outcome) for n, e in hooks.seen] == [("handler", PoisonOutcome.MOVED)]
    assert flow.pending == () and mq.queue_depth(BOQ) == 1 and mq.queue_depth(IN) == 0


def test_transacted_rollback_backs_the_requeue_out_and_runs_no_hook(mq, conn, handle, events):
    # seed 002 synchronous: a rollback returns the message to the input queue
    hooks = Hooks()
    flow = SynchronousPoisonFlow(
        PoisonHandler(hooks=[hooks.hook("h")]), conn, mode=UnitOfWorkMode.TRANSACTED
    )
    md, data = got_with(conn, handle, BOTHRESH)
    assert flow.screen(handle, md, data) is not None
    conn.backout()
    flow.backed_out()
    assert names(events) == ["poison.move_pending", "poison.requeue_backed_out"]
    assert hooks.seen == [] and flow.pending == ()
    assert mq.queue_depth(BOQ) == 0 and mq.queue_depth(IN) == 1


@pytest.mark.parametrize(
    "mode", [UnitOfWorkMode.AUTO_ACKNOWLEDGE, UnitOfWorkMode.CLIENT_ACKNOWLEDGE]
)
def test_non_transacted_requeue_is_committed_at_once(mq, conn, handle, events, mode):
    # seed 002 synchronous, non-transacted: AUTO/DUPS_OK always, CLIENT_ACKNOWLEDGE with
    # no unacknowledged message in the session: the requeue is committed by the flow
    hooks = Hooks()
    flow = SynchronousPoisonFlow(PoisonHandler(hooks=[hooks.hook("h")]), conn, mode=mode)
    md, data = got_with(conn, handle, BOTHRESH)
    assert flow.screen(handle, md, data) is not None
    assert names(events) == ["poison.moved"] and hooks.names == ["h"]
    conn.backout()  # nothing left to undo: the move was committed
    assert mq.queue_depth(BOQ) == 1 and mq.queue_depth(IN) == 0


def test_client_acknowledge_requeue_stays_with_unacknowledged_messages(mq, conn, handle, events):
    # seed 002 synchronous + CLIENT_ACKNOWLEDGE (recent rule): with an unacknowledged
    # message the requeue shares its unit of work: the acknowledge completes it
    flow = SynchronousPoisonFlow(PoisonHandler(), conn, mode=UnitOfWorkMode.CLIENT_ACKNOWLEDGE)
    got_with(conn, handle, BOTHRESH - 1)
    conn.backout()  # the poison message waits with BackoutCount == BOTHRESH
    conn.put(IN, MQMD(Priority=9), b"good")  # delivered first
    good = conn.get(handle, syncpoint=True)
    assert good is not None and good[1] == b"good"
    flow.delivered()
    md, data = conn.get(handle, syncpoint=True) or (MQMD(), b"")
    assert md.BackoutCount == BOTHRESH
    assert flow.screen(handle, md, data) is not None
    assert names(events) == ["poison.move_pending"] and mq.queue_depth(BOQ) == 1
    conn.commit()  # the application's acknowledge()
    flow.committed()
    assert names(events) == ["poison.move_pending", "poison.moved"]
    assert mq.queue_depth(BOQ) == 1 and mq.queue_depth(IN) == 0
    # nothing unacknowledged now: the next requeue is committed at once
    got_with(conn, handle, BOTHRESH - 1)
    conn.backout()
    md, data = conn.get(handle, syncpoint=True) or (MQMD(), b"")
    assert flow.screen(handle, md, data) is not None
    assert names(events)[-1] == "poison.moved" and flow.pending == ()


def test_synchronous_requeue_failed_is_discarded_by_the_commit(mq, conn, handle, events):
    # seed 002 synchronous: the dead-letter put fails too; transacted and committed ->
    # discarded. Logged as pending (a warning), then requeue_failed; the hook sees that
    # the message was not returned to the queue
    hooks = Hooks()
    flow = SynchronousPoisonFlow(
        PoisonHandler(hooks=[hooks.hook("h")]), conn, mode=UnitOfWorkMode.TRANSACTED
    )
    md, data = got_with(conn, handle, BOTHRESH)
    break_every_queue(mq)
    event = flow.screen(handle, md, data)
    assert event is not None and event.outcome is PoisonOutcome.REQUEUE_FAILED
    conn.commit()
    flow.committed()
    assert names(events)[-2:] == ["poison.requeue_pending", "poison.requeue_failed"]
    [(_, seen)] = hooks.seen
    assert seen.outcome is PoisonOutcome.REQUEUE_FAILED and not seen.returned_to_queue
    assert mq.queue_depth(IN) == 0


def test_session_logs_pending_then_moved_and_runs_factory_hooks_at_commit(mq, embedded_url, events):
    # seed 002 synchronous, through the JMS API: the session reports each end of its unit
    # of work to its flow (receive -> pending, commit -> moved, rollback -> backed out)
    hooks = Hooks()
    factory = mqjms.ConnectionFactory(embedded_url, poison=PoisonHandler(hooks=[hooks.hook("f")]))
    raw = connect(embedded_url)
    try:
        raw.put(IN, MQMD(), b"poison")
        handle = raw.open(IN, C.MQOO_INPUT_AS_Q_DEF)
        for _ in range(BOTHRESH):
            assert raw.get(handle, syncpoint=True) is not None
            raw.backout()
    finally:
        raw.disconnect()
    with factory.connect() as jms, jms.session(transacted=True) as session:
        consumer = session.consumer(IN)
        assert consumer.receive_no_wait() is None
        assert names(events) == ["poison.move_pending"] and hooks.seen == []
        session.rollback()
        assert names(events)[-1] == "poison.requeue_backed_out" and hooks.seen == []
        assert consumer.receive_no_wait() is None  # BackoutCount BOTHRESH + 1: poison again
        session.commit()
    assert names(events)[-2:] == ["poison.move_pending", "poison.moved"]
    assert hooks.names == ["f"] and mq.queue_depth(BOQ) == 1


# --------------------------------------------------------------------------- LISTENER
class Options:
    """A listener's options as the flow sees them (mqjms.Listener in a Worker)."""

    name = "tests.listener"
    queue = IN

    def __init__(self, *, move_on: tuple[type[BaseException], ...] = (), wait: Any = 0.0):
        self.move_on = move_on
        self.wait = wait
        self.hooks = Hooks()
        self.on_poison = self.hooks.hook("on_poison")

    def moves_on(self, exc: BaseException) -> bool:
        return isinstance(exc, self.move_on)

    def retry_delay(self, md: MQMD, exc: BaseException) -> float:
        return float(self.wait(md) if callable(self.wait) else self.wait)


def test_listener_requeue_is_committed_at_once_then_hooks_run_in_order(mq, conn, handle, events):
    # seed 002 asynchronous: "the requeue process takes place outside of any unit of work
    # associated with actual message delivery": committed by the flow, then hooks run
    # (the handler's, the worker's, the listener's on_poison), after poison.moved
    options = Options()
    handler = PoisonHandler(hooks=[options.hooks.hook("handler")])
    flow = ListenerPoisonFlow(handler, options, FailureMemory(), [options.hooks.hook("worker")])
    md, data = got_with(conn, handle, BOTHRESH)
    event = flow.screen(conn, handle, md, data)
    assert event is not None and event.outcome is PoisonOutcome.MOVED
    assert event.style is DeliveryStyle.LISTENER
    assert names(events) == ["poison.moved"]
    assert options.hooks.names == ["handler", "worker", "on_poison"]
    conn.backout()  # nothing left to undo
    assert mq.queue_depth(BOQ) == 1 and mq.queue_depth(IN) == 0


def test_listener_requeue_failed_returns_the_message_to_the_input_queue(mq, conn, handle, events):
    # seed 002 asynchronous: "If the attempt to put the message to the dead letter queue
    # fails for some reason, the IBM MQ classes for JMS returns the message to the input
    # queue"; the hook is told so, and the failure stays remembered for the next attempt
    options = Options()
    failures = FailureMemory()
    flow = ListenerPoisonFlow(PoisonHandler(), options, failures)
    md, data = got_with(conn, handle, BOTHRESH)
    failures.remember(md.MsgId, _failure())
    break_every_queue(mq)
    event = flow.screen(conn, handle, md, data)
    assert event is not None and event.outcome is PoisonOutcome.REQUEUE_FAILED
    assert event.returned_to_queue and names(events)[-1] == "poison.requeue_failed"
    [(_, seen)] = options.hooks.seen
    assert seen.returned_to_queue
    assert len(failures) == 1
    back = conn.get(handle, syncpoint=True)
    assert back is not None and back[0].BackoutCount == BOTHRESH + 1


def test_failure_memory_travels_with_the_move(mq, conn, handle):
    # listener extra: a failed delivery is remembered (the caller backs it out) and the
    # move at BOTHRESH carries mqjms_failure_* properties (a message that expires: the
    # backout is made, as the get after it discards the message should it expire)
    flow = ListenerPoisonFlow(PoisonHandler(), Options(), FailureMemory())
    md, data = got_with(conn, handle, BOTHRESH - 1, Expiry=600)
    failure, event = flow.failed(conn, handle, md, data, ValueError("bad order"))
    assert event is None and failure.exception_type == "builtins.ValueError"
    conn.backout()
    md, data = conn.get(handle, syncpoint=True) or (None, b"")
    assert md is not None and md.BackoutCount == BOTHRESH
    assert flow.screen(conn, handle, md, data) is not None
    assert _failure_properties(conn)["mqjms_failure_message"] == "bad order"


def test_the_failure_that_brings_a_message_to_bothresh_moves_it_with_the_next_step(
    mq, conn, handle
):
    # seed 002: the backout of this failure would bring BackoutCount to BOTHRESH, so the
    # message would come straight back only to be moved to BOQNAME: the move is returned
    # pending instead (put and committed with the caller's next step), with the MQMD the
    # backout would have given it and the failure's properties
    flow = ListenerPoisonFlow(PoisonHandler(), Options(), FailureMemory())
    md, data = got_with(conn, handle, BOTHRESH - 1)
    assert flow.screen(conn, handle, md, data) is None  # delivered: BOTHRESH now cached
    failure, pending = flow.failed(conn, handle, md, data, ValueError("bad order"))
    assert isinstance(pending, PendingMove)
    assert pending.put.queue == BOQ and pending.event.outcome is PoisonOutcome.MOVED
    assert pending.event.md.BackoutCount == BOTHRESH and pending.event.failure is failure
    put_and_commit(conn, [pending.put])
    assert flow.moved(pending).destination == BOQ
    assert mq.queue_depth(IN) == 0
    assert _failure_properties(conn)["mqjms_failure_message"] == "bad order"
    assert len(flow.failures) == 0  # moved: nothing left to remember


def test_only_the_failure_before_the_move_formats_its_traceback(mq, conn, handle):
    # The move logs the last failure's traceback once; a failure whose backout leaves the
    # message below BOTHRESH is retried, so its traceback is never logged: not formatted.
    # (Once BOTHRESH is known: a failure never inquires it, seed 002 inquires when a
    # message with BackoutCount > 0 is first seen; until then a traceback is kept.)
    handler = PoisonHandler()
    flow = ListenerPoisonFlow(handler, Options(), FailureMemory())
    md, data = got_with(conn, handle, BOTHRESH - 2)
    unknown, _ = flow.failed(conn, handle, md, data, ValueError("before any inquiry"))
    assert handler.cache.inquiries == 0 and unknown.traceback
    handler.cache.get(conn, handle.resolved_name)  # as the get of a redelivered message does
    early, _ = flow.failed(conn, handle, md, data, ValueError("first"))
    assert early.traceback == "" and early.message == "first"
    md.BackoutCount = BOTHRESH - 1
    try:
        raise ValueError("last")
    except ValueError as exc:
        last, _ = flow.failed(conn, handle, md, data, exc)
    assert "Traceback (most recent call last)" in last.traceback


def test_move_on_requeues_at_once_below_the_threshold(mq, conn, handle, events):
    # listener extra: a move_on exception skips the remaining attempts: requeued now,
    # committed, with the failure recorded (BackoutCount 0 < BOTHRESH)
    options = Options(move_on=(KeyError,))
    flow = ListenerPoisonFlow(PoisonHandler(), options, FailureMemory())
    md, data = got_with(conn, handle, 0)
    assert flow.retry_delay(md, KeyError("x")) == 0.0
    _, event = flow.failed(conn, handle, md, data, KeyError("no such sku"))
    assert event is not None and event.outcome is PoisonOutcome.MOVED
    assert names(events) == ["poison.moved"]
    assert [e["event"] for e in events if e["event"] == "message.moving_on"]
    assert _failure_properties(conn)["mqjms_failure_exception"] == "builtins.KeyError"


def test_retry_delay_is_the_listeners_and_a_broken_strategy_waits_none(mq, conn, handle, events):
    # listener extra: retry_wait delays the rollback; a wait strategy that raises must
    # not lose the rollback (no delay, logged)
    md = MQMD()
    assert (
        ListenerPoisonFlow(PoisonHandler(), Options(wait=0.25), FailureMemory()).retry_delay(
            md, ValueError()
        )
        == 0.25
    )

    def broken(md: MQMD) -> float:
        raise RuntimeError("bug")

    flow = ListenerPoisonFlow(PoisonHandler(), Options(wait=broken), FailureMemory())
    assert flow.retry_delay(md, ValueError()) == 0.0
    assert [e for e in events if e["event"] == "listener.retry_wait_failed"]


def test_committed_delivery_forgets_the_failure(mq, conn, handle):
    failures = FailureMemory()
    flow = ListenerPoisonFlow(PoisonHandler(), Options(), failures)
    md, data = got_with(conn, handle, 0)
    flow.failed(conn, handle, md, data, ValueError("once"))
    assert len(failures) == 1
    flow.committed(md)
    assert len(failures) == 0


def test_a_failing_hook_is_logged_and_the_others_still_run(mq, conn, handle, events):
    options = Options()

    def broken(event: PoisonEvent) -> None:
        raise RuntimeError("hook bug")

    flow = ListenerPoisonFlow(PoisonHandler(hooks=[broken]), options, FailureMemory())
    md, data = got_with(conn, handle, BOTHRESH)
    assert flow.screen(conn, handle, md, data) is not None
    assert options.hooks.names == ["on_poison"]
    assert "poison.hook_failed" in names(events)


class CommitFails:
    """A real connection whose MQCMIT fails (as a broken connection's would)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def commit(self) -> None:
        raise MQError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN)


def test_a_move_whose_commit_fails_is_never_logged_as_moved(mq, conn, handle, events):
    # The Java-interop issue: "the log says poison.moved for a move that is then rolled
    # back". poison.moved and the hooks wait for the commit.
    options = Options()
    flow = ListenerPoisonFlow(PoisonHandler(), options, FailureMemory())
    md, data = got_with(conn, handle, BOTHRESH)
    with pytest.raises(MQError):
        flow.screen(CommitFails(conn), handle, md, data)  # type: ignore[arg-type]
    conn.backout()
    assert "poison.moved" not in names(events) and options.hooks.seen == []
    assert mq.queue_depth(BOQ) == 0 and mq.queue_depth(IN) == 1


# --------------------------------------------------------------------------- STAGED
def test_staged_requeue_is_committed_then_logged_and_hooked(mq, conn, handle, events):
    # seed 002 through staging (the Spark runner): the count staging keeps decides, the
    # move is made in the unit of work that took the message and committed by the flow,
    # with the failure properties; then poison.moved and the hooks
    hooks = Hooks()
    handler = PoisonHandler(hooks=[hooks.hook("handler")])
    flow = StagedPoisonFlow(handler, [hooks.hook("runner"), None])
    assert PoisonHandler.threshold_reached(BOTHRESH, flow.attributes(conn, IN))
    md, data = got_with(conn, handle, 0)  # taken off "staging" in this unit of work
    event = flow.requeue(conn, IN, md.copy(BackoutCount=BOTHRESH), data, _failure())
    assert event.outcome is PoisonOutcome.MOVED and event.style is DeliveryStyle.STAGED
    assert names(events) == ["poison.moved"] and hooks.names == ["handler", "runner"]
    conn.backout()  # nothing left to undo
    assert mq.queue_depth(BOQ) == 1 and mq.queue_depth(IN) == 0
    assert _failure_properties(conn)["mqjms_failure_message"] == "earlier"


def test_staged_requeue_failed_is_backed_out_and_given_back(mq, conn, handle, events):
    # seed 002 asynchronous rule for staged messages: no queue took it -> back out, and the
    # message is made available on its queue again (never lost)
    given_back: list[bool] = []
    flow = StagedPoisonFlow(PoisonHandler())
    md, data = got_with(conn, handle, 0)
    break_every_queue(mq)
    event = flow.requeue(conn, IN, md, data, None, give_back=lambda: given_back.append(True))
    assert event.outcome is PoisonOutcome.REQUEUE_FAILED and event.returned_to_queue
    assert given_back == [True] and names(events)[-1] == "poison.requeue_failed"
    assert mq.queue_depth(IN) == 1


# --------------------------------------------------------------------------- helpers
def _failure() -> mqjms.Failure:
    return mqjms.Failure("builtins.ValueError", "earlier", "tests.listener", IN)


def _failure_properties(conn: Connection) -> dict[str, Any]:
    boq = conn.open(BOQ, C.MQOO_INPUT_AS_Q_DEF)
    got = conn.get(boq, syncpoint=False)
    assert got is not None
    md, data = got
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    folders = [text for header in chain.headers for text in header.folders]
    _, usr = parse_jms_folders(folders)
    return usr
