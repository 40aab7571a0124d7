"""MQGET as pymqi and ibmmq programs use it, on a transport connection.

What the MQGMO asks for becomes a transport get: MQGMO_WAIT with WaitInterval
milliseconds (MQWI_UNLIMITED: no limit; without MQGMO_WAIT no wait), syncpoint,
browse first/next and the message under the cursor, the ids to match (MQGMO version 1
matches MsgId and CorrelId whenever they are not none; version 2 and up as MatchOptions
says), a maximum length (2080 leaves the message, MQGMO_ACCEPT_TRUNCATED_MSG 2079 takes
it), properties (:mod:`.properties`) and MQGMO_CONVERT of MQSTR text to the MQMD's
CodedCharSetId. Destructive gets are screened for poison messages (:mod:`.screening`);
a wait is served in slices, between which other threads sharing the connection take
their turn and a Ctrl-C is acted on (:mod:`.interrupts`). The program's MQMD and MQGMO
are written only with a message to return (:mod:`.fields`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from mqjms.backout import GetUnit
from mqjms.mq import ccsid
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.gmo import MQGMO
from mqjms.mq.md import MQMD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import (
    Browse,
    Capability,
    Connection,
    GetsIfPersistent,
    LocksMessages,
    TruncatedMessage,
)

from . import (
    fields,
    groups,
    interrupts,
    option_rules,
    properties,
    screening,
    segments,
    stripping,
)
from .hconn import Hconn, Hobj

#: Seconds of one transport wait: how soon a waiting get lets other threads in and
#: notices Ctrl-C. Above the STOMP transport's dispatch grace, so a slice costs no
#: broker round trip.
WAIT_SLICE = 1.0

_GMO_SPECS = {spec.name: spec for spec in MQGMO.SPECS}
#: The only options MQGMO_UNLOCK may come with.
_UNLOCK_ALLOWED = CMQC.MQGMO_UNLOCK | CMQC.MQGMO_NO_WAIT | CMQC.MQGMO_NO_SYNCPOINT
_BROWSES = CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_BROWSE_NEXT | CMQC.MQGMO_BROWSE_MSG_UNDER_CURSOR


class Truncated(MQError):
    """MQGET's truncation warnings (2079 message taken, 2080 left), with the data that
    fit (``message``) and the message's ``original_length``, as both libraries raise."""

    def __init__(
        self,
        reason: int,
        message: bytes,
        original_length: int,
        detail: str,
        md: MQMD | None = None,
    ) -> None:
        super().__init__(C.MQCC_WARNING, reason, detail)
        self.message = message
        self.original_length = original_length
        self.md = md  # 2080: the MQMD MQ fills in though the message stays


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
    )


def _match(md: Any, name: str, wanted: int) -> bytes | None:
    value = getattr(md, name, None)
    if not wanted or fields.is_none(value, 24):
        return None
    return fields.id_bytes(value)


# --------------------------------------------------------------------------- MQGET


