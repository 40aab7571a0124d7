"""The contract's argument rules, checked the same way by every transport.

MQGET and MQPUT refuse a handle opened without the matching MQOO_* option, a browse under
syncpoint, a negative wait and a pass-all-context put on a handle not opened for it, each
with IBM's reason code; keeping the rules here keeps the transports in step.
"""

from __future__ import annotations

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .base import Browse, Context, Handle


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
    if context is Context.PASS_ALL and not target.options & (
        C.MQOO_PASS_ALL_CONTEXT | C.MQOO_SET_ALL_CONTEXT
    ):
        raise failed(
            C.MQRC_NOT_OPEN_FOR_PASS_ALL,
            f"{target.name!r} was not opened with MQOO_PASS_ALL_CONTEXT",
        )
    return target.name
