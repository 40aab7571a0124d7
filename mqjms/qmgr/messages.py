"""Storing and restoring messages: rows, expiry and the expiration report of a stored message."""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics.put import MsgIdGenerator
from mqjms.semantics.reports import EXPIRATION, report_message

from . import mdstore

log = get_logger("mqjms.qmgr")

make_msg_id = MsgIdGenerator()  # pid-numbered: one machine holds the queue manager


def expires_at(expiry: int, now: float) -> float | None:
    """Absolute expiry time for a relative Expiry in tenths of a second."""
    return None if expiry == C.MQEI_UNLIMITED else now + expiry / 10.0


def remaining_tenths(expires: float | None, now: float) -> int:
    """The Expiry an MQGET returns: remaining tenths, rounded up so an unexpired message
    never shows 0 (seed 000: after a successful get Expiry is > 0 or MQEI_UNLIMITED)."""
    if expires is None:
        return C.MQEI_UNLIMITED
    return math.ceil((expires - now) * 10.0 - 1e-9)


def is_expired(expires: float | None, now: float) -> bool:
    return expires is not None and remaining_tenths(expires, now) <= 0


@dataclass(slots=True)
class StoredMessage:
    """A row of the messages table, enough to rebuild what MQGET returns."""

    id: int
    queue: str
    priority: int
    persistent: bool
    expires: float | None
    backout: int
    md_bytes: bytes
    data: bytes

    def descriptor(self, now: float) -> MQMD:
        md = MQMD.unpack(self.md_bytes)
        md.BackoutCount = self.backout
        md.Expiry = remaining_tenths(self.expires, now)
        return md


#: Bodies longer than this many bytes are stored out of their message's row, in the
#: ``bodies`` table: what changes while a message waits (its state, unit of work,
#: BackoutCount) then rewrites a small row, not the body, so a get under syncpoint or a
#: backout costs the same for 1 MB as for 1 KB (SQLite rewrites a whole row, overflow
#: pages included, whenever one of its columns changes size). Smaller bodies stay in the
#: row, which holds them in the page it is written to anyway.
INLINE_LIMIT = 3072


def body_column(table: str = "messages") -> str:
    """The body of a row of ``table`` (the messages table or its alias): the row's own
    ``data``, or, when that is empty, the row in ``bodies`` (none: an empty message)."""
    return (
        f"coalesce(nullif({table}.data, x''),"
        f" (SELECT b.data FROM bodies b WHERE b.id = {table}.id), x'')"
    )


#: A row's columns in the order :func:`from_row` reads them, ``data`` as stored (a
#: large body is not in it), and as a select reads them, with the whole body.
STORED_COLUMNS = "id, queue, priority, persistent, expires, backout, md, data, msg_id, correl_id"
SELECT_COLUMNS = STORED_COLUMNS.replace(" data,", f" {body_column()} AS data,")
# the columns of from_row with the body left out (an expiry discard reads only what decides)
HEADER_COLUMNS = STORED_COLUMNS.replace(" data,", " x'' AS data,")


def from_row(row: tuple[object, ...]) -> StoredMessage:
    mid, queue, priority, persistent, expires, backout, stored_md, data, msg_id, correl_id = row
    return StoredMessage(
        id=int(mid),  # type: ignore[call-overload]
        queue=str(queue),
        priority=int(priority),  # type: ignore[call-overload]
        persistent=bool(persistent),
        expires=None if expires is None else float(expires),  # type: ignore[arg-type]
        backout=int(backout),  # type: ignore[call-overload]
        md_bytes=mdstore.unpack(bytes(stored_md), bytes(msg_id), bytes(correl_id)),  # type: ignore[call-overload]
        data=bytes(data),  # type: ignore[call-overload]
    )


def insert(
    db: sqlite3.Connection,
    queue: str,
    md: MQMD,
    data: bytes,
    *,
    state: int,
    uow: str | None,
    expires: float | None,
    release_on_backout: bool = False,
    priority: int | None = None,
) -> int:
    """Insert a fully resolved message (priority, persistence and MsgId already set).

    ``priority`` is the queue's view of the message when it differs from the MQMD's
    (a FIFO queue gives every message its default priority: seed 003 item 14).
    """
    apart = len(data) > INLINE_LIMIT and getattr(db, "bodies_apart", False)
    packed = md.pack()
    # the ids as the packed MQMD holds them: a short CorrelId given by the putter is padded
    # with nulls there, and a get rebuilds the MQMD from these columns
    msg_id, correl_id = packed[mdstore.MSG_ID], packed[mdstore.CORREL_ID]
    cur = db.execute(
        "INSERT INTO messages (queue, priority, state, uow, persistent, expires, msg_id,"
        " correl_id, md, data, release_on_backout) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            queue,
            md.Priority if priority is None else priority,
            state,
            uow,
            1 if md.Persistence == C.MQPER_PERSISTENT else 0,
            expires,
            msg_id,
            correl_id,
            mdstore.pack(packed),
            b"" if apart else data,
            1 if release_on_backout else 0,
        ),
    )
    row_id = int(cur.lastrowid or 0)
    if apart:  # removed with its row by the trigger bodies_gone (store.py)
        db.execute("INSERT OR REPLACE INTO bodies (id, data) VALUES (?, ?)", (row_id, data))
    return row_id


def expiration_report(msg: StoredMessage) -> tuple[MQMD, bytes] | None:
    """The report an expired message asked for (MQRO_EXPIRATION*), or None."""
    return report_message(
        MQMD.unpack(msg.md_bytes), msg.data, kind=EXPIRATION, feedback=C.MQFB_EXPIRATION
    )
