"""Fixtures for the triggering tests: a queue manager with an initiation queue and a
process definition, a stand-in trigger monitor, and an application connection."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqjms.qmgr import QMConnection, QueueManager
from tests.trigger.trigger_helpers import APPLICID, INITQ, PROC, Monitor


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
