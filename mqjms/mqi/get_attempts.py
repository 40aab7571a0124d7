"""One transport get of an MQGET's wait slice (:func:`attempt`), screened for poison
messages (:mod:`.screening`): the message, None when none arrived, or a marker that a
poison message was moved (AGAIN) or went back to its queue (STOP). With
MQGMO_ALL_MSGS_AVAILABLE only a message of a complete group is got
(:func:`attempt_complete`, :mod:`.groups`), with MQGMO_COMPLETE_MSG a segmented message
is got whole (:func:`attempt_whole`, :mod:`.segments`). A message too long for the
program's buffer only because of the properties the get takes off is got again whole
(:mod:`.stripping`)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import cast

from mqjms.backout import GetUnit
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.md import MQMD
from mqjms.semantics import (
    Browse,
    Capability,
    Connection,
    GetsIfPersistent,
    LocksMessages,
    TruncatedMessage,
)

from . import groups, screening, segments, stripping
from .get_request import Request
from .hconn import Hconn, Hobj

#: What one attempt comes to: the message, None (none arrived) or AGAIN or STOP.
Outcome = tuple[MQMD, bytes] | str | None


def message_locks(conn: Connection, obj: Hobj) -> LocksMessages:
    """The connection's MQGMO_LOCK calls; 2046 when its transport has none."""
    if Capability.MESSAGE_LOCK not in conn.capabilities:
        raise failed(
            C.MQRC_OPTIONS_ERROR,
            f"MQGMO_LOCK and MQGMO_UNLOCK ({obj.name!r}): not supported on this transport",
        )
    return cast(LocksMessages, conn)


AGAIN = "again"  # a poison message was moved: look for the next one
STOP = "stop"  # a poison message no queue took was backed out: no more this call


#: Seconds a get waits for the message a 2080 left, taken again without its limit.
RETAKE_WAIT = 1.0
#: Seconds between two looks for a complete group while a get waits for one.
COMPLETE_GROUP_POLL = 0.1


def attempt_complete(
    hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float
) -> Outcome:
    """One wait slice of a get with MQGMO_ALL_MSGS_AVAILABLE: look for the first message
    in no group or in a complete one (:mod:`.groups`) and get that one by its MsgId;
    look again every COMPLETE_GROUP_POLL seconds while none is there. A transport whose
    browse does not show the queue at once (STOMP) gets as if without the option."""
    if Capability.BROWSE_AT_ONCE not in conn.capabilities:
        return attempt(hconn, conn, obj, ask, wait)

    def look() -> Outcome:
        found = groups.first_available(
            conn,
            obj.queue,
            msg_id=ask.msg_id,
            correl_id=ask.correl_id,
            group_id=ask.group_id,
            logical_order=ask.logical_order,
        )
        if found is None:
            return None
        # by all its ids (a MsgId an application set need not be unique; a GroupId of
        # nulls is matched exactly: a message in no group, not one in any group)
        taking = dataclasses.replace(
            ask, msg_id=found.MsgId, correl_id=found.CorrelId, group_id=found.GroupId
        )
        # None: another consumer took it meanwhile, look again after the pause
        return attempt(hconn, conn, obj, taking, 0.0)

    return _polled(look, wait)


def attempt_whole(hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float) -> Outcome:
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
        return attempt(hconn, conn, obj, ask, wait)
    return _polled(lambda: _take_whole(hconn, conn, obj, ask), wait)


def _take_whole(hconn: Hconn, conn: Connection, obj: Hobj, ask: Request) -> Outcome:
    """The first message that is no segment or a complete segmented one, got (whole);
    None when there is none."""
    found = segments.first_whole(
        conn, obj.queue, msg_id=ask.msg_id, correl_id=ask.correl_id, group_id=ask.group_id
    )
    if found is None:
        return None
    if not found[0][0].MsgFlags & segments.SEGMENTED:
        md = found[0][0]
        taking = dataclasses.replace(
            ask, msg_id=md.MsgId, correl_id=md.CorrelId, group_id=md.GroupId
        )
        return attempt(hconn, conn, obj, taking, 0.0)
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
    return outcome


def _polled(look: Callable[[], Outcome], wait: float) -> Outcome:
    """What ``look`` finds, looking again every COMPLETE_GROUP_POLL seconds while it finds
    nothing, for ``wait`` seconds at the most (None: nothing in that time)."""
    until = time.monotonic() + wait
    while True:
        outcome = look()
        if outcome is not None:
            return outcome
        left = until - time.monotonic()
        if left <= 0:
            return None
        time.sleep(min(COMPLETE_GROUP_POLL, left))


def attempt(hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float) -> Outcome:
    """One transport get, screened: the message, None (none arrived), or a marker."""
    wants_syncpoint = ask.syncpoint or ask.if_persistent
    unit = None if ask.browse is not None else screening.unit_for(hconn.flow, wants_syncpoint)
    syncpoint = wants_syncpoint if unit is None else unit is not GetUnit.NONE
    held = hconn.work > 0
    locks = message_locks(conn, obj) if ask.lock else None
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
            return STOP if event.returned_to_queue else AGAIN
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
        return AGAIN  # taken meanwhile: look again
    assert unit is not None
    event = flow.screen(obj.queue, got[0], got[1], unit)
    if event is None:  # not moved (not the message screened): back where it was
        conn.backout()
        return None
    return STOP if event.returned_to_queue else AGAIN


__all__ = [
    "AGAIN",
    "STOP",
    "Outcome",
    "attempt",
    "attempt_complete",
    "attempt_whole",
    "message_locks",
]
