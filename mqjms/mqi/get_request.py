"""An MQGET's options, read from the program's MQMD and MQGMO into a :class:`Request`:
MQGMO_WAIT with WaitInterval milliseconds (MQWI_UNLIMITED: no limit; without
MQGMO_WAIT no wait), syncpoint, browse first/next and the message under the cursor, the
ids to match (MQGMO version 1 matches MsgId and CorrelId whenever they are not none;
version 2 and up as MatchOptions says), a maximum length, the properties mode, locks and
groups. Options that are not valid or supported are refused here, before any get.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Browse

from . import fields, option_rules

#: The only options MQGMO_UNLOCK may come with.
_UNLOCK_ALLOWED = CMQC.MQGMO_UNLOCK | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
_BROWSES = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR


@dataclass(frozen=True)
class Request:
    """An MQGET's options, read from the program's MQMD and MQGMO."""

    wait: float | None
    syncpoint: bool
    if_persistent: bool
    browse: Browse | None
    under_cursor: bool
    browse_under_cursor: bool
    accept_truncated: bool
    max_length: int | None
    msg_id: bytes | None
    correl_id: bytes | None
    group_id: bytes | None
    properties: str  # "as_q_def", "handle", "none", "rfh2" (MQGMO_PROPERTIES_FORCE_MQRFH2)
    msg_handle: int
    convert: bool
    lock: bool = False  # MQGMO_LOCK: lock the message browsed
    unlock: bool = False  # MQGMO_UNLOCK: no message, the handle's lock ends
    logical_order: bool = False  # MQGMO_LOGICAL_ORDER: a group's messages one after another
    all_available: bool = False  # MQGMO_ALL_MSGS_AVAILABLE: only complete groups (groups.py)
    complete_msg: bool = False  # MQGMO_COMPLETE_MSG: a segmented message whole (segments.py)
    mark: bool = False  # MQGMO_MARK_BROWSE_HANDLE: mark the message browsed (browse_marks.py)
    unmark: bool = False  # MQGMO_UNMARK_BROWSE_HANDLE: unmark it
    unmarked_only: bool = False  # MQGMO_UNMARKED_BROWSE_MSG: browse over marked messages


_MATCHES_NOT_SUPPORTED = (
    CMQC.MQMO_MATCH_MSG_SEQ_NUMBER | CMQC.MQMO_MATCH_OFFSET | CMQC.MQMO_MATCH_MSG_TOKEN
)


def request(md: Any, gmo: Any, max_length: int | None) -> Request:
    """Read an MQGET's options (2046, 2090, 2298 for what is not valid or supported)."""
    options = fields.option(gmo, "Options")
    option_rules.check_get(options)
    if options & CMQC.MQGMO_UNLOCK and options & ~_UNLOCK_ALLOWED:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            "MQGMO_UNLOCK goes with no other option but MQGMO_NO_WAIT and MQGMO_NO_SYNCPOINT",
        )
    if options & CMQC.MQGMO_LOCK and not options & _BROWSES:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            "MQGMO_LOCK needs MQGMO_BROWSE_FIRST, MQGMO_BROWSE_NEXT or"
            " MQGMO_BROWSE_MSG_UNDER_CURSOR",
        )
    _check_marks(options)
    wait: float | None = 0.0
    if options & CMQC.MQGMO_WAIT:
        interval = fields.option(gmo, "WaitInterval")
        if interval == CMQC.MQWI_UNLIMITED:
            wait = None
        elif interval < 0:
            raise failed(C.MQRC_WAIT_INTERVAL_ERROR, f"WaitInterval {interval} is not valid")
        else:
            wait = interval / 1000.0
    browse = None
    if options & CMQC.MQGMO_BROWSE_FIRST:
        browse = Browse.FIRST
    elif options & CMQC.MQGMO_BROWSE_NEXT:
        browse = Browse.NEXT
    syncpoint = bool(options & CMQC.MQGMO_SYNCPOINT)  # never with a browse (check_get)
    browse_under = bool(options & CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR)
    version = fields.option(gmo, "Version", 1)
    match = (
        fields.option(gmo, "MatchOptions", CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID)
        if version >= 2
        else CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID
    )
    unmatched = match & _MATCHES_NOT_SUPPORTED
    if unmatched:  # ignored, a get would remove a message that does not match
        raise failed(
            C.MQRC_FUNCTION_NOT_SUPPORTED,
            f"MatchOptions {unmatched:#x} (MQMO_MATCH_MSG_SEQ_NUMBER, MQMO_MATCH_OFFSET or "
            "MQMO_MATCH_MSG_TOKEN) are not supported by mqjms: it matches MsgId, CorrelId "
            "and GroupId",
        )
    prop_mode = "as_q_def"
    handle = 0
    if options & CMQC.MQGMO_NO_PROPERTIES:
        prop_mode = "none"
    elif options & CMQC.MQGMO_PROPERTIES_IN_HANDLE:
        handle = fields.option(gmo, "MsgHandle") if version >= 4 else 0
        if not handle:  # the message stays on the queue: its properties would be lost
            raise failed(
                CMQC.MQRC_HMSG_ERROR,
                "MQGMO_PROPERTIES_IN_HANDLE needs a message handle in the MQGMO's MsgHandle "
                f"(MQGMO Version 4 or later; this one is Version {version}"
                f"{'' if version < 4 else ' with MsgHandle 0'})",
            )
        prop_mode = "handle"
    elif options & CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2:
        prop_mode = "rfh2"  # in an RFH2 in the data, whatever PROPCTL says
    elif not options & CMQC.MQGMO_PROPERTIES_COMPATIBILITY and version >= 4:
        # MQGMO_PROPERTIES_AS_Q_DEF: "If a MsgHandle is provided this option is ignored
        # and the properties of the message are available using the MsgHandle" (IBM MQ)
        handle = fields.option(gmo, "MsgHandle")
        prop_mode = "handle" if handle else "as_q_def"
    return Request(
        wait=wait,
        syncpoint=syncpoint,
        if_persistent=bool(options & CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) and not syncpoint,
        browse=browse,
        under_cursor=bool(options & CMQC.MQGMO_MSG_UNDER_CURSOR) and browse is None,
        browse_under_cursor=browse_under,
        accept_truncated=bool(options & CMQC.MQGMO_ACCEPT_TRUNCATED_MSG),
        max_length=max_length,
        msg_id=_match(md, "MsgId", match & CMQC.MQMO_MATCH_MSG_ID),
        correl_id=_match(md, "CorrelId", match & CMQC.MQMO_MATCH_CORREL_ID),
        group_id=_match(md, "GroupId", match & CMQC.MQMO_MATCH_GROUP_ID)
        if fields.option(md, "Version", 1) >= 2
        else None,
        properties=prop_mode,
        msg_handle=handle,
        convert=bool(options & CMQC.MQGMO_CONVERT),
        lock=bool(options & CMQC.MQGMO_LOCK),
        unlock=bool(options & CMQC.MQGMO_UNLOCK),
        logical_order=bool(options & CMQC.MQGMO_LOGICAL_ORDER),
        all_available=bool(options & CMQC.MQGMO_ALL_MSGS_AVAILABLE),
        complete_msg=bool(options & CMQC.MQGMO_COMPLETE_MSG),
        mark=bool(options & CMQC.MQGMO_MARK_BROWSE_HANDLE),
        unmark=bool(options & CMQC.MQGMO_UNMARK_BROWSE_HANDLE),
        unmarked_only=bool(options & CMQC.MQGMO_UNMARKED_BROWSE_MSG),
    )


