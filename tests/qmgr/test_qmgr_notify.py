"""The doorbell (wakeup.py) and the group commit (commits.py) notify waiting threads only
when there are some: every commit rings, and a notify is pure Python. Those that wait are
woken all the same."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.qmgr import commits, wakeup


class CountingNotify:
    def __init__(self, condition: threading.Condition) -> None:
        self.calls = 0
        self._notify_all = condition.notify_all

    def __call__(self) -> None:
        self.calls += 1
        self._notify_all()


def until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    """Wait for ``condition``; a failure, not a hang, when it never holds."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.001)


def started(target: Callable[[], object]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)  # a broken wake-up fails, not hangs
    thread.start()
    return thread


def test_a_ring_nobody_waits_for_notifies_no_one(monkeypatch: pytest.MonkeyPatch) -> None:
    if wakeup._sleepers:
        pytest.skip("another thread of this process waits on the doorbell")
    notify = CountingNotify(wakeup._doorbell)
    monkeypatch.setattr(wakeup._doorbell, "notify_all", notify)
    before = wakeup.rings()
    wakeup.ring()
    wakeup.nudge()
    assert wakeup.rings() == before + 1
    assert notify.calls == 0
    assert wakeup.wait(before, 0.01) == before + 1  # a ring before the wait is not missed


def test_a_ring_wakes_the_threads_that_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    notify = CountingNotify(wakeup._doorbell)
    monkeypatch.setattr(wakeup._doorbell, "notify_all", notify)
    seen = wakeup.rings()
    readings: list[int] = []
    others = wakeup._sleepers
    waiters = [started(lambda: readings.append(wakeup.wait(seen, 30))) for _ in range(3)]
    until(lambda: wakeup._sleepers >= others + 3)
    wakeup.ring()
    for waiter in waiters:
        waiter.join(10)
    assert readings == [seen + 1] * 3 and notify.calls == 1
    assert wakeup._sleepers == others


def test_a_nudge_wakes_a_waiter_told_to_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()
    seen = wakeup.rings()
    done: list[int] = []
    others = wakeup._sleepers
    waiter = started(lambda: done.append(wakeup.wait(seen, 30, stop.is_set)))
    until(lambda: wakeup._sleepers >= others + 1)
    stop.set()
    wakeup.nudge()
    waiter.join(10)
    assert done == [seen]


def test_an_fsync_nobody_else_waits_for_notifies_no_one(tmp_path: Path) -> None:
    sync = commits.GroupSync(tmp_path / "qmgr.db-wal", 0o600)
    try:
        (tmp_path / "qmgr.db-wal").write_bytes(b"log")
        notify = CountingNotify(sync._changed)
        sync._changed.notify_all = notify  # type: ignore[method-assign]
        sync.sync(sync.ticket())
        sync.sync(sync.ticket())
        assert sync.fsyncs == 2 and notify.calls == 0
    finally:
        sync.close()


def test_the_threads_that_wait_for_a_leaders_fsync_are_woken(tmp_path: Path) -> None:
    sync = commits.GroupSync(tmp_path / "qmgr.db-wal", 0o600)
    (tmp_path / "qmgr.db-wal").write_bytes(b"log")
    leading, release = threading.Event(), threading.Event()
    fsync = sync._fsync

    def slow_fsync() -> None:
        leading.set()
        release.wait(10)
        fsync()

    sync._fsync = slow_fsync  # type: ignore[method-assign]
    try:
        first = sync.ticket()
        leader = started(lambda: sync.sync(first))
        assert leading.wait(10)
        second = sync.ticket()  # counted during the leader's fsync: needs one of its own
        follower = started(lambda: sync.sync(second))
        until(lambda: sync._waiting >= 1)
        release.set()
        leader.join(10)
        follower.join(10)
        assert not leader.is_alive() and not follower.is_alive()
        assert sync._synced() >= second and sync._waiting == 0
    finally:
        release.set()
        sync.close()


def test_a_child_forked_while_a_thread_holds_the_doorbell_can_ring(tmp_path: Path) -> None:
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with wakeup._doorbell:
            holding.set()
            release.wait(10)

    holder = started(hold)
    assert holding.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: the parent's holder thread does not exist here
        try:
            wakeup.ring()
            wakeup.wait(wakeup.rings(), 0.01)
        finally:
            os._exit(0)
    release.set()
    holder.join(10)
    deadline = time.monotonic() + 10
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    if done[0] == 0:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done[0] == pid and os.waitstatus_to_exitcode(done[1]) == 0, "the child hung"
