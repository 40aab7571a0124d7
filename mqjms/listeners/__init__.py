"""Asynchronous listeners and the Worker service that runs them (seed 002, asynchronous
applications): ``app = Worker(url)``, ``@app.listener(queue)``, ``app.run()``."""

from mqjms.backout import FailureMemory

from .listener import Listener
from .runner import AppLoadError, load_app, run
from .stats import WorkerStats
from .worker import Worker

__all__ = [
    "AppLoadError",
    "FailureMemory",
    "Listener",
    "Worker",
    "WorkerStats",
    "load_app",
    "run",
]
