"""Reservations: a range of messages set aside for one consumer, removed when it says so.

A stream processor that cannot replay from the queue (Spark's stage-then-ack source) needs
messages that stay on the queue, invisible to every other getter, until its own
checkpoint has moved past them, and that it can re-read in the same order as often as it
must meanwhile. A reservation gives exactly that, in the queue manager's own database:

* :func:`reserve` takes up to ``limit`` available messages in delivery order and numbers
  them ``seq`` = last + 1, ... for their *owner* (a name, e.g. ``spark:ORDERS.IN``). They
  stay on the queue (CURDEPTH counts them) in state RESERVED, skipped by gets and browses,
  untouched by a restart or by a connection that ends: a reservation outlives processes.
* :func:`reserved` reads ``(lo, hi]`` again, in seq order, as often as asked.
* :func:`release` removes every message reserved with ``seq <= upto`` (the destructive
  get, when the consumer's checkpoint has moved past them).
* :func:`renumber` gives messages new numbers at the tail with a tag of the owner's
  choosing, optionally raising BackoutCount (a failed attempt, counted where MQ counts it).
* :func:`take` moves one reserved message into a connection's unit of work, as a get
  under syncpoint does: a commit removes it, a backout makes it available again with
  BackoutCount + 1.
* :func:`give_back` makes the messages numbered above some ``seq`` available again, in
  their place (a consumer that stops gives back what it reserved and never used).

The table is created on first use, so a queue manager made by an older version gains it
without a migration.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from mqjms.mq.md import with_counts

from . import mdstore, messages, store

TABLES = """
CREATE TABLE IF NOT EXISTS reservations (
    message INTEGER PRIMARY KEY,  -- messages.id
    owner TEXT NOT NULL,
    seq INTEGER NOT NULL,
    tag INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS reservations_seq ON reservations(owner, seq);
CREATE TABLE IF NOT EXISTS reservation_owners (
    owner TEXT PRIMARY KEY,
    last_seq INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Reserved:
    """One reserved message: its number, the owner's tag, and the message as a get sees it."""

    seq: int
    tag: int
    message: messages.StoredMessage


def owner_uow(owner: str) -> str:
    """The ``uow`` column of a reserved message: never a connection's id."""
    return f"reserved:{owner}"


def ensure_tables(db: sqlite3.Connection) -> None:
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservation_owners'").fetchone():
        for statement in TABLES.strip().split(";"):
            if statement.strip():
                db.execute(statement)


def last_seq(db: sqlite3.Connection, owner: str) -> int:
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservation_owners'").fetchone():
        return 0
    row = db.execute("SELECT last_seq FROM reservation_owners WHERE owner = ?", (owner,)).fetchone()
    return int(row[0]) if row else 0


def _next_seqs(db: sqlite3.Connection, owner: str, count: int) -> int:
    """Allocate ``count`` numbers; returns the first."""
    first = last_seq(db, owner) + 1
    db.execute(
        "INSERT INTO reservation_owners (owner, last_seq) VALUES (?, ?)"
        " ON CONFLICT(owner) DO UPDATE SET last_seq = excluded.last_seq",
        (owner, first + count - 1),
    )
    return first


def reserve(
    db: sqlite3.Connection,
    queue: str,
    owner: str,
    limit: int,
    now: float,
    expired_limit: int | None = None,
) -> tuple[int, list[messages.StoredMessage]]:
    """Reserve up to ``limit`` available messages of ``queue`` (an underlying local queue)
    for ``owner``; returns how many, and the expired ones met on the way, read without
    their bodies (the caller discards those, as a get would: seed 000). The walk stops
    once ``expired_limit`` expired ones are met: the caller discards them and reserves
    on in a new transaction, as a get does (no transaction holds the queue manager for
    a hundred thousand expired messages).

    One walk of the delivery-order index and a few set-wise statements, however many
    messages: a stream source reserves thousands at a time, and a get per message would
    walk past the ones it has just reserved again and again."""
    ensure_tables(db)
    taken = 0
    expired: list[messages.StoredMessage] = []
    uow = owner_uow(owner)
    while taken < limit and (expired_limit is None or len(expired) < expired_limit):
        page = limit - taken if expired_limit is None else min(limit - taken, expired_limit)
        rows = db.execute(_DELIVERY_ORDER, (queue, page)).fetchall()
        if not rows:
            break
        live = [int(mid) for mid, expires in rows if not messages.is_expired(expires, now)]
        dead = [int(mid) for mid, expires in rows if messages.is_expired(expires, now)]
        if dead:  # set aside (never delivered) and returned for the caller to discard
            expired += _stored(db, dead)
            db.executemany(
                "UPDATE messages SET state = ? WHERE id = ?", [(store.RESERVED, i) for i in dead]
            )
        if not live:
            continue
        first = _next_seqs(db, owner, len(live))
        ids = json.dumps(live)  # one statement each for the whole page, not one a message
        db.execute(
            "UPDATE messages SET state = ?, uow = ? WHERE id IN (SELECT value FROM json_each(?))",
            (store.RESERVED, uow, ids),
        )
        db.execute(
            "INSERT INTO reservations (message, owner, seq, tag)"
            " SELECT value, ?, ? + key, 0 FROM json_each(?)",  # key: the position in ``live``
            (owner, first, ids),
        )
        taken += len(live)
    return taken, expired


# delivery.next_message's order (FIFO queues store every message at one priority), as one
# walk of the same partial index: SQLite uses it only when the query says ``state = 0``
# literally
_DELIVERY_ORDER = (
    "SELECT id, expires FROM messages INDEXED BY messages_priority"
    f" WHERE queue = ? AND state = {store.AVAILABLE} ORDER BY priority DESC, id LIMIT ?"
)


def _stored(db: sqlite3.Connection, ids: Sequence[int]) -> list[messages.StoredMessage]:
    """The expired messages ``ids``, without their bodies (see expiry.discard)."""
    sql = f"SELECT {messages.HEADER_COLUMNS} FROM messages WHERE id = ?"
    return [messages.from_row(db.execute(sql, (i,)).fetchone()) for i in ids]


_SELECT = (
    "SELECT r.seq, r.tag, m.id, m.queue, m.priority, m.persistent, m.expires, m.backout,"
    f" m.md, {messages.body_column('m')}, m.msg_id, m.correl_id"
    " FROM reservations r JOIN messages m ON m.id = r.message"
)


def _reserved(row: tuple[object, ...]) -> Reserved:
    return Reserved(int(row[0]), int(row[1]), messages.from_row(row[2:]))  # type: ignore[call-overload]


def reserved(db: sqlite3.Connection, owner: str, lo: int, hi: int) -> list[Reserved]:
    """The messages reserved for ``owner`` with ``lo < seq <= hi``, in seq order."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservations'").fetchone():
        return []
    rows = db.execute(
        _SELECT + " WHERE r.owner = ? AND r.seq > ? AND r.seq <= ? ORDER BY r.seq",
        (owner, lo, hi),
    ).fetchall()
    return [_reserved(row) for row in rows]


def packed(
    db: sqlite3.Connection, owner: str, lo: int, hi: int, now: float
) -> list[tuple[int, int, bytes, bytes]]:
    """:func:`reserved` as a reader of many wants it: ``(seq, tag, packed MQMD, data)``,
    the MQMD as a get returns it (BackoutCount, remaining Expiry) but never unpacked."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservations'").fetchone():
        return []
    rows = db.execute(
        "SELECT r.seq, r.tag, m.expires, m.backout, m.md, m.msg_id, m.correl_id,"
        f" {messages.body_column('m')} FROM reservations r JOIN messages m ON m.id = r.message"
        " WHERE r.owner = ? AND r.seq > ? AND r.seq <= ? ORDER BY r.seq",
        (owner, lo, hi),
    ).fetchall()
    return [
        (
            int(seq),
            int(tag),
            with_counts(
                mdstore.unpack(bytes(md), bytes(msg_id), bytes(correl_id)),
                int(backout),
                messages.remaining_tenths(None if expires is None else float(expires), now),
            ),
            bytes(data),
        )
        for seq, tag, expires, backout, md, msg_id, correl_id, data in rows
    ]


def numbers(
    db: sqlite3.Connection, owner: str, lo: int, hi: int, limit: int | None
) -> list[tuple[int, int, int]]:
    """``(seq, tag, BackoutCount)`` of ``owner``'s messages in ``(lo, hi]``, without bytes."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservations'").fetchone():
        return []
    rows: list[tuple[int, int, int]] = db.execute(  # INTEGER columns: ints already
        "SELECT r.seq, r.tag, m.backout FROM reservations r JOIN messages m ON m.id = r.message"
        " WHERE r.owner = ? AND r.seq > ? AND r.seq <= ? ORDER BY r.seq LIMIT ?",
        (owner, lo, hi, -1 if limit is None else limit),
    ).fetchall()
    return rows


def count(db: sqlite3.Connection, owner: str) -> int:
    """How many messages are reserved for ``owner`` (one walk of its index, no rows read)."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'reservations'").fetchone():
        return 0
    row = db.execute("SELECT COUNT(*) FROM reservations WHERE owner = ?", (owner,)).fetchone()
    return int(row[0])


