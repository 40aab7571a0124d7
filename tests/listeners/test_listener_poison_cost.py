"""What isolating suspects costs the good messages around them (issue 9, target 4).

Suspects (BackoutCount > 0, not from a failure the worker remembers) still run alone
(test_listener_crash_isolation.py), but a message that is never delivered needs no
isolation, and a consumer whose start-up turn cleared the queue goes on as any concurrent
one.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

import mqjms
from tests.listeners.helpers import BOQ, IN, back_out, wait_for


@pytest.mark.requires("backout_in_place")
def test_a_message_at_bothresh_is_moved_without_waiting_for_the_messages_in_flight(
    mq, make_worker
) -> None:
    # seed 002: BackoutCount >= BOTHRESH -> moved to BOQNAME, never delivered. It cannot
    # crash the listener, so it does not wait for its neighbours to run alone.
    mq.send(IN, "poison")
    back_out(mq.url, IN, times=3)  # the conftest's BOTHRESH(3)
    mq.send(IN, "slow", priority=9)  # got first: in flight while the poison one is got
    started, release = threading.Event(), threading.Event()
    app = make_worker()

    @app.listener(IN, concurrency=2)
    def handle(msg: mqjms.Message) -> None:
        assert msg.body == "slow", "the poison message was delivered"
        started.set()
        release.wait(10)

    with app:
        try:
            wait_for(started.is_set, 10, "the slow message started")
            wait_for(lambda: mq.depth(BOQ) == 1, 5, "the poison message moved meanwhile")
            assert not release.is_set()
        finally:
            release.set()
        wait_for(lambda: app.stats.committed == 1, 10)
    assert app.stats.delivered == 1


@pytest.mark.requires("commit_and_get")
def test_the_message_that_ends_the_start_up_turns_is_committed_with_the_next_get(
    mq, make_worker
) -> None:
    # A worker starts with its queues serial (suspects first after a crash); the first
    # turn that gets a BackoutCount 0 message turns the queue concurrent, and its consumer
    # with it: that message's MQCMIT is made with the next MQGET, as every other's.
    commits: list[str] = []
    app = make_worker()
    connect = app.connector

    class CountingCommits:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def commit(self) -> None:
            commits.append("MQCMIT")
            self._conn.commit()

    app.connector = lambda url, appl: CountingCommits(connect(url, appl))
    app.listener(IN)(lambda msg: None)
    for i in range(3):
        mq.send(IN, f"m{i}")
    with app:
        wait_for(lambda: app.stats.committed == 3 and mq.depth(IN) == 0, 10)
        assert commits == []


@pytest.mark.requires("backout_and_get")
def test_a_failed_delivery_is_backed_out_with_the_next_get(mq, make_worker) -> None:
    # MQBACK of a failed delivery and the MQGET that follows it are one step on a
    # transport that has it (one database transaction on the embedded queue manager):
    # the message comes straight back with BackoutCount + 1, no MQBACK of its own
    calls: list[str] = []
    app = make_worker()
    connect = app.connector

    class CountingBackouts:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def backout(self) -> None:
            calls.append("MQBACK")
            self._conn.backout()

        def backout_and_get(self, handle: Any) -> Any:
            calls.append("MQBACK+MQGET")
            return self._conn.backout_and_get(handle)

    app.connector = lambda url, appl: CountingBackouts(connect(url, appl))
    redelivered: list[bool] = []

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        redelivered.append(msg.jms_redelivered)
        if len(redelivered) == 1:
            raise RuntimeError("first delivery fails")

    mq.send(IN, "once")
    with app:
        wait_for(lambda: app.stats.committed == 1 and mq.depth(IN) == 0, 10)
    assert redelivered == [False, True]
    assert calls == ["MQBACK+MQGET"]
    assert app.stats.backed_out == 1


@pytest.mark.requires("puts_in_step")
def test_a_poison_messages_move_is_put_and_committed_with_the_next_get(mq, make_worker) -> None:
    # seed 002: a message with BackoutCount >= BOTHRESH goes to BOQNAME, never delivered,
    # in a unit of work of its own. Its put and MQCMIT are made with the MQGET of the
    # next message, in one step, as a good message's sends are: no MQPUT or MQCMIT alone;
    # and the failure that brings it to BOTHRESH moves it, with that step
    calls: list[str] = []
    app = make_worker()
    connect = app.connector

    class CountingCalls:
        def __init__(self, conn: Any) -> None:
            self._conn = conn

        def __getattr__(self, name: str) -> Any:
            return getattr(self._conn, name)

        def put(self, *args: Any, **kwargs: Any) -> Any:
            calls.append("MQPUT")
            return self._conn.put(*args, **kwargs)

        def commit(self) -> None:
            calls.append("MQCMIT")
            self._conn.commit()

        def put_and_commit(self, puts: Any) -> None:
            calls.extend(f"MQPUT({put.queue})+MQCMIT" for put in puts)
            self._conn.put_and_commit(puts)

        def commit_and_get(self, handle: Any, puts: Any = ()) -> Any:
            calls.extend(f"MQPUT({put.queue})+MQCMIT+MQGET" for put in puts)
            return self._conn.commit_and_get(handle, puts)

        def backout(self) -> None:
            calls.append("MQBACK")
            self._conn.backout()

        def backout_and_get(self, handle: Any) -> Any:
            calls.append("MQBACK+MQGET")
            return self._conn.backout_and_get(handle)

    app.connector = lambda url, appl: CountingCalls(connect(url, appl))
    moved: list[mqjms.PoisonEvent] = []
    delivered: list[str] = []

    @app.listener(IN, on_poison=moved.append)
    def handle(msg: mqjms.Message) -> None:
        delivered.append(msg.body)
        if msg.body == "poison":
            raise RuntimeError("never processed")

    for body in ("first", "poison", "last"):  # the first turns the queue concurrent
        mq.send(IN, body)
    with app:
        wait_for(lambda: app.stats.committed == 2 and app.stats.moved == 1, 10)
    # delivered at BackoutCount 0, 1 and 2 (the conftest's BOTHRESH(3)), then moved
    assert delivered == ["first", "poison", "poison", "poison", "last"]
    assert [(e.outcome, e.destination) for e in moved] == [(mqjms.Outcome.MOVED, BOQ)]
    # the last attempt's backout would bring it to BOTHRESH: it is moved instead, with
    # the next get (the backout, the get of it again and the move's step, in one)
    assert calls == ["MQBACK+MQGET", "MQBACK+MQGET", f"MQPUT({BOQ})+MQCMIT+MQGET"]
    assert app.stats.backed_out == 3  # each failed attempt is one, as it was rolled back
    [(md, _)] = mq.browse_raw(BOQ)
    assert md.BackoutCount == 0 and mq.depth(IN) == 0


@pytest.mark.requires("puts_in_step")
def test_a_move_whose_step_put_fails_is_noted_then_dead_lettered(mq, make_worker, events) -> None:
    # seed 002: "If the message cannot be put to the backout queue, then it is either moved
    # to the queue manager's dead letter queue or discarded". The move made with the step
    # fails (PUT(DISABLED)): nothing was committed, the failure is said as on any route,
    # then the message is backed out, screened and dead-lettered.
    mq.alter_queue(BOQ, PUT="DISABLED")
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        raise RuntimeError("never processed")

    mq.send(IN, "poison")
    assert mq.run_until_idle(app).destinations() == {mq.dead_letter_queue: 1}
    steps = [e for e in events if e["event"] == "poison.step_put_failed"]
    assert [(e["then"], e["reason"], e["backout_queue"], e["queue"]) for e in steps] == [
        ("backout", "MQRC_PUT_INHIBITED", BOQ, IN),  # with the last failed delivery
        ("requeue", "MQRC_PUT_INHIBITED", BOQ, IN),  # with the next get, once screened
    ]
    assert all(e["log_level"] == "info" for e in steps)  # the route's retry warns:
    [warned] = [e for e in events if e["event"] == "poison.backout_queue_failed"]
    assert warned["reason"] == "MQRC_PUT_INHIBITED" and warned["queue"] == IN
