"""What happens to one message under a listener: commit, rollback, and seed 002's rules
for asynchronous applications (poison requeued outside the unit of work of delivery).

Each test runs on every transport; ``mq.run_until_idle(app)`` runs the worker until every
message is dealt with and says what happened to them."""

from __future__ import annotations

import datetime as dt
from typing import Any

import mqjms
from mqjms.backout import Outcome, PoisonEvent
from mqjms.mq import C, jms, parse_dlh, rfh2
from tests.listeners.helpers import BOQ, IN, named, wait_for


def test_return_commits_and_logs_delivered_and_committed(mq, make_worker, seen, events):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.delivery_count, type(msg).__name__))

    sent = mq.send(IN, "a", "b", "c")
    summary = mq.run_until_idle(app)
    assert summary.committed == 3 and summary.backed_out == 0 and not summary.poison
    assert seen.items == [("a", 1, "TextMessage"), ("b", 1, "TextMessage"), ("c", 1, "TextMessage")]
    assert mq.depth(IN) == 0
    committed = named(events, "message.committed")
    assert [e["msg_id"] for e in committed] == [m.md.MsgId.hex() for m in sent]
    assert all(e["queue"] == IN and e["backout_count"] == 0 for e in committed)
    assert len(named(events, "message.delivered")) == 3
    assert not named(events, "message.backed_out")


def test_raise_rolls_back_with_backout_count_plus_one_and_redelivers(mq, make_worker, seen, events):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.md.BackoutCount, msg.delivery_count, msg.jms_redelivered))
        if msg.delivery_count < 3:
            raise RuntimeError(f"attempt {msg.delivery_count}")

    mq.send(IN, "order")
    summary = mq.run_until_idle(app)
    assert (summary.committed, summary.backed_out, summary.delivered) == (1, 2, 3)
    # BOTHRESH is 3: BackoutCount 0, 1, 2 are below it, so each is delivered (seed 002).
    assert seen.items == [(0, 1, False), (1, 2, True), (2, 3, True)]
    backed = named(events, "message.backed_out")
    assert [e["backout_count"] for e in backed] == [0, 1]
    assert all(e["exception_type"] == "builtins.RuntimeError" for e in backed)
    assert backed[0]["reason"] == "attempt 1" and backed[0]["queue"] == IN
    assert mq.depth(IN) == 0 and mq.depth(BOQ) == 0


def test_threshold_reached_moves_to_boqname_with_the_failure_and_rewritten_md(
    mq, make_worker, seen
):
    """seed 002: 'What happens to a message when it is moved to the backout queue' for a
    message without an RFH2, plus the failure the framework knows (usr properties)."""
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener(IN, on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.md.BackoutCount)
        raise ValueError("bad order 42")

    put = mq.put(
        IN,
        "café".encode("latin-1"),
        Format=C.MQFMT_STRING,
        CodedCharSetId=819,
        Encoding=546,
        Expiry=6000,
        Persistence=C.MQPER_PERSISTENT,
    )
    summary = mq.run_until_idle(app)
    assert summary.destinations() == {BOQ: 1} and summary.poison[0].md.MsgId == put.MsgId
    # seed 002 async: BackoutCount 3 >= BOTHRESH 3 is poison, requeued without delivery.
    assert seen.items == [0, 1, 2]
    assert mq.depth(IN) == 0
    [(md, data)] = mq.browse_raw(BOQ)
    assert md.MsgId == put.MsgId
    # seed 002: no RFH2 -> one is added; MQMD Format MQHRF2, CCSID 1208, Encoding 273
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert md.CodedCharSetId == 1208
    assert md.Encoding == 273
    assert md.BackoutCount == 0  # seed 002: reset to zero
    assert 0 < md.Expiry <= 6000  # seed 002: the remaining expiry, not a fresh one
    chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    [header] = chain.headers
    # seed 002: the original CCSID and Encoding are copied into the RFH2
    assert (header.CodedCharSetId, header.Encoding, header.Format) == (819, 546, C.MQFMT_STRING)
    assert chain.body == "café".encode("latin-1")
    _, props = jms.parse_jms_folders(chain.folders)
    assert props["mqjms_failure_exception"] == "builtins.ValueError"
    assert props["mqjms_failure_message"] == "bad order 42"
    assert props["mqjms_failure_listener"].endswith("handle")
    assert props["mqjms_failure_queue"] == IN
    assert dt.datetime.fromisoformat(str(props["mqjms_failure_time"])).tzinfo is not None
    [event] = poison
    assert event.outcome is Outcome.MOVED and event.destination == BOQ
    assert event.failure is not None and event.failure.message == "bad order 42"
    assert app.stats.moved == 1 and app.stats.backed_out == 3


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str exploded")


