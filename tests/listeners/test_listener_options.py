"""Listener options: move_on, retry_wait, async def, concurrency, hooks, transacted=False,
and how registration errors read."""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

import pytest
import tenacity

import mqjms
from mqjms.backout import Outcome, PoisonEvent
from mqjms.mq import C, MQError
from tests.listeners.helpers import BOQ, IN, named


class Unprocessable(Exception):
    pass


# --------------------------------------------------------------------------- move_on
def test_move_on_exception_goes_straight_to_the_backout_queue(mq, make_worker, seen, events):
    app = make_worker()
    poison: list[PoisonEvent] = []

    @app.listener(IN, move_on=(Unprocessable,), on_poison=poison.append)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)
        if msg.body == "bad":
            raise Unprocessable("schema mismatch")
        if msg.body == "flaky" and msg.delivery_count == 1:
            raise RuntimeError("try again")  # not in move_on: rolled back as usual

    mq.send(IN, "bad", "flaky", "good")
    summary = mq.run_until_idle(app)
    assert (summary.committed, summary.moved, summary.backed_out) == (2, 1, 1)
    # "bad" delivered once only (where the rolled-back "flaky" comes back depends on the
    # transport: in its place on MQ, at the back of the queue on a STOMP broker)
    assert sorted(seen.items) == ["bad", "flaky", "flaky", "good"] and seen.items[0] == "bad"
    [moved] = mq.browse(BOQ)
    md = moved.md
    assert md is not None and moved.body == "bad" and md.BackoutCount == 0
    assert moved.properties["mqjms_failure_exception"].endswith("Unprocessable")
    assert moved.properties["mqjms_failure_message"] == "schema mismatch"
    assert poison[0].outcome is Outcome.MOVED and poison[0].failure is not None
    assert named(events, "message.moving_on")[0]["msg_id"] == md.MsgId.hex()


def test_move_on_with_bothresh_zero_uses_boqname(mq, make_worker):
    mq.define_queue("APP.NOTHRESH", BOTHRESH=0, BOQNAME=BOQ)
    app = make_worker()

    @app.listener("APP.NOTHRESH", move_on=Unprocessable)
    def handle(msg: mqjms.Message) -> None:
        raise Unprocessable("no")

    mq.send("APP.NOTHRESH", "x")
    assert mq.run_until_idle(app).destinations() == {BOQ: 1}
    assert mq.depth(BOQ) == 1 and mq.depth("APP.NOTHRESH") == 0


def test_move_on_with_bothresh_zero_and_no_boqname_dead_letters(mq, make_worker):
    mq.define_queue("APP.PLAIN")  # BOTHRESH 0, BOQNAME blank: the defaults
    app = make_worker()

    @app.listener("APP.PLAIN", move_on=Unprocessable)
    def handle(msg: mqjms.Message) -> None:
        raise Unprocessable("no")

    mq.send("APP.PLAIN", "x")
    assert mq.run_until_idle(app).destinations() == {mq.dead_letter_queue: 1}
    assert mq.depth(mq.dead_letter_queue) == 1 and mq.depth("APP.PLAIN") == 0


