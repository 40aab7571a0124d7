"""``mq.run_until_idle(app)``: the Worker's own listeners run until nothing is left for
them, and the summary says what happened to every message. Idle is told from what each
consumer holds and the queues' depths, never from a pause: a slow listener, a pipeline of
two listeners, concurrency and poison messages all finish before it returns."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import mqjms
from mqjms.backout import PoisonOutcome
from mqjms.mq import C, MQError
from mqjms.testing import NotIdle, TestQueueManager
from mqjms.transport import connect

IN, OUT, BOQ = "ORDERS.IN", "ORDERS.OUT", "ORDERS.BACKOUT"


@pytest.fixture
def orders(mq: TestQueueManager) -> TestQueueManager:
    mq.mqsc(
        f"""
        DEFINE QLOCAL({IN}) BOTHRESH(2) BOQNAME({BOQ})
        DEFINE QLOCAL({BOQ})
        DEFINE QLOCAL({OUT})
        """
    )
    return mq


def test_concurrent_listeners_with_poison_messages_all_finish_and_are_accounted_for(
    orders: TestQueueManager,
) -> None:
    app = mqjms.Worker()
    done: list[str] = []
    lock = threading.Lock()

    @app.listener(IN, concurrency=4)
    def handle(msg: mqjms.Message) -> None:
        if msg.body.startswith("bad"):
            raise ValueError(f"cannot process {msg.body}")
        time.sleep(0.002)
        with lock:
            done.append(msg.body)

    bodies = [f"bad{i}" if i % 10 == 3 else f"good{i}" for i in range(50)]
    bad = {orders.put(IN, body).MsgId for body in bodies if body.startswith("bad")}
    for body in bodies:
        if not body.startswith("bad"):
            orders.put(IN, body)
    summary = orders.run_until_idle(app, timeout=60)
    assert sorted(done) == sorted(b for b in bodies if b.startswith("good"))
    # seed 002: BOTHRESH 2 -> delivered with BackoutCount 0 and 1, then moved to BOQNAME
    assert (summary.committed, summary.backed_out, summary.moved) == (45, 10, 5)
    assert summary.destinations() == {BOQ: 5} and not summary.left
    assert {event.md.MsgId for event in summary.poison} == bad
    assert all(event.outcome is PoisonOutcome.MOVED for event in summary.poison)
    assert orders.depth(IN) == 0 and orders.depth(BOQ) == 5
    assert sorted(m.body for m in orders.browse(BOQ)) == sorted(b for b in bodies if "bad" in b)


def test_it_returns_only_after_a_slow_listener_has_finished_every_message(
    orders: TestQueueManager,
) -> None:
    app = mqjms.Worker(orders.url)
    done: list[str] = []

    @app.listener(IN, concurrency=2)
    def handle(msg: mqjms.Message) -> None:
        time.sleep(0.15)  # longer than the worker's MQGET wait: a pause would miss it
        done.append(msg.body)

    orders.send(IN, *(f"m{i}" for i in range(6)))
    summary = orders.run_until_idle(app)
    assert summary.committed == 6 and sorted(done) == [f"m{i}" for i in range(6)]


def test_a_pipeline_of_two_listeners_is_idle_when_the_second_is_done(
    orders: TestQueueManager,
) -> None:
    app = mqjms.Worker(orders.url)
    shipped: list[str] = []
    factory = mqjms.ConnectionFactory(orders.url)

    @app.listener(IN)
    def accept(msg: mqjms.Message) -> None:
        time.sleep(0.05)
        with factory.connect() as conn:
            conn.session().producer(OUT).send(f"accepted {msg.body}")

    @app.listener(OUT)
    def ship(msg: mqjms.Message) -> None:
        time.sleep(0.05)
        shipped.append(msg.body)

    orders.send(IN, "a", "b", "c")
    summary = orders.run_until_idle(app)
    assert summary.committed == 6
    assert sorted(shipped) == ["accepted a", "accepted b", "accepted c"]


def test_a_message_no_consumer_can_get_is_reported_as_left(orders: TestQueueManager) -> None:
    app = mqjms.Worker(orders.url)
    seen: list[str] = []

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.append(msg.body)

    orders.put(IN, "held elsewhere")
    other = connect(orders.url, "another-application")
    handle_ = other.open(IN, C.MQOO_INPUT_SHARED)
    assert other.get(handle_, syncpoint=True) is not None  # in its unit of work, uncommitted
    orders.put(IN, "free")
    try:
        summary = orders.run_until_idle(app)
    finally:
        other.backout()
        other.disconnect()
    assert seen == ["free"]
    assert summary.committed == 1 and summary.left == {IN: 1}  # CURDEPTH counts it
    assert "left {'ORDERS.IN': 1}" in repr(summary)


def test_a_worker_that_never_gets_idle_times_out_saying_what_is_left(
    orders: TestQueueManager,
) -> None:
    # seed 002: BOTHRESH 0 disables poison handling, so a failing message comes back for ever
    orders.mqsc("DEFINE QLOCAL(ORDERS.LOOP) BOTHRESH(0)")
    app = mqjms.Worker(orders.url)

    @app.listener("ORDERS.LOOP")
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("never works")

    put = orders.put("ORDERS.LOOP", "stuck")
    with pytest.raises(NotIdle) as raised:
        orders.run_until_idle(app, timeout=1.0)
    text = str(raised.value)
    assert "not idle after 1 s" in text and "ORDERS.LOOP holds 1 message" in text
    assert put.MsgId.hex() in text and "BackoutCount" in text and "backed_out" in text
    assert not app.running  # stopped: no thread left behind
    [msg] = orders.browse("ORDERS.LOOP")
    assert msg.md is not None and msg.md.BackoutCount > 0  # rolled back, never lost


def test_a_listener_that_cannot_start_raises_its_error(orders: TestQueueManager) -> None:
    app = mqjms.Worker(orders.url)

    @app.listener("NO.SUCH.QUEUE")
    def handle(msg: mqjms.Message) -> None: ...

    with pytest.raises(MQError) as raised:
        orders.run_until_idle(app)
    assert raised.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert not app.running


def test_it_runs_the_worker_on_this_queue_manager_and_leaves_it_as_it_was(
    orders: TestQueueManager, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "production"
    app = mqjms.Worker(f"embedded://{elsewhere}")
    app.get_wait = 0.7

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None: ...

    orders.put(IN, "x")
    assert orders.run_until_idle(app).committed == 1
    assert not elsewhere.exists()  # never the service's own queue manager
    assert app.get_wait == 0.7 and app.poison_hooks == []
    with app, pytest.raises(RuntimeError, match="stop it first"):
        orders.run_until_idle(app)


def test_each_summary_counts_its_own_run(orders: TestQueueManager) -> None:
    app = mqjms.Worker(orders.url)

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None: ...

    orders.send(IN, "1", "2")
    assert orders.run_until_idle(app).committed == 2
    orders.send(IN, "3")
    second = orders.run_until_idle(app)
    assert second.committed == 1 and app.stats.committed == 3
    assert repr(second) == "RunSummary(delivered=1, committed=1)"


def test_dead_lettered_and_discarded_poison_says_where_it_went(orders: TestQueueManager) -> None:
    # seed 002: BOQNAME blank -> the dead-letter queue, unless MQRO_DISCARD_MSG discards it
    orders.mqsc("DEFINE QLOCAL(ORDERS.PLAIN) BOTHRESH(1)")
    app = mqjms.Worker(orders.url)

    @app.listener("ORDERS.PLAIN")
    def handle(msg: mqjms.Message) -> None:
        raise ValueError("no")

    orders.put("ORDERS.PLAIN", b"to the dlq")
    orders.put("ORDERS.PLAIN", b"gone", Report=C.MQRO_DISCARD_MSG)
    summary = orders.run_until_idle(app)
    assert (summary.dead_lettered, summary.discarded) == (1, 1)
    assert summary.destinations() == {orders.dead_letter_queue: 1}
    assert [e.outcome for e in summary.poison] == [
        PoisonOutcome.DEAD_LETTERED,
        PoisonOutcome.DISCARDED,
    ]


def test_a_consumer_waiting_for_its_turn_holds_nothing(orders: TestQueueManager) -> None:
    # After a failed attempt the queue is serial (suspects run alone): consumers get in
    # turns, and one that finished its message may wait for a turn without another get.
    # It holds nothing meanwhile, so the run is idle once the queue is drained.
    app = mqjms.Worker(orders.url)

    class Invalid(ValueError):
        pass

    @app.listener(IN, concurrency=2, move_on=Invalid)
    def handle(msg: mqjms.Message) -> None:
        if msg.body == "invalid":
            raise Invalid("never")
        if msg.body == "flaky" and msg.delivery_count == 1:
            raise RuntimeError("once")

    for _ in range(4):  # which consumer waits for its turn is up to the scheduler
        orders.send(IN, "good", "invalid", "flaky", "last")
        summary = orders.run_until_idle(app)
        assert (summary.committed, summary.moved, summary.backed_out) == (3, 1, 1)


def test_a_message_published_through_the_harness_names_its_topic(tmp_path) -> None:
    # TestQueueManager.publish of a Message wrote jms.Dst as queue:///<topic string>
    from mqjms.jms.message import make_message
    from mqjms.testing import TestQueueManager

    mq = TestQueueManager(f"embedded://{tmp_path}/qm")
    with mqjms.ConnectionFactory(mq.url).connect() as connection:
        session = connection.session()
        consumer = session.consumer(session.topic("harness/prices"))
        mq.publish("harness/prices", make_message("EUR 1.08", None))
        message = consumer.receive(timeout=5.0)
    assert message is not None and message.jms_destination == "topic://harness/prices"
