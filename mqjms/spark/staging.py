"""Where the streaming source keeps messages between the get and Spark's commit.

A queue cannot replay, and Spark replays an unfinished batch with exactly the same
``(start, end]``, so the source stages first and acknowledges second (stage-then-ack):
messages get numbers (``seq``) in a staging store, the queue forgets them, and only
Spark's commit of a range removes them from staging. Offsets are these numbers.

Two stores, one interface (:class:`Staging`):

* :class:`~mqjms.spark.reserved.ReservedStaging`: a transport that can reserve messages
  (the embedded queue manager) keeps them on the queue itself, reserved for the query.
* :class:`LogStaging`: any other transport. Messages are got under syncpoint, written to
  a SQLite log (fsync) deduplicated on MsgId, and only then committed on the broker. A
  crash between the two makes the broker deliver them again; the log ignores them.

Beside the messages, the :class:`Ledger` (SQLite, in the staging directory) keeps what
poison isolation needs: how often each range was planned, the last known failure of a
message, the next tag, the AvailableNow target.
"""

from __future__ import annotations

import json
import sqlite3
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from mqjms.backout import Failure
from mqjms.mq.md import MQMD, with_counts
from mqjms.transport import Connection, Context, Handle

from . import private

#: messages staged, or released from a reservation, in one transaction: a large batch
#: never holds the queue manager's write lock (or a broker transaction, and the messages
#: got under it in memory) for long
STEP = 10_000
FAILURE_RETENTION = 7 * 86400.0  # seconds a message's last failure is remembered
RELEASED_RETENTION = 86400.0  # seconds a released MsgId still deduplicates a redelivery


@dataclass(frozen=True, slots=True)
class Staged:
    """A staged message as read again: its number, its suspect tag (0: none), the MQMD
    (BackoutCount as counted in staging) and the bytes."""

    seq: int
    tag: int
    md: MQMD
    data: bytes


@dataclass(frozen=True, slots=True)
class Meta:
    """What planning needs of a staged message, without its bytes."""

    seq: int
    tag: int
    backout: int


