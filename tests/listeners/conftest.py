"""Fixtures for the listener tests: the real embedded queue manager, a Worker factory
whose workers always stop, and structlog event capture.

Queues: ``APP.IN`` (BOTHRESH 3, BOQNAME ``APP.BACKOUT``) and ``APP.BACKOUT``; the queue
manager's DEADQ is ``SYSTEM.DEAD.LETTER.QUEUE`` (the embedded default). Helpers live in
``listener_helpers.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture

import mqjms
from mqjms.qmgr import QueueManager
from tests.listeners.helpers import BOQ, FAST, IN, MQ, Recorder


@pytest.fixture
def mq(embedded_url: str, qm: QueueManager) -> MQ:
    env = MQ(embedded_url)
    env.define(IN, BOTHRESH=3, BOQNAME=BOQ)
    env.define(BOQ)
    return env


@pytest.fixture
def make_worker(mq: MQ) -> Iterator[Callable[..., mqjms.Worker]]:
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
def events() -> Iterator[list[dict[str, Any]]]:
    """Every structlog event (DEBUG and up) logged during the test, from any thread."""
    was_configured = structlog.is_configured()
    old = structlog.get_config()
    capture = LogCapture()
    structlog.configure(
        processors=[capture],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=False,
    )
    try:
        yield capture.entries
    finally:
        # Back to exactly what it was: an unconfigured structlog stays unconfigured, so
        # later tests see mqjms's library defaults (quiet below WARNING), not stdout.
        if was_configured:
            structlog.configure(**old)
        else:
            structlog.reset_defaults()


@pytest.fixture
def seen() -> Recorder:
    return Recorder()
