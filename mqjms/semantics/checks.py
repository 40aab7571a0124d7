"""The contract's argument rules, checked the same way by every transport.

MQOPEN refuses options that ask for nothing and decides shared or exclusive input;
MQGET, MQPUT, MQINQ and MQSET refuse a handle opened without the matching MQOO_* option,
a browse under syncpoint, a negative wait and a put whose context option the handle was
not opened for, each with IBM's reason code; keeping the rules here keeps the transports in step.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .contract import Browse, Context, Handle
from .definitions import QueueDefinition, attr

#: The MQOO_* options that ask MQOPEN for something (the others only qualify them).
OPEN_KINDS = C.MQOO_INPUT_MASK | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET


def check_open(options: int) -> None:
    """MQOPEN's check of its options: 2046 when they ask for nothing."""
    if not options & OPEN_KINDS:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            f"open options {options:#x} ask for nothing: give MQOO_INPUT_*, MQOO_BROWSE, "
            "MQOO_OUTPUT or MQOO_INQUIRE",
        )


def input_mode(options: int, base: QueueDefinition, others: Iterable[int] = ()) -> int:
    """The options an input open gets: MQOO_INPUT_AS_Q_DEF resolved by DEFSOPT, exclusive
    on a NOSHARE queue; 2042 when ``others`` (the options of the queue's other input
    opens) hold it exclusively or this open wants it so and it is open already."""
    exclusive = bool(options & C.MQOO_INPUT_EXCLUSIVE) or (
        bool(options & C.MQOO_INPUT_AS_Q_DEF) and attr(base, "DEFSOPT") == "EXCL"
    )
    if not attr(base, "SHARE"):
        exclusive = True
    opened = list(others)
    if opened and (exclusive or any(o & C.MQOO_INPUT_EXCLUSIVE for o in opened)):
        raise failed(
            C.MQRC_OBJECT_IN_USE,
            f"queue {base.name!r} is open for exclusive input by another application",
        )
    mode = C.MQOO_INPUT_EXCLUSIVE if exclusive else C.MQOO_INPUT_SHARED
    return (options & ~C.MQOO_INPUT_MASK) | mode


def check_inquire(handle: Handle) -> None:
    """MQINQ on a handle: 2038 when it was not opened with MQOO_INQUIRE."""
    if not handle.options & C.MQOO_INQUIRE:
        raise failed(
            C.MQRC_NOT_OPEN_FOR_INQUIRE, f"{handle.name!r} was not opened with MQOO_INQUIRE"
        )


def check_get(
    handle: Handle, *, wait: float | None, syncpoint: bool, browse: Browse | None
) -> None:
    """MQGET's checks: 2036 / 2037 (not open for browse / input), 2046, 2090."""
    if browse is not None:
        if not handle.options & C.MQOO_BROWSE:
            raise failed(
                C.MQRC_NOT_OPEN_FOR_BROWSE, f"{handle.name!r} was not opened with MQOO_BROWSE"
            )
        if syncpoint:
            raise failed(C.MQRC_OPTIONS_ERROR, "a browse cannot be under syncpoint")
    elif not handle.options & C.MQOO_INPUT_MASK:
        raise failed(C.MQRC_NOT_OPEN_FOR_INPUT, f"{handle.name!r} was not opened for input")
    if wait is not None and wait < 0:
        raise failed(C.MQRC_WAIT_INTERVAL_ERROR, f"wait {wait} is negative (None waits forever)")


def check_put(target: str | Handle, data: object, context: Context) -> str:
    """MQPUT's checks on a handle (2039, 2093) and the data; returns the queue name."""
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"message data must be bytes, not {type(data).__name__}")
    if not isinstance(target, Handle):
        return target
    if not target.options & C.MQOO_OUTPUT:
        raise failed(C.MQRC_NOT_OPEN_FOR_OUTPUT, f"{target.name!r} was not opened with MQOO_OUTPUT")
    needed = _CONTEXT_OPTIONS.get(context)
    if needed is not None and not target.options & needed[0]:
        raise failed(needed[1], f"{target.name!r} was not opened with {needed[2]}")
    return target.name


# The MQOO_* options that allow a put's context option (a wider one implies the narrower:
# SET_ALL implies every other, PASS_ALL and SET_IDENTITY imply PASS_IDENTITY), and the
# reason without them.
_CONTEXT_OPTIONS = {
    Context.PASS_IDENTITY: (
        C.MQOO_PASS_IDENTITY_CONTEXT
        | C.MQOO_PASS_ALL_CONTEXT
        | C.MQOO_SET_IDENTITY_CONTEXT
        | C.MQOO_SET_ALL_CONTEXT,
        C.MQRC_NOT_OPEN_FOR_PASS_IDENT,
        "MQOO_PASS_IDENTITY_CONTEXT",
    ),
    Context.PASS_ALL: (
        C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_ALL_CONTEXT,
        C.MQRC_NOT_OPEN_FOR_PASS_ALL,
        "MQOO_PASS_ALL_CONTEXT",
    ),
    Context.SET_IDENTITY: (
        C.MQOO_SET_IDENTITY_CONTEXT | C.MQOO_SET_ALL_CONTEXT,
        C.MQRC_NOT_OPEN_FOR_SET_IDENT,
        "MQOO_SET_IDENTITY_CONTEXT",
    ),
    Context.SET_ALL: (
        C.MQOO_SET_ALL_CONTEXT,
        C.MQRC_NOT_OPEN_FOR_SET_ALL,
        "MQOO_SET_ALL_CONTEXT",
    ),
}


def check_set(handle: Handle) -> None:
    """MQSET on a handle: 2040 when it was not opened with MQOO_SET."""
    if not handle.options & C.MQOO_SET:
        raise failed(C.MQRC_NOT_OPEN_FOR_SET, f"{handle.name!r} was not opened with MQOO_SET")


def check_get_allowed(named: QueueDefinition, base: QueueDefinition) -> None:
    """MQGET's check of the queue named and its base: 2016 when either is GET(DISABLED)."""
    for queue in (named, base):
        if attr(queue, "GET") != "ENABLED":
            raise failed(C.MQRC_GET_INHIBITED, f"queue {queue.name!r} is GET(DISABLED)")