def connect_sqlite(path: Path) -> sqlite3.Connection:
    private.prepare_database(path)
    db = sqlite3.connect(str(path), timeout=60.0, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=60000")
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS attempts (lo INTEGER, hi INTEGER, count INTEGER NOT NULL,
    PRIMARY KEY (lo, hi));
CREATE TABLE IF NOT EXISTS failures (msg_id BLOB PRIMARY KEY, failure TEXT NOT NULL,
    at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class Ledger:
    """Poison isolation's bookkeeping, in ``<staging>/ledger.db``."""

    file_name = "ledger.db"

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.db = connect_sqlite(directory / self.file_name)
        self.db.executescript(self.schema())

    def schema(self) -> str:
        return LEDGER_SCHEMA

    def close(self) -> None:
        self.db.close()

    def attempt(self, lo: int, hi: int) -> int:
        """Count one more plan of ``(lo, hi]``; returns how often it was planned before
        (each of those attempts ended without Spark committing the range: it failed)."""
        with transaction(self.db) as db:
            row = db.execute("SELECT count FROM attempts WHERE lo = ? AND hi = ?", (lo, hi))
            found = row.fetchone()
            before = int(found[0]) if found else 0
            db.execute(
                "INSERT INTO attempts (lo, hi, count) VALUES (?, ?, 1) ON CONFLICT(lo, hi)"
                " DO UPDATE SET count = count + 1",
                (lo, hi),
            )
        return before

    def forget_attempts(self, upto: int) -> None:
        """Ranges ending at or before ``upto`` completed: their plans were no failures."""
        self.db.execute("DELETE FROM attempts WHERE hi <= ?", (upto,))

    def starting_at(self, offset: int) -> None:
        """A query starts at ``offset`` (Spark's initialOffset): a new query, unless its
        first batch is being replayed, so the plans another query left count for nothing."""
        if self.get("initial") != str(offset):
            with transaction(self.db):
                self.db.execute("DELETE FROM attempts")
                self.set("initial", str(offset))

    def remember_failure(self, msg_id: bytes, failure: Failure) -> None:
        value = json.dumps(
            {
                "exception_type": failure.exception_type,
                "message": failure.message,
                "listener": failure.listener,
                "queue": failure.queue,
                "time": failure.time.isoformat(),
            }
        )
        now = time.time()
        self.db.execute(
            "INSERT INTO failures (msg_id, failure, at) VALUES (?, ?, ?) ON CONFLICT(msg_id)"
            " DO UPDATE SET failure = excluded.failure, at = excluded.at",
            (msg_id, value, now),
        )
        self.db.execute("DELETE FROM failures WHERE at < ?", (now - FAILURE_RETENTION,))

    def failure(self, msg_id: bytes) -> Failure | None:
        row = self.db.execute("SELECT failure FROM failures WHERE msg_id = ?", (msg_id,))
        found = row.fetchone()
        if found is None:
            return None
        import datetime as dt

        value = json.loads(found[0])
        return Failure(
            exception_type=value["exception_type"],
            message=value["message"],
            listener=value["listener"],
            queue=value["queue"],
            time=dt.datetime.fromisoformat(value["time"]),
        )

    def get(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def set(self, key: str, value: str | None) -> None:
        if value is None:
            self.db.execute("DELETE FROM meta WHERE key = ?", (key,))
        else:
            self.db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def new_tag(self) -> int:
        with transaction(self.db):
            tag = int(self.get("last_tag") or 0) + 1
            self.set("last_tag", str(tag))
        return tag

    def target(self) -> int | None:
        """The AvailableNow target (the last seq the run must process), when one is set."""
        value = self.get("target")
        return None if value is None else int(value)

    def extend_target(self, seqs: Sequence[int]) -> None:
        """Renumbered messages of an AvailableNow run stay inside it."""
        target = self.target()
        if target is not None and seqs:
            self.set("target", str(max(target, *seqs)))


class Staging(ABC):
    """The staged messages of one query (``owner``) on one queue, plus its ledger."""

    def __init__(self, directory: Path, owner: str, queue: str) -> None:
        self.directory = directory
        self.owner = owner
        self.queue = queue
        self.ledger = Ledger(directory)

    @abstractmethod
    def stage(self, conn: Connection, handle: Handle, limit: int) -> int:
        """Take up to ``limit`` messages off the queue into staging (runner only);
        returns how many were staged now (planning reads them next, once)."""

    @abstractmethod
    def last(self) -> int:
        """The highest seq ever given (0: none)."""

    @abstractmethod
    def first(self) -> int | None:
        """The lowest seq still staged, or None."""

    @abstractmethod
    def metas(self, lo: int, hi: int, limit: int | None = None) -> list[Meta]:
        """Staged messages in ``(lo, hi]`` (seq order), without bytes."""

    @abstractmethod
    def read(self, lo: int, hi: int) -> list[Staged]:
        """Staged messages in ``(lo, hi]``, in seq order, with their bytes."""

    @abstractmethod
    def read_packed(self, lo: int, hi: int) -> list[tuple[int, bytes, bytes]]:
        """:meth:`read` for a task: ``(seq, packed MQMD, data)``, the MQMD in native
        encoding with BackoutCount as counted in staging, never unpacked."""

    @abstractmethod
    def release(self, upto: int) -> None:
        """Remove every staged message with ``seq <= upto`` (Spark committed them)."""

    @abstractmethod
    def renumber(self, seqs: Sequence[int], tag: int, backout: int) -> list[int]:
        """New numbers at the tail for ``seqs``, tagged, BackoutCount + ``backout``;
        numbers no longer staged are skipped (so a repeated call does nothing)."""

    @abstractmethod
    def take(self, conn: Connection, seq: int) -> tuple[MQMD, bytes] | None:
        """The message to move off staging, inside ``conn``'s unit of work where the
        store allows; None when ``seq`` is not staged. :meth:`taken` completes it."""

    @abstractmethod
    def taken(self, seq: int) -> None:
        """The move of ``seq`` was committed: drop it from staging."""

    @abstractmethod
    def give_back(self, conn: Connection, handle: Handle, after: int) -> int:
        """Return the messages staged above ``after`` (no batch holds them) to the queue;
        how many. What cannot go back unchanged (a suspect, a counted backout) stays."""

    def close(self) -> None:
        self.ledger.close()

    def count(self) -> int:
        """How many messages are staged."""
        return len(self.metas(0, self.last()))

    def plan_end(self, start: int, limit: int, target: int | None) -> tuple[int, list[Meta]]:
        """Where the batch after ``start`` ends: at most ``limit`` messages and never a
        suspect beside others (a tagged group is a batch of its own); and its messages
        (``metas(start, end)``, which planning the batch asks for next)."""
        hi = self.last() if target is None else min(target, self.last())
        found = self.metas(start, hi, limit)
        if not found:
            return start, []
        tag = found[0].tag
        taken = 0
        for meta in found:
            if meta.tag != tag:
                break
            taken += 1
        return found[taken - 1].seq, found[:taken]


LOG_SCHEMA = """
CREATE TABLE IF NOT EXISTS staged (seq INTEGER PRIMARY KEY AUTOINCREMENT,
    msg_id BLOB NOT NULL UNIQUE, tag INTEGER NOT NULL DEFAULT 0, backout INTEGER NOT NULL,
    md BLOB NOT NULL, data BLOB NOT NULL, moving INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS released (msg_id BLOB PRIMARY KEY, at REAL NOT NULL);
"""


class LogStaging(Staging):
    """Staging in a SQLite log beside the checkpoint, for transports that cannot reserve."""

    def __init__(self, directory: Path, owner: str, queue: str) -> None:
        super().__init__(directory, owner, queue)
        self.db = self.ledger.db  # one file: ledger and messages change together
        self.db.executescript(LOG_SCHEMA)

    def stage(self, conn: Connection, handle: Handle, limit: int, wait: float = 0.05) -> int:
        got: list[tuple[MQMD, bytes]] = []
        while len(got) < limit:
            found = conn.get(handle, wait=wait if not got else 0.0, syncpoint=True)
            if found is None:
                break
            got.append(found)
        if not got:
            return 0
        staged = 0
        now = time.time()
        with transaction(self.db) as db:
            for md, data in got:
                if db.execute("SELECT 1 FROM released WHERE msg_id = ?", (md.MsgId,)).fetchone():
                    continue  # delivered again after Spark had committed it: a duplicate
                cur = db.execute(
                    "INSERT OR IGNORE INTO staged (msg_id, backout, md, data) VALUES (?,?,?,?)",
                    (md.MsgId, md.BackoutCount, md.pack(), data),
                )
                if cur.rowcount:
                    staged += 1
            db.execute("DELETE FROM released WHERE at < ?", (now - RELEASED_RETENTION,))
        conn.commit()  # only now does the broker forget them
        return staged

    def last(self) -> int:
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'staged'").fetchone()
        return int(row[0]) if row else 0

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM staged").fetchone()[0])

    def first(self) -> int | None:
        row = self.db.execute("SELECT MIN(seq) FROM staged").fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def metas(self, lo: int, hi: int, limit: int | None = None) -> list[Meta]:
        sql = "SELECT seq, tag, backout FROM staged WHERE seq > ? AND seq <= ? ORDER BY seq"
        params: list[int] = [lo, hi]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [Meta(int(a), int(b), int(c)) for a, b, c in self.db.execute(sql, params)]

    def read(self, lo: int, hi: int) -> list[Staged]:
        rows = self.db.execute(
            "SELECT seq, tag, backout, md, data FROM staged WHERE seq > ? AND seq <= ?"
            " ORDER BY seq",
            (lo, hi),
        ).fetchall()
        out = []
        for seq, tag, backout, md_bytes, data in rows:
            md = MQMD.unpack(bytes(md_bytes))
            md.BackoutCount = int(backout)
            out.append(Staged(int(seq), int(tag), md, bytes(data)))
        return out

    def read_packed(self, lo: int, hi: int) -> list[tuple[int, bytes, bytes]]:
        rows = self.db.execute(
            "SELECT seq, backout, md, data FROM staged WHERE seq > ? AND seq <= ? ORDER BY seq",
            (lo, hi),
        ).fetchall()
        return [(int(s), with_counts(bytes(m), int(b)), bytes(d)) for s, b, m, d in rows]

    def release(self, upto: int) -> None:
        now = time.time()
        with transaction(self.db) as db:
            db.execute(
                "INSERT OR IGNORE INTO released (msg_id, at) SELECT msg_id, ? FROM staged"
                " WHERE seq <= ?",
                (now, upto),
            )
            db.execute("DELETE FROM staged WHERE seq <= ?", (upto,))
            db.execute("DELETE FROM attempts WHERE hi <= ?", (upto,))

    def renumber(self, seqs: Sequence[int], tag: int, backout: int) -> list[int]:
        new: list[int] = []
        with transaction(self.db) as db:
            for seq in seqs:
                row = db.execute(
                    "SELECT msg_id, backout, md, data, moving FROM staged WHERE seq = ?", (seq,)
                ).fetchone()
                if row is None:
                    continue
                db.execute("DELETE FROM staged WHERE seq = ?", (seq,))
                cur = db.execute(
                    "INSERT INTO staged (msg_id, tag, backout, md, data, moving)"
                    " VALUES (?,?,?,?,?,?)",
                    (row[0], tag, int(row[1]) + backout, row[2], row[3], row[4]),
                )
                new.append(int(cur.lastrowid or 0))
        return new

    def take(self, conn: Connection, seq: int) -> tuple[MQMD, bytes] | None:
        found = self.read(seq - 1, seq)
        if not found:
            return None
        self.db.execute("UPDATE staged SET moving = 1 WHERE seq = ?", (seq,))
        return found[0].md, found[0].data

    def was_moving(self, seq: int) -> bool:
        """A move of ``seq`` began before and may have been committed (a crash between the
        broker's commit and the staging update)."""
        row = self.db.execute("SELECT moving FROM staged WHERE seq = ?", (seq,)).fetchone()
        return bool(row and row[0])

    def give_back(self, conn: Connection, handle: Handle, after: int) -> int:
        rows = self.db.execute(
            "SELECT seq, md, data FROM staged WHERE seq > ? AND tag = 0 AND backout = 0"
            " ORDER BY seq",
            (after,),
        ).fetchall()
        if not rows:
            return 0
        for _, md, data in rows:  # a put resets BackoutCount: only uncounted ones go back
            conn.put(
                handle.name,
                MQMD.unpack(bytes(md)),
                bytes(data),
                syncpoint=True,
                context=Context.PASS_ALL,
                new_msg_id=False,
            )
        conn.commit()  # a crash now leaves a copy in both: the next stage ignores the queue's
        with transaction(self.db) as db:
            db.executemany("DELETE FROM staged WHERE seq = ?", [(r[0],) for r in rows])
        return len(rows)

    def taken(self, seq: int) -> None:
        with transaction(self.db) as db:
            db.execute(
                "INSERT OR IGNORE INTO released (msg_id, at) SELECT msg_id, ? FROM staged"
                " WHERE seq = ?",
                (time.time(), seq),
            )
            db.execute("DELETE FROM staged WHERE seq = ?", (seq,))