def get(hconn: Hconn, number: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
    """MQGET on object ``number``: the message's data; ``md`` and ``gmo`` updated in
    place. No message within the wait: MQError 2033 (and ``md``/``gmo`` untouched)."""
    delivery = hconn.callbacks
    if delivery is not None and delivery.refuses_calls():  # type: ignore[attr-defined]
        raise failed(
            CMQC.MQRC_HCONN_ASYNC_ACTIVE,
            "MQGET on a connection whose asynchronous consume (MQCTL MQOP_START) is active: "
            "get in a callback, or MQCTL MQOP_SUSPEND or MQOP_STOP first",
        )
    with hconn.call() as conn:
        obj = hconn.object(number)
        ask = request(md, gmo, max_length)
        # what MQGMO_CONVERT converts to: the CCSID and encoding the program's MQMD has
        target = (
            fields.option(md, "CodedCharSetId", C.MQCCSI_Q_MGR),
            fields.option(md, "Encoding", C.MQENC_NATIVE),
        )
        if ask.unlock:
            if not _locks(conn, obj).unlock(obj.queue):
                raise MQError(
                    C.MQCC_WARNING, C.MQRC_NO_MSG_LOCKED, f"no message locked on {obj.name!r}"
                )
            return b""  # MQ returns no message, and leaves the MQMD alone
        if ask.properties == "handle":
            hconn.properties.get(ask.msg_handle)  # 2460 now, before a message is taken
        if ask.browse_under_cursor:
            if obj.browsed is None:
                raise failed(
                    C.MQRC_NO_MSG_UNDER_CURSOR, f"no message under the cursor of {obj.name!r}"
                )
            # read again from the queue: gone or expired is 2034, Expiry what remains now
            with _too_long(obj, md, gmo):
                got = _browse_under_cursor(conn, obj, ask)
            if ask.lock and not _locks(conn, obj).lock_browsed(obj.queue):
                raise failed(
                    C.MQRC_NO_MSG_UNDER_CURSOR,
                    f"the message under the cursor of {obj.name!r} is gone: nothing to lock",
                )
            return _deliver(hconn, obj, ask, md, gmo, *got, target)
    if ask.logical_order and ask.browse is None and obj.get_group is not None:
        # the rest of the group the last get began, whatever the MQMD's ids say
        ask = dataclasses.replace(ask, group_id=obj.get_group, msg_id=None, correl_id=None)
    # IBM MQ: with MQGMO_LOGICAL_ORDER the option counts only when no group is being got
    complete_only = (
        ask.all_available
        and ask.browse is None
        and not ask.under_cursor
        and not (ask.logical_order and obj.get_group is not None)
    )
    attempt = _attempt_complete if complete_only else _attempt
    if ask.complete_msg and ask.browse is None and not ask.under_cursor:
        attempt = _attempt_whole
    deadline = None if ask.wait is None else time.monotonic() + ask.wait
    while True:
        with hconn.call() as conn:
            with interrupts.deferred() as noted:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                slice_wait = WAIT_SLICE if remaining is None else min(WAIT_SLICE, remaining)
                with _too_long(obj, md, gmo):
                    outcome = attempt(hconn, conn, obj, ask, slice_wait)
                if isinstance(outcome, tuple):
                    noted.delivered()  # a Ctrl-C now waits for the program's next call
                    return _deliver(hconn, obj, ask, md, gmo, *outcome, target)
            noted.act()
        if outcome == _STOP:
            if deadline is None:
                time.sleep(UNPLACED_PAUSE)
                continue
            _sleep_out(deadline)
            raise failed(C.MQRC_NO_MSG_AVAILABLE, f"no message on {obj.name!r}")
        if outcome is None and remaining is not None and remaining <= slice_wait:
            raise failed(C.MQRC_NO_MSG_AVAILABLE, f"no message on {obj.name!r}")


@contextmanager
def _too_long(obj: Hobj, md: Any, gmo: Any) -> Iterator[None]:
    """A message too long for the program's buffer (the transport's TruncatedMessage):
    MQ's 2080 warning, with the MQMD and MQGMO filled in as MQ does."""
    try:
        yield
    except TruncatedMessage as exc:
        if exc.md is not None:
            fields.round_trip(md)  # the whole MQMD as MQ returned it (a v1 MD's v2 fields too)
            fields.md_into(md, exc.md)
            _gmo_into(gmo, obj, len(exc.data), exc.md.MsgFlags)
        raise Truncated(
            C.MQRC_TRUNCATED_MSG_FAILED, exc.data, exc.original_length, exc.detail, exc.md
        ) from None


def _browse_under_cursor(conn: Connection, obj: Hobj, ask: Request) -> tuple[MQMD, bytes]:
    """MQGMO_BROWSE_MSG_UNDER_CURSOR on the transport (2034 when the message is gone)."""
    got = conn.get(
        obj.queue,
        browse=Browse.CURSOR,
        max_length=None if ask.accept_truncated else ask.max_length,
    )
    if got is None:
        raise failed(C.MQRC_NO_MSG_UNDER_CURSOR, f"no message under the cursor of {obj.name!r}")
    return got


def _locks(conn: Connection, obj: Hobj) -> LocksMessages:
    """The connection's MQGMO_LOCK calls; 2046 when its transport has none."""
    if Capability.MESSAGE_LOCK not in conn.capabilities:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            f"MQGMO_LOCK and MQGMO_UNLOCK ({obj.name!r}): not supported on this transport",
        )
    return cast(LocksMessages, conn)


_AGAIN = "again"  # a poison message was moved: look for the next one
_STOP = "stop"  # a poison message no queue took was backed out: no more this call
#: Seconds an unlimited wait pauses after a poison message no queue took went back to
#: the head of its queue, before it tries again (each try raises its BackoutCount).
UNPLACED_PAUSE = 5.0


