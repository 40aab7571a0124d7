"""IBM MQ's rules for validating MQI options: the combinations MQOPEN, MQPUT, MQPUT1,
MQGET and MQCLOSE refuse with MQRC_OPTIONS_ERROR (2046), checked before the call does
anything.

A program that passes a refused combination fails on IBM MQ; it must fail here too, not
run on the drop-in and break in production.
"""

from __future__ import annotations

from collections.abc import Iterable

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC

_INPUTS = (CMQC.MQOO_INPUT_AS_Q_DEF, CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_INPUT_EXCLUSIVE)
_BINDS = (CMQC.MQOO_BIND_ON_OPEN, CMQC.MQOO_BIND_NOT_FIXED, CMQC.MQOO_BIND_ON_GROUP)
_OPEN_ANY = (
    CMQC.MQOO_BROWSE,
    *_INPUTS,
    CMQC.MQOO_INQUIRE,
    CMQC.MQOO_OUTPUT,
    CMQC.MQOO_SET,
    *_BINDS,
)
_OPEN_CONTEXTS = (
    CMQC.MQOO_PASS_IDENTITY_CONTEXT
    | CMQC.MQOO_PASS_ALL_CONTEXT
    | CMQC.MQOO_SET_IDENTITY_CONTEXT
    | CMQC.MQOO_SET_ALL_CONTEXT
)
_PUT_CONTEXTS = (
    CMQC.MQPMO_DEFAULT_CONTEXT,
    CMQC.MQPMO_NO_CONTEXT,
    CMQC.MQPMO_PASS_ALL_CONTEXT,
    CMQC.MQPMO_PASS_IDENTITY_CONTEXT,
    CMQC.MQPMO_SET_ALL_CONTEXT,
    CMQC.MQPMO_SET_IDENTITY_CONTEXT,
)
_GET_SYNCPOINTS = (
    CMQC.MQGMO_NO_SYNCPOINT,
    CMQC.MQGMO_SYNCPOINT,
    CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT,
)
_BROWSES = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR
_CURSORS = (
    CMQC.MQGMO_BROWSE_FIRST,
    CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR,
    CMQC.MQGMO_BROWSE_NEXT,
    CMQC.MQGMO_MSG_UNDER_CURSOR,
)


def check_open(options: int) -> None:
    """MQOPEN's rules."""
    if not any(options & option for option in _OPEN_ANY):
        _refuse("MQOPEN", options, "names none of the access options (MQOO_INPUT_*, ...)")
    _one_of("MQOPEN", options, _INPUTS, "MQOO_INPUT_*")
    _one_of("MQOPEN", options, _BINDS, "MQOO_BIND_*")
    _one_of("MQOPEN", options, (CMQC.MQOO_READ_AHEAD, CMQC.MQOO_NO_READ_AHEAD), "read-ahead")
    if options & CMQC.MQOO_SAVE_ALL_CONTEXT and not any(options & i for i in _INPUTS):
        _refuse("MQOPEN", options, "MQOO_SAVE_ALL_CONTEXT needs an MQOO_INPUT_* option")
    if options & (_OPEN_CONTEXTS | CMQC.MQOO_NO_MULTICAST) and not options & CMQC.MQOO_OUTPUT:
        _refuse("MQOPEN", options, "a context or multicast option needs MQOO_OUTPUT")
    if options & CMQC.MQOO_CO_OP and not options & CMQC.MQOO_BROWSE:
        _refuse("MQOPEN", options, "MQOO_CO_OP needs MQOO_BROWSE")


def check_put(options: int, *, put1: bool = False) -> None:
    """MQPUT's rules (``put1``: MQPUT1's)."""
    call = "MQPUT1" if put1 else "MQPUT"
    if options & CMQC.MQPMO_SYNCPOINT and options & CMQC.MQPMO_NO_SYNCPOINT:
        _refuse(call, options, "MQPMO_SYNCPOINT and MQPMO_NO_SYNCPOINT together")
    _one_of(call, options, _PUT_CONTEXTS, "context")
    _one_of(call, options, (CMQC.MQPMO_SYNC_RESPONSE, CMQC.MQPMO_ASYNC_RESPONSE), "response")
    if not put1 and options & CMQC.MQPMO_ALTERNATE_USER_AUTHORITY:
        _refuse(call, options, "MQPMO_ALTERNATE_USER_AUTHORITY is valid only on MQPUT1")
    if put1 and options & CMQC.MQPMO_LOGICAL_ORDER:
        _refuse(call, options, "MQPMO_LOGICAL_ORDER is not valid on MQPUT1")


def check_get(options: int) -> None:
    """MQGET's rules."""
    _one_of("MQGET", options, _GET_SYNCPOINTS, "syncpoint")
    _one_of("MQGET", options, _CURSORS, "browse or cursor")
    if options & CMQC.MQGMO_SYNCPOINT and options & (
        _BROWSES | CMQC.MQGMO_LOCK | CMQC.MQGMO_UNLOCK
    ):
        _refuse("MQGET", options, "MQGMO_SYNCPOINT with a browse, MQGMO_LOCK or MQGMO_UNLOCK")
    if options & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT and options & (
        _BROWSES | CMQC.MQGMO_COMPLETE_MSG | CMQC.MQGMO_UNLOCK
    ):
        _refuse(
            "MQGET",
            options,
            "MQGMO_SYNCPOINT_IF_PERSISTENT with a browse, MQGMO_COMPLETE_MSG or MQGMO_UNLOCK",
        )
    if options & CMQC.MQGMO_MARK_SKIP_BACKOUT and not options & CMQC.MQGMO_SYNCPOINT:
        _refuse("MQGET", options, "MQGMO_MARK_SKIP_BACKOUT needs MQGMO_SYNCPOINT")
    if options & CMQC.MQGMO_WAIT and options & CMQC.MQGMO_SET_SIGNAL:
        _refuse("MQGET", options, "MQGMO_WAIT and MQGMO_SET_SIGNAL together")


_CLOSE_KNOWN = (
    CMQC.MQCO_DELETE
    | CMQC.MQCO_DELETE_PURGE
    | CMQC.MQCO_KEEP_SUB
    | CMQC.MQCO_REMOVE_SUB
    | CMQC.MQCO_QUIESCE
)


def check_close(options: int) -> None:
    """MQCLOSE's rules: no bit MQ does not define (before any 2045 for a DELETE option on
    an object that cannot be deleted), one way to end a queue, one way to end a
    subscription."""
    if options & ~_CLOSE_KNOWN:
        _refuse("MQCLOSE", options, f"bits {options & ~_CLOSE_KNOWN:#x} are no MQCO_* option")
    _one_of("MQCLOSE", options, (CMQC.MQCO_DELETE, CMQC.MQCO_DELETE_PURGE), "MQCO_DELETE*")
    _one_of("MQCLOSE", options, (CMQC.MQCO_KEEP_SUB, CMQC.MQCO_REMOVE_SUB), "MQCO_*_SUB")


def _one_of(call: str, options: int, exclusive: Iterable[int], what: str) -> None:
    if sum(1 for option in exclusive if options & option) > 1:
        _refuse(call, options, f"more than one {what} option")


def _refuse(call: str, options: int, why: str) -> None:
    raise failed(C.MQRC_OPTIONS_ERROR, f"{call} options {options:#x}: {why}")
