"""Suspects run alone: a crash then counts only against the message that caused it.

A message that kills the process takes every message in flight beside it through the
same backout (the queue manager backs out each unit of work the dead process left, as
IBM MQ does), so with concurrency > 1 its good neighbours would reach BOTHRESH with it
and land on the backout queue. A message with BackoutCount > 0 is a *suspect*: it may
be the one, unless its last backout is one this worker made itself after its listener
raised (the worker's failure memory holds that failure at the count before): an exception
that was caught is no crash, so such a message runs beside the others. The rule, per queue
(its underlying local queue) and per worker:

* A suspect is processed alone: its consumer waits until no other consumer of the queue
  holds a message (those in flight finish and commit or back out first; none gets a new
  one meanwhile), then processes it and ends its unit of work before anyone else gets.
* While a queue is *serial* its consumers get in turns: one at a time gets a message and
  keeps the turn until that message's unit of work has ended. A worker starts with its
  queues serial, since after a crash the suspects are what it will get first; a queue
  turns serial again when a consumer gets a suspect, and concurrent once a turn gets a
  message that is no suspect while no suspect waits (its consumer then holds that
  message as a concurrent one: committed with its next get, nobody waiting for it).
* A suspect the poison flow moves (BackoutCount >= BOTHRESH) is never delivered: it is
  screened before it would wait to run alone, and moved without waiting for anyone.

The one exposure left: consumers that got suspects at the same moment, concurrently,
hold them while waiting for their turn, so a crash of the first counts against the
others too. After a restart this cannot happen (the worker starts serial). The rule is
per process: other worker processes on the same queue are not held back.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol, runtime_checkable

# Seconds between looks at a stop request while waiting for a turn, should no wake-up come
# (a worker stopping wakes its gates; a turn that ends wakes them): a safety net, kept
# long so that idle consumers waiting for their turn cost no CPU.
_POLL = 30.0


@runtime_checkable
class WaitsInGets(Protocol):
    """A consumer whose get's wait can be ended from another thread."""

    def interrupt_get(self) -> None: ...


class SuspectGate:
    """One queue's turns. Cheap when concurrent: consumers read :attr:`serial` and,
    once, :meth:`enter`; the lock is taken only around suspects and turns."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        #: Gets are taken in turns (suspects about). Read without the lock.
        self.serial = True
        self._concurrent: set[object] = set()  # consumers getting concurrently
        self._holder: object | None = None  # the consumer whose turn it is
        self._suspects_waiting = 0
        self._empty_turn = False  # the turn under way got no message (see turn_was_empty)

    def enter(self, consumer: object) -> bool:
        """Get concurrently from now on; False when the queue is serial (take turns)."""
        with self._cond:
            if self.serial:
                return False
            self._concurrent.add(consumer)
            return True

    def leave(self, consumer: object) -> None:
        """``consumer`` holds no message now and gets concurrently no more."""
        with self._cond:
            if consumer in self._concurrent:
                self._concurrent.discard(consumer)
                self._cond.notify_all()

    @contextmanager
    def alone(self, consumer: object) -> Iterator[None]:
        """Process the suspect ``consumer`` holds once no other consumer holds a message;
        the queue turns serial so that none gets one meanwhile."""
        with self._cond:
            self._concurrent.discard(consumer)
            self.serial = True
            self._suspects_waiting += 1
            # those it waits for may be in gets that wait long: they let go now
            for other in (*self._concurrent, self._holder):
                if isinstance(other, WaitsInGets):
                    other.interrupt_get()
            try:
                while self._holder is not None or self._concurrent:
                    self._cond.wait()
            finally:
                self._suspects_waiting -= 1
            self._holder = consumer
        try:
            yield
        finally:
            self._release()

    @contextmanager
    def turn(self, consumer: object, stopping: threading.Event) -> Iterator[bool]:
        """Wait for a turn to get (True), or yield False when the queue turned concurrent
        or the worker is stopping meanwhile."""
        with self._cond:
            self._concurrent.discard(consumer)
            while self.serial and not stopping.is_set() and not self._free():
                self._cond.wait(_POLL)
            mine = self.serial and not stopping.is_set() and self._free()
            if mine:
                self._holder = consumer
                self._empty_turn = False
        try:
            yield mine
        finally:
            if mine:
                self._release(empty=self._empty_turn)

    def turn_was_empty(self) -> None:
        """The turn's get found no message: ending it changes nothing for the consumers
        waiting for a turn (its consumer takes the next one at once; should it not, they
        look again within ``_POLL``), so they are not woken; a suspect waiting to run
        alone is (called by the turn's holder, the only one to touch the flag)."""
        self._empty_turn = True

    def cleared(self, consumer: object) -> bool:
        """``consumer``'s turn got a message with BackoutCount 0: no suspect is ahead of
        it. Unless a suspect waits, the queue turns concurrent with ``consumer`` getting
        concurrently, holding that message (True)."""
        with self._cond:
            if self._suspects_waiting:
                return False
            self.serial = False
            self._concurrent.add(consumer)
            self._cond.notify_all()
            return True

    def wake(self) -> None:
        """Wake every consumer waiting here to look again (the worker is stopping)."""
        with self._cond:
            self._cond.notify_all()

    def _free(self) -> bool:
        """Nobody holds a message and no suspect waits: a turn may start."""
        return self._holder is None and not self._concurrent and not self._suspects_waiting

    def _release(self, empty: bool = False) -> None:
        """End the turn or the suspect's run; wake the waiting consumers unless the turn
        was empty and no suspect waits (a suspect waits for this without a timeout)."""
        with self._cond:
            self._holder = None
            if not empty or self._suspects_waiting:
                self._cond.notify_all()


class SuspectGates:
    """The gates of one running worker, by underlying queue name."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[str, SuspectGate] = {}

    def gate(self, queue: str) -> SuspectGate:
        with self._lock:
            found = self._gates.get(queue)
            if found is None:
                found = self._gates[queue] = SuspectGate()
            return found

    def wake(self) -> None:
        """Wake every consumer waiting for a turn or to run alone: the worker is stopping."""
        with self._lock:
            gates = list(self._gates.values())
        for gate in gates:
            gate.wake()