def _check_marks(options: int) -> None:
    """Browse marks: of this handle only, and with a browse (2046); cooperative marks
    are not supported (2298)."""
    co_op = options & (CMQC.MQGMO_MARK_BROWSE_CO_OP | CMQC.MQGMO_UNMARK_BROWSE_CO_OP)
    if co_op:
        raise failed(
            C.MQRC_FUNCTION_NOT_SUPPORTED,
            "MQGMO_MARK_BROWSE_CO_OP and MQGMO_UNMARK_BROWSE_CO_OP (cooperative browsing) "
            "are not supported by mqjms: marks are the handle's own (MQGMO_MARK_BROWSE_HANDLE)",
        )
    handle_marks = CMQC.MQGMO_MARK_BROWSE_HANDLE | CMQC.MQGMO_UNMARK_BROWSE_HANDLE
    if options & handle_marks == handle_marks:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            "MQGMO_MARK_BROWSE_HANDLE and MQGMO_UNMARK_BROWSE_HANDLE together",
        )
    if options & handle_marks and not options & _BROWSES:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            "MQGMO_MARK_BROWSE_HANDLE and MQGMO_UNMARK_BROWSE_HANDLE need MQGMO_BROWSE_FIRST, "
            "MQGMO_BROWSE_NEXT or MQGMO_BROWSE_MSG_UNDER_CURSOR",
        )


def _match(md: Any, name: str, wanted: int) -> bytes | None:
    value = getattr(md, name, None)
    if not wanted or fields.is_none(value, 24):
        return None
    return fields.id_bytes(value)


__all__ = ["Request", "request"]
