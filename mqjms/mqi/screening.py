"""Seed 002 in the drop-in's destructive gets, through mqjms's one poison component.

A pymqi program's get screens each message it would return (:mod:`mqjms.backout`,
``DeliveryStyle.MQI``): one with BackoutCount at or above its queue's BOTHRESH is moved
to BOQNAME (or dead-lettered, or discarded by its report options), the program's MQMD is
left untouched, and the get goes on to the next message within what remains of its
wait. Which unit of work the move is made in is :class:`~mqjms.backout.MQIPoisonFlow`'s
rule; this module decides how a get is made so that the rule can hold:

* MQGMO_SYNCPOINT: under the program's syncpoint (``GetUnit.CALLER``);
* no syncpoint, the program's unit of work empty: under the drop-in's own syncpoint,
  committed as soon as the message is known to be deliverable (``GetUnit.OWN``): the
  program still gets a message that is off the queue, and a poison one can be moved, or
  left on the queue when no queue takes it, instead of lost;
* no syncpoint while the program's unit of work holds work: a plain get (``GetUnit.NONE``;
  committing would commit the program's work).

Browse is never screened; a get under the browse cursor is. With ``configure(poison=False)``
nothing is screened (plain IBM MQ behaviour); ``poison="jms"`` keeps every move in the
program's unit of work (IBM MQ classes for JMS exactly). One handler serves the process:
BOTHRESH and BOQNAME are inquired once per connection and underlying queue (seed 002).
"""

from __future__ import annotations

from mqjms.backout import GetUnit, MQIPoisonFlow, PoisonHandler, PoisonHook
from mqjms.semantics import Capability, Connection

from .routing import PoisonMode

_handler = PoisonHandler()


def handler() -> PoisonHandler:
    """The process's poison handler (its hooks run for every drop-in connection)."""
    return _handler


def on_poison(hook: PoisonHook) -> PoisonHook:
    """Run ``hook`` with each poison message's outcome, once its unit of work has ended
    (usable as a decorator)."""
    _handler.hooks.append(hook)
    return hook


def flow_for(conn: Connection, mode: str) -> MQIPoisonFlow | None:
    """The connection's poison flow, or None when screening is off (or the transport
    keeps no BackoutCount, so that nothing can be poison)."""
    if mode == PoisonMode.OFF or Capability.BACKOUT_COUNT not in conn.capabilities:
        return None
    return MQIPoisonFlow(_handler, conn, strict=mode == PoisonMode.JMS)


def unit_for(flow: MQIPoisonFlow | None, syncpoint: bool) -> GetUnit | None:
    """How a destructive get is made (None: plain, unscreened)."""
    if flow is None:
        return None
    if syncpoint:
        return GetUnit.CALLER
    return GetUnit.NONE if flow.holds_work else GetUnit.OWN


def delivered(flow: MQIPoisonFlow | None) -> None:
    if flow is not None:
        flow.delivered()


def committed(flow: MQIPoisonFlow | None) -> None:
    if flow is not None:
        flow.committed()


def backed_out(flow: MQIPoisonFlow | None) -> None:
    if flow is not None:
        flow.backed_out()


__all__ = [
    "GetUnit",
    "backed_out",
    "committed",
    "delivered",
    "flow_for",
    "handler",
    "on_poison",
    "unit_for",
]
