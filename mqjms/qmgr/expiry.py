"""Expired messages (seeds 000/001/004): never returned, discarded with the expiration
report they asked for.

A message is discarded by the get or browse that meets it, by REFRESH QMGR TYPE(EXPIRY),
or by the periodic scan every EXPRYINT seconds (:class:`ExpiryScanner`, a thread with its
own database connection). Seed 000 note 4: the discard and the report are never part of
the caller's unit of work; callers run them in a transaction of their own or commit them
with a get's row changes, which are not the unit of work either. A report that cannot
reach its ReplyToQ goes to the dead-letter queue, as IBM MQ does.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TypeVar

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD

from . import bells, messages, meta, qstats, reporting, store, wakeup
from .failures import StorageError
from .space import SpaceReserve, with_room
from .transaction import Transaction, writing

T = TypeVar("T")

log = get_logger("mqjms.qmgr")

SCAN_CHECK_INTERVAL = 1.0  # seconds between looks at EXPRYINT and the last scan's time
# Seconds the scanner may sleep, when no scan is due sooner, in a process that hears the
# others' commits (a bell, see bells.py): an ALTER QMGR rings, so EXPRYINT's change is seen
# within SCAN_CHECK_INTERVAL anyway; this bounds what a writer that does not ring delays.
SCAN_IDLE_MAX = 60.0


# A write transaction discards at most this many expired messages, or for at most this
# long: one that met a hundred thousand of them held every writer of the queue manager
# (other queues' too) for seconds, a minute with large bodies. The next transaction goes on.
DISCARD_BATCH = 200
DISCARD_SECONDS = 0.2
#: The batches discarded on a full disk, one after the other while the last is too large:
#: a batch's log must fit in the room kept for draining (space.py).
FULL_DISK_BATCHES = (16, 1)


class MoreExpired(Exception):
    """A get met more expired messages than one transaction discards: commit those, and
    look again in a new transaction."""


def discard(
    tx: Transaction, expired: Sequence[messages.StoredMessage], *, bodies_read: bool = True
) -> None:
    """Discard expired messages, sending any expiration report they asked for. Messages
    read without their bodies (``bodies_read=False``: a scan, a reservation) read one only
    for a report that carries data, and one line a batch is logged."""
    for msg in expired:
        original = MQMD.unpack(msg.md_bytes)
        wanted = original.Report & C.MQRO_EXPIRATION_MASK
        if not bodies_read and wanted not in (0, C.MQRO_EXPIRATION) and original.ReplyToQ.strip():
            msg.data = _body(tx, msg.id)
        tx.db.execute("DELETE FROM messages WHERE id = ?", (msg.id,))
        log.debug(
            "message.expired",
            queue=msg.queue,
            msg_id=original.MsgId.hex(),
            expiry=original.Expiry,
        )
        report = messages.expiration_report(msg)
        if report is not None:
            reporting.send(tx, original, *report, uow=None)
    qstats.uncount(tx.db, Counter(msg.queue for msg in expired))  # discards are not gets
    if expired and not bodies_read:  # a scan's batch: one line, not one a message
        log.info("messages.expired", discarded=len(expired))


def _body(tx: Transaction, row_id: int) -> bytes:
    row = tx.db.execute(
        f"SELECT {messages.body_column()} FROM messages WHERE id = ?", (row_id,)
    ).fetchone()
    return bytes(row[0]) if row is not None else b""


def scan(tx: Transaction, queue: str | None = None, limit: int = DISCARD_BATCH) -> int:
    """Discard up to ``limit`` expired, available messages (of ``queue``, or of every
    queue); how many. Callers scan again, in a new transaction, while it returns
    ``limit``: no transaction holds the write lock or the bodies for long."""
    sql = (
        f"SELECT {messages.HEADER_COLUMNS} FROM messages INDEXED BY messages_expires"
        " WHERE expires IS NOT NULL AND expires <= ? AND state = ?"
    )
    params: list[object] = [tx.now + 0.0999, store.AVAILABLE]
    if queue is not None:
        sql += " AND queue = ?"
        params.append(queue)
    sql += " ORDER BY expires LIMIT ?"
    params.append(limit)
    found = [messages.from_row(r) for r in tx.db.execute(sql, params).fetchall()]
    expired = [m for m in found if messages.is_expired(m.expires, tx.now)]
    discard(tx, expired, bodies_read=False)
    return len(expired)


def expired_puts(tx: Transaction, uow: str) -> list[int]:
    """The row ids of messages unit of work ``uow`` put whose expiry has ended, up to a
    scan's batch: found by the unit of work (while they are still in it) when it put too
    many to track."""
    rows = tx.db.execute(
        "SELECT id FROM messages INDEXED BY messages_uow WHERE uow = ? AND state = ?"
        " AND expires IS NOT NULL AND expires <= ? ORDER BY expires LIMIT ?",
        (uow, store.PUT_IN_UOW, tx.now, DISCARD_BATCH),  # expired now (is_expired), oldest first
    ).fetchall()
    return [int(r[0]) for r in rows]


def discard_expired_puts(tx: Transaction, row_ids: Sequence[int]) -> None:
    """Seed 004: "the expiry interval of a message put under syncpoint starts when it is
    put, not when the syncpoint is committed"; one whose interval ended before the commit
    is discarded at the commit (with its report), not left for a get to meet. ``row_ids``:
    messages the unit of work put (:meth:`tracked_puts`, else :func:`expired_puts`)."""
    if not row_ids:
        return
    sql = (
        f"SELECT {messages.HEADER_COLUMNS} FROM messages WHERE id IN"
        f" ({', '.join('?' * len(row_ids))}) AND expires IS NOT NULL AND state = ?"
    )
    found = [messages.from_row(r) for r in tx.db.execute(sql, [*row_ids, store.AVAILABLE])]
    discard(tx, [m for m in found if messages.is_expired(m.expires, tx.now)], bodies_read=False)


def scan_all(
    open_tx: Callable[[], AbstractContextManager[Transaction]],
    queue: str | None,
    stopping: Callable[[], bool] = lambda: False,
    room: Callable[[Callable[[], int]], int] = lambda batch: batch(),
) -> int:
    """:func:`scan` in transactions of their own until none is left, or until ``stopping``
    says so between two (a queue manager closing does not wait for a million expired
    messages: what is left is discarded by the next scan or get); how many. Each
    transaction runs through ``room`` (space.with_room: a discard frees space, and on a
    full disk may use the room kept for draining)."""

    limits = iter(FULL_DISK_BATCHES)
    limit = DISCARD_BATCH

    def batch() -> int:
        with open_tx() as tx:
            return scan(tx, queue, limit)

    total = 0
    while True:
        try:
            count = room(batch)
        except StorageError as exc:
            # a batch's log may be larger than the room kept for draining: smaller ones
            limit = next(limits, 0)
            if not exc.disk_full or not limit:
                raise
            continue
        total += count
        if count < limit or stopping():
            return total


class ExpiryScanner:
    """The periodic expiry scan: every EXPRYINT seconds (0: never) one process scans all
    queues; the time of the last scan is in the database, so processes share the interval."""

    def __init__(
        self,
        qmgr_name: str,
        open_db: Callable[[], sqlite3.Connection],
        reserve: SpaceReserve | None = None,
    ) -> None:
        self.qmgr_name = qmgr_name
        self._open_db = open_db
        self._reserve = reserve
        self._unfinished = False  # this process claimed an interval whose scan failed
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"mqjms-expiry-{qmgr_name}", daemon=True
        )

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Stop, and wait for a scan in progress to end (its connection is closed by then)."""
        self._stop.set()
        wakeup.nudge()  # it may sleep on the doorbell
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        failing = False
        try:
            while not self._stop.wait(SCAN_CHECK_INTERVAL):  # at most once a second
                if db is None:
                    db = self._open_db()
                rings = wakeup.rings()  # read before the look: a change after it wakes
                due = SCAN_CHECK_INTERVAL
                try:
                    due = self._maybe_scan(db)
                    failing = False
                except (MQError, sqlite3.Error) as exc:  # a full disk, a busy or damaged
                    # file: the next interval tries again (once logged, until it works)
                    if not failing:
                        log.warning(
                            "expiry.scan_failed",
                            qmgr=self.qmgr_name,
                            reason=exc.reason_name if isinstance(exc, MQError) else None,
                            detail=exc.detail if isinstance(exc, MQError) else repr(exc),
                        )
                    failing = True
                directory = getattr(db, "directory", None)
                # idle, hearing the other processes: sleep until due or something changes
                if due > SCAN_CHECK_INTERVAL and directory and bells.heard(directory):
                    sleep = min(due, SCAN_IDLE_MAX) - SCAN_CHECK_INTERVAL
                    wakeup.wait(rings, sleep, self._stop.is_set)
        except Exception as exc:  # the scanner must never take the process down
            log.error("expiry.scan_failed", qmgr=self.qmgr_name, error=repr(exc))
        finally:
            if db is not None:
                db.close()

    def _room(self, db: sqlite3.Connection, batch: Callable[[], T]) -> T:
        """One scan transaction; on a full disk with the room kept for draining (a
        discard frees space), for a second at most: the next interval tries again."""
        return with_room(db, self._reserve, batch, patience=1.0)

    def _maybe_scan(self, db: sqlite3.Connection) -> float:
        """Scan when due; the seconds until the next scan is (infinity when EXPRYINT is
        OFF: until it changes)."""
        interval = int(meta.qmgr_attr(meta.qmgr_attrs(db), "EXPRYINT"))
        if interval <= 0:
            return math.inf

        def claim() -> float:
            """Take this interval's scan (one process does); 0, or the seconds until due."""
            with writing(db, self.qmgr_name, durable=False) as tx:
                last = float(meta.get(tx.db, "last_expiry_scan") or 0)
                if tx.now - last < interval:
                    return interval - (tx.now - last)
                meta.put(tx.db, "last_expiry_scan", str(tx.now))
                return 0.0

        if not self._unfinished:  # a failed scan is tried again at once, not next interval
            # read first: no write lock taken every second for a scan that is not due
            since = time.time() - float(meta.get(db, "last_expiry_scan") or 0)
            if since < interval:
                return interval - since
            due = self._room(db, claim)
            if due > 0:
                return due
            self._unfinished = True
        count = scan_all(
            lambda: writing(db, self.qmgr_name, durable=False),
            None,
            self._stop.is_set,
            lambda batch: self._room(db, batch),
        )
        self._unfinished = False
        log.info("expiry.scanned", qmgr=self.qmgr_name, discarded=count, interval=interval)
        return float(interval)
