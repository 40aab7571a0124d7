"""The last failure of each message, remembered so a moved message can say why it failed.

A listener that raises only rolls the message back; the queue manager counts the
backouts. When the same message comes back at BOTHRESH in this process, the poison
handler moves it, and the :class:`~mqjms.backout.Failure` remembered here travels with
it as ``usr`` properties. The memory is bounded (least recently failed first out):
a process that never sees the message again must not keep it forever.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from mqjms.backout import Failure

DEFAULT_CAPACITY = 10_000


class FailureMemory:
    """A thread-safe LRU of MsgId -> last Failure, shared by every consumer of a worker."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity {capacity} must be at least 1")
        self.capacity = capacity
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, Failure] = OrderedDict()

    def remember(self, msg_id: bytes, failure: Failure) -> None:
        with self._lock:
            self._items[msg_id] = failure
            self._items.move_to_end(msg_id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def pop(self, msg_id: bytes) -> Failure | None:
        """The last failure of ``msg_id`` (forgotten now), or None when none is known."""
        if not self._items:  # the common case, without the lock: nothing ever failed
            return None
        with self._lock:
            return self._items.pop(msg_id, None)

    def forget(self, msg_id: bytes) -> None:
        if self._items:
            with self._lock:
                self._items.pop(msg_id, None)

    def __len__(self) -> int:
        return len(self._items)