def release(db: sqlite3.Connection, owner: str, upto: int) -> int:
    """Remove every message reserved for ``owner`` with ``seq <= upto``; how many."""
    ensure_tables(db)
    db.execute(
        "DELETE FROM messages WHERE state = ? AND id IN"
        " (SELECT message FROM reservations WHERE owner = ? AND seq <= ?)",
        (store.RESERVED, owner, upto),
    )
    cur = db.execute("DELETE FROM reservations WHERE owner = ? AND seq <= ?", (owner, upto))
    return int(cur.rowcount)


def renumber(
    db: sqlite3.Connection, owner: str, seqs: Sequence[int], tag: int, backout: int
) -> list[int]:
    """Give the messages numbered ``seqs`` new numbers at the tail (in the order given),
    tagged ``tag``, their BackoutCount raised by ``backout``; returns the new numbers
    (numbers no longer reserved are skipped, so a repeated call does nothing)."""
    ensure_tables(db)
    found = []
    for seq in seqs:
        row = db.execute(
            "SELECT message FROM reservations WHERE owner = ? AND seq = ?", (owner, seq)
        ).fetchone()
        if row is not None:
            found.append(int(row[0]))
    if not found:
        return []
    first = _next_seqs(db, owner, len(found))
    new = list(range(first, first + len(found)))
    for message, seq in zip(found, new, strict=True):
        db.execute(
            "UPDATE reservations SET seq = ?, tag = ? WHERE message = ?", (seq, tag, message)
        )
        if backout:
            db.execute("UPDATE messages SET backout = backout + ? WHERE id = ?", (backout, message))
    return new


