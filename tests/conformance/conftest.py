"""Fixtures for the transport conformance suite.

Everything here goes through ``mqjms.transport.connect(url)`` and the Broker helper
(tests/conftest.py), never through a transport's internals, so the same tests run on
every transport.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

from mqjms.mq import MQError
from mqjms.transport import Connection, connect

if TYPE_CHECKING:
    from tests.conftest import Broker

Connect = Callable[..., Connection]


@pytest.fixture
def connections(transport_url: str) -> Iterator[Connect]:
    """A factory of connections (hconns) to the transport under test; all disconnected after."""
    opened: list[Connection] = []

    def make(appl_name: str | None = None) -> Connection:
        conn = connect(transport_url, appl_name)
        opened.append(conn)
        return conn

    yield make
    for conn in opened:
        with contextlib.suppress(MQError):
            conn.disconnect()


@pytest.fixture
def conn(connections: Connect) -> Connection:
    """One connection to the transport under test."""
    return connections()


@pytest.fixture
def queue(broker: Broker) -> str:
    """A fresh local queue with MQ's default attributes (MSGDLVSQ(PRIORITY), DEFPSIST(NO))."""
    broker.define_queue("CONF.Q")
    return "CONF.Q"
