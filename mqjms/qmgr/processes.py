"""Process definitions (DEFINE PROCESS): what a trigger message tells the trigger monitor
to start (seed 003 condition 6)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping

Attrs = dict[str, int | str | bool]


def load(db: sqlite3.Connection, name: str) -> Attrs | None:
    row = db.execute("SELECT attrs FROM processes WHERE name = ?", (name,)).fetchone()
    return None if row is None else dict(json.loads(row[0]))


def save(
    db: sqlite3.Connection, name: str, attrs: Mapping[str, int | str | bool], stamp: str
) -> None:
    """Create the definition, or replace its attributes (keeping when it was created)."""
    db.execute(
        "INSERT INTO processes (name, attrs, created, altered) VALUES (?,?,?,?)"
        " ON CONFLICT(name) DO UPDATE SET attrs = excluded.attrs, altered = excluded.altered",
        (name, json.dumps(dict(attrs)), stamp, stamp),
    )


def delete(db: sqlite3.Connection, name: str) -> bool:
    """False when there was no such definition."""
    return bool(db.execute("DELETE FROM processes WHERE name = ?", (name,)).rowcount)


def every(db: sqlite3.Connection) -> list[tuple[str, Attrs]]:
    """Every definition, by name."""
    rows = db.execute("SELECT name, attrs FROM processes ORDER BY name").fetchall()
    return [(str(name), dict(json.loads(raw))) for name, raw in rows]
