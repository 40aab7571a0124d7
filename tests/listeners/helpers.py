"""Names and helpers shared by the listener tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import tenacity

from mqjms.mq import C
from mqjms.transport import connect

IN = "APP.IN"
BOQ = "APP.BACKOUT"
FAST = tenacity.wait_fixed(0.05)  # reconnect / requeue-failure pauses in tests


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """Poll until ``predicate()`` is true; fail the test after ``timeout`` seconds. For a
    worker the test keeps running while it changes things; otherwise use
    ``mq.run_until_idle(app)``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what or predicate}")
        time.sleep(0.01)


def named(entries: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [e for e in list(entries) if e.get("event") == event]


class Recorder:
    """A thread-safe list of what listeners saw."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._lock = threading.Lock()

    def add(self, item: Any) -> None:
        with self._lock:
            self.items.append(item)

    def __len__(self) -> int:
        return len(self.items)


def back_out(url: str, queue: str, *, messages: int = 1, times: int = 1) -> None:
    """Raise BackoutCounts outside any worker, as the queue manager does for a process that
    died holding the messages: ``times`` rounds of MQGET under syncpoint of the first
    ``messages`` messages, then MQBACK."""
    conn = connect(url, "test-backout")
    try:
        handle = conn.open(queue, C.MQOO_INPUT_AS_Q_DEF)
        for _ in range(times):
            for _ in range(messages):
                assert conn.get(handle, wait=1.0, syncpoint=True) is not None
            conn.backout()
    finally:
        conn.disconnect()
