"""Fixtures for the JMS-style consumer API tests.

``env`` is the same helper as in tests/backout (tests/backout/_mqenv.py): the
transport-parametrised ``broker`` of tests/conftest.py plus raw MQI access, so these
tests run on every transport the Broker helper knows.
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
        path = Path(__file__).resolve().parent.parent / "backout" / "_mqenv.py"
        spec = importlib.util.spec_from_file_location(_NAME, path)
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
