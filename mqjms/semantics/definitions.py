"""Queue definitions as every emulating transport sees them, and alias resolution.

A transport keeps its definitions its own way (the embedded queue manager in SQLite, the
STOMP transport in configuration); :class:`QueueDefinition` is the read view the MQ rules
need from either, and :func:`resolve` is MQ's alias rule written once: a QALIAS names
its TARGET, which must be a local queue or a local definition of a remote queue (else
MQRC_UNKNOWN_ALIAS_BASE_Q 2082). Where a QREMOTE leads is the embedded queue manager's
business (:mod:`mqjms.qmgr.remote`); a transport without them never defines one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol, TypeVar

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .attributes import ALIAS, LOCAL, QUEUE_ATTR_BY_NAME, REMOTE, validate_name

AttrValue = int | str | bool


class QueueDefinition(Protocol):
    """A queue's type (QLOCAL, QALIAS, QMODEL, QREMOTE) and its attributes under MQSC names."""

    @property
    def name(self) -> str: ...

    @property
    def qtype(self) -> str: ...

    @property
    def attrs(self) -> Mapping[str, AttrValue]: ...


Q = TypeVar("Q", bound=QueueDefinition)
#: A transport's lookup: the definition of a name, or None when it is not defined.
Lookup = Callable[[str], Q | None]


def attr(queue: QueueDefinition, name: str) -> AttrValue:
    """An attribute of ``queue``, MQ's default when the definition does not set it."""
    value = queue.attrs.get(name)
    return QUEUE_ATTR_BY_NAME[name].default if value is None else value


def enabled(queue: QueueDefinition, name: str) -> bool:
    """PUT / GET: whether the queue allows it (ENABLED, the default)."""
    return attr(queue, name) == "ENABLED"


def require(name: str, lookup: Lookup[Q]) -> Q:
    """The definition of ``name``; MQRC_UNKNOWN_OBJECT_NAME (2085) when there is none."""
    validate_name(name)
    found = lookup(name)
    if found is None:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name!r} is not defined")
    return found


def resolve(name: str, lookup: Lookup[Q]) -> tuple[Q, Q]:
    """(the queue named, the queue it resolves to). An alias resolves to its TARGET: a
    local queue, or a QREMOTE (which the caller routes)."""
    named = require(name, lookup)
    if named.qtype != ALIAS:
        return named, named
    target = str(named.attrs.get("TARGET", "")).strip()
    base = lookup(target) if target else None
    if base is None:
        raise failed(
            C.MQRC_UNKNOWN_ALIAS_BASE_Q,
            f"alias queue {name!r} targets {target!r}, which is not defined",
        )
    if base.qtype not in (LOCAL, REMOTE):
        raise failed(
            C.MQRC_UNKNOWN_ALIAS_BASE_Q,
            f"alias queue {name!r} targets {target!r}, a {base.qtype}, not a local or remote queue",
        )
    return named, base
