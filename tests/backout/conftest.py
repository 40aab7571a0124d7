"""Fixtures for the poison-handling tests (seed 002).

``env`` is a :class:`tests.support.mqenv.MQEnv` over the transport-parametrised
``broker`` fixture of tests/conftest.py, so every test here runs on each transport the
Broker helper knows. ``spy`` records what the JMS layer opens and inquires (see
:class:`tests.support.mqenv.SpyConnection`).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import Broker
from tests.support.mqenv import MQEnv, SpyLog, env_fixture, install_spy


@pytest.fixture
def env(broker: Broker) -> Iterator[MQEnv]:
    """The transport under test: url, define/alter queues, depth, raw connections."""
    yield from env_fixture(broker)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> SpyLog:
    """Spy on every transport connection the JMS layer opens from now on."""
    return install_spy(monkeypatch)
