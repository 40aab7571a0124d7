"""Which commands exist: MQSC's verbs, and a handler per verb and object type.

Object types are pluggable: :func:`register` maps a verb and an object keyword (with its
abbreviations) to a handler, so another object type (a NAMELIST, a TOPIC) is one
handler per verb and a ``register`` line, without touching the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..manager import QueueManager
    from .parser import Command

Value = int | str | bool
ObjectAttrs = dict[str, Value]

VERBS: dict[str, str] = {
    "DEFINE": "DEFINE",
    "DEF": "DEFINE",
    "ALTER": "ALTER",
    "ALT": "ALTER",
    "DELETE": "DELETE",
    "CLEAR": "CLEAR",
    "DISPLAY": "DISPLAY",
    "DIS": "DISPLAY",
    "REFRESH": "REFRESH",
}
# Object keyword (or abbreviation) -> canonical keyword; extended by register().
OBJECT_KEYWORDS: dict[str, str] = {}
# Object types written without a name in parentheses (ALTER QMGR, DISPLAY QMGR).
UNNAMED_OBJECTS: set[str] = {"QMGR"}


@dataclass(slots=True)
class CommandOutput:
    """What a handler returns for a command that worked: runmqsc's message, DISPLAY's
    objects, and a count where the command has one (messages cleared or discarded)."""

    message: str
    objects: list[ObjectAttrs] = field(default_factory=list)
    count: int | None = None


Handler = Callable[["QueueManager", "Command"], CommandOutput]
HANDLERS: dict[tuple[str, str], Handler] = {}


def register(
    verb: str, objtype: str, *aliases: str, unnamed: bool = False
) -> Callable[[Handler], Handler]:
    """Register ``handler(qm, command) -> CommandOutput`` for ``VERB OBJTYPE``.

    ``aliases`` are the object keyword's abbreviations (``PRO`` for ``PROCESS``);
    ``unnamed`` marks an object written without a name (``QMGR``). A handler raises
    MQError (or ``command.error(...)`` for a bad keyword) when the command fails.
    """
    canonical_verb = VERBS[verb.upper()]
    canonical = objtype.upper()

    def add(handler: Handler) -> Handler:
        HANDLERS[(canonical_verb, canonical)] = handler
        for keyword in (canonical, *aliases):
            OBJECT_KEYWORDS[keyword.upper()] = canonical
        if unnamed:
            UNNAMED_OBJECTS.add(canonical)
        return handler

    return add


def objects_of(verb: str) -> list[str]:
    """The object types ``verb`` has a handler for, for error messages."""
    return sorted({objtype for known, objtype in HANDLERS if known == verb})