def take(db: sqlite3.Connection, owner: str, seq: int, uow: str) -> messages.StoredMessage | None:
    """Move the message reserved as ``seq`` into unit of work ``uow`` (got under syncpoint);
    None when no message is reserved under that number."""
    ensure_tables(db)
    row = db.execute(_SELECT + " WHERE r.owner = ? AND r.seq = ?", (owner, seq)).fetchone()
    if row is None:
        return None
    found = _reserved(row)
    db.execute("DELETE FROM reservations WHERE message = ?", (found.message.id,))
    db.execute(
        "UPDATE messages SET state = ?, uow = ? WHERE id = ?",
        (store.GOT_IN_UOW, uow, found.message.id),
    )
    return found.message


def give_back(
    db: sqlite3.Connection, owner: str, after: int = 0, *, untagged_only: bool = False
) -> int:
    """Give back the messages reserved for ``owner`` with ``seq > after`` (all of them
    by default): available again, in their place, BackoutCount unchanged; how many.
    ``untagged_only`` keeps the tagged ones reserved: a tag is the owner's mark of a
    suspect, which would lose it on the queue and be planned beside innocent messages."""
    ensure_tables(db)
    which = "owner = ? AND seq > ?" + (" AND tag = 0" if untagged_only else "")
    count = db.execute(
        "UPDATE messages SET state = ?, uow = NULL WHERE state = ? AND id IN"
        f" (SELECT message FROM reservations WHERE {which})",
        (store.AVAILABLE, store.RESERVED, owner, after),
    ).rowcount
    db.execute(f"DELETE FROM reservations WHERE {which}", (owner, after))
    return int(count)