# --------------------------------------------------------------------------- retry_wait
def test_retry_wait_is_asked_with_the_delivery_count_before_each_rollback(mq, make_worker, events):
    order: list[tuple[object, ...]] = []
    lock = threading.Lock()

    def wait(state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        with lock:
            order.append(("wait", state.attempt_number, type(exc).__name__))
        return 0.02

    app = make_worker()

    @app.listener(IN, retry_wait=wait)
    def handle(msg: mqjms.Message) -> None:
        with lock:
            order.append(("delivered", msg.delivery_count))
        if msg.delivery_count < 3:
            raise RuntimeError("later")

    mq.send(IN, "x")
    assert mq.run_until_idle(app).committed == 1
    assert order == [
        ("delivered", 1),
        ("wait", 1, "RuntimeError"),
        ("delivered", 2),
        ("wait", 2, "RuntimeError"),
        ("delivered", 3),
    ]


def test_retry_wait_takes_tenacity_strategies_and_seconds(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN, retry_wait=tenacity.wait_exponential(multiplier=0.01, max=0.05))
    def first(msg: mqjms.Message) -> None:
        seen.add(("first", msg.delivery_count))
        if msg.delivery_count < 3:
            raise RuntimeError("later")

    mq.define_queue("APP.OTHER", BOTHRESH=5)

    @app.listener("APP.OTHER", retry_wait=0.01)
    def second(msg: mqjms.Message) -> None:
        seen.add(("second", msg.delivery_count))
        if msg.delivery_count < 2:
            raise RuntimeError("later")

    mq.send(IN, "x")
    mq.send("APP.OTHER", "y")
    assert mq.run_until_idle(app).committed == 2
    assert sorted(seen.items) == [
        ("first", 1),
        ("first", 2),
        ("first", 3),
        ("second", 1),
        ("second", 2),
    ]


# --------------------------------------------------------------------------- async def
def test_async_listeners_run_on_the_worker_event_loop(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN)
    async def handle(msg: mqjms.Message) -> None:
        await asyncio.sleep(0)
        seen.add((msg.body, msg.delivery_count, threading.current_thread().name))
        if msg.body == "bad" and msg.delivery_count == 1:
            raise ValueError("async failure")

    mq.send(IN, "good", "bad")
    summary = mq.run_until_idle(app)
    assert (summary.committed, summary.backed_out) == (2, 1)
    assert [(b, n) for b, n, _ in seen.items] == [("good", 1), ("bad", 1), ("bad", 2)]
    assert {t for _, _, t in seen.items} == {"mqjms-event-loop"}


def test_async_listeners_with_concurrency_overlap_on_one_loop(mq, make_worker, seen):
    app = make_worker()
    both = asyncio.Event()
    running: list[str] = []

    @app.listener(IN, concurrency=2)
    async def handle(msg: mqjms.Message) -> None:
        running.append(msg.body)
        if len(running) == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 5.0)  # only returns when both run at once
        seen.add(msg.body)

    mq.send(IN, "a", "b")
    assert mq.run_until_idle(app).committed == 2
    assert sorted(seen.items) == ["a", "b"]


# --------------------------------------------------------------------------- concurrency
def test_concurrency_four_processes_every_message_exactly_once(mq, make_worker, seen):
    app = make_worker()
    bodies = [f"m{i:03d}" for i in range(200)]

    @app.listener(IN, concurrency=4)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, threading.current_thread().name))
        threading.Event().wait(0.001)

    mq.send(IN, *bodies, delivery_mode=mqjms.NON_PERSISTENT)
    summary = mq.run_until_idle(app, timeout=60)
    assert (summary.committed, summary.backed_out) == (200, 0)
    got = [body for body, _ in seen.items]
    assert sorted(got) == bodies and len(got) == len(set(got))
    assert len({thread for _, thread in seen.items}) >= 2
    assert mq.depth(IN) == 0


@pytest.mark.embedded_only(
    "IPPROCS counts open input handles; a STOMP consumer's subscription exists only "
    "while it gets (docs/stomp.md), so the count there says nothing about connections"
)
def test_each_concurrent_consumer_opens_the_queue_on_a_connection_of_its_own(mq, make_worker):
    app = make_worker()

    @app.listener(IN, concurrency=4)
    def handle(msg: mqjms.Message) -> None: ...

    with app:
        # each consumer has its own connection: four input handles on the queue
        assert mq.queue_manager.display_queues(IN, attrs=["IPPROCS"])[0]["IPPROCS"] == 4


# --------------------------------------------------------------------------- hooks
def test_poison_hooks_and_lifecycle_hooks(mq, make_worker, events):
    calls: list[str] = []
    worker_wide: list[PoisonEvent] = []

    def broken_hook(event: PoisonEvent) -> None:
        raise RuntimeError("hook bug")

    app = make_worker(poison_hooks=[worker_wide.append, broken_hook])
    app.on_start(lambda: calls.append("start"))
    app.on_stop(lambda: calls.append("stop"))

    def on_poison(event: PoisonEvent) -> None:
        # called after the unit of work: the message is already on the backout queue
        calls.append(f"poison:{event.outcome.value}:{mq.depth(BOQ)}")

    @app.listener(IN, on_poison=on_poison)
    def handle(msg: mqjms.Message) -> None:
        if msg.body == "bad":
            raise RuntimeError("no")

    mq.send(IN, "bad", "good")
    summary = mq.run_until_idle(app)
    assert (summary.moved, summary.committed) == (1, 1)
    assert calls == ["start", "poison:moved:1", "stop"]
    assert [e.outcome for e in worker_wide] == [Outcome.MOVED]
    assert named(events, "poison.hook_failed")  # logged, and processing went on


