"""The pytest plugin: the ``mq`` fixture, a throwaway embedded queue manager per test.

pytest loads it by itself once mqjms is installed (the ``pytest11`` entry point named
``mqjms.testing.plugin``); with plugin autoloading off, name it in a conftest.py:
``pytest_plugins = ["mqjms.testing.plugin"]`` (the same name, so both ways never clash).
It imports the queue manager only when a test asks for ``mq``: loading it costs a test
session that never does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from .harness import TestQueueManager


@pytest.fixture
def mq(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[TestQueueManager]:
    """A fresh embedded queue manager for one test, closed after it.

    ``MQJMS_URL`` points at it meanwhile, so code that connects with the default URL
    (``mqjms.Worker()``, ``mqjms.ConnectionFactory()``) uses it too.
    """
    from mqjms.transport.url import ENV_VAR

    from .harness import TestQueueManager

    manager = TestQueueManager.in_directory(tmp_path_factory.mktemp("mqjms") / "qm")
    monkeypatch.setenv(ENV_VAR, manager.url)
    try:
        yield manager
    finally:
        manager.close()
