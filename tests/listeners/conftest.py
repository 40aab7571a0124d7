"""Fixtures for the listener tests, on every transport (the ``broker`` parameter of
tests/conftest.py): ``mq`` is mqjms.testing's TestQueueManager on the broker under test,
with ``APP.IN`` (BOTHRESH 3, BOQNAME ``APP.BACKOUT``) and ``APP.BACKOUT`` defined.

A test that needs the embedded queue manager itself is marked
``@pytest.mark.embedded_only("why")``; one that needs a behaviour some broker lacks,
``@pytest.mark.requires("feature")`` with the reason beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

import mqjms
from mqjms.testing import TestQueueManager
from tests.conftest import Broker
from tests.listeners.helpers import BOQ, FAST, IN, Recorder


@pytest.fixture
def mq(broker: Broker, transport: str) -> Iterator[TestQueueManager]:
    # The embedded queue manager administers itself (and runs MQSC); a broker through
    # the test helper that stands in for MQSC there.
    harness = TestQueueManager(broker.url, admin=None if transport == "embedded" else broker)
    harness.define_queue(IN, BOTHRESH=3, BOQNAME=BOQ)
    harness.define_queue(BOQ)
    try:
        yield harness
    finally:
        harness.close()


@pytest.fixture
def make_worker(mq: TestQueueManager) -> Iterator[Callable[..., mqjms.Worker]]:
    """``make_worker(**options)``: a Worker on the test's queue manager, stopped after."""
    made: list[mqjms.Worker] = []

    def make(**options: Any) -> mqjms.Worker:
        options.setdefault("shutdown_timeout", 5.0)
        options.setdefault("reconnect_wait", FAST)
        app = mqjms.Worker(mq.url, **options)
        app.get_wait = 0.1
        made.append(app)
        return app

    yield make
    for app in made:
        app.stop(timeout=1.0)


@pytest.fixture
def seen() -> Recorder:
    return Recorder()