#: Seconds a get waits for the message a 2080 left, taken again without its limit.
RETAKE_WAIT = 1.0
#: Seconds between two looks for a complete group while a get waits for one.
COMPLETE_GROUP_POLL = 0.1


def _attempt_complete(
    hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float
) -> tuple[MQMD, bytes] | str | None:
    """One wait slice of a get with MQGMO_ALL_MSGS_AVAILABLE: look for the first message
    in no group or in a complete one (:mod:`.groups`) and get that one by its MsgId;
    look again every COMPLETE_GROUP_POLL seconds while none is there. A transport whose
    browse does not show the queue at once (STOMP) gets as if without the option."""
    if Capability.BROWSE_AT_ONCE not in conn.capabilities:
        return _attempt(hconn, conn, obj, ask, wait)
    until = time.monotonic() + wait
    while True:
        found = groups.first_available(
            conn,
            obj.queue,
            msg_id=ask.msg_id,
            correl_id=ask.correl_id,
            group_id=ask.group_id,
            logical_order=ask.logical_order,
        )
        if found is not None:
            # by all its ids (a MsgId an application set need not be unique; a GroupId
            # of nulls is matched exactly: a message in no group, not one in any group)
            taking = dataclasses.replace(
                ask, msg_id=found.MsgId, correl_id=found.CorrelId, group_id=found.GroupId
            )
            outcome = _attempt(hconn, conn, obj, taking, 0.0)
            if outcome is not None:
                return outcome
            # another consumer took it meanwhile: look again after the pause
        left = until - time.monotonic()
        if left <= 0:
            return None
        time.sleep(min(COMPLETE_GROUP_POLL, left))


def _attempt_whole(
    hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float
) -> tuple[MQMD, bytes] | str | None:
    """One wait slice of a get with MQGMO_COMPLETE_MSG: look for the first message that
    is no segment or a complete segmented one (:mod:`.segments`) and get it, a segmented
    one whole (2080 and nothing got when it is longer than the buffer, but with
    MQGMO_ACCEPT_TRUNCATED_MSG), all or nothing: in a unit of work holding nothing else
    a segment gone meanwhile backs out the others; under syncpoint in the program's unit
    of work with other work (which cannot be backed out alone) it dooms that unit of work
    (outside syncpoint with other work pending: 2072); look again every COMPLETE_GROUP_POLL
    seconds while none is there. A transport whose browse does not show the queue at once
    (STOMP) gets as if without the option."""
    if Capability.BROWSE_AT_ONCE not in conn.capabilities:
        return _attempt(hconn, conn, obj, ask, wait)
    until = time.monotonic() + wait
    while True:
        found = segments.first_whole(
            conn, obj.queue, msg_id=ask.msg_id, correl_id=ask.correl_id, group_id=ask.group_id
        )
        outcome: tuple[MQMD, bytes] | str | None = None
        if found is not None and not found[0][0].MsgFlags & segments.SEGMENTED:
            md = found[0][0]
            taking = dataclasses.replace(
                ask, msg_id=md.MsgId, correl_id=md.CorrelId, group_id=md.GroupId
            )
            outcome = _attempt(hconn, conn, obj, taking, 0.0)
        elif found is not None:
            length = sum(len(data) for _, data in found)
            if ask.max_length is not None and length > ask.max_length and not ask.accept_truncated:
                whole = found[0][0].copy()
                whole.MsgFlags, whole.Offset = found[-1][0].MsgFlags, 0
                head = b"".join(data for _, data in found)[: ask.max_length]
                raise TruncatedMessage(whole, head, length, ask.max_length)
            syncpoint = ask.syncpoint or (
                ask.if_persistent and found[0][0].Persistence == C.MQPER_PERSISTENT
            )
            alone = not hconn.work
            if len(found) > 1 and not alone and not syncpoint:
                raise failed(
                    C.MQRC_SYNCPOINT_NOT_AVAILABLE,
                    "a segmented message got whole outside syncpoint is got in a unit of "
                    "work of its own (so a segment gone meanwhile backs out the others), "
                    "and the program's holds other work: MQCMIT or MQBACK it first, or get "
                    "under syncpoint",
                )
            try:
                outcome = segments.take(conn, obj.queue, found, syncpoint=syncpoint, alone=alone)
            except segments.PartlyTaken:
                # segments of it are in the program's unit of work with its other work:
                # none can be backed out alone, so the unit of work is (its MQCMIT: 2003)
                hconn.doom("a segmented message's segments went while it was got whole")
                raise failed(
                    C.MQRC_NO_MSG_AVAILABLE,
                    "a segment of the message went (another get, or expiry) while it was "
                    "got whole; the unit of work holds part of it and is backed out at "
                    "MQCMIT (2003) or MQBACK",
                ) from None
            except BaseException:
                if not alone:  # part of it may be in the unit of work with the other work
                    hconn.doom("a get of a segmented message failed part-way")
                raise
            if outcome is not None and syncpoint:
                hconn.note_work()
        if outcome is not None:
            return outcome
        left = until - time.monotonic()
        if left <= 0:
            return None
        time.sleep(min(COMPLETE_GROUP_POLL, left))


