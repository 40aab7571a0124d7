"""Counting the SQL statements an MQI call runs, by kind: a figure that, unlike a timing,
is the same on every machine, so it shows exactly what a change removed.

``sqlite3``'s trace callback sees every statement, and each trigger program again as a
repeat of the statement that fired it (the queue depth is kept by triggers): repeats of
an INSERT, UPDATE or DELETE are counted as ``TRIGGER``, apart from the statements the code
runs (a repeated SELECT is the code's: it reads the same row twice).
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


def connection_db(conn: Any) -> sqlite3.Connection | None:
    """The SQLite connection behind an embedded queue manager connection (None when the
    connection keeps it elsewhere)."""
    db = getattr(conn, "_db", None)
    return db if isinstance(db, sqlite3.Connection) else None


@contextmanager
def traced(db: sqlite3.Connection) -> Iterator[list[str]]:
    """The SQL statements run on ``db`` in the block (from any thread)."""
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        db.set_trace_callback(None)


def kinds(statements: list[str]) -> Counter[str]:
    """Statements by kind (first keyword, ``PRAGMA name``, or ``TRIGGER`` for a repeat)."""
    out: Counter[str] = Counter()
    last: str | None = None
    for s in statements:
        if s == last and _kind(s) in _FIRES_TRIGGERS:  # a trigger program, reported again
            out["TRIGGER"] += 1
            continue
        last = s
        out[_kind(s)] += 1
    return out


_FIRES_TRIGGERS = frozenset({"INSERT", "UPDATE", "DELETE"})


def total(counter: Counter[str]) -> int:
    """Statements the code ran: all but trigger programs."""
    return sum(v for k, v in counter.items() if k != "TRIGGER")


def _kind(statement: str) -> str:
    s = statement.lstrip()
    word = s.split(None, 1)[0].upper() if s else "?"
    if word == "PRAGMA":
        return "PRAGMA " + s.split(None, 1)[1].split("=")[0].split("(")[0].strip().lower()
    return word