def test_an_exception_that_cannot_be_printed_is_still_the_listeners_failure(mq, make_worker):
    # a listener's exception whose __str__ raises made the worker's own handling fail: the
    # attempts were logged as worker errors and the move carried no mqjms_failure_* at all
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener(IN, on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        raise Unprintable()

    mq.put(IN, "x", Format=C.MQFMT_STRING)
    summary = mq.run_until_idle(app)
    assert summary.destinations() == {BOQ: 1}
    [(md, data)] = mq.browse_raw(BOQ)
    _, props = jms.parse_jms_folders(rfh2.parse_chain(data, md.Encoding, 1208, md.Format).folders)
    assert props["mqjms_failure_exception"].endswith("Unprintable")
    assert props["mqjms_failure_message"] == "<unprintable Unprintable>"
    [event] = poison
    assert event.failure is not None and "Unprintable" in event.failure.traceback


def test_jms_message_keeps_its_rfh2_and_properties_on_the_backout_queue(mq, make_worker):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        raise KeyError("orderId")

    mq.send(IN, "payload", properties={"orderId": 7}, time_to_live=600_000)
    assert mq.run_until_idle(app).moved == 1
    [moved] = mq.browse(BOQ)
    md = moved.md
    assert md is not None and isinstance(moved, mqjms.TextMessage) and moved.body == "payload"
    assert moved.properties["orderId"] == 7
    assert moved.properties["mqjms_failure_exception"] == "builtins.KeyError"
    assert md.BackoutCount == 0 and 0 < md.Expiry <= 6000


def test_bothresh_zero_redelivers_again_and_again(mq, make_worker, seen, events):
    # seed 002: "If the BOTHRESH attribute is left at its default value of 0, then poison
    # message handling is disabled ... any poison messages are put back to the input queue."
    mq.define_queue("APP.NOTHRESH", BOTHRESH=0, BOQNAME=BOQ)
    app = make_worker()

    @app.listener("APP.NOTHRESH", concurrency=2)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.md.BackoutCount)
        if msg.md.BackoutCount < 8:
            raise RuntimeError("not yet")

    mq.send("APP.NOTHRESH", "x")
    assert mq.run_until_idle(app).committed == 1
    assert seen.items == list(range(9))
    assert mq.depth(BOQ) == 0 and mq.depth("APP.NOTHRESH") == 0
    # said once (not per consumer or attempt): a message that always fails loops for ever
    [warning] = named(events, "backout.threshold_zero")
    assert warning["queue"] == "APP.NOTHRESH" and "BOTHRESH" in warning["detail"]


