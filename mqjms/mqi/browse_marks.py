"""Browse marks of one handle (MQGMO_MARK_BROWSE_HANDLE, MQGMO_UNMARK_BROWSE_HANDLE,
MQGMO_UNMARKED_BROWSE_MSG), as IBM MQ keeps them: a browse with MARK marks the message
it returns as browsed for this handle, one with UNMARK takes that mark off, and a browse
with UNMARKED_BROWSE_MSG steps over the messages this handle marked, so that a program
browsing from the first message again sees only what came since. A mark goes when this
handle gets the message, and when a browse from the first message, stepping over marked
ones, reaches the end without seeing it (another handle got it, or it expired); else it
lasts until the handle is closed (the queue manager's MARKINT is for cooperative marks,
which mqjms does not have: MQGMO_MARK_BROWSE_CO_OP and MQGMO_UNMARK_BROWSE_CO_OP are 2298).

A message is known by its MsgId, PutDate and PutTime (the queue manager makes MsgIds
unique; a program's own repeated MsgId put in the same hundredth of a second would
share a mark). Stepping over a message reads it (one transport get each, the whole
message when it is too long for the program's buffer, which a marked one never makes
2080), and an MQGMO_LOCK browse unlocks it again. When the browse then finds no unmarked
message (2033), the transport's cursor is put back on the message this handle last
browsed, where IBM MQ's cursor stays.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Connection, TruncatedMessage

from . import get_attempts

if TYPE_CHECKING:
    from .get_attempts import Outcome
    from .get_request import Request
    from .hconn import Hconn, Hobj

Mark = tuple[bytes, str, str]


def key(md: MQMD) -> Mark:
    return (md.MsgId, md.PutDate, md.PutTime)


def note(obj: Hobj, ask: Request, md: MQMD) -> None:
    """Mark or unmark the message a browse returned, as its options say; a message this
    handle got destructively loses its mark (IBM MQ drops it with the message)."""
    if ask.browse is None and not ask.browse_under_cursor:
        obj.marks.discard(key(md))
    elif ask.mark:
        obj.marks.add(key(md))
    elif ask.unmark:
        obj.marks.discard(key(md))


@dataclass
class Scan:
    """One MQGMO_UNMARKED_BROWSE_MSG browse call: the marked messages it stepped over."""

    whole: bool  # from the first message, with no ids to match: it sees every message
    seen: set[Mark] = field(default_factory=set)

    @classmethod
    def of(cls, ask: Request) -> Scan | None:
        """The scan a get makes (None: it steps over nothing)."""
        if not ask.unmarked_only or ask.browse is None:
            return None
        selects = (ask.msg_id, ask.correl_id, ask.group_id) != (None, None, None)
        return cls(whole=ask.browse is Browse.FIRST and not selects)

    def steps_over(self, obj: Hobj, md: MQMD) -> bool:
        """Whether the browse must step over ``md`` (one this handle marked)."""
        if key(md) not in obj.marks:
            return False
        self.seen.add(key(md))
        return True

    def attempt(
        self, hconn: Hconn, conn: Connection, obj: Hobj, ask: Request, wait: float
    ) -> Outcome:
        """``get_attempts.attempt``, but a marked message too long for the buffer is read
        whole (so the cursor moves on to it) rather than 2080; a message this scan already
        stepped over is the end of it (no message): a transport whose cursor comes round
        again (STOMP's browse of a message by its id) must not step over it for ever."""
        try:
            got = get_attempts.attempt(hconn, conn, obj, ask, wait)
        except TruncatedMessage as exc:
            if exc.md is None or key(exc.md) not in obj.marks:
                raise
            if key(exc.md) in self.seen:
                return None
            whole = dataclasses.replace(
                ask, accept_truncated=True, msg_id=exc.md.MsgId, correl_id=None, group_id=None
            )
            got = get_attempts.attempt(hconn, conn, obj, whole, wait)
            if got is None:
                return get_attempts.AGAIN  # it went: look on
        if isinstance(got, tuple) and key(got[0]) in self.seen:
            return None
        return got

    def ended(self, conn: Connection, obj: Hobj) -> None:
        """No unmarked message (2033): a whole scan's unseen marks are of messages gone;
        the cursor goes back to the message last browsed."""
        if self.whole:
            obj.marks &= self.seen
        if self.seen and obj.browsed is not None:
            conn.get(obj.queue, browse=Browse.FIRST, msg_id=obj.browsed[0].MsgId)
