"""Get with wait on the embedded queue manager: no lost wake-ups.

A message that arrives at any moment during the wait must be returned. The race tested
here is narrow in time, so the test makes the other connection's put happen at the worst
moment (right after the get's first look found nothing) instead of hoping a timing hits it:
it wraps the queue manager's own get attempt, and the put is a real put by another
connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager

IN = C.MQOO_INPUT_SHARED


def put_right_after_first_empty_look(
    monkeypatch: pytest.MonkeyPatch, action: Callable[[], None]
) -> None:
    original = QMConnection._get_once
    fired = threading.Event()

    def get_once(self: QMConnection, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if result is None and not fired.is_set():
            fired.set()
            action()  # the message arrives just after the look that found nothing
        return result

    monkeypatch.setattr(QMConnection, "_get_once", get_once)


def test_message_arriving_right_after_the_first_look_is_returned(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    qm.define_queue("QLOCAL", "WAIT.Q")
    consumer, producer = qm.connect(), qm.connect()
    handle = consumer.open("WAIT.Q", IN)
    put_right_after_first_empty_look(
        monkeypatch, lambda: producer.put("WAIT.Q", MQMD(), b"just in time")
    )
    got = consumer.get(handle, wait=1.0)
    assert got is not None and got[1] == b"just in time"


def test_message_arriving_during_the_wait_is_returned(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "WAIT.Q")
    consumer, producer = qm.connect(), qm.connect()
    handle = consumer.open("WAIT.Q", IN)
    timer = threading.Timer(0.1, lambda: producer.put("WAIT.Q", MQMD(), b"later"))
    timer.start()
    try:
        got = consumer.get(handle, wait=5.0)
    finally:
        timer.join()
    assert got is not None and got[1] == b"later"


def test_waiting_get_ends_with_an_mq_error_when_the_queue_manager_closes(
    qm: QueueManager,
) -> None:
    from mqjms.mq import MQError

    qm.define_queue("QLOCAL", "WAIT.Q")
    consumer = qm.connect()
    handle = consumer.open("WAIT.Q", IN)
    outcome: list[object] = []

    def wait_forever() -> None:
        try:
            outcome.append(consumer.get(handle, wait=None))
        except BaseException as exc:  # examined below
            outcome.append(exc)

    waiter = threading.Thread(target=wait_forever, daemon=True)
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive()
    qm.close()  # shutting down while a listener waits: the usual way a worker stops
    waiter.join(5)
    assert not waiter.is_alive()
    [error] = outcome
    assert isinstance(error, MQError), repr(error)
    assert error.reason in (
        C.MQRC_CONNECTION_BROKEN,
        C.MQRC_Q_MGR_STOPPING,
        C.MQRC_Q_MGR_QUIESCING,
        C.MQRC_CONNECTION_STOPPING,
        C.MQRC_CONNECTION_QUIESCING,
        C.MQRC_HCONN_ERROR,
        C.MQRC_Q_MGR_NOT_AVAILABLE,
    )
