"""JMS message listeners (``consumer.set_message_listener``): asynchronous delivery on the
session's thread, and seed 002's "Processing poison messages for asynchronous
applications" for them."""

from __future__ import annotations

import queue
import threading
from typing import Any

import pytest

import mqjms
from mqjms.mq import MQMD, C, MQError
from tests.support.mqenv import wait_until

Q, BOQ, DLQ = "ML.IN", "ML.BACKOUT", "ML.DEAD"
BOTHRESH = 3


class Collected:
    """A listener that records each message's body and BackoutCount."""

    def __init__(self, fail: object = None) -> None:
        self.seen: queue.Queue[tuple[Any, int]] = queue.Queue()
        self.fail = fail  # a body the listener raises for

    def __call__(self, message: mqjms.Message) -> None:
        self.seen.put((message.body, message.delivery_count - 1))
        if message.body == self.fail:
            raise RuntimeError(f"cannot process {message.body!r}")

    def next(self, timeout: float = 10.0) -> tuple[Any, int]:
        return self.seen.get(timeout=timeout)

    def bodies(self, n: int) -> list[Any]:
        return [self.next()[0] for _ in range(n)]


def test_a_listener_gets_every_message_in_order_and_auto_acknowledge_commits(env: Any) -> None:
    env.define_queue(Q)
    for i in range(5):
        env.send(Q, f"m{i}")
    listener = Collected()
    session = env.connect().session()
    consumer = session.consumer(Q)
    consumer.set_message_listener(listener)
    assert listener.bodies(5) == [f"m{i}" for i in range(5)]
    assert consumer.message_listener is listener
    assert wait_until(lambda: env.depth(Q) == 0)
    env.send(Q, "later")  # delivered as it arrives
    assert listener.next()[0] == "later"


@pytest.mark.parametrize("method", ["on_message", "onMessage"])
def test_a_listener_object_with_on_message(env: Any, method: str) -> None:
    env.define_queue(Q)
    got: queue.Queue[str] = queue.Queue()
    listener = type("L", (), {method: lambda self, message: got.put(message.body)})()
    env.connect().session().consumer(Q).set_message_listener(listener)
    env.send(Q, "hello")
    assert got.get(timeout=10) == "hello"


def test_something_that_is_not_a_listener_is_refused(env: Any) -> None:
    env.define_queue(Q)
    consumer = env.connect().session().consumer(Q)
    with pytest.raises(mqjms.JMSException, match="message listener"):
        consumer.set_message_listener(42)


def test_receive_is_refused_while_the_session_has_a_listener(env: Any) -> None:
    env.define_queue(Q)
    env.define_queue("ML.OTHER")
    session = env.connect().session()
    consumer = session.consumer(Q)
    other = session.consumer("ML.OTHER")
    consumer.set_message_listener(Collected())
    with pytest.raises(mqjms.IllegalStateException, match="message listener"):
        other.receive_no_wait()
    consumer.set_message_listener(None)
    env.send("ML.OTHER", "sync")
    message = other.receive(timeout=5)
    assert message is not None and message.body == "sync"


