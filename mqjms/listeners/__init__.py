"""Asynchronous listeners and the Worker service that runs them (seed 002, asynchronous
applications): ``app = Worker(url)``, ``@app.listener(queue)``, ``app.run()``; and what it
takes to operate one: stats, health, and (imported when used: it loads http.server)
metrics over HTTP in :mod:`.exporter`."""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

from .send import send

if TYPE_CHECKING:
    from mqjms.backout import FailureMemory

    from .activity import ConsumerActivity, Held
    from .health import Health
    from .listener import Listener
    from .runner import AppLoadError, load_app, run
    from .stats import Histogram, ListenerStats, WorkerStats
    from .worker import Worker

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    "mqjms.backout": ("FailureMemory",),
    ".activity": ("ConsumerActivity", "Held"),
    ".health": ("Health",),
    ".listener": ("Listener",),
    ".runner": ("AppLoadError", "load_app", "run"),
    ".stats": ("Histogram", "ListenerStats", "WorkerStats"),
    ".worker": ("Worker",),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "AppLoadError",
    "ConsumerActivity",
    "FailureMemory",
    "Health",
    "Held",
    "Histogram",
    "Listener",
    "ListenerStats",
    "Worker",
    "WorkerStats",
    "load_app",
    "run",
    "send",
]
