"""The doorbell (wakeup.py) and the group commit (commits.py) notify waiting threads only
when there are some: every commit rings, and a notify is pure Python. Those that wait are
woken all the same."""

from __future__ import annotations

import threading
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


def test_a_ring_nobody_waits_for_notifies_no_one(monkeypatch: pytest.MonkeyPatch) -> None:
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
    waiters = [
        threading.Thread(target=lambda: readings.append(wakeup.wait(seen, 30))) for _ in range(3)
    ]
    for waiter in waiters:
        waiter.start()
    while wakeup._sleepers < 3:
        threading.Event().wait(0.001)
    wakeup.ring()
    for waiter in waiters:
        waiter.join(10)
    assert readings == [seen + 1] * 3 and notify.calls == 1
    assert wakeup._sleepers == 0


def test_a_nudge_wakes_a_waiter_told_to_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    stop = threading.Event()
    seen = wakeup.rings()
    done: list[int] = []
    waiter = threading.Thread(target=lambda: done.append(wakeup.wait(seen, 30, stop.is_set)))
    waiter.start()
    while wakeup._sleepers < 1:
        threading.Event().wait(0.001)
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
        leader = threading.Thread(target=sync.sync, args=(first,))
        leader.start()
        leading.wait(10)
        second = sync.ticket()  # counted during the leader's fsync: needs one of its own
        follower = threading.Thread(target=sync.sync, args=(second,))
        follower.start()
        while sync._waiting < 1:
            threading.Event().wait(0.001)
        release.set()
        leader.join(10)
        follower.join(10)
        assert not leader.is_alive() and not follower.is_alive()
        assert sync._synced() >= second and sync._waiting == 0
    finally:
        release.set()
        sync.close()