def test_attributes_are_inquired_once_a_message_comes_back_not_when_it_fails(mq, make_worker):
    # seed 002: "IBM MQ classes for JMS query the BOTHRESH and BOQNAME attributes for the
    # queue the first time they detect a message that has a BackoutCount greater than
    # zero". A failure at BackoutCount 0 is no such message: its backout comes first, the
    # inquiry when the message is got again with BackoutCount 1.
    calls: list[str] = []
    app = make_worker()
    connect = app.connector

    class Recording:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def inquire(self, queue: Any, selectors: Any) -> Any:
            if C.MQIA_BACKOUT_THRESHOLD in selectors:
                calls.append("MQINQ(BOTHRESH)")
            return self._conn.inquire(queue, selectors)

        def backout(self) -> None:
            calls.append("MQBACK")
            self._conn.backout()

        def backout_and_get(self, handle: Any) -> Any:
            calls.append("MQBACK")
            return self._conn.backout_and_get(handle)

    app.connector = lambda url, appl: Recording(connect(url, appl))
    counts: list[int] = []

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        counts.append(msg.md.BackoutCount)
        if msg.md.BackoutCount == 0:
            raise RuntimeError("first delivery fails")

    mq.send(IN, "once")
    assert mq.run_until_idle(app).committed == 1
    assert counts == [0, 1]
    assert calls == ["MQBACK", "MQINQ(BOTHRESH)"]


def test_blank_boqname_dead_letters_with_an_mqdlh(mq, make_worker):
    # seed 002: BOTHRESH > 0 and BOQNAME not set, no MQRO_DISCARD_MSG -> dead-letter queue
    mq.define_queue("APP.NOBOQ", BOTHRESH=2)
    dlq = mq.dead_letter_queue
    app = make_worker()
    poison: list[PoisonEvent] = []
    app.poison_hooks.append(poison.append)

    @app.listener("APP.NOBOQ")
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("always")

    put = mq.put("APP.NOBOQ", b"raw", Format=C.MQFMT_STRING, Persistence=1)
    summary = mq.run_until_idle(app)
    assert summary.destinations() == {dlq: 1} and summary.poison == tuple(poison)
    [(md, data)] = mq.browse_raw(dlq)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER and md.MsgId == put.MsgId
    dlh, body = parse_dlh(data, md.Encoding)
    assert dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED == 2362
    assert dlh.DestQName == "APP.NOBOQ" and dlh.DestQMgrName == mq.qmgr_name
    assert dlh.Format == C.MQFMT_STRING and body == b"raw"
    assert poison[0].outcome is Outcome.DEAD_LETTERED and poison[0].destination == dlq
    assert app.stats.dead_lettered == 1 and mq.depth("APP.NOBOQ") == 0


def test_backout_queue_put_failing_falls_back_to_the_dead_letter_queue(mq, make_worker):
    # seed 002: "If the message cannot be put to the backout queue, then it is either moved
    # to the queue manager's dead letter queue or discarded"
    mq.alter_queue(BOQ, PUT="DISABLED")
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("always")

    mq.send(IN, "x")
    assert mq.run_until_idle(app).destinations() == {mq.dead_letter_queue: 1}
    [(md, data)] = mq.browse_raw(mq.dead_letter_queue)
    dlh, _ = parse_dlh(data, md.Encoding)
    assert dlh.Reason == C.MQRC_PUT_INHIBITED


def test_dead_letter_put_failing_returns_the_message_to_the_input_queue(mq, make_worker, seen):
    # seed 002 async: "If the attempt to put the message to the dead letter queue fails for
    # some reason, the IBM MQ classes for JMS returns the message to the input queue."
    mq.define_queue("APP.NOBOQ", BOTHRESH=2)
    dlq = mq.define_queue("APP.DEAD", PUT="DISABLED")
    mq.alter_qmgr(DEADQ=dlq)
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener("APP.NOBOQ", on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.md.BackoutCount)
        raise RuntimeError("always")

    put = mq.put("APP.NOBOQ", b"raw", Format=C.MQFMT_STRING, Persistence=1)
    with app:
        wait_for(lambda: len(poison) >= 2, what="two failed requeues")
        assert all(e.outcome is Outcome.REQUEUE_FAILED for e in poison)
        assert poison[0].reason == C.MQRC_PUT_INHIBITED
        back: list[Any] = []  # the browse that saw it: the worker gets it again at once
        wait_for(
            lambda: back.extend(mq.browse_raw("APP.NOBOQ")) or back,
            what="the message back on the input queue",
        )
        [(md, _)] = back
        assert md.MsgId == put.MsgId and md.BackoutCount >= 2
        assert mq.depth(dlq) == 0
        # Once the dead-letter queue takes puts again, the next attempt moves it there.
        mq.alter_queue(dlq, PUT="ENABLED")
        wait_for(lambda: mq.depth(dlq) == 1)
    assert seen.items == [0, 1]  # never delivered again once it was poison
    assert mq.depth("APP.NOBOQ") == 0
    assert poison[-1].outcome is Outcome.DEAD_LETTERED
    assert app.stats.requeue_failed >= 2


