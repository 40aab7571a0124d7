"""Graceful shutdown: stop getting, let in-flight messages finish up to the deadline,
commit, disconnect; a backout only when the deadline forces one, and then logged."""

from __future__ import annotations

import asyncio
import threading
import time

import mqjms
from mqjms.listeners.eventloop import EventLoopThread
from mqjms.listeners.worker import STOP_GRACE
from tests.listeners.helpers import IN, named, wait_for


def test_stop_lets_an_in_flight_message_finish_and_commits_it(mq, make_worker, events):
    app = make_worker()
    started, finished = threading.Event(), threading.Event()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        started.set()
        time.sleep(0.5)
        finished.set()

    mq.send(IN, "slow")
    app.start()
    assert started.wait(10)
    assert app.stop(timeout=30) is True
    assert finished.is_set()
    assert mq.depth(IN) == 0  # committed, not backed out
    assert app.stats.committed == 1 and app.stats.backed_out == 0
    assert not named(events, "message.backed_out")
    assert not named(events, "worker.shutdown_deadline_exceeded")
    # stopped: nothing is got any more
    mq.send(IN, "later")
    time.sleep(0.3)
    assert mq.depth(IN) == 1


def test_deadline_exceeded_is_logged_and_the_queue_manager_backs_the_message_out(
    mq, make_worker, events
):
    app = make_worker()
    started, release = threading.Event(), threading.Event()
    returned = threading.Event()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        started.set()
        release.wait(30)
        returned.set()

    [sent] = mq.send(IN, "stuck")
    app.start()
    assert started.wait(10)
    assert app.stop(timeout=0.2) is False
    [exceeded] = named(events, "worker.shutdown_deadline_exceeded")
    assert exceeded["in_flight"] == 1 and exceeded["queues"] == [IN]
    [backed] = named(events, "message.backed_out")
    assert backed["msg_id"] == sent.md.MsgId.hex() and "deadline" in backed["reason"]
    [(md, _)] = mq.browse_raw(IN)
    assert md.MsgId == sent.md.MsgId and md.BackoutCount == 1
    release.set()  # the abandoned listener returns: nothing may be committed now
    assert returned.wait(10)
    time.sleep(0.2)
    assert mq.depth(IN) == 1 and app.stats.committed == 0


def test_deadline_cancels_an_async_listener(mq, make_worker):
    app = make_worker()
    started, cancelled = threading.Event(), threading.Event()

    @app.listener(IN)
    async def handle(msg: mqjms.Message) -> None:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    mq.send(IN, "stuck")
    app.start()
    assert started.wait(10)
    assert app.stop(timeout=0.2) is False
    assert cancelled.wait(5)
    [(md, _)] = mq.browse_raw(IN)
    assert md.BackoutCount == 1


def test_stop_called_by_a_listener_only_requests_it(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)
        app.stop()

    mq.send(IN, "one", "two")
    app.start()
    wait_for(lambda: app.stopping)
    assert app.stop() is True
    assert seen.items == ["one"] and mq.depth(IN) == 1


def test_run_off_the_main_thread_stops_on_request_with_status_zero(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(app.run()))
    thread.start()
    mq.send(IN, "x")
    wait_for(lambda: app.stats.committed == 1)
    app.request_stop()
    thread.join(10)
    assert status == [0] and not app.running


def test_a_delivery_that_failed_as_the_stop_came_is_backed_out_not_committed(
    mq, make_worker, events
):
    # seed 002: a message the application rolls back has its BackoutCount incremented.
    # The backout of a failed delivery waits for the consumer's next get (one step); a
    # stop in between must back it out, never commit it with the rest
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        app.stop()  # from a listener: only requested
        raise RuntimeError("failed as the stop came")

    mq.send(IN, "one", "two")
    app.start()
    wait_for(lambda: app.stopping)
    assert app.stop() is True
    assert mq.depth(IN) == 2
    first = mq.browse_raw(IN)[0][0]
    assert first.BackoutCount == 1
    assert app.stats.backed_out == 1 and app.stats.committed == 0
    assert [e["backout_count"] for e in named(events, "message.backed_out")] == [0]


def test_an_async_listener_cancelled_at_the_deadline_is_backed_out_not_counted_failed(
    mq, make_worker
):
    # docs/deployment.md: `failed` counts a function that raised. An async listener the
    # deadline cancelled was counted failed, its time observed as a processing time (a
    # sync one abandoned the same way was not): it neither failed nor ran its course
    app = make_worker()
    started = threading.Event()

    @app.listener(IN)
    async def handle(msg: mqjms.Message) -> None:
        started.set()
        await asyncio.sleep(30)

    mq.send(IN, "stuck")
    app.start()
    assert started.wait(10)
    assert app.stop(timeout=0.2) is False
    assert app.stats.backed_out == 1 and app.stats.failed == 0
    [stats] = app.stats.listener_snapshots()
    assert stats.failed == 0 and stats.processing.count == 0
    [(md, _)] = mq.browse_raw(IN)
    assert md.BackoutCount == 1


def test_an_async_listener_blocking_the_event_loop_leaves_the_stop_its_deadline(
    mq, make_worker, monkeypatch
):
    # docs/deployment.md: from SIGTERM to exit takes at most shutdown_timeout plus about
    # 3 s. A blocking call in an async def listener (time.sleep by mistake) holds the
    # event loop, so no cancellation reaches it; the stop then waited up to 11 s more
    # for the loop (5 s for the cancellation, 1 more, a 5 s join) after its grace
    budgets: list[float] = []
    real_stop = EventLoopThread.stop

    def stop(self: EventLoopThread, timeout: float = 5.0) -> None:
        budgets.append(timeout)
        real_stop(self, timeout)

    monkeypatch.setattr(EventLoopThread, "stop", stop)
    app = make_worker()
    started, release = threading.Event(), threading.Event()

    @app.listener(IN)
    async def handle(msg: mqjms.Message) -> None:
        started.set()
        release.wait(30)  # blocks the loop

    mq.send(IN, "stuck")
    app.start()
    assert started.wait(10)
    try:
        assert app.stop(timeout=0.2) is False
    finally:
        release.set()
    [budget] = budgets
    assert budget <= STOP_GRACE + app.get_wait  # the loop's share of the grace, no more
    [(md, _)] = mq.browse_raw(IN)
    assert md.BackoutCount == 1 and app.stats.committed == 0
