"""A least-recently-used cache bounded by the size of what it holds, not by a count.

A count bound is no bound when entries can be large: 4,096 cached RFH2 folders of 1 MB
each are 4 GB. Here every entry is charged its size; an entry larger than
``max_entry_size`` is never stored, and the least recently used entries are dropped
while the total is over ``max_size`` or the count is over ``max_entries``.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """Thread-safe LRU whose entries' sizes (as the caller measures them) stay under a limit."""

    def __init__(self, max_size: int, max_entry_size: int, max_entries: int) -> None:
        if not 0 <= max_entry_size <= max_size:
            raise ValueError(
                f"max_entry_size {max_entry_size} must be between 0 and max_size {max_size}"
            )
        if max_entries < 0:
            raise ValueError(f"max_entries must be >= 0, not {max_entries}")
        self.max_size = max_size
        self.max_entry_size = max_entry_size
        self.max_entries = max_entries
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """The sum of the sizes of the entries held now."""
        return self._size

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, size: int) -> None:
        """Keep ``value`` unless it is larger than ``max_entry_size``."""
        if size > self.max_entry_size or self.max_entries == 0:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._size -= old[1]
            self._entries[key] = (value, size)
            self._size += size
            while self._size > self.max_size or len(self._entries) > self.max_entries:
                _, (_, dropped) = self._entries.popitem(last=False)
                self._size -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._size = 0
