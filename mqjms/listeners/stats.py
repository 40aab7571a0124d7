"""Counters of what a worker did, for summaries, tests and metrics."""

from __future__ import annotations

from dataclasses import dataclass

from mqjms.backout import PoisonOutcome
from mqjms.counters import Counters


@dataclass
class WorkerStats(Counters):
    """Messages by outcome since the worker was created. Thread-safe."""

    delivered: int = 0  # handed to a listener function
    committed: int = 0  # the listener returned and the unit of work committed
    backed_out: int = 0  # the listener raised (or a shutdown deadline) and it was rolled back
    moved: int = 0  # poison: put to BOQNAME
    dead_lettered: int = 0  # poison: put to the dead-letter queue
    discarded: int = 0  # poison: MQRO_DISCARD_MSG
    requeue_failed: int = 0  # poison: no queue took it; returned to the input queue
    reconnects: int = 0  # connections made again after one was lost

    def add_outcome(self, outcome: PoisonOutcome) -> None:
        self.add(outcome.value)
