"""What each listener consumer holds right now, so that "idle" can be told exactly.

A consumer holds a message from the get that returned it until that message's unit of
work has ended (committed, backed out or requeued) and its hooks have run; the consumer
says so when it is back between messages (about to get, or to wait for its turn to get),
or when a get finds nothing. In between it holds nothing and runs no listener, hook or
MQI call of a message: it is *quiet*. :meth:`Worker.activity
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
    held: Held | None  # what it holds; None between messages (quiet)
    last: Held | None  # the last message it got (held or not), for diagnostics
    #: The queue it gets from when the listener names none: a topic listener's managed
    #: queue, known once it has subscribed ("" before, and for a queue listener).
    source: str = ""

    @property
    def quiet(self) -> bool:
        return self.held is None


#: A held message's MsgId and BackoutCount, as a tracker keeps them.
_Ids = tuple[bytes, int]


class ActivityTracker:
    """A consumer's counters, written by its thread alone and read by anyone: each change
    replaces one tuple, so a reader never sees half of one."""

    def __init__(self, consumer: str, listener: str, queue: str) -> None:
        self._names = (consumer, listener, queue)
        # (messages, empty gets, held, last); held and last as (MsgId, BackoutCount): a
        # Held is made when a snapshot is taken, not for every message
        self._state: tuple[int, int, _Ids | None, _Ids | None] = (0, 0, None, None)
        self.source = ""  # see ConsumerActivity.source

    def got(self, md: MQMD | None) -> None:
        """Record a get's result: the message's MQMD, or None when it found none."""
        messages, empty, _, last = self._state
        if md is None:
            self._state = (messages, empty + 1, None, last)
        else:
            held = (md.MsgId, md.BackoutCount)
            self._state = (messages + 1, empty, held, held)

    def released(self) -> None:
        """The consumer is between messages: the last one's unit of work and hooks are done."""
        messages, empty, held, last = self._state
        if held is not None:
            self._state = (messages, empty, None, last)

    def snapshot(self) -> ConsumerActivity:
        consumer, listener, queue = self._names
        messages, empty, held, last = self._state
        return ConsumerActivity(
            consumer,
            listener,
            queue,
            messages,
            empty,
            None if held is None else Held(*held),
            None if last is None else Held(*last),
            source=self.source,
        )