def _attempt(
    hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float
) -> tuple[MQMD, bytes] | str | None:
    """One transport get, screened: the message, None (none arrived), or a marker."""
    wants_syncpoint = ask.syncpoint or ask.if_persistent
    unit = None if ask.browse is not None else screening.unit_for(hconn.flow, wants_syncpoint)
    syncpoint = wants_syncpoint if unit is None else unit is not GetUnit.NONE
    held = hconn.work > 0
    locks = _locks(conn, obj) if ask.lock else None
    browse = ask.browse
    # the transport decides by the message: a non-persistent one never joins the unit of
    # work, whatever it holds (else: got under syncpoint, and committed below if nothing
    # else is in the unit of work)
    native = (
        ask.if_persistent
        and browse is None
        and Capability.SYNCPOINT_IF_PERSISTENT in conn.capabilities
    )
    msg_id, correl_id, group_id = ask.msg_id, ask.correl_id, ask.group_id
    limit = None if ask.accept_truncated else ask.max_length
    while True:
        try:
            if native:
                got = cast(GetsIfPersistent, conn).get_if_persistent(
                    obj.queue,
                    wait=0.0 if ask.under_cursor else wait,
                    msg_id=msg_id,
                    correl_id=correl_id,
                    group_id=group_id,
                    under_cursor=ask.under_cursor,
                    max_length=limit,
                )
            else:
                got = conn.get(
                    obj.queue,
                    wait=0.0 if ask.under_cursor else wait,
                    syncpoint=syncpoint,
                    browse=browse,
                    msg_id=msg_id,
                    correl_id=correl_id,
                    group_id=group_id,
                    under_cursor=ask.under_cursor,
                    max_length=limit,
                )
        except TruncatedMessage as exc:
            mode = ask.properties
            stripped = stripping.length_once_stripped(mode, exc.md, exc.data, exc.original_length)
            if stripped is None and stripping.headers_cut(mode, exc):
                # the buffer ends inside the RFH2s: read the whole message to measure them
                whole = stripping.browsed_whole(conn, obj.queue, exc.md)
                if whole is not None:
                    stripped = stripping.length_once_stripped(mode, exc.md, whole, len(whole))
            if stripped is not None:
                exc.original_length = stripped  # MQ's DataLength: the data the get returns
                retakes = Capability.BROWSE_AT_ONCE in conn.capabilities
                if retakes and limit is not None and stripped <= limit:
                    # only the properties the get takes off made it too long: get it,
                    # by its ids, with no limit (IBM MQ checks the data it returns)
                    msg_id, correl_id, group_id = stripping.ids_of(exc.md)
                    limit = None
                    wait = max(wait, RETAKE_WAIT)  # it is there: a 2080 leaves it
                    continue
            moved = _move_too_long(hconn, conn, obj, ask, unit, exc)
            if moved is None:
                raise
            return moved
        if got is None or locks is None or locks.lock_browsed(obj.queue):
            break
        browse = Browse.NEXT  # got by another handle meanwhile: browse on from the cursor
    if got is None:
        return None
    md, data = got
    outside = native and md.Persistence != C.MQPER_PERSISTENT  # got for good, no unit
    if unit is not None and hconn.flow is not None:
        event = hconn.flow.screen(obj.queue, md, data, GetUnit.NONE if outside else unit)
        if event is not None and ask.under_cursor:
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR,
                f"the message under the cursor of {obj.name!r} was a poison message: "
                f"{event.outcome.value} {event.destination}".rstrip(),
            )
        if event is not None:
            return _STOP if event.returned_to_queue else _AGAIN
    if outside:
        pass  # MQGMO_SYNCPOINT_IF_PERSISTENT and not persistent: outside the unit of work
    elif ask.if_persistent and md.Persistence != C.MQPER_PERSISTENT and not held:
        conn.commit()  # the same where the transport cannot: nothing else is in the unit
    elif unit is GetUnit.OWN:
        conn.commit()  # the drop-in's own syncpoint: the program asked for none
    elif syncpoint and ask.browse is None:
        hconn.note_work()
    return md, data


