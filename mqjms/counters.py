"""Thread-safe counters by name: what a worker or the trigger monitor did, for summaries,
tests and metrics. A subclass is a dataclass whose int fields are the counters."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields


@dataclass
class Counters:
    """Counters, each an int field of a dataclass subclass; thread-safe."""

    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, name: str, n: int = 1) -> None:
        with self._lock:
            setattr(self, name, getattr(self, name) + n)

    def snapshot(self) -> dict[str, int]:
        """Every counter's value, read together."""
        with self._lock:
            return {f.name: getattr(self, f.name) for f in fields(self) if f.name[0] != "_"}