# --------------------------------------------------------------------------- transacted=False
def test_non_transacted_listener_is_redelivered_when_it_raises(mq, make_worker, seen):
    # JMS 2.0 section 8.7, AUTO_ACKNOWLEDGE: a listener that throws gets the message again
    app = make_worker()

    @app.listener(IN, transacted=False)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.delivery_count))
        if msg.delivery_count == 1:
            raise RuntimeError("once")

    mq.send(IN, "x")
    assert mq.run_until_idle(app).committed == 1
    assert seen.items == [("x", 1), ("x", 2)]
    assert app.listeners[0].transacted is False


# --------------------------------------------------------------------------- registration
def test_registration_errors_name_what_was_wrong(mq, make_worker):
    app = make_worker()

    def fn(msg: mqjms.Message) -> None: ...

    with pytest.raises(ValueError, match="concurrency"):
        app.listener(IN, concurrency=0)(fn)
    with pytest.raises(TypeError, match="move_on"):
        app.listener(IN, move_on=("ValueError",))(fn)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="retry_wait"):
        app.listener(IN, retry_wait="1s")(fn)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="queue name"):
        app.listener(" ")(fn)
    with pytest.raises(ValueError, match="no listeners"):
        app.start()
    assert app.listener("queue:///APP.IN")(fn) is fn  # returned unchanged; URI accepted
    assert app.listeners[0].queue == IN


def test_a_function_that_cannot_take_one_message_is_refused_at_registration(make_worker):
    # it would fail every message it is called with (with BOTHRESH 0: for ever, thousands
    # of times a second); now the mistake is said where it was made
    app = make_worker()

    def two(msg: mqjms.Message, extra: object) -> None: ...

    def none() -> None: ...

    with pytest.raises(TypeError, match=r"two\(msg, extra\): a listener is called with one"):
        app.listener(IN)(two)
    with pytest.raises(TypeError, match="one argument, the message"):
        app.listener(IN)(none)

    def optional(msg: mqjms.Message, extra: object = None) -> None: ...

    async def coroutine(msg: mqjms.Message) -> None: ...

    class Handler:
        def __call__(self, msg: mqjms.Message) -> None: ...

    def injecting(fn: Any) -> Any:  # a decorator that supplies an argument of its own
        @functools.wraps(fn)
        def wrapper(msg: mqjms.Message) -> None:
            fn(msg, db="connection")

        return wrapper

    @injecting
    def with_db(msg: mqjms.Message, db: str) -> None: ...

    for fn in (optional, coroutine, Handler(), print, lambda *messages: None, with_db):
        app.listener(IN)(fn)  # each takes one message
    assert len(app.listeners) == 6


def test_a_generator_function_is_refused_and_a_returned_generator_backs_out(mq, make_worker):
    # `yield` in a listener (async def too) made a call return a generator that ran none
    # of the body: the message was committed unprocessed, lost without a word
    app = make_worker()

    def sync_gen(msg: mqjms.Message) -> Any:
        yield msg

    async def async_gen(msg: mqjms.Message) -> Any:
        yield msg

    class Yielding:
        def __call__(self, msg: mqjms.Message) -> Any:
            yield msg

    for fn in (sync_gen, async_gen, Yielding(), functools.partial(sync_gen)):
        with pytest.raises(TypeError, match=r"is a generator function .*return instead of yield"):
            app.listener(IN)(fn)
    assert app.listeners == []
    ran: list[str] = []

    def generate(msg: mqjms.Message) -> Any:
        ran.append(msg.body)
        yield

    app.listener(IN)(lambda msg: generate(msg))  # a generator seen only once called
    mq.send(IN, "kept")
    summary = mq.run_until_idle(app)
    assert ran == [] and summary.committed == 0
    assert summary.destinations() == {BOQ: 1}  # failed, BOTHRESH times, then moved
    [moved] = mq.browse(BOQ)
    assert (
        moved.body == "kept" and "returned a generator" in moved.properties["mqjms_failure_message"]
    )