def _move_too_long(
    hconn: Hconn,
    conn: Connection,
    obj: Hobj,
    ask: Request,
    unit: GetUnit | None,
    truncated: TruncatedMessage,
) -> str | None:
    """Seed 002 for a poison message too long for the program's buffer (2080 leaves it on
    the queue, and shows its first bytes): moved whatever its length, when the move is in
    a unit of work of its own (the drop-in's, or the program's while it holds nothing),
    which can put the message back if it is not moved after all. The marker, or None when
    the 2080 stands."""
    flow, md = hconn.flow, truncated.md
    if flow is None or md is None or ask.under_cursor:
        return None
    alone = unit is GetUnit.OWN or (unit is GetUnit.CALLER and not flow.holds_work)
    if not alone or not flow.is_poison(obj.queue, md):
        return None
    got = conn.get(obj.queue, wait=0.0, syncpoint=True, msg_id=md.MsgId, correl_id=md.CorrelId)
    if got is None:
        return _AGAIN  # taken meanwhile: look again
    assert unit is not None
    event = flow.screen(obj.queue, got[0], got[1], unit)
    if event is None:  # not moved (not the message screened): back where it was
        conn.backout()
        return None
    return _STOP if event.returned_to_queue else _AGAIN


def _sleep_out(deadline: float | None) -> None:
    """A poison message that no queue takes stays at the head of the queue: rather than
    try again at once, this get waits out its interval (a Ctrl-C still ends it)."""
    while deadline is not None and (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.2))


def _deliver(
    hconn: Hconn,
    obj: Hobj,
    ask: Request,
    md_opts: Any,
    gmo_opts: Any,
    md: MQMD,
    data: bytes,
    target: tuple[int, int],
) -> bytes:
    """Hand the message to the program: properties, conversion, truncation, and the
    output fields of its MQMD and MQGMO."""
    if ask.browse is not None:
        obj.browsed = (md.copy(), data)
    elif not ask.browse_under_cursor:
        obj.context = md.copy()
    if ask.properties == "handle":
        folders, data = properties.split_properties(md, data)
        hconn.properties.get(ask.msg_handle).fill_from(folders)
    elif ask.properties == "none":
        _, data = properties.split_properties(md, data)
    elif ask.properties == "as_q_def":
        data = properties.without_qmgr_properties(md, data)
    warning: MQError | None = None
    if ask.convert:
        unconverted, as_put = data, (md.CodedCharSetId, md.Encoding)
        data, warning = _converted(md, data, *target)
        limit = ask.max_length
        if limit is not None and len(unconverted) <= limit < len(data) and not ask.accept_truncated:
            # it fitted as it was put (so it was taken) and grew in conversion: IBM MQ
            # returns it whole and unconverted with 2120, never cut short
            warning = MQError(
                C.MQCC_WARNING,
                CMQC.MQRC_CONVERTED_MSG_TOO_BIG,
                f"returned unconverted: {len(unconverted)} bytes as put, {len(data)} in "
                f"CCSID {md.CodedCharSetId}, over the buffer's {limit}",
            )
            data, (md.CodedCharSetId, md.Encoding) = unconverted, as_put
    original = len(data)
    if ask.max_length is not None and original > ask.max_length:
        data = data[: ask.max_length]
        warning = Truncated(
            C.MQRC_TRUNCATED_MSG_ACCEPTED,
            data,
            original,
            f"the message has {original} bytes; {ask.max_length} were returned",
        )
    fields.round_trip(md_opts)  # the whole MQMD as MQ returned it (a v1 MD's v2 fields too)
    fields.md_into(md_opts, md)
    fields.round_trip(gmo_opts)
    _gmo_into(gmo_opts, obj, len(data), md.MsgFlags)
    if ask.logical_order and ask.browse is None and not ask.browse_under_cursor:
        in_group = md.MsgFlags & CMQC.MQMF_MSG_IN_GROUP
        last = md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP
        # a segment before the last: the rest of its logical message comes next
        more_segments = md.MsgFlags & CMQC.MQMF_SEGMENT and not (
            md.MsgFlags & CMQC.MQMF_LAST_SEGMENT
        )
        if ask.syncpoint or (ask.if_persistent and md.Persistence == C.MQPER_PERSISTENT):
            hconn.mark_groups(obj)
        goes_on = (in_group and not last) or more_segments
        obj.get_group = md.GroupId if goes_on else None
    if warning is not None:
        # a warning still delivers the message: it travels with the error, as in both
        # libraries (``e.message``, ``e.original_length``)
        warning.__dict__.setdefault("message", data)
        warning.__dict__.setdefault("original_length", original)
        raise warning
    return data


