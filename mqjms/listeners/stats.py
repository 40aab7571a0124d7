"""Counters of what a worker did, in total and per listener, for summaries, tests and metrics.

:class:`WorkerStats` (``Worker.stats``) keeps the worker's totals as attributes
(``app.stats.committed``) and one :class:`ListenerStats` per listener
(``app.stats.listeners["myservice.handle"]``) with the same counters and a histogram of
the listener function's running time. One lock guards both, so counting a message is one
lock acquisition: the hot path stays cheap, and ``mqjms run --metrics-port`` exports
these very numbers (see :mod:`.exporter`).
"""

from __future__ import annotations

import bisect
import threading
from dataclasses import dataclass, field, fields

from mqjms.backout import PoisonOutcome

#: Upper bounds (seconds) of the processing-time histogram: Prometheus's defaults.
PROCESSING_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

#: The counters a worker and each listener keep (attribute names of both classes).
COUNTERS = (
    "received",  # got from the queue (poison messages screened before delivery too)
    "delivered",  # handed to a listener function
    "committed",  # processed: the listener returned and the unit of work committed
    "failed",  # the listener raised
    "backed_out",  # rolled back (the listener raised, a worker error, a shutdown deadline)
    "moved",  # poison: put to BOQNAME
    "dead_lettered",  # poison: put to the dead-letter queue
    "discarded",  # poison: MQRO_DISCARD_MSG
    "requeue_failed",  # poison: no queue took it; returned to the input queue
)


@dataclass
class Histogram:
    """Observations counted into cumulative-style buckets (``counts[i]``: those at most
    ``bounds[i]``, not cumulative here; the last count is the ones above every bound)."""

    bounds: tuple[float, ...] = PROCESSING_BUCKETS
    counts: list[int] = field(default_factory=lambda: [0] * (len(PROCESSING_BUCKETS) + 1))
    sum: float = 0.0
    count: int = 0

    def observe(self, value: float) -> None:
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.sum += value
        self.count += 1

    def cumulative(self) -> list[tuple[float, int]]:
        """(upper bound, observations at most that) pairs, the last bound infinity."""
        out, total = [], 0
        for bound, n in zip((*self.bounds, float("inf")), self.counts, strict=True):
            total += n
            out.append((bound, total))
        return out

    def copy(self) -> Histogram:
        return Histogram(self.bounds, list(self.counts), self.sum, self.count)


@dataclass
class ListenerStats:
    """One listener's counters and processing-time histogram."""

    listener: str
    queue: str
    received: int = 0
    delivered: int = 0
    committed: int = 0
    failed: int = 0
    backed_out: int = 0
    moved: int = 0
    dead_lettered: int = 0
    discarded: int = 0
    requeue_failed: int = 0
    processing: Histogram = field(default_factory=Histogram)  # the listener's running time

    def snapshot(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in COUNTERS}


@dataclass
class WorkerStats:
    """Messages by outcome since the worker was created, in total. Thread-safe."""

    received: int = 0
    delivered: int = 0
    committed: int = 0
    failed: int = 0
    backed_out: int = 0
    moved: int = 0
    dead_lettered: int = 0
    discarded: int = 0
    requeue_failed: int = 0
    reconnects: int = 0  # connections made again after one was lost
    #: Per listener, by its name (``module.function``).
    listeners: dict[str, ListenerStats] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def listener(self, name: str, queue: str) -> ListenerStats:
        """The counters of listener ``name`` (made at its first use)."""
        with self._lock:
            found = self.listeners.get(name)
            if found is None:
                found = self.listeners[name] = ListenerStats(name, queue)
            return found

    def add(self, name: str, n: int = 1, listener: ListenerStats | None = None) -> None:
        """Count ``n`` in total and, when given, for ``listener``."""
        with self._lock:
            setattr(self, name, getattr(self, name) + n)
            if listener is not None:
                setattr(listener, name, getattr(listener, name) + n)

    def add_delivery(self, listener: ListenerStats) -> None:
        """A message got and handed to ``listener``: ``received`` and ``delivered`` one
        more each, under one acquisition of the lock (this runs for every message)."""
        with self._lock:
            self.received += 1
            self.delivered += 1
            listener.received += 1
            listener.delivered += 1

    def add_commit(self, listener: ListenerStats) -> None:
        """A delivered message's unit of work committed: ``committed`` one more (as
        ``add("committed", listener=listener)``, without looking the counter up by name)."""
        with self._lock:
            self.committed += 1
            listener.committed += 1

    def add_outcome(self, outcome: PoisonOutcome, listener: ListenerStats | None = None) -> None:
        self.add(outcome.value, listener=listener)

    def processed(self, listener: ListenerStats, seconds: float, failed: bool) -> None:
        """The listener function ran for ``seconds`` (and raised, when ``failed``)."""
        with self._lock:
            listener.processing.observe(seconds)
            if failed:
                self.failed += 1
                listener.failed += 1

    def snapshot(self) -> dict[str, int]:
        """The totals, by name."""
        with self._lock:
            return {
                f.name: getattr(self, f.name)
                for f in fields(self)
                if f.name[0] != "_" and f.name != "listeners"
            }

    def listener_snapshots(self) -> list[ListenerStats]:
        """A consistent copy of every listener's counters and histogram."""
        with self._lock:
            return [
                ListenerStats(s.listener, s.queue, **s.snapshot(), processing=s.processing.copy())
                for s in self.listeners.values()
            ]
