"""Poison-message handling (seed 002), independent of the transport."""

from .attributes import AttributeCache, BackoutAttributes
from .failure import Failure
from .handler import Outcome, PoisonEvent, PoisonHandler, PoisonHook

__all__ = [
    "AttributeCache",
    "BackoutAttributes",
    "Failure",
    "Outcome",
    "PoisonEvent",
    "PoisonHandler",
    "PoisonHook",
]
