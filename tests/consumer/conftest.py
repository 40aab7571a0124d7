"""Fixtures for the JMS-style consumer API tests.

``env`` is the same helper as in tests/backout (:class:`tests.support.mqenv.MQEnv`): the
transport-parametrised ``broker`` of tests/conftest.py plus raw MQI access, so these
tests run on every transport the Broker helper knows.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import Broker
from tests.support.mqenv import MQEnv, env_fixture


@pytest.fixture
def env(broker: Broker) -> Iterator[MQEnv]:
    """The transport under test: url, define/alter queues, depth, raw connections."""
    yield from env_fixture(broker)
