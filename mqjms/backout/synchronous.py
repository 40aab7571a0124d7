"""Seed 002 for synchronous receivers: "Processing poison messages for synchronous
applications". A JMS session has one flow; its receive loop calls :meth:`screen` after
each get and the session tells the flow how each unit of work ended.

The requeue is made within the unit of work that was active at the get. Whether it stays
there or is committed at once depends on how the session ends its units of work
(:class:`UnitOfWorkMode`):

* transacted: it stays; the application's commit completes the move (or discards the
  message when no queue took it), its rollback returns the message to the input queue;
* AUTO_ACKNOWLEDGE / DUPS_OK_ACKNOWLEDGE: committed at once (seed 002: with a
  non-transacted session the message is discarded when no queue takes it);
* CLIENT_ACKNOWLEDGE: committed at once when the session holds no unacknowledged
  message, since the application never received this one and could otherwise bring it
  back by closing or recovering; else it stays with those messages: the next
  ``acknowledge()`` completes it, ``recover()`` or close returns it to the input queue
  (BackoutCount + 1) to be requeued again.
"""

from __future__ import annotations

from enum import Enum

from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Handle

from .events import DeliveryStyle, PoisonEvent
from .handler import PoisonHandler


class UnitOfWorkMode(Enum):
    """How a synchronous receiver's units of work end."""

    TRANSACTED = "transacted"  # the application's commit() / rollback()
    AUTO_ACKNOWLEDGE = "auto_acknowledge"  # AUTO and DUPS_OK: as receive() returns
    CLIENT_ACKNOWLEDGE = "client_acknowledge"  # the application's acknowledge() / recover()


class SynchronousPoisonFlow:
    """One session's poison handling (``DeliveryStyle.SYNCHRONOUS``). Not thread-safe,
    like the session it belongs to."""

    style = DeliveryStyle.SYNCHRONOUS

    def __init__(
        self,
        handler: PoisonHandler,
        conn: Connection,
        *,
        mode: UnitOfWorkMode,
        scope: object = None,
    ) -> None:
        self.handler = handler
        self.conn = conn
        self.mode = mode
        self.scope = scope  # what cached BOTHRESH/BOQNAME belong to (default: conn)
        self._unacknowledged = 0  # CLIENT_ACKNOWLEDGE: messages delivered in this unit of work
        self._pending: list[PoisonEvent] = []  # requeues waiting for the unit of work to end

    @property
    def pending(self) -> tuple[PoisonEvent, ...]:
        """Requeues made in the current unit of work and not yet committed."""
        return tuple(self._pending)

    def screen(self, handle: Handle, md: MQMD, data: bytes) -> PoisonEvent | None:
        """After a get under syncpoint: None when ``md`` is to be delivered; else the
        message was requeued in the unit of work active at the get (and, when the mode
        says so, committed) and the caller gets the next one."""
        attrs = self.handler.poison_attributes(self.conn, handle, md, scope=self.scope)
        if attrs is None:
            return None
        event = self.handler.requeue(
            self.conn, handle.resolved_name, md, data, attrs, style=self.style, scope=self.scope
        )
        self._pending.append(event)
        if self._completes_at_once():
            self.conn.commit()  # should it fail, the caller's backout resolves the pending one
            self.committed()
        else:
            self.handler.pending(event)
        return event

    def is_poison(self, handle: Handle, md: MQMD) -> bool:
        """Whether :meth:`screen` would requeue a message with ``md`` (a receiver that
        looks before it gets asks, so that it gets such a message for the flow)."""
        return self.handler.poison_attributes(self.conn, handle, md, scope=self.scope) is not None

    def _completes_at_once(self) -> bool:
        if self.mode is UnitOfWorkMode.AUTO_ACKNOWLEDGE:
            return True
        if self.mode is UnitOfWorkMode.CLIENT_ACKNOWLEDGE:
            return self._unacknowledged == 0
        return False  # transacted: the application's transaction decides

    def delivered(self) -> None:
        """A message was handed to the application in the current unit of work."""
        if self.mode is UnitOfWorkMode.CLIENT_ACKNOWLEDGE:
            self._unacknowledged += 1

    def committed(self) -> None:
        """The unit of work was committed: its requeues happened."""
        pending, self._pending, self._unacknowledged = self._pending, [], 0
        for event in pending:
            self.handler.completed(event)

    def backed_out(self) -> None:
        """The unit of work was backed out (rollback, recover, close): its poison messages
        are on the input queue again, BackoutCount + 1, to be screened at the next get."""
        pending, self._pending, self._unacknowledged = self._pending, [], 0
        for event in pending:
            self.handler.backed_out(event)
