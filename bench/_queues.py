"""The two queues the queue-manager benchmarks compare: a bare SQLite queue table with the
queue manager's durability (the baseline: the least a durable queue must do in SQLite) and
one connection to an embedded queue manager; plus what they leave on disk (log pages,
stored bytes).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Handle

QUEUE = "BENCH.Q"
OPEN_OPTIONS = C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF
# The settings that decide what a commit costs; the baseline copies the queue manager's.
SETTINGS = (
    "journal_mode",
    "synchronous",
    "page_size",
    "cache_size",
    "wal_autocheckpoint",
    "mmap_size",
    "temp_store",
    "locking_mode",
)
_APPLY_ORDER = (
    "page_size",
    "journal_mode",
    "cache_size",
    "wal_autocheckpoint",
    "mmap_size",
    "temp_store",
    "locking_mode",
)


def read_settings(db: sqlite3.Connection) -> dict[str, Any]:
    return {name: db.execute(f"PRAGMA {name}").fetchone()[0] for name in SETTINGS}


def qmgr_settings(qm: QueueManager) -> dict[str, Any]:
    probe = qm.open_db()
    try:
        return read_settings(probe)
    finally:
        probe.close()


class BareQueue:
    """A queue table in SQLite and nothing else: ``durable`` commits at synchronous=FULL
    (one fsync per commit in WAL mode, as the queue manager's durable commits), else NORMAL
    (no fsync), with the queue manager's other settings."""

    def __init__(self, path: Path, settings: Mapping[str, Any], durable: bool = True) -> None:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        for name in _APPLY_ORDER:
            db.execute(f"PRAGMA {name}={settings[name]}")
        db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        db.execute("CREATE TABLE IF NOT EXISTS queue (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        self.path, self.db = path, db

    def round_trips(self, n: int, payload: bytes) -> float:
        """n x (put: INSERT transaction; get and commit: SELECT + DELETE transaction)."""
        db = self.db
        start = time.perf_counter()
        for _ in range(n):
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO queue (data) VALUES (?)", (payload,))
            db.execute("COMMIT")
            db.execute("BEGIN IMMEDIATE")
            row = db.execute("SELECT id, data FROM queue ORDER BY id LIMIT 1").fetchone()
            if row is None:
                raise RuntimeError("bare queue: the message just put is missing")
            db.execute("DELETE FROM queue WHERE id = ?", (row[0],))
            db.execute("COMMIT")
        return time.perf_counter() - start

    def empty_polls(self, n: int, payload: bytes) -> float:
        """n looks for the first message of the empty queue (a read, no transaction of
        its own): what a poller on a bare SQLite queue does."""
        db = self.db
        start = time.perf_counter()
        for _ in range(n):
            if db.execute("SELECT id, data FROM queue ORDER BY id LIMIT 1").fetchone():
                raise RuntimeError("bare queue: the queue polled is not empty")
        return time.perf_counter() - start

    def fill(self, n: int, payload: bytes, batch: int = 500) -> None:
        db = self.db
        for start in range(0, n, batch):
            db.execute("BEGIN IMMEDIATE")
            db.executemany(
                "INSERT INTO queue (data) VALUES (?)", [(payload,)] * min(batch, n - start)
            )
            db.execute("COMMIT")

    def drain(self, n: int, per_commit: int) -> float:
        """Get and delete ``n`` messages, ``per_commit`` to a transaction: what a group of
        consumers whose commits share one fsync would cost at best."""
        db = self.db
        start = time.perf_counter()
        left = n
        while left:
            k = min(per_commit, left)
            db.execute("BEGIN IMMEDIATE")
            for _ in range(k):
                row = db.execute("SELECT id, data FROM queue ORDER BY id LIMIT 1").fetchone()
                if row is None:
                    raise RuntimeError(f"bare queue: {n - left} of {n} messages drained")
                db.execute("DELETE FROM queue WHERE id = ?", (row[0],))
            db.execute("COMMIT")
            left -= k
        return time.perf_counter() - start

    def close(self) -> None:
        self.db.close()


class MqjmsQueue:
    """One connection to an embedded queue manager, with ``BENCH.Q`` open for put and get."""

    def __init__(self, path: Path, maxdepth: int = 999_999) -> None:
        self.qm = QueueManager(path)
        self.qm.define_queue("QLOCAL", QUEUE, {"DEFPSIST": "YES", "MAXDEPTH": maxdepth})
        self.path = path / "qmgr.db"
        self.conn: QMConnection = self.qm.connect("mqjms-bench")
        self.handle: Handle = self.conn.open(QUEUE, OPEN_OPTIONS)
        self.persistent = MQMD(Persistence=C.MQPER_PERSISTENT)
        self.as_q_def = MQMD(Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF)
        self.non_persistent = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)

    def _loop(self, n: int, payload: bytes, md: MQMD, get_syncpoint: bool) -> float:
        conn, h = self.conn, self.handle
        start = time.perf_counter()
        for _ in range(n):
            conn.put(h, md, payload)
            if conn.get(h, syncpoint=get_syncpoint) is None:
                raise RuntimeError("mqjms: the message just put is missing")
            if get_syncpoint:
                conn.commit()
        return time.perf_counter() - start

    def persistent_rt(self, n: int, payload: bytes) -> float:
        """n x (MQPUT persistent, MQGET under syncpoint, MQCMIT)."""
        return self._loop(n, payload, self.persistent, get_syncpoint=True)

    def as_q_def_rt(self, n: int, payload: bytes) -> float:
        """The same with Persistence AS_Q_DEF on a DEFPSIST(YES) queue."""
        return self._loop(n, payload, self.as_q_def, get_syncpoint=True)

    def non_persistent_rt(self, n: int, payload: bytes) -> float:
        """n x (MQPUT non-persistent, MQGET), no syncpoint."""
        return self._loop(n, payload, self.non_persistent, get_syncpoint=False)

    def empty_polls(self, n: int, payload: bytes) -> float:
        """n x MQGET under syncpoint without wait on the empty queue (a polling consumer)."""
        conn, h = self.conn, self.handle
        start = time.perf_counter()
        for _ in range(n):
            if conn.get(h, wait=0, syncpoint=True) is not None:
                raise RuntimeError("mqjms: the queue polled is not empty")
        return time.perf_counter() - start

    def fill(self, n: int, payload: bytes, batch: int = 500) -> None:
        """n persistent messages put under syncpoint, MQCMIT every ``batch``."""
        conn, h, md = self.conn, self.handle, self.persistent
        for i in range(1, n + 1):
            conn.put(h, md, payload, syncpoint=True)
            if i % batch == 0:
                conn.commit()
        conn.commit()

    def depth(self) -> int:
        return self.qm.queue_depth(QUEUE)

    def close(self) -> None:
        self.conn.disconnect()
        self.qm.close()


def wal_frames(path: Path, run: Callable[[int], object], n: int = 20) -> float:
    """Log (WAL) frames, each a page, that one operation of ``run`` appends: checkpoint and
    truncate from another connection, run ``n`` operations, count the WAL's frames."""
    other = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    try:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        run(n)
        frames = int(other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    finally:
        other.close()
    return frames / n


def stored_bytes(path: Path) -> int:
    """Bytes the database's pages in use take, once the log is checkpointed into it."""
    db = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        free = db.execute("PRAGMA freelist_count").fetchone()[0]
        size = db.execute("PRAGMA page_size").fetchone()[0]
    finally:
        db.close()
    return int((pages - free) * size)
