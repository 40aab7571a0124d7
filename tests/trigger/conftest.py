"""Fixtures for the triggering tests: a queue manager with an initiation queue and a
process definition, a stand-in trigger monitor, and an application connection."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture
from trigger_helpers import APPLICID, INITQ, PROC, Monitor

from mqjms.qmgr import QMConnection, QueueManager


@pytest.fixture
def tqm(qm: QueueManager) -> QueueManager:
    """The test's queue manager with ``APP.INITQ`` and ``PROCESS(APP.PROC)`` defined."""
    qm.define_queue("QLOCAL", INITQ, {"DESCR": "initiation queue for the tests"})
    qm.define_process(
        PROC,
        {
            "APPLTYPE": "UNIX",
            "APPLICID": APPLICID,
            "ENVRDATA": "--env data",
            "USERDATA": "user data",
        },
    )
    return qm


@pytest.fixture
def monitor(tqm: QueueManager) -> Iterator[Monitor]:
    """A trigger monitor holding ``APP.INITQ`` open for input (condition 8)."""
    mon = Monitor(tqm)
    yield mon
    mon.disconnect()


@pytest.fixture
def app(tqm: QueueManager) -> Iterator[QMConnection]:
    """An application's connection, used to put messages."""
    conn = tqm.connect("test-app")
    yield conn
    conn.disconnect()


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
