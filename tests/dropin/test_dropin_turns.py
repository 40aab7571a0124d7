"""Threads sharing one drop-in connection take turns: a waiting get lets go between the
slices of its wait and, when other threads are waiting for the connection, steps aside
for a moment so that one of them takes it (a lock lets the thread that released it take
it straight back: getters waiting on an empty queue kept a third thread's puts out until
their waits ended with 2033)."""

from __future__ import annotations

import threading
import time
from types import ModuleType
from typing import Any

import pytest

from mqjms.mqi import getting
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def _gmo(mq: ModuleType, wait_ms: int) -> Any:
    gmo = mq.GMO()
    gmo.Options = mq.CMQC.MQGMO_WAIT | mq.CMQC.MQGMO_NO_SYNCPOINT
    gmo.WaitInterval = wait_ms
    return gmo


@pytest.mark.embedded_only("the lock is the drop-in's; one transport shows it")
def test_a_put_from_another_thread_gets_in_during_a_waiting_get(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    queue = mq.Queue(qmgr, Q)
    hconn = qmgr._live()
    got: list[Any] = []

    def waiting_get() -> None:
        try:
            got.append(queue.get(None, mq.MD(), _gmo(mq, 20_000)))
        except mq.MQMIError as exc:
            got.append(exc.reason)

    getter = threading.Thread(target=waiting_get)
    getter.start()
    while getter.is_alive() and hconn.lock.acquire(blocking=False):  # not yet in its wait
        hconn.lock.release()
        time.sleep(0.005)
    mq.Queue(qmgr, Q).put(b"in between")  # waits for the end of a slice, not of the wait
    getter.join(timeout=30)
    assert got == [b"in between"]


def test_a_waiting_get_steps_aside_only_while_others_wait(
    mq: ModuleType, env: MQEnv, qmgr: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    hconn = qmgr._live()
    assert not hconn.others_waiting()
    pauses: list[float] = []
    real_sleep = time.sleep
    monkeypatch.setattr(getting, "WAIT_SLICE", 0.05)
    monkeypatch.setattr(getting.time, "sleep", lambda s: (pauses.append(s), real_sleep(s)))
    with pytest.raises(mq.MQMIError):
        mq.Queue(qmgr, Q).get(None, mq.MD(), _gmo(mq, 200))
    assert getting.STEP_ASIDE not in pauses  # alone on the connection: no pause
    hconn._asking.append(None)  # as a thread blocked in call() counts itself
    try:
        with pytest.raises(mq.MQMIError):
            mq.Queue(qmgr, Q).get(None, mq.MD(), _gmo(mq, 200))
    finally:
        hconn._asking.pop()
    assert getting.STEP_ASIDE in pauses
