"""TurnLock: the lock threads sharing one MQI connection take turns on, in the order they
asked for it.

A waiting get holds the connection for one slice of its wait at a time and asks again
after each; with an ordinary lock the thread that lets go usually takes it straight back,
so two getters waiting on an empty queue could keep a third thread's put out for as long
as they wait (and their waits then end with 2033, the put never made). Here each
acquisition takes a ticket and tickets are served in order: whoever was waiting goes
before the thread that just let go. Reentrant, as the connection's calls nest.
"""

from __future__ import annotations

import threading
from types import TracebackType


class TurnLock:
    """A reentrant first-come, first-served lock (see the module docstring)."""

    def __init__(self) -> None:
        self._state = threading.Condition(threading.Lock())
        self._owner: int | None = None
        self._depth = 0
        self._next_ticket = 0
        self._serving = 0
        self._abandoned: set[int] = set()  # tickets whose thread stopped waiting

    @property
    def waiting(self) -> int:
        """How many threads are waiting for their turn."""
        with self._state:
            held = 0 if self._owner is None else 1
            return self._next_ticket - self._serving - len(self._abandoned) - held

    def acquire(self) -> None:
        me = threading.get_ident()
        with self._state:
            if self._owner == me:
                self._depth += 1
                return
            ticket = self._next_ticket
            self._next_ticket += 1
            try:
                while self._owner is not None or self._serving != ticket:
                    self._state.wait()
            except BaseException:  # interrupted while waiting: its turn passes on
                self._abandoned.add(ticket)
                self._skip_abandoned()
                raise
            self._owner, self._depth = me, 1

    def release(self) -> None:
        with self._state:
            if self._owner != threading.get_ident():
                raise RuntimeError("cannot release a TurnLock this thread does not hold")
            self._depth -= 1
            if self._depth:
                return
            self._owner = None
            self._serving += 1
            self._skip_abandoned()

    def _skip_abandoned(self) -> None:
        while self._serving in self._abandoned:
            self._abandoned.discard(self._serving)
            self._serving += 1
        if self._owner is None:
            self._state.notify_all()

    def __enter__(self) -> TurnLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


__all__ = ["TurnLock"]