def test_an_async_hook_is_refused_at_registration(make_worker):
    # hooks are called, not awaited: an async def on_start, on_stop, on_poison or
    # poison_hooks entry never ran its body (Python's "never awaited" warning aside)
    app = make_worker()

    async def hook(*event: object) -> None: ...

    def handle(msg: mqjms.Message) -> None: ...

    with pytest.raises(TypeError, match=r"on_start .*hook is async def"):
        app.on_start(hook)
    with pytest.raises(TypeError, match=r"on_stop .*hook is async def"):
        app.on_stop(hook)
    with pytest.raises(TypeError, match=r"on_poison .*hook is async def"):
        app.listener(IN, on_poison=hook)(handle)
    with pytest.raises(TypeError, match=r"poison_hooks: .*hook is async def"):
        make_worker(poison_hooks=[hook])
    assert app.listeners == [] and app.poison_hooks == []


def test_worker_arguments_of_the_wrong_type_say_which() -> None:
    with pytest.raises(TypeError, match="the transport URL must be a str, not int"):
        mqjms.Worker(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="shutdown_timeout must be a number of seconds, not str"):
        mqjms.Worker("embedded:///tmp/x", shutdown_timeout="30")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="shutdown_timeout -1 is not 0 or more"):
        mqjms.Worker("embedded:///tmp/x", shutdown_timeout=-1)


def test_a_listener_on_an_undefined_queue_fails_start_with_2085(mq, make_worker):
    app = make_worker()

    @app.listener("NO.SUCH.QUEUE")
    def handle(msg: mqjms.Message) -> None: ...

    with pytest.raises(MQError) as err:
        app.start()
    assert err.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert not app.running


def test_registering_after_start_is_refused(mq, make_worker):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None: ...

    with app, pytest.raises(RuntimeError, match="before the worker starts"):
        app.listener(BOQ)(handle)


def test_the_failure_memory_is_bounded_least_recently_failed_first_out():
    from mqjms.backout import Failure
    from mqjms.listeners import FailureMemory

    memory = FailureMemory(capacity=2)
    failures = [Failure("builtins.ValueError", str(i), "l", IN) for i in range(3)]
    for i, failure in enumerate(failures):
        memory.remember(bytes([i]) * 24, failure)
    assert len(memory) == 2
    assert memory.pop(bytes([0]) * 24) is None  # the oldest went first
    assert memory.pop(bytes([2]) * 24) is failures[2]
    assert memory.pop(bytes([2]) * 24) is None  # popped: forgotten


# --------------------------------------------------------------------------- names
def test_one_function_on_two_queues_keeps_two_listeners_apart(mq, make_worker):
    # stacked @app.listener decorators (as FastStream allows), or functions a factory
    # made, gave two listeners one name: app.stats.listeners held one entry, labelled
    # with one queue, counting both queues' messages (and the metrics with it)
    other = "APP.OTHER"
    mq.define_queue(other)
    app = make_worker()

    @app.listener(IN)
    @app.listener(other)
    def handle(msg: mqjms.Message) -> None:
        pass

    def make() -> Any:
        def made(msg: mqjms.Message) -> None:
            pass

        return made

    app.listener(IN)(make())
    app.listener(IN)(make())
    names = [lst.name for lst in app.listeners]
    assert len(set(names)) == 4, names
    base = f"{__name__}.test_one_function_on_two_queues_keeps_two_listeners_apart.<locals>"
    assert names[:2] == [f"{base}.handle", f"{base}.handle[{IN}]"]
    mq.send(IN, "in")
    mq.send(other, "other", "other again")
    mq.run_until_idle(app)
    stats = {s.listener: (s.queue, s.committed) for s in app.stats.listener_snapshots()}
    assert stats[f"{base}.handle"] == (other, 2)
    assert sum(c for name, (q, c) in stats.items() if q == IN) == 1
