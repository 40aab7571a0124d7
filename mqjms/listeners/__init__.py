"""Asynchronous listeners and the Worker service that runs them (seed 002, asynchronous
applications): ``app = Worker(url)``, ``@app.listener(queue)``, ``app.run()``."""

from mqjms.backout import FailureMemory

from .activity import ConsumerActivity, Held
from .listener import Listener
from .runner import AppLoadError, load_app, run
from .send import send
from .stats import WorkerStats
from .worker import Worker

__all__ = [
    "AppLoadError",
    "ConsumerActivity",
    "FailureMemory",
    "Held",
    "Listener",
    "Worker",
    "WorkerStats",
    "load_app",
    "run",
    "send",
]
