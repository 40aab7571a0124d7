"""Poison-message handling (seed 002), independent of the transport, in one component:
:class:`PoisonHandler` decides, routes and reports; one flow per delivery style
(:class:`SynchronousPoisonFlow`, :class:`ListenerPoisonFlow`, :class:`StagedPoisonFlow`,
:class:`MQIPoisonFlow`) says which unit of work a
requeue is made in and what ends it. See :mod:`mqjms.backout.handler`."""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

if TYPE_CHECKING:
    from .attributes import AttributeCache, BackoutAttributes, dead_letter_queue
    from .events import DeliveryStyle, Outcome, PoisonEvent, PoisonHook, PoisonOutcome
    from .failure import Failure, FailureMemory
    from .handler import PoisonHandler
    from .listener import ListenerOptions, ListenerPoisonFlow, PendingMove
    from .mqi import GetUnit, MQIPoisonFlow
    from .staged import StagedPoisonFlow
    from .synchronous import SynchronousPoisonFlow, UnitOfWorkMode

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    ".attributes": ("AttributeCache", "BackoutAttributes", "dead_letter_queue"),
    ".events": ("DeliveryStyle", "Outcome", "PoisonEvent", "PoisonHook", "PoisonOutcome"),
    ".failure": ("Failure", "FailureMemory"),
    ".handler": ("PoisonHandler",),
    ".listener": ("ListenerOptions", "ListenerPoisonFlow", "PendingMove"),
    ".mqi": ("GetUnit", "MQIPoisonFlow"),
    ".staged": ("StagedPoisonFlow",),
    ".synchronous": ("SynchronousPoisonFlow", "UnitOfWorkMode"),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "AttributeCache",
    "BackoutAttributes",
    "DeliveryStyle",
    "Failure",
    "FailureMemory",
    "GetUnit",
    "ListenerOptions",
    "ListenerPoisonFlow",
    "MQIPoisonFlow",
    "Outcome",
    "PendingMove",
    "PoisonEvent",
    "PoisonHandler",
    "PoisonHook",
    "PoisonOutcome",
    "StagedPoisonFlow",
    "SynchronousPoisonFlow",
    "UnitOfWorkMode",
    "dead_letter_queue",
]
