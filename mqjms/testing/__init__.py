"""Testing a service built on mqjms, with no broker and on the production code path.

With mqjms installed, pytest has the ``mq`` fixture (see :mod:`.plugin`): a throwaway
embedded queue manager per test, as a :class:`TestQueueManager`::

    def test_a_bad_order_goes_to_the_backout_queue(mq: TestQueueManager) -> None:
        mq.mqsc("DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT)")
        mq.mqsc("DEFINE QLOCAL(ORDERS.BACKOUT)")
        mq.put("ORDERS.IN", '{"id": 1, "quantity": -1}')
        summary = mq.run_until_idle(service.app)
        assert summary.moved == 1 and mq.depth("ORDERS.BACKOUT") == 1

The listeners run on the Worker's own threads, units of work and seed 002 poison
handling; ``run_until_idle`` returns once every message is dealt with (see :mod:`.idle`).
The names below load on first use, so pytest loading the plugin imports no queue manager.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .admin import Administration, EmbeddedAdministration, ScriptedAdministration
    from .harness import TestQueueManager
    from .idle import NotIdle, RunSummary

_WHERE = {
    "Administration": "admin",
    "EmbeddedAdministration": "admin",
    "ScriptedAdministration": "admin",
    "TestQueueManager": "harness",
    "NotIdle": "idle",
    "RunSummary": "idle",
}

__all__ = [
    "Administration",
    "EmbeddedAdministration",
    "NotIdle",
    "RunSummary",
    "ScriptedAdministration",
    "TestQueueManager",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
