"""Fixtures of the embedded queue manager's publish/subscribe tests."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest

from mqjms.mq import MQError
from mqjms.transport import Connection, connect


@pytest.fixture
def conns(embedded_url: str) -> Iterator[Callable[[], Connection]]:
    """Connections to the test's queue manager, made on demand, disconnected after."""
    made: list[Connection] = []

    def make() -> Connection:
        made.append(connect(embedded_url))
        return made[-1]

    yield make
    for conn in made:
        with contextlib.suppress(MQError):
            conn.disconnect()
