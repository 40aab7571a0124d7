"""Helpers shared by the listener tests (imported by name: tests/ has no packages)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import tenacity

import mqjms
from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse, connect, embedded

IN = "APP.IN"
BOQ = "APP.BACKOUT"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"
FAST = tenacity.wait_fixed(0.05)  # reconnect / requeue-failure pauses in tests

class MQ:
    """The test's view of the queue manager: admin, send, raw put, browse, depth."""

    def __init__(self, url: str) -> None:
        self.url = url

    @property
    def qm(self) -> QueueManager:
        return embedded.queue_manager(self.url)

    def define(self, name: str, **attrs: object) -> str:
        self.qm.define_queue("QLOCAL", name, attrs, replace=True)
        return name

    def alter(self, name: str, **attrs: object) -> None:
        self.qm.alter_queue(name, attrs)

    def depth(self, name: str) -> int:
        return self.qm.queue_depth(name)

    def send(self, queue: str, *bodies: str | bytes, **options: Any) -> list[mqjms.Message]:
        """Send with the JMS API (RFH2, persistent unless told otherwise)."""
        with mqjms.ConnectionFactory(self.url).connect() as conn:
            producer = conn.session().producer(queue)
            return [producer.send(body, **options) for body in bodies]

    def put_raw(self, queue: str, data: bytes, **md_fields: Any) -> MQMD:
        """MQPUT1 as a plain MQ application would (no RFH2 unless ``data`` has one)."""
        conn = connect(self.url)
        try:
            return conn.put(queue, MQMD(**md_fields), data)
        finally:
            conn.disconnect()

    def browse(self, queue: str) -> list[tuple[MQMD, bytes]]:
        conn = connect(self.url)
        try:
            handle = conn.open(queue, C.MQOO_BROWSE)
            out, how = [], Browse.FIRST
            while (got := conn.get(handle, browse=how)) is not None:
                out.append(got)
                how = Browse.NEXT
            return out
        finally:
            conn.disconnect()


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, what: str = "") -> None:
    """Poll until ``predicate()`` is true; fail the test after ``timeout`` seconds."""
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
