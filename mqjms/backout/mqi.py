"""Seed 002 for MQI programs (the pymqi/ibmmq drop-in): ``DeliveryStyle.MQI``.

A pymqi program has no session: it gets with or without MQGMO_SYNCPOINT and ends its
unit of work with MQCMIT, MQBACK or MQDISC (which commits). The drop-in makes every
destructive get screenable, then calls :meth:`MQIPoisonFlow.screen` with how it got the
message:

``caller``: under the program's syncpoint. The requeue is made in the program's unit of
    work (seed 002's rule for synchronous receivers). When that unit of work holds
    nothing else of the program's, it is committed at once, as IBM MQ classes for JMS
    do for a CLIENT_ACKNOWLEDGE session holding no unacknowledged message: the program
    never received this message, and a program that backs out after every
    MQRC_NO_MSG_AVAILABLE would otherwise undo the move forever. When it holds the
    program's work (:meth:`delivered`), the requeue stays in it: the program's MQCMIT
    completes the move, its MQBACK returns the message to the input queue (BackoutCount
    + 1) to be screened again. In ``strict`` mode (IBM MQ classes for JMS exactly) a
    requeue always stays in the program's unit of work.
``own``: the program asked for no syncpoint and its unit of work held nothing, so the
    drop-in got the message under a syncpoint of its own (never a silent syncpoint of
    the program's): a requeue is committed at once.
``none``: the program asked for no syncpoint while its unit of work holds work, so the
    message is off the queue already: the requeue's puts are made outside any unit of
    work.

What the flow does when no queue takes the message (REQUEUE_FAILED): committing on its
own, it backs out instead, so the message stays on the input queue (as a listener's does);
in the program's unit of work it delivers the message to the program instead of letting
a commit discard it (``strict``: the JMS rule, a commit discards it); outside any unit
of work it delivers it too. Nothing is ever lost.
"""

from __future__ import annotations

from enum import Enum

from mqjms.logs import get_logger
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Handle

from .events import DeliveryStyle, PoisonEvent, PoisonOutcome
from .handler import PoisonHandler
from .requeue_end import end_requeue, ending

log = get_logger("mqjms.backout")


class GetUnit(Enum):
    """The unit of work a destructive MQI get was made in."""

    CALLER = "caller"  # the program's MQGMO_SYNCPOINT
    OWN = "own"  # the drop-in's own syncpoint: the program asked for none, held no work
    NONE = "none"  # no syncpoint at all: the program asked for none while holding work


class MQIPoisonFlow:
    """One MQI connection's poison handling (``DeliveryStyle.MQI``). Callers serialise
    their calls (one per connection, as the drop-in's per-connection lock does)."""

    style = DeliveryStyle.MQI

    def __init__(
        self,
        handler: PoisonHandler,
        conn: Connection,
        *,
        strict: bool = False,
        scope: object = None,
    ) -> None:
        self.handler = handler
        self.conn = conn
        self.strict = strict
        self.scope = scope  # what cached BOTHRESH/BOQNAME belong to (default: conn)
        self._work = 0  # the program's syncpoint gets delivered and puts, this unit of work
        self._pending: list[PoisonEvent] = []

    @property
    def holds_work(self) -> bool:
        """Whether the program's unit of work holds anything (its gets and puts under
        syncpoint, or requeues waiting in it)."""
        return self._work > 0 or bool(self._pending)

    @property
    def pending(self) -> tuple[PoisonEvent, ...]:
        """Requeues made in the program's unit of work and not yet committed."""
        return tuple(self._pending)

    def delivered(self) -> None:
        """The program got a message or put one under syncpoint in this unit of work."""
        self._work += 1

    def committed(self) -> None:
        """The program's unit of work was committed (MQCMIT, MQDISC): its requeues happened."""
        pending, self._pending, self._work = self._pending, [], 0
        for event in pending:
            self.handler.completed(event)

    def backed_out(self) -> None:
        """The program's unit of work was backed out: its poison messages are on the
        input queue again, BackoutCount + 1, to be screened at the next get."""
        pending, self._pending, self._work = self._pending, [], 0
        for event in pending:
            self.handler.backed_out(event)

    def is_poison(self, handle: Handle, md: MQMD) -> bool:
        """Whether :meth:`screen` would requeue ``md`` (seed 002's BOTHRESH test alone)."""
        return self.handler.poison_attributes(self.conn, handle, md, scope=self.scope) is not None

    def screen(self, handle: Handle, md: MQMD, data: bytes, unit: GetUnit) -> PoisonEvent | None:
        """After a destructive get: None when the program is to receive ``md`` (not
        poison, or a poison message no queue would take that the program must have);
        else the message was requeued as the module docstring says and the program gets
        the next one. The caller's MQMD is never touched here."""
        attrs = self.handler.poison_attributes(self.conn, handle, md, scope=self.scope)
        if attrs is None:
            return None
        event = self.handler.requeue(
            self.conn,
            handle.resolved_name,
            md,
            data,
            attrs,
            style=self.style,
            syncpoint=unit is not GetUnit.NONE,
            scope=self.scope,
        )
        failed = event.outcome is PoisonOutcome.REQUEUE_FAILED
        if unit is GetUnit.NONE:
            if failed:
                self._deliver_unplaced(event, "the get was outside any unit of work")
                return None
            return self.handler.completed(event)
        in_callers_work = unit is GetUnit.CALLER and (self.strict or self.holds_work)
        if in_callers_work:
            if failed and not self.strict:
                self._deliver_unplaced(event, "the program's unit of work holds work")
                return None
            self._pending.append(event)
            self.handler.pending(event)
            return event
        # a backout leaves the message on the input queue, BackoutCount + 1
        return end_requeue(self.handler, event, ending(self.conn))

    def _deliver_unplaced(self, event: PoisonEvent, why: str) -> None:
        log.error(
            "poison.delivered_unmoved",
            queue=event.queue,
            msg_id=event.md.MsgId.hex(),
            backout_count=event.md.BackoutCount,
            detail=f"no queue took the poison message and {why}: the program receives it",
        )
