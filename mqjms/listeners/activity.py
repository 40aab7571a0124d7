"""What each listener consumer holds right now, so that "idle" can be told exactly.

A consumer gets its next message only after the unit of work of the one before has ended
(committed, backed out or requeued) and its hooks have run. So once one of its gets finds
no message, the consumer holds nothing and runs no listener, hook or MQI call of a
message until a get returns one: it is *quiet*. :meth:`Worker.activity
<mqjms.listeners.Worker.activity>` gives every consumer's state; ``mqjms.testing`` runs a
worker until all are quiet and its queues are empty, and a health check can show what
each consumer holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqjms.mq.md import MQMD


@dataclass(frozen=True, slots=True)
class Held:
    """The message a consumer got and has not finished with."""

    msg_id: bytes
    backout_count: int


@dataclass(frozen=True, slots=True)
class ConsumerActivity:
    """One consumer at one moment."""

    consumer: str  # its thread's name, e.g. mqjms-ORDERS.IN-0
    listener: str
    queue: str  # the queue as the listener names it (an alias stays an alias)
    messages: int  # gets that returned a message
    empty_gets: int  # gets that found none
    held: Held | None  # what it holds; None once a get found nothing (quiet)

    @property
    def quiet(self) -> bool:
        return self.held is None


class ActivityTracker:
    """A consumer's counters, written by its thread alone and read by anyone: each change
    replaces one tuple, so a reader never sees half of one."""

    def __init__(self, consumer: str, listener: str, queue: str) -> None:
        self._names = (consumer, listener, queue)
        self._state: tuple[int, int, Held | None] = (0, 0, None)

    def got(self, md: MQMD | None) -> None:
        """Record a get's result: the message's MQMD, or None when it found none."""
        messages, empty, _ = self._state
        if md is None:
            self._state = (messages, empty + 1, None)
        else:
            self._state = (messages + 1, empty, Held(md.MsgId, md.BackoutCount))

    def snapshot(self) -> ConsumerActivity:
        messages, empty, held = self._state
        consumer, listener, queue = self._names
        return ConsumerActivity(consumer, listener, queue, messages, empty, held)
