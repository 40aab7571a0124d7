"""The queue manager's SQLite database: schema, pragmas and write transactions.

One directory holds one queue manager in ``qmgr.db`` (WAL mode, so readers never block
the writer and several processes can share it). Every MQI operation is one short SQLite
write transaction; a unit of work is *logical* (rows marked with the connection's id),
so no SQLite transaction is ever held while an application runs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA_VERSION = 1

# Message states. A message got under syncpoint stays on its queue, invisible to others,
# until the unit of work commits (row deleted) or backs out (state back to AVAILABLE).
AVAILABLE = 0
GOT_IN_UOW = 1
PUT_IN_UOW = 2

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS queues (
    name TEXT PRIMARY KEY,
    qtype TEXT NOT NULL,
    attrs TEXT NOT NULL,          -- JSON: MQSC attribute name -> value
    depth INTEGER NOT NULL DEFAULT 0,
    deftype TEXT,                 -- NULL (predefined), TEMPDYN or PERMDYN
    owner TEXT,                   -- connection id that created a TEMPDYN queue
    created TEXT NOT NULL,
    altered TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,       -- arrival order (always above every id on the queue)
    queue TEXT NOT NULL,
    priority INTEGER NOT NULL,
    state INTEGER NOT NULL,
    uow TEXT,
    persistent INTEGER NOT NULL,
    expires REAL,                 -- epoch seconds; NULL = MQEI_UNLIMITED
    msg_id BLOB NOT NULL,
    correl_id BLOB NOT NULL,
    backout INTEGER NOT NULL DEFAULT 0,
    md BLOB NOT NULL,             -- MQMD as put, packed in the native encoding
    data BLOB NOT NULL,
    release_on_backout INTEGER NOT NULL DEFAULT 0  -- a FIRST/DEPTH trigger message (seed 003)
);
-- state is not in the ordering keys, so locking a message under syncpoint (a state
-- change) rewrites no index entry; locked and uncommitted rows are few and skipped.
CREATE INDEX IF NOT EXISTS messages_fifo ON messages(queue, id);
CREATE INDEX IF NOT EXISTS messages_priority ON messages(queue, priority DESC, id);
CREATE INDEX IF NOT EXISTS messages_msg_id ON messages(msg_id);
-- most messages have no CorrelId: index only those that do (queries add the same term)
CREATE INDEX IF NOT EXISTS messages_correl_id ON messages(correl_id)
    WHERE correl_id != zeroblob(24);
CREATE INDEX IF NOT EXISTS messages_uow ON messages(uow) WHERE uow IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_expires ON messages(expires) WHERE expires IS NOT NULL;
CREATE TABLE IF NOT EXISTS processes (
    name TEXT PRIMARY KEY,
    attrs TEXT NOT NULL,          -- JSON: APPLTYPE, APPLICID, ENVRDATA, USERDATA, DESCR
    created TEXT NOT NULL,
    altered TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS trigger_times (
    queue TEXT PRIMARY KEY,       -- when the last trigger message was written (TRIGINT)
    last REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS connections (
    id TEXT PRIMARY KEY,
    pid INTEGER NOT NULL,
    appl TEXT NOT NULL,
    started REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS handles (
    hobj INTEGER PRIMARY KEY AUTOINCREMENT,
    conn TEXT NOT NULL,
    queue TEXT NOT NULL,
    options INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS handles_conn ON handles(conn);
CREATE INDEX IF NOT EXISTS handles_queue ON handles(queue);
CREATE TRIGGER IF NOT EXISTS depth_up AFTER INSERT ON messages BEGIN
    UPDATE queues SET depth = depth + 1 WHERE name = NEW.queue;
END;
CREATE TRIGGER IF NOT EXISTS depth_down AFTER DELETE ON messages BEGIN
    UPDATE queues SET depth = depth - 1 WHERE name = OLD.queue;
END;
"""


class Database(sqlite3.Connection):
    """A connection that remembers its ``synchronous`` setting, so it is set only on change."""

    synchronous: str = ""


def connect_db(path: Path) -> sqlite3.Connection:
    """Open the database with the settings every mqjms process must share."""
    db = sqlite3.connect(
        path, timeout=30.0, isolation_level=None, check_same_thread=False, factory=Database
    )
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.synchronous = "FULL"
    db.execute("PRAGMA foreign_keys=OFF")
    db.execute("PRAGMA busy_timeout=30000")
    return db


def create_schema(db: sqlite3.Connection) -> None:
    db.executescript(SCHEMA)


@contextmanager
def write(db: sqlite3.Connection, durable: bool = True) -> Iterator[sqlite3.Connection]:
    """One write transaction (BEGIN IMMEDIATE), committed on success, rolled back on error.

    ``durable=False`` skips the fsync at commit: for changes whose loss on power failure
    is harmless (non-persistent messages, a get's lock that a later durable commit
    covers). WAL keeps the database consistent either way.
    """
    mode = "FULL" if durable else "NORMAL"
    if getattr(db, "synchronous", None) != mode:
        # set before BEGIN: the setting has no effect on a transaction already open
        db.execute(f"PRAGMA synchronous={mode}")
        if isinstance(db, Database):
            db.synchronous = mode
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
