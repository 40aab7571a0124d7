"""Fixtures for the poison-handling tests (seed 002).

``env`` is an :class:`_mqenv.MQEnv` over the transport-parametrised ``broker`` fixture of
tests/conftest.py, so every test here runs on each transport the Broker helper knows
(embedded now; STOMP when it is added there). ``spy`` records what the JMS layer opens
and inquires (see ``_mqenv.SpyConnection``).
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_NAME = "mqjms_tests_mqenv"


def _load_env_module() -> Any:
    if _NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("_mqenv.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module
        spec.loader.exec_module(module)
    return sys.modules[_NAME]


mqenv = _load_env_module()


@pytest.fixture
def env(broker: Any) -> Iterator[Any]:
    """The transport under test: url, define/alter queues, depth, raw connections."""
    yield from mqenv.env_fixture(broker)


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Spy on every transport connection the JMS layer opens from now on."""
    return mqenv.install_spy(monkeypatch)
