"""Asynchronous listeners and the Worker service that runs them (seed 002, asynchronous
applications): ``app = Worker(url)``, ``@app.listener(queue)``, ``app.run()``; and what it
takes to operate one: stats, health, and (imported when used: it loads http.server)
metrics over HTTP in :mod:`.exporter`."""

from mqjms.backout import FailureMemory

from .activity import ConsumerActivity, Held
from .health import Health
from .listener import Listener
from .runner import AppLoadError, load_app, run
from .send import send
from .stats import Histogram, ListenerStats, WorkerStats
from .worker import Worker

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
