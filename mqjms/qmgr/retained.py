"""Retained publications of the embedded queue manager (MQPMO_RETAIN): one per topic string.

IBM MQ keeps them on SYSTEM.RETAINED.PUB.QUEUE; here they are rows of ``retained``, one
per topic string, so a new one replaces the old in one statement. A retained publication
put under syncpoint is a second row carrying the unit of work's id: it replaces the
committed one at MQCMIT (:func:`commit`) and vanishes at MQBACK, or with its connection
(:func:`withdraw`, called wherever a unit of work's puts are withdrawn). At a queue
manager start the non-persistent ones are gone, as IBM MQ loses them at restart
(:func:`on_restart`); persistent ones stay.

The table is added to a database made before it by :func:`ensure` (as the pub/sub tables
were): an older mqjms sharing the file ignores it, so the schema version stays.
"""

from __future__ import annotations

import math
import sqlite3
import time
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics import topics as rules

#: ``uow`` of a committed retained publication (a connection's id marks a pending one).
COMMITTED = ""

RETAINED_SCHEMA = """
CREATE TABLE IF NOT EXISTS retained (
    uow TEXT NOT NULL,            -- '' (committed) or the unit of work that put it
    topicstr TEXT NOT NULL,       -- the topic string it was published on
    persistent INTEGER NOT NULL,
    md BLOB NOT NULL,             -- the MQMD as published (defaults resolved)
    data BLOB NOT NULL,
    expires REAL,                 -- epoch seconds its Expiry ends at; NULL: never
    PRIMARY KEY (uow, topicstr)
);
"""


@dataclass(frozen=True, slots=True)
class Retained:
    """One retained publication."""

    topic_string: str
    md: MQMD
    data: bytes


def ensure(db: sqlite3.Connection) -> bool:
    """Create the table in the caller's write transaction if it is missing (and the
    ``expires`` column a first version of it lacked); True if made."""
    if present(db):
        columns = {row[1] for row in db.execute("PRAGMA table_info(retained)")}
        if "expires" not in columns:
            db.execute("ALTER TABLE retained ADD COLUMN expires REAL")
        return False
    db.execute(RETAINED_SCHEMA)
    return True


def current(db: sqlite3.Connection) -> bool:
    """Whether the table is there as :func:`ensure` makes it (the check at open)."""
    if not present(db):
        return False
    return any(row[1] == "expires" for row in db.execute("PRAGMA table_info(retained)"))


def present(db: sqlite3.Connection) -> bool:
    """Whether the database has the table (a read-only copy of an older one may not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'retained'").fetchone() is not None


def keep(db: sqlite3.Connection, topic_string: str, md: MQMD, data: bytes, uow: str | None) -> None:
    """Make ``md``/``data`` the topic string's retained publication (at the commit of
    ``uow`` when one is given)."""
    # IBM MQ: the MQMD's Expiry is the retained publication's expiry interval
    expires = time.time() + md.Expiry / 10 if md.Expiry > 0 else None
    db.execute(
        "INSERT OR REPLACE INTO retained (uow, topicstr, persistent, md, data, expires)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (
            uow or COMMITTED,
            topic_string,
            int(md.Persistence == C.MQPER_PERSISTENT),
            md.pack(C.MQENC_NATIVE),
            data,
            expires,
        ),
    )


def commit(db: sqlite3.Connection, uow: str) -> None:
    """MQCMIT of ``uow``: its retained publications replace the committed ones."""
    db.execute(
        "INSERT OR REPLACE INTO retained (uow, topicstr, persistent, md, data, expires)"
        " SELECT ?, topicstr, persistent, md, data, expires FROM retained WHERE uow = ?",
        (COMMITTED, uow),
    )
    withdraw(db, uow)


def withdraw(db: sqlite3.Connection, uow: str) -> None:
    """MQBACK of ``uow`` (or its connection's end): its retained publications vanish."""
    db.execute("DELETE FROM retained WHERE uow = ?", (uow,))


def on_restart(db: sqlite3.Connection) -> int:
    """Queue manager start: units of work in flight are gone, and so are non-persistent
    retained publications (IBM MQ does not keep them over a restart); how many went."""
    if not present(db):
        return 0
    db.execute("DELETE FROM retained WHERE uow != ?", (COMMITTED,))
    return int(db.execute("DELETE FROM retained WHERE persistent = 0").rowcount)


def matching(db: sqlite3.Connection, topic_filter: str, *, chars: bool = False) -> list[Retained]:
    """The committed retained publications whose topic string ``topic_filter`` (a
    subscription's, wildcards allowed; ``chars``: character-based ones) matches and that
    have not expired, in topic string order; each MQMD's Expiry is what remains of it now.
    Only the matches' bodies are read (this runs in MQSUB's write transaction)."""
    if not current(db):
        return []
    now = time.time()
    topics = [
        str(row[0])
        for row in db.execute(
            "SELECT topicstr FROM retained WHERE uow = ? AND (expires IS NULL OR expires > ?)"
            " ORDER BY topicstr",
            (COMMITTED, now),
        )
    ]
    found = []
    for topic in topics:
        if not rules.matches(topic_filter, topic, chars=chars):
            continue
        row = db.execute(
            "SELECT md, data, expires FROM retained WHERE uow = ? AND topicstr = ?",
            (COMMITTED, topic),
        ).fetchone()
        md = MQMD.unpack(bytes(row[0]), encoding=C.MQENC_NATIVE)
        if row[2] is not None:  # tenths of a second left, at least one
            md.Expiry = max(1, math.ceil((float(row[2]) - now) * 10))
        found.append(Retained(topic, md, bytes(row[1])))
    return found


def topics_with_one(db: sqlite3.Connection) -> set[str]:
    """The topic strings that have a committed retained publication not expired."""
    if not current(db):
        return set()
    rows = db.execute(
        "SELECT topicstr FROM retained WHERE uow = ? AND (expires IS NULL OR expires > ?)",
        (COMMITTED, time.time()),
    )
    return {str(r[0]) for r in rows}


def clear(db: sqlite3.Connection, topic_string: str) -> bool:
    """CLEAR TOPICSTR CLRTYPE(RETAINED): remove the topic string's retained publication;
    True if there was one."""
    if not present(db):
        return False
    cur = db.execute(
        "DELETE FROM retained WHERE uow = ? AND topicstr = ?", (COMMITTED, topic_string)
    )
    return cur.rowcount > 0