def _gmo_into(gmo: Any, obj: Hobj, returned: int, flags: int = 0) -> None:
    if gmo is None:
        return
    version = fields.option(gmo, "Version", 1)
    values: dict[str, object] = {"ResolvedQName": obj.queue.resolved_name}
    if version >= 2:
        status = (
            CMQC.MQGS_LAST_MSG_IN_GROUP
            if flags & CMQC.MQMF_LAST_MSG_IN_GROUP
            else CMQC.MQGS_MSG_IN_GROUP
            if flags & CMQC.MQMF_MSG_IN_GROUP
            else CMQC.MQGS_NOT_IN_GROUP
        )
        segment = (
            CMQC.MQSS_LAST_SEGMENT
            if flags & CMQC.MQMF_LAST_SEGMENT
            else CMQC.MQSS_SEGMENT
            if flags & CMQC.MQMF_SEGMENT
            else CMQC.MQSS_NOT_A_SEGMENT
        )
        allowed = flags & CMQC.MQMF_SEGMENTATION_ALLOWED
        values.update(
            GroupStatus=chr(status),
            SegmentStatus=chr(segment),
            Segmentation=chr(CMQC.MQSEG_ALLOWED if allowed else CMQC.MQSEG_INHIBITED),
        )
    if version >= 3:
        values["ReturnedLength"] = returned
    for name, value in values.items():
        if hasattr(gmo, name):
            fields.assign(gmo, _GMO_SPECS[name], value)


def _converted(
    md: MQMD, data: bytes, target_ccsid: int, target_encoding: int
) -> tuple[bytes, MQError | None]:
    """MQGMO_CONVERT: MQSTR text in the CCSID the program's MQMD asked for (its queue
    manager's, 1208, for MQCCSI_Q_MGR), 2119 (a warning: the message is returned as it
    is) when it cannot be. A message of no format (MQFMT_NONE) or an application's own
    (no conversion exit here) whose CCSID or encoding differs from the asked ones is
    returned as it is with 2110 MQRC_FORMAT_ERROR, a warning, as IBM MQ does; IBM's
    other formats (headers) are returned as they are."""
    wanted = C.CCSID_UTF8 if target_ccsid in (C.MQCCSI_Q_MGR, C.MQCCSI_INHERIT) else target_ccsid
    source = C.CCSID_UTF8 if md.CodedCharSetId in (C.MQCCSI_Q_MGR, 0) else md.CodedCharSetId
    fmt = md.Format.rstrip()
    if fmt != C.MQFMT_STRING.rstrip():
        if fmt.startswith("MQ") or (
            wanted == source and _encoding(md.Encoding) == _encoding(target_encoding)
        ):
            return data, None
        what = f"format {fmt!r} has no conversion exit" if fmt else "the message has no format"
        return data, MQError(
            C.MQCC_WARNING,
            C.MQRC_FORMAT_ERROR,
            f"not converted: {what} (CCSID {source}, encoding {md.Encoding}; asked for CCSID "
            f"{wanted}, encoding {target_encoding})",
        )
    if wanted == source and _encoding(md.Encoding) == _encoding(target_encoding):
        return data, None
    try:
        text = ccsid.decode(data, source, md.Encoding)
        converted = ccsid.encode(text, wanted, target_encoding)
    except (MQError, UnicodeError) as exc:
        return data, MQError(C.MQCC_WARNING, C.MQRC_NOT_CONVERTED, str(exc))
    # the MQMD describes the data returned: the character set and encoding asked for
    md.CodedCharSetId, md.Encoding = wanted, target_encoding
    return converted, None


def _encoding(value: int) -> int:
    """An encoding's integer, decimal and float parts (what conversion would change)."""
    return value & (C.MQENC_INTEGER_MASK | C.MQENC_DECIMAL_MASK | C.MQENC_FLOAT_MASK)
