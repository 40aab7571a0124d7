"""Fixtures for the drop-in tests: the flavour under test, and a queue manager to route to.

``mq`` is the flavour module under test (``mqjms.pymqi`` or ``mqjms.ibmmq``: most tests
run through both). ``env`` is :class:`tests.support.mqenv.MQEnv` over the transport-
parametrised ``broker`` of tests/conftest.py, with the drop-in's connections routed to it
(``mqjms.pymqi.configure(url=...)``) and the queues of IBM's developer configuration
defined (DEV.QUEUE.1-3 with DEV.DEAD.LETTER.QUEUE as DEADQ, TEST.1). Tests that need
the embedded queue manager itself (model queues, PCF) are marked ``embedded_only``.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from mqjms.mqi import routing
from tests.conftest import Broker
from tests.support.mqenv import MQEnv, env_fixture

REPO = Path(__file__).resolve().parents[2]
DEV_CONFIG = REPO / "examples" / "pymqi" / "dev-config.mqsc"
DEV_QUEUES = ("DEV.QUEUE.1", "DEV.QUEUE.2", "DEV.QUEUE.3", "TEST.1")
DEV_DLQ = "DEV.DEAD.LETTER.QUEUE"


@pytest.fixture(autouse=True)
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt, here and in the programs the tests start (which
    inherit an ignored SIGINT, not a handler), as from a terminal, even when the test run
    was started in the background: a shell starts those with SIGINT ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.fixture(params=["pymqi", "ibmmq"])
def mq(request: pytest.FixtureRequest) -> ModuleType:
    """The flavour under test."""
    return mqjms.pymqi if request.param == "pymqi" else mqjms.ibmmq


@pytest.fixture
def env(broker: Broker) -> Iterator[MQEnv]:
    """The transport under test, the drop-in routed to it, the developer queues defined."""
    for name in DEV_QUEUES:
        broker.define_queue(name)
    broker.define_queue(DEV_DLQ, MAXDEPTH=999_999)
    broker.alter_qmgr(DEADQ=DEV_DLQ)
    routing.configure(url=broker.url)
    try:
        yield from env_fixture(broker)
    finally:
        routing.reset()


@pytest.fixture
def qmgr(mq: ModuleType, env: MQEnv) -> Iterator[object]:
    """A connected QueueManager of the flavour under test, disconnected after."""
    connection = mq.connect("QM1")
    yield connection
    if connection.is_connected:
        try:
            connection.backout()
        finally:
            connection.disconnect()
