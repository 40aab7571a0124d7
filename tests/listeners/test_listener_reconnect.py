"""A lost connection is made again with backoff, the queue reopened and the cached
BOTHRESH/BOQNAME refreshed; unexpected errors are logged and never end a consumer."""

from __future__ import annotations

import threading
from typing import Any

import pytest

import mqjms
from mqjms.mq import C, MQError
from mqjms.transport import Capability, ConnectionWrapper, connect, embedded
from tests.listeners.helpers import BOQ, IN, named, wait_for


class Faults:
    """What the wrapped transport does wrong next (shared by all its connections)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.refuse_connects = 0  # MQCONN fails with 2059 this many times
        self.break_get = False  # the next MQGET loses the connection (2009)
        self.get_error: Exception | None = None  # the next MQGET raises this
        self.commit_error: Exception | None = None  # the next MQCMIT raises this

    def take(self, name: str) -> Any:
        with self.lock:
            value = getattr(self, name)
            setattr(self, name, False if name == "break_get" else None)
            return value


class FlakyConnection(ConnectionWrapper):
    """A real connection with faults injected from :class:`Faults`."""

    def __init__(self, real: Any, faults: Faults) -> None:
        super().__init__(real)
        self.real, self.faults = real, faults

    @property
    def capabilities(self) -> frozenset[Capability]:
        # Faults are injected into get() and commit(): not the combined MQCMIT+MQGET of
        # the embedded transport, so that the worker makes the two calls it stands for,
        # and its gets return every get_wait (not interrupted), so that a fault set while
        # one waits is met soon.
        return self.real.capabilities - {Capability.COMMIT_AND_GET, Capability.INTERRUPT_WAIT}

    def get(self, *args: Any, **kwargs: Any) -> Any:
        if self.faults.take("break_get"):
            self.real.disconnect()  # the hconn is really gone (its unit of work backed out)
            raise MQError(C.MQCC_FAILED, C.MQRC_CONNECTION_BROKEN, "injected")
        error = self.faults.take("get_error")
        if error is not None:
            raise error
        return self.real.get(*args, **kwargs)

    def commit(self) -> None:
        error = self.faults.take("commit_error")
        if error is not None:
            raise error
        self.real.commit()


def flaky(app: mqjms.Worker) -> Faults:
    faults = Faults()

    def connector(url: str, appl_name: str | None) -> Any:
        with faults.lock:
            if faults.refuse_connects > 0:
                faults.refuse_connects -= 1
                raise MQError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, "injected")
        return FlakyConnection(connect(url, appl_name), faults)

    app.connector = connector
    return faults


def test_reconnect_after_a_broken_connection_refreshes_the_cached_attributes(
    mq, make_worker, seen, events
):
    mq.alter_queue(IN, BOTHRESH=5)
    app = make_worker()
    faults = flaky(app)

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.md.BackoutCount))
        if msg.md.BackoutCount == 0:
            raise RuntimeError("first attempt fails")

    with app:
        mq.send(IN, "before")
        wait_for(lambda: app.stats.committed == 1)
        assert app.poison.cache.inquiries == 1  # BOTHRESH 5 cached at BackoutCount 1
        mq.alter_queue(IN, BOTHRESH=1)
        with faults.lock:
            faults.refuse_connects = 1
            faults.break_get = True
        wait_for(lambda: app.stats.reconnects == 1, what="a reconnection")
        mq.send(IN, "after")
        # Cache cleared on reconnect: BOTHRESH 1 is seen, so BackoutCount 1 is poison now
        # (with the stale 5 the message would have been delivered again).
        wait_for(lambda: mq.depth(BOQ) == 1, what="'after' on the backout queue")
    assert app.poison.cache.inquiries == 2
    assert seen.items == [("before", 0), ("before", 1), ("after", 0)]
    [lost] = named(events, "worker.connection_lost")
    assert lost["reason"] == "MQRC_CONNECTION_BROKEN" and lost["queue"] == IN
    [retry] = named(events, "worker.reconnecting")
    assert retry["reason"] == "MQRC_Q_MGR_NOT_AVAILABLE" and retry["attempt"] == 1
    [back] = named(events, "worker.reconnected")
    assert back["attempts"] == 2


@pytest.mark.embedded_only("closes this process's embedded queue manager under the worker")
def test_processing_goes_on_after_the_queue_manager_is_closed_and_reopened(mq, make_worker, seen):
    app = make_worker()

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    with app:
        mq.send(IN, "one")
        wait_for(lambda: app.stats.committed == 1)
        embedded.close_all()  # every connection of this process ends
        mq.send(IN, "two")  # (opens the queue manager again)
        wait_for(lambda: app.stats.committed == 2, what="processing after the restart")
    assert seen.items == ["one", "two"]
    assert app.stats.reconnects >= 1


def test_an_unexpected_error_in_the_loop_is_logged_and_the_consumer_goes_on(
    mq, make_worker, seen, events
):
    app = make_worker()
    faults = flaky(app)
    faults.get_error = RuntimeError("transport bug")

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    mq.send(IN, "x")
    assert mq.run_until_idle(app).committed == 1
    assert named(events, "worker.consumer_error")[0]["error"] == "RuntimeError('transport bug')"
    assert seen.items == ["x"]


def test_an_mq_condition_in_the_loop_is_one_line_with_its_reason(mq, make_worker, seen, events):
    # GET(DISABLED) set while the worker runs (2016) logged a full traceback per retry
    app = make_worker()
    faults = flaky(app)
    faults.get_error = MQError(C.MQCC_FAILED, C.MQRC_GET_INHIBITED, "queue is GET(DISABLED)")

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add(msg.body)

    mq.send(IN, "x")
    assert mq.run_until_idle(app).committed == 1
    [event, *_] = named(events, "worker.consumer_error")
    assert event["reason"] == "MQRC_GET_INHIBITED" and "exc_info" not in event


def test_an_unexpected_error_after_delivery_backs_the_message_out(mq, make_worker, seen, events):
    app = make_worker()
    faults = flaky(app)
    faults.commit_error = RuntimeError("commit bug")

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.md.BackoutCount))

    mq.send(IN, "x")
    summary = mq.run_until_idle(app)
    assert (summary.committed, summary.backed_out) == (1, 1)
    assert seen.items == [("x", 0), ("x", 1)]  # backed out, then redelivered: never lost
    [error] = named(events, "worker.message_error")
    assert error["backout_count"] == 0
    assert named(events, "message.backed_out")[0]["reason"] == "worker error"


def test_an_mq_condition_after_delivery_is_one_line_with_its_reason(mq, make_worker, seen, events):
    # a damaged queue manager under a running Worker (2101) logged the storage error's
    # whole traceback, sqlite3's frames included, for each message
    app = make_worker()
    faults = flaky(app)
    faults.commit_error = MQError(C.MQCC_FAILED, C.MQRC_OBJECT_DAMAGED, "qmgr.db is damaged")

    @app.listener(IN)
    def handle(msg: mqjms.Message) -> None:
        seen.add((msg.body, msg.md.BackoutCount))

    mq.send(IN, "x")
    summary = mq.run_until_idle(app)
    assert (summary.committed, summary.backed_out) == (1, 1)
    [error] = named(events, "worker.message_error")
    assert error["reason"] == "MQRC_OBJECT_DAMAGED" and not error.get("exc_info")
    assert "qmgr.db is damaged" in error["error"]