def test_a_failing_listener_is_redelivered_then_the_message_moves_to_the_backout_queue(
    env: Any,
) -> None:
    # seed 002: a message that keeps failing reaches BOTHRESH and is requeued to BOQNAME,
    # never delivered again; the messages behind it are delivered.
    env.define_queue(BOQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.send(Q, "bad")
    env.send(Q, "good")
    listener = Collected(fail="bad")
    env.connect().session().consumer(Q).set_message_listener(listener)
    # (on a STOMP broker a backed-out message goes to the back of the queue: any order)
    seen = sorted(listener.next() for _ in range(BOTHRESH + 1))
    assert seen == [*(("bad", n) for n in range(BOTHRESH)), ("good", 0)]
    assert wait_until(lambda: env.depth(BOQ) == 1 and env.depth(Q) == 0)
    md, _ = env.browse_one(BOQ)
    assert md.BackoutCount == 0  # seed 002: reset on the move
    assert listener.seen.empty()


def test_a_poison_message_is_requeued_before_delivery_and_never_delivered(env: Any) -> None:
    # seed 002 for asynchronous applications: the requeue happens outside any unit of
    # work of delivery, so the listener never sees the poison message.
    env.define_queue(BOQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.send(Q, "poison")
    env.back_out(Q, BOTHRESH)
    env.send(Q, "fine")
    listener = Collected()
    env.connect().session(transacted=True).consumer(Q).set_message_listener(listener)
    assert listener.next()[0] == "fine"
    assert wait_until(lambda: env.depth(BOQ) == 1)
    assert listener.seen.empty()


def test_dead_letter_failure_returns_the_message_to_the_input_queue(env: Any) -> None:
    # seed 002 for asynchronous applications: "If the attempt to put the message to the
    # dead letter queue fails for some reason, the IBM MQ classes for JMS returns the
    # message to the input queue" (a synchronous non-transacted receiver discards it).
    env.define_queue(DLQ, PUT="DISABLED")
    env.alter_qmgr(DEADQ=DLQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH)  # no BOQNAME: the dead-letter queue is tried
    env.send(Q, "poison")
    env.back_out(Q, BOTHRESH)
    listener = Collected()
    connection = env.connect()
    session = connection.session()
    session.consumer(Q).set_message_listener(listener)
    # it is screened (and returned) at least twice: its BackoutCount went up (a browse
    # while the delivery thread holds it sees nothing)
    assert wait_until(
        lambda: any(md.BackoutCount >= BOTHRESH + 2 for md, _ in env.browse(Q)), timeout=10
    )
    session.close()
    assert env.depth(Q) == 1
    assert listener.seen.empty()


def test_a_transacted_listener_commits_and_a_raise_rolls_back(env: Any) -> None:
    env.define_queue(Q, BOTHRESH=0)
    env.define_queue("ML.REPLY")
    connection = env.connect()
    session = connection.session(transacted=True)
    replies = session.producer("ML.REPLY")
    seen: queue.Queue[tuple[str, int]] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        seen.put((message.body, message.delivery_count))
        replies.send(f"re {message.body}")
        if message.body == "fail once" and message.delivery_count == 1:
            raise ValueError("first time")  # the reply is rolled back with it
        session.commit()

    session.consumer(Q).set_message_listener(listener)
    env.send(Q, "fail once")
    assert seen.get(timeout=10) == ("fail once", 1)
    assert seen.get(timeout=10) == ("fail once", 2)
    assert wait_until(lambda: env.depth(Q) == 0 and env.depth("ML.REPLY") == 1)


def test_client_acknowledge_listener(env: Any) -> None:
    env.define_queue(Q)
    connection = env.connect()
    session = connection.session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    seen: queue.Queue[str] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        seen.put(message.body)
        if message.body == "ack":
            message.acknowledge()

    session.consumer(Q).set_message_listener(listener)
    env.send(Q, "kept")
    env.send(Q, "ack")  # acknowledges both
    env.send(Q, "unacknowledged")
    assert [seen.get(timeout=10) for _ in range(3)] == ["kept", "ack", "unacknowledged"]
    session.close()  # the unacknowledged one goes back
    assert env.depth(Q) == 1
    md, _ = env.browse_one(Q)
    assert md.BackoutCount == 1


def test_connection_stop_pauses_delivery_and_start_resumes_it(env: Any) -> None:
    env.define_queue(Q)
    listener = Collected()
    connection = env.connect()
    connection.session().consumer(Q).set_message_listener(listener)
    env.send(Q, "first")
    assert listener.next()[0] == "first"
    connection.stop()
    assert connection.stopped
    env.send(Q, "while stopped")
    with pytest.raises(queue.Empty):
        listener.next(timeout=0.5)
    assert env.depth(Q) == 1
    connection.start()
    assert listener.next()[0] == "while stopped"


def test_a_listener_cannot_stop_its_own_connection(env: Any) -> None:
    env.define_queue(Q)
    connection = env.connect()
    errors: queue.Queue[BaseException] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        try:
            connection.stop()
        except mqjms.IllegalStateException as exc:
            errors.put(exc)

    connection.session().consumer(Q).set_message_listener(listener)
    env.send(Q, "x")
    assert "own connection" in str(errors.get(timeout=10))


def test_close_waits_for_the_running_listener_and_stops_delivery(env: Any) -> None:
    env.define_queue(Q)
    running, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def listener(message: mqjms.Message) -> None:
        calls.append(message.body)
        running.set()
        release.wait(10)

    session = env.connect().session()
    consumer = session.consumer(Q)
    consumer.set_message_listener(listener)
    env.send(Q, "slow")
    assert running.wait(10)
    closer = threading.Thread(target=consumer.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive()  # waits for the listener (JMS)
    release.set()
    closer.join(10)
    assert not closer.is_alive()
    env.send(Q, "after close")
    assert wait_until(lambda: env.depth(Q) == 1)
    assert calls == ["slow"]


def test_a_listener_may_close_its_own_session(env: Any) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    closed = threading.Event()

    def listener(message: mqjms.Message) -> None:
        session.close()
        closed.set()

    session.consumer(Q).set_message_listener(listener)
    env.send(Q, "bye")
    assert closed.wait(10)
    assert wait_until(lambda: env.depth(Q) == 1)  # the close backed it out


def test_undecodable_bytes_are_delivered_not_lost(env: Any) -> None:
    env.define_queue(Q)
    env.put_raw(Q, b"\xff\xfe not an RFH2", MQMD(Format=C.MQFMT_RF_HEADER_2))
    got: queue.Queue[mqjms.Message] = queue.Queue()
    env.connect().session().consumer(Q).set_message_listener(got.put)
    message = got.get(timeout=10)
    assert isinstance(message, mqjms.BytesMessage)
    assert wait_until(lambda: env.depth(Q) == 0)


@pytest.mark.requires("pubsub", "subscription_selectors")
def test_a_topic_subscriber_with_a_selector_delivers_to_its_listener(env: Any) -> None:
    connection = env.connect()
    session = connection.session()
    subscriber = session.consumer("topic://ml/prices", "region = 'eu'")
    got: queue.Queue[str] = queue.Queue()
    subscriber.set_message_listener(lambda message: got.put(message.body))
    with connection.session() as publishing:
        producer = publishing.producer("topic://ml/prices")
        producer.send(mqjms.TextMessage("us", properties={"region": "us"}))
        producer.send(mqjms.TextMessage("eu", properties={"region": "eu"}))
    assert got.get(timeout=10) == "eu"
    subscriber.close()  # stops the delivery, then ends the subscription
    assert subscriber.message_listener is None
    with pytest.raises(mqjms.IllegalStateException):
        subscriber.set_message_listener(got.put)


def test_a_failing_get_is_reported_to_the_exception_listener_and_delivery_goes_on(
    env: Any,
) -> None:
    env.define_queue(Q)
    connection = env.connect()
    errors: queue.Queue[Exception] = queue.Queue()
    connection.set_exception_listener(errors.put)
    listener = Collected()
    connection.session().consumer(Q).set_message_listener(listener)
    env.alter_queue(Q, GET="DISABLED")
    error = errors.get(timeout=10)
    assert getattr(error, "reason", None) == C.MQRC_GET_INHIBITED  # 2016
    env.alter_queue(Q, GET="ENABLED")
    env.send(Q, "after")
    assert listener.next()[0] == "after"
    assert errors.empty()  # one report per run of failures


def _hold_then(env: Any, session: Any, *, poison_first: bool = False) -> queue.Queue[str]:
    """A transacted listener that leaves "hold" in its unit of work, commits on "commit"
    and rolls back on "rollback": the poison message arrives while "hold" is pending."""
    seen: queue.Queue[str] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        seen.put(message.body)
        if message.body == "commit":
            session.commit()
        elif message.body == "rollback":
            if message.delivery_count == 1:
                session.rollback()
            else:
                session.commit()

    session.consumer(Q).set_message_listener(listener)
    return seen


@pytest.mark.requires("browse_at_once")  # the look before the get
def test_a_poison_message_behind_pending_work_is_moved_outside_that_unit_of_work(
    env: Any,
) -> None:
    # seed 002 for asynchronous applications: the requeue "takes place outside of any unit
    # of work associated with actual message delivery": rolling back the listener's
    # transaction does not bring the poison message back.
    env.define_queue(BOQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.send(Q, "hold")
    connection = env.connect()
    session = connection.session(transacted=True)
    seen = _hold_then(env, session)
    assert seen.get(timeout=10) == "hold"
    connection.stop()  # "hold" stays in the listener's unit of work meanwhile
    env.send(Q, "poison")
    env.back_out(Q, BOTHRESH)  # the raw get takes the only available message: "poison"
    connection.start()
    assert wait_until(lambda: env.depth(BOQ) == 1)
    env.send(Q, "rollback")
    assert seen.get(timeout=10) == "rollback"
    assert seen.get(timeout=10) == "hold"  # rolled back and redelivered
    assert env.depth(BOQ) == 1  # the move was not part of the rolled-back work
    session.close()


@pytest.mark.requires("browse_at_once")  # the look before the get
def test_a_poison_message_behind_pending_work_that_no_queue_takes_returns_to_the_queue(
    env: Any,
) -> None:
    # seed 002 for asynchronous applications: when the dead-letter put fails the message
    # is returned to the input queue, even when the listener commits its other work.
    env.define_queue(DLQ, PUT="DISABLED")
    env.alter_qmgr(DEADQ=DLQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH)
    env.send(Q, "hold")
    connection = env.connect()
    session = connection.session(transacted=True)
    seen = _hold_then(env, session)
    assert seen.get(timeout=10) == "hold"
    connection.stop()  # "hold" stays in the listener's unit of work meanwhile
    env.send(Q, "poison")
    env.back_out(Q, BOTHRESH)
    connection.start()
    # returned to the input queue (BackoutCount up), not held in the listener's work
    assert wait_until(
        lambda: any(md.BackoutCount > BOTHRESH for md, _ in env.browse(Q)), timeout=10
    )
    env.alter_queue(DLQ, PUT="ENABLED")  # the next attempt dead-letters it, aside
    assert wait_until(lambda: env.depth(DLQ) == 1)
    env.send(Q, "commit")
    assert seen.get(timeout=10) == "commit"
    assert wait_until(lambda: env.depth(Q) == 0)  # "hold" and "commit" committed
    assert seen.empty()  # the poison message was never delivered


def test_a_close_from_another_thread_lets_the_running_listener_finish_its_work(
    env: Any,
) -> None:
    env.define_queue(Q)
    running, release = threading.Event(), threading.Event()

    def listener(message: mqjms.Message) -> None:
        running.set()
        release.wait(10)

    session = env.connect().session()
    session.consumer(Q).set_message_listener(listener)
    env.send(Q, "handled")
    assert running.wait(10)
    closer = threading.Thread(target=session.close)
    closer.start()
    release.set()
    closer.join(10)
    assert not closer.is_alive()
    assert env.depth(Q) == 0  # AUTO_ACKNOWLEDGE: it returned, so it was committed


def test_a_failure_in_the_poison_path_backs_the_message_out_and_delivery_goes_on(
    env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env.define_queue(Q)
    connection = env.connect()
    errors: queue.Queue[Exception] = queue.Queue()
    connection.set_exception_listener(errors.put)
    session = connection.session()
    handler = session.factory.poison
    real = handler.poison_attributes
    calls = []

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("inquiry broke")
        return real(*args, **kwargs)

    monkeypatch.setattr(handler, "poison_attributes", failing_once)
    listener = Collected()
    env.send(Q, "survivor")
    session.consumer(Q).set_message_listener(listener)
    assert "inquiry broke" in repr(errors.get(timeout=10))
    assert listener.next() == ("survivor", 1)  # backed out once, then delivered


def test_a_listener_raising_system_exit_does_not_end_delivery(env: Any) -> None:
    env.define_queue(Q)
    seen: queue.Queue[str] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        seen.put(message.body)
        if message.body == "exit" and message.delivery_count == 1:
            raise SystemExit(3)

    env.connect().session().consumer(Q).set_message_listener(listener)
    env.send(Q, "exit")
    env.send(Q, "next")
    # (on a STOMP broker a backed-out message goes to the back of the queue: any order)
    assert sorted(seen.get(timeout=10) for _ in range(3)) == ["exit", "exit", "next"]


def test_a_listener_cannot_be_set_while_another_consumer_of_the_session_receives(
    env: Any,
) -> None:
    env.define_queue(Q)
    env.define_queue("ML.OTHER")
    session = env.connect().session()
    receiver, other = session.consumer("ML.OTHER"), session.consumer(Q)
    result: list[object] = []
    thread = threading.Thread(target=lambda: result.append(receiver.receive(timeout=10)))
    thread.start()
    assert wait_until(lambda: receiver.receiving)
    with pytest.raises(mqjms.IllegalStateException, match="receive"):
        other.set_message_listener(Collected())
    env.send("ML.OTHER", "end")
    thread.join(10)
    assert other.message_listener is None


def test_one_failing_queue_of_two_is_reported_once(env: Any) -> None:
    env.define_queue(Q)
    env.define_queue("ML.OTHER")
    connection = env.connect()
    errors: queue.Queue[Exception] = queue.Queue()
    connection.set_exception_listener(errors.put)
    session = connection.session()
    listener = Collected()
    session.consumer(Q).set_message_listener(listener)
    session.consumer("ML.OTHER").set_message_listener(listener)
    env.alter_queue(Q, GET="DISABLED")
    assert getattr(errors.get(timeout=10), "reason", None) == C.MQRC_GET_INHIBITED
    env.send("ML.OTHER", "still delivered")
    assert listener.next()[0] == "still delivered"
    env.send("ML.OTHER", "and again")
    assert listener.next()[0] == "and again"
    assert errors.empty()  # the other queue's gets do not start a new run of failures


def test_a_failing_poison_check_after_the_get_backs_the_message_out(
    env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The BOTHRESH inquiry fails (an MQError) for a message already got: it must go back,
    # not be committed away with the next delivery.
    env.define_queue(BOQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.send(Q, "first")
    env.back_out(Q, 1)  # BackoutCount 1: the screen inquires
    env.send(Q, "second")
    connection = env.connect()
    session = connection.session()
    cache = session.factory.poison.cache
    real, calls = cache.get, []

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise MQError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "inquiry refused")
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "get", failing_once)
    listener = Collected()
    session.consumer(Q).set_message_listener(listener)
    assert sorted(listener.next()[0] for _ in range(2)) == ["first", "second"]


@pytest.mark.requires("browse_at_once")  # the look before the get
def test_a_failing_requeue_aside_returns_the_poison_message_and_spares_the_open_work(
    env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env.define_queue(BOQ)
    env.define_queue(Q, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.send(Q, "hold")
    connection = env.connect()
    session = connection.session(transacted=True)
    handler = session.factory.poison
    real, calls = handler.requeue, []

    def failing_once(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("requeue broke")
        return real(*args, **kwargs)

    monkeypatch.setattr(handler, "requeue", failing_once)
    seen = _hold_then(env, session)
    assert seen.get(timeout=10) == "hold"
    connection.stop()
    env.send(Q, "poison")
    env.back_out(Q, BOTHRESH)
    env.send(Q, "commit")
    connection.start()
    assert seen.get(timeout=10) == "commit"  # "hold" was not rolled back meanwhile
    assert wait_until(lambda: env.depth(BOQ) == 1 and env.depth(Q) == 0)
    assert seen.empty()


@pytest.mark.requires("browse_at_once")  # the look before the get
def test_a_transacted_send_after_a_commit_is_not_ended_by_a_poison_requeue(env: Any) -> None:
    # The listener commits, then sends (its next unit of work); the poison message that
    # follows must be requeued aside, neither committing nor discarding that send.
    env.define_queue(Q, BOTHRESH=1)  # no BOQNAME, no dead-letter queue: nothing takes it
    env.alter_qmgr(DEADQ="")
    env.define_queue("ML.OUT")
    connection = env.connect()
    session = connection.session(transacted=True)
    producer = session.producer("ML.OUT")
    seen: queue.Queue[str] = queue.Queue()

    def listener(message: mqjms.Message) -> None:
        seen.put(message.body)
        if message.body == "first":
            session.commit()
            producer.send("sent after the commit")  # in the next unit of work
        elif message.body == "last":
            session.commit()

    connection.stop()
    env.send(Q, "first")
    session.consumer(Q).set_message_listener(listener)
    connection.start()
    assert seen.get(timeout=10) == "first"
    connection.stop()
    env.send(Q, "poison")
    env.back_out(Q, 1)
    connection.start()
    assert wait_until(
        lambda: any(md.BackoutCount > 1 for md, _ in env.browse(Q)), timeout=10
    )  # returned to its queue at least once
    connection.stop()
    env.send(Q, "last")  # behind the poison message: never reached while it is unplaceable
    connection.start()
    assert seen.empty()
    env.define_queue(DLQ)
    env.alter_qmgr(DEADQ=DLQ)  # now a queue takes it (aside), and "last" comes next
    assert seen.get(timeout=15) == "last"  # its commit ends the send's unit of work
    assert env.depth(DLQ) == 1
    assert wait_until(lambda: env.depth("ML.OUT") == 1)  # the send survived the backouts
