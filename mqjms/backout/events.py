"""What poison handling reports: where a message went, how it was delivered, and the
event hooks receive once the unit of work holding the requeue has ended (seed 002)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from mqjms.mq.md import MQMD

from .failure import Failure


class PoisonOutcome(Enum):
    """Where a poison message went. Each put is made in a unit of work; an event with
    an outcome reaches hooks only once that unit of work has ended."""

    MOVED = "moved"  # put to BOQNAME
    DEAD_LETTERED = "dead_lettered"  # put to the queue manager's dead-letter queue
    DISCARDED = "discarded"  # MQRO_DISCARD_MSG: nothing put; the commit removed it
    # Neither queue took it (seed 002): a synchronous receiver's commit discarded it; a
    # listener backed it out, so it is back on the input queue (``returned_to_queue``).
    REQUEUE_FAILED = "requeue_failed"


#: The earlier name (``mqjms.Outcome``), kept for code written against it.
Outcome = PoisonOutcome


class DeliveryStyle(Enum):
    """How the application receives, which decides the unit of work a requeue is made in
    (seed 002 treats synchronous and asynchronous applications differently)."""

    SYNCHRONOUS = "synchronous"  # JMS receive(): inside the unit of work active at the get
    LISTENER = "listener"  # MessageListener / Worker: outside any unit of work of delivery
    MQI = "mqi"  # the pymqi/ibmmq drop-in: the program's MQI unit of work (backout/mqi.py)
    STAGED = "staged"  # the Spark runner: counted in staging, requeued outside delivery


@dataclass(frozen=True, slots=True)
class PoisonEvent:
    """What hooks receive: the outcome that happened and the message as it was received."""

    outcome: PoisonOutcome
    queue: str  # the underlying input queue
    destination: str  # the queue it went to, "" when discarded or not requeued
    reason: int  # MQRC: 2362 for the threshold, or the reason a put failed
    md: MQMD
    data: bytes
    failure: Failure | None
    style: DeliveryStyle
    returned_to_queue: bool = False  # REQUEUE_FAILED and backed out: on the input queue again
    #: where the exception report the message asked for (MQRO_EXCEPTION*) went when it was
    #: dead-lettered or discarded: its ReplyToQ, the dead-letter queue, or "" for none
    report_queue: str = ""


PoisonHook = Callable[[PoisonEvent], None]

_PENDING_EVENTS = {
    PoisonOutcome.MOVED: "poison.move_pending",
    PoisonOutcome.DEAD_LETTERED: "poison.dead_letter_pending",
    PoisonOutcome.DISCARDED: "poison.discard_pending",
    PoisonOutcome.REQUEUE_FAILED: "poison.requeue_pending",
}


def completed_event_name(outcome: PoisonOutcome) -> str:
    """``poison.moved`` and so on: logged once the requeue's unit of work has ended."""
    return f"poison.{outcome.value}"


def pending_event_name(outcome: PoisonOutcome) -> str:
    """``poison.move_pending`` and so on: the requeue waits in a unit of work that the
    application may still commit or roll back."""
    return _PENDING_EVENTS[outcome]
