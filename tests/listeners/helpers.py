"""Names and helpers shared by the listener tests."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import tenacity

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
