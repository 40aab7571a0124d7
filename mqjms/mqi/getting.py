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
are written only with a message to return (:mod:`.fields`). The options are read by
:mod:`.get_request`, each slice's transport get is :mod:`.get_attempts`'s, and
:mod:`.delivery` hands the message over.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Browse, Connection

from . import browse_marks, delivery, fields, get_attempts, interrupts
from .delivery import Truncated
from .get_request import Request, request
from .hconn import Hconn, Hobj

#: Seconds of one transport wait: how soon a waiting get lets other threads in and
#: notices Ctrl-C. Above the STOMP transport's dispatch grace, so a slice costs no
#: broker round trip.
WAIT_SLICE = 1.0
#: Seconds an unlimited wait pauses after a poison message no queue took went back to
#: the head of its queue, before it tries again (each try raises its BackoutCount).
UNPLACED_PAUSE = 5.0
# how long a waiting get lets go of its connection between two slices while other threads
# wait for it: time for one of them to take it (a lock has no queue to hand it over by)
STEP_ASIDE = 0.002
#: A browse stepped over a message this handle marked (MQGMO_UNMARKED_BROWSE_MSG).
_SKIPPED = "skipped"


def get(hconn: Hconn, number: int, md: Any, gmo: Any, max_length: int | None) -> bytes:
    """MQGET on object ``number``: the message's data; ``md`` and ``gmo`` updated in
    place. No message within the wait: MQError 2033 (and ``md``/``gmo`` untouched)."""
    callbacks = hconn.callbacks
    if callbacks is not None and callbacks.refuses_calls():  # type: ignore[attr-defined]
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
            if not get_attempts.message_locks(conn, obj).unlock(obj.queue):
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
            with delivery.too_long(obj, md, gmo):
                got = _browse_under_cursor(conn, obj, ask)
            if ask.lock and not get_attempts.message_locks(conn, obj).lock_browsed(obj.queue):
                raise failed(
                    C.MQRC_NO_MSG_UNDER_CURSOR,
                    f"the message under the cursor of {obj.name!r} is gone: nothing to lock",
                )
            return delivery.deliver(hconn, obj, ask, md, gmo, *got, target)
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
    attempt = get_attempts.attempt_complete if complete_only else get_attempts.attempt
    if ask.complete_msg and ask.browse is None and not ask.under_cursor:
        attempt = get_attempts.attempt_whole
    scan = browse_marks.Scan.of(ask)  # MQGMO_UNMARKED_BROWSE_MSG
    if scan is not None:
        attempt = scan.attempt
    deadline = None if ask.wait is None else time.monotonic() + ask.wait
    while True:
        with hconn.call() as conn:
            with interrupts.deferred() as noted:
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                slice_wait = WAIT_SLICE if remaining is None else min(WAIT_SLICE, remaining)
                with delivery.too_long(obj, md, gmo):
                    outcome = attempt(hconn, conn, obj, ask, slice_wait)
                if isinstance(outcome, tuple) and scan and scan.steps_over(obj, outcome[0]):
                    if ask.lock:  # only the message returned stays locked
                        get_attempts.message_locks(conn, obj).unlock(obj.queue)
                    # on to the next message, in the same wait
                    ask, outcome = dataclasses.replace(ask, browse=Browse.NEXT), _SKIPPED
                elif isinstance(outcome, tuple):
                    noted.delivered()  # a Ctrl-C now waits for the program's next call
                    return delivery.deliver(hconn, obj, ask, md, gmo, *outcome, target)
                last = outcome is None and remaining is not None and remaining <= slice_wait
                if scan is not None and last:
                    scan.ended(conn, obj)  # 2033 follows
            noted.act()
        if outcome == get_attempts.STOP:
            if deadline is None:
                time.sleep(UNPLACED_PAUSE)
                continue
            _sleep_out(deadline)
            raise failed(C.MQRC_NO_MSG_AVAILABLE, f"no message on {obj.name!r}")
        if outcome is None and remaining is not None and remaining <= slice_wait:
            raise failed(C.MQRC_NO_MSG_AVAILABLE, f"no message on {obj.name!r}")
        if hconn.others_waiting():
            time.sleep(STEP_ASIDE)


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


def _sleep_out(deadline: float | None) -> None:
    """A poison message that no queue takes stays at the head of the queue: rather than
    try again at once, this get waits out its interval (a Ctrl-C still ends it)."""
    while deadline is not None and (left := deadline - time.monotonic()) > 0:
        time.sleep(min(left, 0.2))


__all__ = ["WAIT_SLICE", "Request", "Truncated", "get", "request"]
