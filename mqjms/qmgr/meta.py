"""The queue manager's own record in its database: the ``meta`` table's keys (name,
creation, incarnation, boot id, last expiry scan) and the queue manager's attributes."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Mapping

from mqjms.semantics.attributes import QMGR_ATTR_BY_NAME

AttrValue = int | str | bool


def get(db: sqlite3.Connection, key: str) -> str | None:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def put(db: sqlite3.Connection, key: str, value: str) -> None:
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


@functools.lru_cache(maxsize=64)
def _parsed(raw: str) -> dict[str, AttrValue]:
    """The attributes change rarely: parse each stored text once (callers copy)."""
    parsed: dict[str, AttrValue] = json.loads(raw)
    return parsed


def qmgr_attrs(db: sqlite3.Connection) -> dict[str, AttrValue]:
    """The queue manager's attributes as stored (ALTER QMGR); missing ones take MQ's
    defaults where they are read (:func:`qmgr_attr`)."""
    return parse_qmgr_attrs(get(db, "qmgr_attrs"))


#: The stored text of :func:`qmgr_attrs` as a scalar subquery, for a statement that reads
#: it beside something else (the put's queue row: one statement fewer per message).
QMGR_ATTRS_SQL = "(SELECT value FROM meta WHERE key = 'qmgr_attrs')"


def parse_qmgr_attrs(raw: str | None) -> dict[str, AttrValue]:
    """:func:`qmgr_attrs` from its stored text (None when never stored)."""
    return dict(_parsed(raw)) if raw else {}


def qmgr_attr(attrs: Mapping[str, AttrValue], name: str) -> AttrValue:
    """One attribute from :func:`qmgr_attrs`, MQ's default when it was never set."""
    return attrs.get(name, QMGR_ATTR_BY_NAME[name].default)


def set_qmgr_attrs(db: sqlite3.Connection, attrs: Mapping[str, AttrValue]) -> None:
    db.execute("UPDATE meta SET value = ? WHERE key = 'qmgr_attrs'", (json.dumps(dict(attrs)),))
