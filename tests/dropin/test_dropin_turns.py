"""Threads sharing one drop-in connection take turns in the order they asked: a waiting
get lets go between the slices of its wait, and whoever was waiting then goes before it
asks again (with an ordinary lock it took the connection straight back, so two getters
waiting on an empty queue kept a third thread's put out until their waits ended, 2033)."""

from __future__ import annotations

import threading
import time
from types import ModuleType

import pytest

from mqjms.mqi.turns import TurnLock
from tests.support.mqenv import MQEnv


def _wait_for_waiters(lock: TurnLock, count: int) -> None:
    while lock.waiting < count:  # the other threads have asked for their turn
        time.sleep(0.005)


@pytest.mark.embedded_only("the lock is the drop-in's; one transport shows it")
def test_the_thread_that_let_go_asks_again_behind_the_ones_waiting(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    hconn = qmgr._live()
    order: list[str] = []

    def call(name: str) -> None:
        with hconn.call():
            order.append(name)

    with hconn.call():  # a waiting get's slice
        first = threading.Thread(target=call, args=("put",))
        first.start()
        _wait_for_waiters(hconn.lock, 1)
        second = threading.Thread(target=call, args=("other get",))
        second.start()
        _wait_for_waiters(hconn.lock, 2)
    call("next slice")  # the get asks again at once
    first.join()
    second.join()
    assert order == ["put", "other get", "next slice"]


def test_a_thread_interrupted_while_waiting_passes_its_turn_on() -> None:
    lock = TurnLock()
    got: list[str] = []
    lock.acquire()
    real_wait = lock._state.wait

    def interrupted_wait(timeout: float | None = None) -> bool:
        if threading.current_thread().name == "interrupted":
            raise KeyboardInterrupt
        return real_wait(timeout)

    lock._state.wait = interrupted_wait  # type: ignore[method-assign]
    failures: list[BaseException] = []

    def interrupted() -> None:
        try:
            lock.acquire()
        except KeyboardInterrupt as exc:
            failures.append(exc)

    def patient() -> None:
        with lock:
            got.append("patient")

    gone = threading.Thread(target=interrupted, name="interrupted")
    gone.start()
    gone.join()
    waiter = threading.Thread(target=patient)
    waiter.start()
    _wait_for_waiters(lock, 1)
    lock.release()
    waiter.join(timeout=10)
    assert failures and got == ["patient"] and lock.waiting == 0


def test_reentrant_and_only_its_holder_releases_it() -> None:
    lock = TurnLock()
    with lock, lock:
        assert lock.waiting == 0
    with pytest.raises(RuntimeError):
        lock.release()
