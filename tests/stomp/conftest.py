"""ActiveMQ for the STOMP tests: a real broker, started once per session by scripts/activemq,
and a real Java JMS client on it (OpenWire) for the interoperability tests.

The session fixture installs Debian's ``activemq`` package when it is missing (root
needed) and starts a private broker on 127.0.0.1. Only when the broker cannot be
installed here are the tests skipped, with the reason; under CI (``CI=true``) that is a
failure instead, because CI must run them (scripts/setup installs the package).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

import pytest

from mqjms.mq import MQError
from mqjms.transport import Connection, connect
from tests.stomp.activemq_support import BrokerUnavailable, StompBroker, ensure_activemq
from tests.stomp.java_support import JavaClient, JavaUnavailable, compile_client, openwire_url


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = os.path.dirname(__file__)
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(pytest.mark.stomp)


@pytest.fixture(scope="session")
def activemq_url() -> str:
    """The ``stomp://`` URL of the test broker (started for the session if needed)."""
    try:
        return ensure_activemq()
    except BrokerUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"ActiveMQ is needed in CI and could not be installed: {exc}")
        pytest.skip(f"ActiveMQ cannot be installed on this machine: {exc}")


@pytest.fixture
def amq(activemq_url: str) -> Iterator[StompBroker]:
    """A Broker helper with its own queue-name prefix and configuration profile."""
    broker = StompBroker(activemq_url)
    try:
        yield broker
    finally:
        broker.close()


@pytest.fixture
def stomp_conns(amq: StompBroker) -> Iterator[list[Connection]]:
    opened: list[Connection] = []
    yield opened
    for conn in opened:
        with contextlib.suppress(MQError):
            conn.disconnect()


@pytest.fixture
def sconnect(amq: StompBroker, stomp_conns: list[Connection]):  # type: ignore[no-untyped-def]
    """``sconnect()`` -> a new connection to the test's broker helper (closed after)."""

    def make(appl_name: str | None = None, url: str | None = None) -> Connection:
        conn = connect(url or amq.url, appl_name)
        stomp_conns.append(conn)
        return conn

    return make


@pytest.fixture(scope="session")
def java_classpath(activemq_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """JmsClient.java compiled for the session (a JDK and ActiveMQ's client jars)."""
    try:
        return compile_client(tmp_path_factory.mktemp("java"))
    except JavaUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"Java is needed in CI (scripts/setup installs it): {exc}")
        pytest.skip(f"no Java JMS client here: {exc}")


@pytest.fixture
def java(java_classpath: str, amq: StompBroker) -> JavaClient:
    """A real Java JMS client (OpenWire) on the test broker, using the test's queues."""
    return JavaClient(java_classpath, openwire_url(), amq.prefix)
