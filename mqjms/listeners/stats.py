"""Counters of what a worker did, for summaries, tests and metrics."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields

from mqjms.backout import PoisonOutcome


@dataclass
class WorkerStats:
    """Messages by outcome since the worker was created. Thread-safe."""

    delivered: int = 0  # handed to a listener function
    committed: int = 0  # the listener returned and the unit of work committed
    backed_out: int = 0  # the listener raised (or a shutdown deadline) and it was rolled back
    moved: int = 0  # poison: put to BOQNAME
    dead_lettered: int = 0  # poison: put to the dead-letter queue
    discarded: int = 0  # poison: MQRO_DISCARD_MSG
    requeue_failed: int = 0  # poison: no queue took it; returned to the input queue
    reconnects: int = 0  # connections made again after one was lost
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + n)

    def add_outcome(self, outcome: PoisonOutcome) -> None:
        self.add(outcome.value)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name[0] != "_"}
