"""Browse marks of one handle (MQGMO_MARK_BROWSE_HANDLE, MQGMO_UNMARK_BROWSE_HANDLE,
MQGMO_UNMARKED_BROWSE_MSG), as IBM MQ keeps them: a browse with MARK marks the message
it returns as browsed for this handle, one with UNMARK takes that mark off, and a browse
with UNMARKED_BROWSE_MSG steps over the messages this handle marked, so that a program
browsing from the first message again sees only what came since. Marks last until the
handle is closed (the queue manager's MARKINT is for cooperative marks, which mqjms does
not have: MQGMO_MARK_BROWSE_CO_OP and MQGMO_UNMARK_BROWSE_CO_OP are 2298).

A message is known by its MsgId, PutDate and PutTime (the queue manager makes MsgIds
unique; a program's own repeated MsgId put in the same hundredth of a second would
share a mark). When every message left is marked, the transport's browse cursor has
stepped past them: a later MQGMO_BROWSE_NEXT without UNMARKED_BROWSE_MSG continues
after the last of them, where IBM MQ's cursor stays on the message last returned.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms.mq.md import MQMD

if TYPE_CHECKING:
    from .get_request import Request
    from .hconn import Hobj

Mark = tuple[bytes, str, str]


def _key(md: MQMD) -> Mark:
    return (md.MsgId, md.PutDate, md.PutTime)


def skipped(obj: Hobj, ask: Request, md: MQMD) -> bool:
    """Whether a browse that asked for unmarked messages must step over ``md``."""
    return ask.unmarked_only and ask.browse is not None and _key(md) in obj.marks


def note(obj: Hobj, ask: Request, md: MQMD) -> None:
    """Mark or unmark the message a browse returned, as its options say."""
    if ask.browse is None and not ask.browse_under_cursor:
        return
    if ask.mark:
        obj.marks.add(_key(md))
    elif ask.unmark:
        obj.marks.discard(_key(md))
