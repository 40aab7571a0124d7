"""Finding the next message in delivery order: what MQGET and browse read.

A queue delivers by priority, then arrival (``MSGDLVSQ(PRIORITY)``), or by arrival only
(``MSGDLVSQ(FIFO)``). Both are one order, the *queue's* priority (stored with each message)
then arrival: on a FIFO queue every message is stored at the queue's DEFPRTY (seed 003
item 14, :func:`~mqjms.semantics.put.queue_priority`), so that order is arrival order, and
after an ALTER of MSGDLVSQ the messages already queued keep their places, as IBM MQ
documents. One index, ``messages_priority``, serves both, of the available messages only
(``state = 0``, written literally in every query: SQLite uses a partial index only then),
so messages locked in units of work cost a get nothing. A browse cursor is the *key* of
the last message it returned, and the next one is found by seeking the index just past
that key (keyset pagination), so each browse step costs O(log depth) however deep the
queue, instead of walking the index from its head.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from mqjms.mq import constants as C

from . import messages, store

_FROM = f"SELECT {messages.SELECT_COLUMNS} FROM messages"
_PRIORITY = " INDEXED BY messages_priority"
_AVAILABLE = f" WHERE queue = ? AND state = {store.AVAILABLE}"
# a row id is reused only by a message that arrived after the one under the cursor was
# removed: that message is after the cursor too, so ids equal to the cursor's count unless
# the MsgId is the cursor's own
_NOT_THE_CURSOR = " AND NOT (id = ? AND msg_id = ?)"


@dataclass(slots=True)
class Cursor:
    """Where a browse is: the key of the last message it returned (its row may be gone)."""

    priority: int
    id: int
    msg_id: bytes


Row = tuple[object, ...]


def next_message(
    db: sqlite3.Connection,
    queue: str,
    after: Cursor | None,
    msg_id: bytes | None = None,
    correl_id: bytes | None = None,
    group_id: bytes | None = None,
) -> Row | None:
    """The first available message of ``queue`` after ``after`` (from the head when None),
    matching ``msg_id``/``correl_id``/``group_id`` when given."""
    if msg_id is not None or correl_id is not None or group_id is not None:
        return _next_matching(db, queue, after, msg_id, correl_id, group_id)
    head: list[object] = [queue]
    if after is None:
        order = " ORDER BY priority DESC, id LIMIT 1"
        return db.execute(_FROM + _AVAILABLE + order, head).fetchone()  # type: ignore[no-any-return]
    not_cursor = [after.id, after.msg_id]
    # the rest of the cursor's priority, then the highest priority below it: two seeks
    same = (
        _FROM
        + _PRIORITY
        + _AVAILABLE
        + " AND priority = ? AND id >= ?"
        + _NOT_THE_CURSOR
        + " ORDER BY priority DESC, id LIMIT 1"
    )
    row: Row | None = db.execute(same, [*head, after.priority, after.id, *not_cursor]).fetchone()
    if row is not None:
        return row
    lower = _FROM + _PRIORITY + _AVAILABLE + " AND priority < ? ORDER BY priority DESC, id LIMIT 1"
    return db.execute(lower, [*head, after.priority]).fetchone()  # type: ignore[no-any-return]


# The head is found by its id (a scalar subquery seeking the delivery-order index), then
# its row read by that id in the join: no subquery is materialised (which copied the row,
# a large body included, and cost a get a fifth of this statement's time). A large body
# is joined too: read through a scalar subquery, SQLite copied it once more (a get of a
# 40 MB body peaked at 3x its size, 2x so).
_QUEUE_AND_HEAD = (
    "SELECT q.name, q.qtype, q.attrs, q.depth, q.deftype, q.owner,"
    f" {', '.join('m.' + c for c in messages.STORED_COLUMNS.split(', '))}"
    " FROM queues q LEFT JOIN messages m ON m.id ="
    f" (SELECT id FROM messages{_AVAILABLE} ORDER BY priority DESC, id LIMIT 1)"
    " LEFT JOIN bodies b ON b.id = m.id"
    " WHERE q.name = ?"
).replace(" m.data,", " coalesce(nullif(m.data, x''), b.data, x''),")


def queue_and_head(db: sqlite3.Connection, queue: str) -> tuple[Row | None, Row | None]:
    """(the queue's row as :func:`.catalog.load` reads it, its first available message),
    both read by one statement: a plain get needs both, and one statement fewer per
    message counts. (None, None) when the queue is not defined."""
    row = db.execute(_QUEUE_AND_HEAD, (queue, queue)).fetchone()
    if row is None:
        return None, None
    head = row[6:]
    return row[:6], (head if head[0] is not None else None)


def _next_matching(
    db: sqlite3.Connection,
    queue: str,
    after: Cursor | None,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None = None,
) -> Row | None:
    """A match get reads the few rows with that id; without statistics SQLite would walk
    the whole queue in delivery order instead, so the id's index is named. GroupId has no
    index of its own (groups are rare): it is read from the stored MQMD."""
    index = ""
    where = _AVAILABLE
    params: list[object] = [queue]
    if msg_id is not None:
        index = " INDEXED BY messages_msg_id"
        where += " AND msg_id = ?"
        params.append(msg_id.ljust(24, b"\x00"))
    if correl_id is not None:
        padded = correl_id.ljust(24, b"\x00")
        where += " AND correl_id = ?"
        if padded != C.MQCI_NONE:  # the partial index holds only non-blank ids
            index = index or " INDEXED BY messages_correl_id"
            where += " AND correl_id != zeroblob(24)"
        params.append(padded)
    if group_id is not None:
        where += " AND mq_group_id(md) = ?"
        params.append(group_id.ljust(24, b"\x00"))
    sql = _FROM + index + where
    if after is not None:
        later = "(id > ? OR (id = ? AND msg_id != ?))"
        later_params: list[object] = [after.id, after.id, after.msg_id]
        sql += f" AND (priority < ? OR (priority = ? AND {later}))"
        params += [after.priority, after.priority, *later_params]
    sql += " ORDER BY priority DESC, id LIMIT 1"
    return db.execute(sql, params).fetchone()  # type: ignore[no-any-return]