def test_discard_msg_report_option_discards(mq, make_worker):
    # seed 002: BOQNAME not set and MQRO_DISCARD_MSG -> the message is discarded
    mq.define_queue("APP.NOBOQ", BOTHRESH=1)
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener("APP.NOBOQ", on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("always")

    mq.put("APP.NOBOQ", b"raw", Report=C.MQRO_DISCARD_MSG, Persistence=1)
    summary = mq.run_until_idle(app)
    assert summary.discarded == 1 and summary.destinations() == {}
    assert poison[0].outcome is Outcome.DISCARDED
    assert mq.depth("APP.NOBOQ") == 0
    assert mq.depth(mq.dead_letter_queue) == 0 and mq.depth(BOQ) == 0


def test_a_discarded_message_asking_for_its_data_back_gets_an_exception_report(mq, make_worker):
    # IBM MQ classes for JMS ("Removing messages from the queue in ASF"): the consumer that
    # discards or dead-letters a poison message also sends the exception report its
    # Report options ask for, Feedback 2362; MQRO_DISCARD_MSG with
    # MQRO_EXCEPTION_WITH_FULL_DATA returns the message to its sender
    mq.define_queue("APP.NOBOQ", BOTHRESH=1)
    mq.define_queue("APP.SENDER")
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener("APP.NOBOQ", on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("always")

    report = C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA
    put = mq.put("APP.NOBOQ", b"raw", Report=report, ReplyToQ="APP.SENDER", Persistence=1)
    assert mq.run_until_idle(app).discarded == 1
    assert poison[0].outcome is Outcome.DISCARDED and poison[0].report_queue == "APP.SENDER"
    [(md, data)] = mq.browse_raw("APP.SENDER")
    assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQRC_BACKOUT_THRESHOLD_REACHED
    assert data == b"raw" and md.CorrelId == put.MsgId
    assert mq.depth("APP.NOBOQ") == 0 and mq.depth(mq.dead_letter_queue) == 0


def test_a_message_whose_rfh2_does_not_parse_is_delivered_as_bytes(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((type(msg).__name__, msg.body))

    mq.put(IN, b"RFH not really", Format=C.MQFMT_RF_HEADER_2)
    assert mq.run_until_idle(app).committed == 1
    assert seen.items == [("BytesMessage", b"RFH not really")]


def test_an_alias_listener_uses_the_base_queue_attributes(mq, make_worker, seen):
    # seed 002: for point-to-point messaging BOTHRESH/BOQNAME come from the underlying
    # local queue, also when the application consumes from an alias queue.
    mq.define_alias("APP.ALIAS", IN)
    app = make_worker()

    @app.listener("APP.ALIAS")
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.md.BackoutCount)
        raise RuntimeError("always")

    mq.send(IN, "x")
    assert mq.run_until_idle(app).destinations() == {BOQ: 1}
    assert seen.items == [0, 1, 2]  # IN's BOTHRESH 3
    [moved] = mq.browse(BOQ)
    assert moved.properties["mqjms_failure_queue"] == "APP.ALIAS"
