"""The object definitions as stored: queues (rows, alias resolution, definition changes)
and what the handles table says about who has a queue open.

A queue's definition is read often and changed rarely: its JSON attributes are parsed
once per distinct text.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mqjms.mq import constants as C
from mqjms.semantics import definitions
from mqjms.semantics.attributes import LOCAL

from . import meta, qstats, store

Attrs = dict[str, int | str | bool]


@dataclass(slots=True)
class QueueRow:
    """A row of the queues table; a :class:`~mqjms.semantics.definitions.QueueDefinition`."""

    name: str
    qtype: str
    attrs: Attrs
    depth: int
    deftype: str | None
    owner: str | None


@functools.lru_cache(maxsize=1024)
def _parsed(raw: str) -> Attrs:
    """Definitions change rarely: parse each stored JSON text once (callers copy)."""
    parsed: Attrs = json.loads(raw)
    return parsed


def load(db: sqlite3.Connection, name: str) -> QueueRow | None:
    return from_row(
        db.execute(
            "SELECT name, qtype, attrs, depth, deftype, owner FROM queues WHERE name = ?", (name,)
        ).fetchone()
    )


def load_of_type(db: sqlite3.Connection, name: str, qtype: str) -> QueueRow | None:
    """:func:`load`, when the queue is of type ``qtype`` (no row, nothing parsed, else)."""
    return from_row(
        db.execute(
            "SELECT name, qtype, attrs, depth, deftype, owner FROM queues"
            " WHERE name = ? AND qtype = ?",
            (name, qtype),
        ).fetchone()
    )


def from_row(row: tuple[Any, ...] | None) -> QueueRow | None:
    """A QueueRow from the six columns :func:`load` selects (None for no row)."""
    if row is None:
        return None
    return QueueRow(row[0], row[1], dict(_parsed(row[2])), int(row[3]), row[4], row[5])


def resolve_for_put(db: sqlite3.Connection, name: str) -> tuple[QueueRow, QueueRow, str | None]:
    """:func:`resolve`, with the queue manager's attributes as stored (their JSON text,
    None when never set) read by the same statement as the named queue's row: a put
    needs both, and one statement fewer per message counts. Read inside the caller's
    transaction, never cached, so an ALTER QMGR by any process is seen by the next put."""
    qmgr_attrs: list[str | None] = []

    def lookup(queue: str) -> QueueRow | None:
        if qmgr_attrs:
            return load(db, queue)
        row = db.execute(
            "SELECT name, qtype, attrs, depth, deftype, owner, "
            + meta.QMGR_ATTRS_SQL
            + " FROM queues WHERE name = ?",
            (queue,),
        ).fetchone()
        if row is None:
            return None
        qmgr_attrs.append(row[6])
        return from_row(row[:6])

    named, base = definitions.resolve(name, lookup)
    return named, base, qmgr_attrs[0]


def require(db: sqlite3.Connection, name: str) -> QueueRow:
    return definitions.require(name, functools.partial(load, db))


def resolve(db: sqlite3.Connection, name: str) -> tuple[QueueRow, QueueRow]:
    """(the queue named, the local queue it resolves to). An alias resolves to its TARGET."""
    return definitions.resolve(name, functools.partial(load, db))


def stamp() -> str:
    """CRDATE/CRTIME and ALTDATE/ALTTIME as stored: when a definition changed."""
    return time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())


def insert(
    db: sqlite3.Connection,
    name: str,
    qtype: str,
    attrs: Mapping[str, int | str | bool],
    *,
    deftype: str | None = None,
    owner: str | None = None,
) -> None:
    """Define a queue (a predefined one: ``deftype`` None; or a dynamic one)."""
    now = stamp()
    db.execute(
        "INSERT INTO queues (name, qtype, attrs, deftype, owner, created, altered)"
        " VALUES (?,?,?,?,?,?,?)",
        (name, qtype, json.dumps(dict(attrs)), deftype, owner, now, now),
    )


def update_attrs(db: sqlite3.Connection, name: str, attrs: Mapping[str, int | str | bool]) -> None:
    db.execute(
        "UPDATE queues SET attrs = ?, altered = ? WHERE name = ?",
        (json.dumps(dict(attrs)), stamp(), name),
    )


def delete(db: sqlite3.Connection, name: str) -> None:
    """Delete a queue and every message on it."""
    clear(db, name, held=True)
    db.execute("DELETE FROM queues WHERE name = ?", (name,))


def clear(db: sqlite3.Connection, name: str, *, held: bool) -> int:
    """Delete the available messages of a queue, and with ``held`` those in flight too;
    how many (each part is found through its own index: see store.DELIVERY_INDEXES)."""
    count = db.execute(
        f"DELETE FROM messages WHERE queue = ? AND state = {store.AVAILABLE}", (name,)
    ).rowcount
    if held:
        count += db.execute(
            "DELETE FROM messages INDEXED BY messages_uow WHERE uow IS NOT NULL AND queue = ?",
            (name,),
        ).rowcount
    qstats.uncount(db, {name: count})  # a CLEAR is not a get
    return int(count)


def holds_messages_in_flight(db: sqlite3.Connection, name: str) -> bool:
    """True when the queue has messages uncommitted, locked in a unit of work or reserved."""
    row = db.execute(
        "SELECT 1 FROM messages INDEXED BY messages_uow WHERE uow IS NOT NULL AND queue = ?"
        " LIMIT 1",
        (name,),
    ).fetchone()
    return row is not None


def open_for_input(db: sqlite3.Connection, name: str) -> bool:
    """True when some handle has the queue open for input (OpenInputCount > 0)."""
    return (
        db.execute(
            "SELECT 1 FROM handles WHERE queue = ? AND options & ? != 0 LIMIT 1",
            (name, C.MQOO_INPUT_MASK),
        ).fetchone()
        is not None
    )


def status(db: sqlite3.Connection, row: QueueRow) -> dict[str, int | str]:
    """A queue's read-only attributes (MQINQ, DISPLAY): CRDATE, CRTIME, ALTDATE and
    ALTTIME; a local queue's CURDEPTH, IPPROCS and OPPROCS too."""
    out: dict[str, int | str] = {}
    stamps = db.execute(
        "SELECT created, altered FROM queues WHERE name = ?", (row.name,)
    ).fetchone()
    if stamps is not None:
        for prefix, value in zip(("CR", "ALT"), stamps, strict=True):
            day, _, clock = str(value or "").partition(" ")
            out[prefix + "DATE"], out[prefix + "TIME"] = day, clock
    if row.qtype != LOCAL:
        return out
    counts = db.execute(
        "SELECT SUM(options & ? != 0), SUM(options & ? != 0) FROM handles WHERE queue = ?",
        (C.MQOO_INPUT_MASK, C.MQOO_OUTPUT, row.name),
    ).fetchone()
    out.update(CURDEPTH=row.depth, IPPROCS=int(counts[0] or 0), OPPROCS=int(counts[1] or 0))
    return out
