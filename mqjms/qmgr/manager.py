"""The embedded queue manager: one directory, shared by any number of local processes.

Lifecycle. Like a real queue manager, the embedded one runs independently of the
applications that use it: it *starts* at its first use after the machine boots (the
kernel's boot id changes) and when an administrator restarts it (:meth:`QueueManager.restart`,
``mqjms restart``), which is refused while another process has it open. A start drops
non-persistent messages, resets trigger intervals and backs out every unit of work left
behind (BackoutCount + 1), which is what IBM MQ does at restart. Applications coming and
going, even killed ones, do not restart it: their units of work are backed out one by one.

Abandoned units of work. A connection that ends without committing is backed out. When
its process died (even by SIGKILL) the next user of the directory notices within
``RECOVERY_INTERVAL`` seconds: every connect, and every get that finds nothing, looks for
connections whose lock file nobody holds any more and backs out their work.

Storage. The directory and its files are private to their owner (``files``), a start
refuses a missing, emptied or damaged database (``integrity``), a full disk stops puts
but not consumers (``space``), a read-only directory opens for browsing only, and every
SQLite failure reaches callers as an MQError (``failures``).
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sqlite3
import threading
import time
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics.attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    PROCESS_ATTRS,
    QMGR_ATTR_BY_NAME,
    QMGR_ATTRS,
    QUEUE_ATTR_BY_NAME,
    QUEUE_ATTRS,
    QUEUE_TYPES,
    default_queue_attrs,
    normalize,
    normalize_process_attrs,
    normalize_queue_attrs,
    validate_name,
)

from . import files, integrity, queues, store, subscriptions, topics, triggers
from .failures import StorageError, translating
from .locks import FileLock, owner_is_dead
from .space import SpaceReserve, with_room

if TYPE_CHECKING:
    from .connection import QMConnection
    from .mqsc import CommandResult

log = get_logger("mqjms.qmgr")

RECOVERY_INTERVAL = 1.0  # seconds: the bound on noticing a dead connection's unit of work
DEFAULT_OBJECTS: tuple[tuple[str, str, dict[str, int | str | bool]], ...] = (
    (LOCAL, "SYSTEM.DEFAULT.LOCAL.QUEUE", {}),
    (ALIAS, "SYSTEM.DEFAULT.ALIAS.QUEUE", {}),
    (MODEL, "SYSTEM.DEFAULT.MODEL.QUEUE", {}),
    (MODEL, "SYSTEM.DURABLE.MODEL.QUEUE", {"DEFTYPE": "PERMDYN"}),
    (MODEL, "SYSTEM.NDURABLE.MODEL.QUEUE", {}),
    (
        LOCAL,
        "SYSTEM.DEAD.LETTER.QUEUE",
        {"DESCR": "mqjms dead-letter queue", "MAXDEPTH": 999_999_999},
    ),
    (LOCAL, "SYSTEM.DEFAULT.INITIATION.QUEUE", {}),
)
SYSTEM_DEFAULTS = {
    LOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE",
    ALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE",
    MODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
}

# Waiters in this process are woken when a local connection commits or puts.
_activity = threading.Condition()
_activity_serial = 0


def notify_activity() -> None:
    global _activity_serial
    with _activity:
        _activity_serial += 1
        _activity.notify_all()


def wait_for_activity(seen: int, timeout: float) -> int:
    with _activity:
        if _activity_serial == seen:
            _activity.wait(timeout)
        return _activity_serial


def activity_serial() -> int:
    return _activity_serial


def _now_stamp() -> str:
    return time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())


def boot_id() -> str:
    """Identifies this boot of the machine; a new value means the queue manager restarts."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:  # not Linux: only an explicit restart starts the queue manager anew
        return "unknown"


def _writable(path: Path, db_file: Path) -> bool:
    """False on a read-only file system, or for a user who may only read the directory."""
    if not os.access(path, os.W_OK):
        return False
    return not db_file.exists() or os.access(db_file, os.W_OK)


def default_qmgr_name(path: Path) -> str:
    base = re.sub(r"[^A-Za-z0-9._]", "", path.resolve().name.lstrip(".")).upper()
    return (base or "QM1")[:48]


@translating
class QueueManager(topics.TopicAdministration, subscriptions.SubscriptionAdministration):
    """An embedded queue manager on a directory; thread-safe; one per directory per process
    is enough, but more are harmless."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str | None = None,
        *,
        group_access: bool | None = None,
    ) -> None:
        self.path = Path(path)
        self.db_file = self.path / files.DATABASE
        self._lock = threading.RLock()
        self._closed = False
        self._last_recovery = 0.0
        self._connections: weakref.WeakSet[QMConnection] = weakref.WeakSet()
        self._stop_scanner = threading.Event()
        marker = files.read_marker(self.path) if self.path.is_dir() else None
        # group access is chosen at creation (or changed by its owner) and kept in qmgr.ini
        group = group_access if group_access is not None else bool(marker and marker.group_access)
        self.access = files.Access(group=group)
        self.read_only = self.path.is_dir() and not _writable(self.path, self.db_file)
        self.reserve = None if self.read_only else SpaceReserve(self.path, self.access)
        self._active = FileLock(
            self.path / "active.lock", self.access.file_mode, what="the queue manager's lock"
        )
        if self.read_only:
            self._db = self._open_read_only(marker)
        else:
            self._db = self._open_read_write(name, group_access)
        try:
            self.name = str(self._meta("qmgr_name"))
            self.stamp = int(self._meta("created_stamp") or 0)
            if self.read_only:
                return
            self.recover_abandoned(force=True)
            self._keep_reserve()
        except BaseException:
            self.name = getattr(self, "name", "")
            self.close()  # let go of the lock and the database: this object is never used
            raise
        self._scanner = threading.Thread(
            target=self._scan_loop, name=f"mqjms-expiry-{self.name}", daemon=True
        )
        self._scanner.start()

    def _open_read_write(self, name: str | None, group_access: bool | None) -> sqlite3.Connection:
        """Open (creating it if no queue manager was ever created here) and start if due."""
        files.make_directory(self.path, self.access)
        files.secure(self.path, self.access)
        startup = FileLock(
            self.path / "startup.lock", self.access.file_mode, what="the queue manager's start-up"
        )
        startup.acquire(exclusive=True)
        db: sqlite3.Connection | None = None
        try:
            marker = files.read_marker(self.path)  # again: another process may have created it
            integrity.check_before_open(self.path, self.db_file, marker)
            if marker is None:
                files.create_database_file(self.db_file, self.access)
            db = self._db = store.connect_db(self.db_file, create=marker is None)
            integrity.check_opened(self.path, db, marker)
            if not store.has_schema(db):
                store.create_schema(db)
            self._ensure_created(name)
            topics.ensure(db)  # pub/sub tables and SYSTEM.BASE.TOPIC (also in older ones)
            regroup = marker is not None and group_access not in (None, marker.group_access)
            if marker is None or not marker.name or regroup:
                created = marker.created if marker else ""
                qmname = str(self._meta("qmgr_name"))
                marker = files.Marker(qmname, created, self.access.group)
                files.write_marker(self.path, marker, self.access)
            if self._meta("boot_id") != boot_id():
                self._start()
            self._active.acquire(exclusive=False)
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            raise integrity.damaged(self.path, exc, self.db_file) from exc
        except StorageError as exc:
            if db is not None:
                db.close()
            if exc.reason in (C.MQRC_OBJECT_DAMAGED, C.MQRC_RESOURCE_PROBLEM):
                raise integrity.cannot_start(self.path, exc.detail, exc.cause) from exc
            raise
        except BaseException:
            if db is not None:
                db.close()
            raise
        finally:
            startup.release()
        return db

    def _open_read_only(self, marker: files.Marker | None) -> sqlite3.Connection:
        """A read-only file system or copy: browse and display, nothing that writes."""
        integrity.check_before_open(self.path, self.db_file, marker)
        if not self.db_file.exists():
            raise integrity.cannot_start(
                self.path, "the directory is read-only and holds no queue manager"
            )
        try:
            db = store.connect_db(self.db_file, read_only=True, create=False)
        except sqlite3.Error as exc:
            raise integrity.damaged(self.path, exc, self.db_file) from exc
        try:
            integrity.check_opened(self.path, db, marker)
            if not store.has_schema(db):
                raise integrity.cannot_start(self.path, f"{self.db_file} holds no queue manager")
        except BaseException:
            db.close()
            raise
        log.warning(
            "qmgr.opened_read_only",
            path=str(self.path),
            note="browse and display only; units of work in flight are shown as they were",
        )
        return db

    def _keep_reserve(self) -> None:
        """Top up the space reserve (space.py); a full disk is reported, not fatal."""
        if self.reserve is None:
            return
        try:
            if not self.reserve.top_up():
                log.warning("storage.reserve_unavailable", file=str(self.reserve.path))
        except OSError as exc:
            log.warning("storage.reserve_failed", file=str(self.reserve.path), error=str(exc))

    # ------------------------------------------------------------------ lifecycle
    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _ensure_created(self, name: str | None) -> None:
        with store.write(self._db) as db:
            if db.execute("SELECT 1 FROM meta WHERE key = 'qmgr_name'").fetchone():
                return
            qmname = validate_name(name or default_qmgr_name(self.path), "queue manager")
            db.executemany(
                "INSERT INTO meta (key, value) VALUES (?, ?)",
                [
                    ("schema_version", str(store.SCHEMA_VERSION)),
                    ("qmgr_name", qmname),
                    ("created_stamp", str(int(time.time()))),
                    ("incarnation", "0"),
                    ("qmgr_attrs", json.dumps({a.name: a.default for a in QMGR_ATTRS})),
                    ("last_expiry_scan", "0"),
                ],
            )
            for qtype, qname, attrs in DEFAULT_OBJECTS:
                merged = default_queue_attrs(qtype)
                merged.update(attrs)
                self._insert_queue(db, qname, qtype, merged)
            log.info("qmgr.created", qmgr=qmname, path=str(self.path))

    def _start(self) -> None:
        """Queue manager start: nobody else has the directory open. A damaged database
        stops it (a check that reads every page, as MQ replays its log at start)."""
        integrity.check_pages(self.path, self._db)
        with store.write(self._db) as db:
            dropped = db.execute("DELETE FROM messages WHERE persistent = 0").rowcount
            db.execute("DELETE FROM messages WHERE state = ?", (store.PUT_IN_UOW,))
            backed = db.execute(
                "UPDATE messages SET state = ?, uow = NULL, backout = backout + 1 WHERE state = ?",
                (store.AVAILABLE, store.GOT_IN_UOW),
            ).rowcount
            subscriptions.on_restart(db)  # non-durable subscriptions end with their queues
            db.execute("DELETE FROM queues WHERE deftype = 'TEMPDYN'")
            db.execute("DELETE FROM handles")
            db.execute("DELETE FROM connections")
            db.execute("DELETE FROM trigger_times")  # seed 003 item 11: restart resets TRIGINT
            db.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'incarnation'"
            )
            db.execute(
                "INSERT INTO meta (key, value) VALUES ('boot_id', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (boot_id(),),
            )
            # depth counters are rebuilt from the rows, so a crash can never skew them
            db.execute(
                "UPDATE queues SET depth = (SELECT COUNT(*) FROM messages m"
                " WHERE m.queue = queues.name)"
            )
        for stale in (self.path / "conn").glob("*.lock"):
            if owner_is_dead(stale):
                stale.unlink(missing_ok=True)
        log.info(
            "qmgr.started",
            qmgr=self._meta("qmgr_name"),
            nonpersistent_dropped=dropped,
            units_of_work_backed_out=backed,
        )

    def restart(self) -> None:
        """End and start the queue manager (``endmqm``/``strmqm``): non-persistent messages
        are dropped and leftover units of work backed out. Refused with MQRC_OBJECT_IN_USE
        while another process has the queue manager open; this object's connections are
        ended first."""
        if self.read_only:
            raise StorageError(
                C.MQRC_RESOURCE_PROBLEM,
                f"{self.db_file} is read-only: the queue manager cannot restart",
                "SQLITE_READONLY",
            )
        for conn in list(self._connections):
            conn.disconnect()
        startup = FileLock(
            self.path / "startup.lock", self.access.file_mode, what="the queue manager's start-up"
        )
        startup.acquire(exclusive=True)
        try:
            self._active.release()
            if not self._active.acquire(exclusive=True, blocking=False):
                self._active.acquire(exclusive=False)
                raise failed(
                    C.MQRC_OBJECT_IN_USE,
                    f"queue manager {self.name} is in use by another process "
                    f"({self._other_users()}); stop it first",
                )
            try:
                self._start()
            finally:
                self._active.acquire(exclusive=False)
        finally:
            startup.release()

    def _other_users(self) -> str:
        """The other processes with connections, as the connections table names them."""
        rows = self._db.execute("SELECT DISTINCT pid, appl FROM connections").fetchall()
        others = [f"pid {pid} ({appl})" for pid, appl in rows if pid != os.getpid()]
        return ", ".join(others[:5]) or "a process without connections"

    def close(self) -> None:
        """Close every connection of this object (backing out their work) and let go."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop_scanner.set()
        try:
            for conn in list(self._connections):
                try:
                    conn.disconnect()
                except MQError as exc:  # e.g. a damaged database: still let go of the rest
                    log.error("qmgr.disconnect_failed", qmgr=self.name, detail=exc.detail)
        finally:
            self._active.release()
            self._db.close()

    def __enter__(self) -> QueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self, appl_name: str | None = None) -> QMConnection:
        """MQCONN: a new connection (hconn) with its own unit of work."""
        from .connection import QMConnection

        if self._closed:
            raise failed(C.MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {self.name} is closed")
        self.recover_abandoned()
        conn = QMConnection(self, appl_name)
        self._connections.add(conn)
        return conn

    def new_connection_id(self) -> str:
        return uuid.uuid4().hex

    def connection_lock_path(self, conn_id: str) -> Path:
        return self.path / "conn" / f"{conn_id}.lock"

    def open_db(self) -> sqlite3.Connection:
        return store.connect_db(self.db_file, read_only=self.read_only, create=False)

    # ------------------------------------------------------------------ recovery
    def recover_abandoned(self, force: bool = False) -> int:
        """Back out the units of work of connections whose process is gone."""
        now = time.monotonic()
        if not force and now - self._last_recovery < RECOVERY_INTERVAL:
            return 0
        self._last_recovery = now
        with self._lock:
            if self._closed or self.read_only:
                return 0
            ids = [r[0] for r in self._db.execute("SELECT id FROM connections").fetchall()]
            dead = [cid for cid in ids if owner_is_dead(self.connection_lock_path(cid))]
            for cid in dead:
                self.end_connection(self._db, cid, reason="process ended")
        return len(dead)

    def end_connection(self, db: sqlite3.Connection, conn_id: str, reason: str) -> None:
        """Back out a connection's unit of work and drop its handles and temporary queues."""
        if self.read_only:
            return
        with_room(db, self.reserve, lambda: self._end_connection(db, conn_id, reason))

    def _end_connection(self, db: sqlite3.Connection, conn_id: str, reason: str) -> None:
        with store.write(db) as tx:
            if not tx.execute("SELECT 1 FROM connections WHERE id = ?", (conn_id,)).fetchone():
                return
            got, put = backout_uow(tx, conn_id)
            closed = [
                r[0]
                for r in tx.execute(
                    "SELECT DISTINCT queue FROM handles WHERE conn = ? AND options & ? != 0",
                    (conn_id, C.MQOO_INPUT_MASK),
                ).fetchall()
            ]
            tx.execute("DELETE FROM handles WHERE conn = ?", (conn_id,))
            ctx = triggers.Context(self.name, self.stamp, time.time())
            for qname in closed:
                # seed 003 item 12 note 2: an application that ends (or abends) after
                # backing out leaves its messages to trigger a new server
                triggers.on_close(tx, ctx, qname)
            temp = [
                r[0]
                for r in tx.execute(
                    "SELECT name FROM queues WHERE deftype = 'TEMPDYN' AND owner = ?", (conn_id,)
                ).fetchall()
            ]
            for qname in temp:
                tx.execute("DELETE FROM messages WHERE queue = ?", (qname,))
                tx.execute("DELETE FROM queues WHERE name = ?", (qname,))
            subscriptions.on_connection_end(tx, conn_id)  # its non-durable subscriptions
            tx.execute("DELETE FROM connections WHERE id = ?", (conn_id,))
        self.connection_lock_path(conn_id).unlink(missing_ok=True)
        if got or put:
            log.warning(
                "uow.backed_out",
                connection=conn_id,
                reason=reason,
                messages_got=got,
                messages_put=put,
            )
            notify_activity()

    # ------------------------------------------------------------------ expiry scan
    def _scan_loop(self) -> None:
        db: sqlite3.Connection | None = None
        failing = False
        try:
            while not self._stop_scanner.wait(1.0):
                if db is None:
                    db = self.open_db()
                try:
                    self._maybe_scan(db)
                    failing = False
                except MQError as exc:  # e.g. a full disk: the next interval tries again
                    if not failing:
                        log.warning(
                            "expiry.scan_failed",
                            qmgr=self.name,
                            reason=exc.reason_name,
                            detail=exc.detail,
                        )
                    failing = True
        except Exception as exc:  # the scanner must never take the process down
            log.error("expiry.scan_failed", qmgr=self.name, error=repr(exc))
        finally:
            if db is not None:
                db.close()

    def _maybe_scan(self, db: sqlite3.Connection) -> None:
        interval = int(queues.qmgr_attr(db, "EXPRYINT"))
        if interval <= 0:
            return
        now = time.time()
        with store.write(db, durable=False) as tx:
            last = float(
                tx.execute("SELECT value FROM meta WHERE key = 'last_expiry_scan'").fetchone()[0]
            )
            if now - last < interval:
                return
            tx.execute("UPDATE meta SET value = ? WHERE key = 'last_expiry_scan'", (str(now),))
            count = queues.scan_expired(tx, self.name, self.stamp, now)
        log.info("expiry.scanned", qmgr=self.name, discarded=count, interval=interval)

    def refresh_expiry(self, pattern: str = "*") -> int:
        """REFRESH QMGR TYPE(EXPIRY) NAME(pattern): discard expired messages now."""
        now = time.time()
        names = [q["QUEUE"] for q in self.display_queues(pattern, LOCAL, ["QUEUE"])]
        total = 0
        with self._lock, store.write(self._db) as db:
            for qname in names:
                total += queues.scan_expired(db, self.name, self.stamp, now, str(qname))
        log.info("expiry.refreshed", qmgr=self.name, pattern=pattern, discarded=total)
        return total

    # ------------------------------------------------------------------ administration
    def _insert_queue(
        self,
        db: sqlite3.Connection,
        name: str,
        qtype: str,
        attrs: Mapping[str, int | str | bool],
        deftype: str | None = None,
        owner: str | None = None,
    ) -> None:
        stamp = _now_stamp()
        db.execute(
            "INSERT INTO queues (name, qtype, attrs, deftype, owner, created, altered)"
            " VALUES (?,?,?,?,?,?,?)",
            (name, qtype, json.dumps(dict(attrs)), deftype, owner, stamp, stamp),
        )

    def define_queue(
        self,
        qtype: str,
        name: str,
        attrs: Mapping[str, object] | None = None,
        *,
        like: str | None = None,
        replace: bool = False,
    ) -> None:
        """DEFINE QLOCAL|QALIAS|QMODEL(name) [LIKE(q)] [REPLACE] attrs."""
        qtype = _queue_type(qtype)
        validate_name(name)
        given = normalize_queue_attrs(qtype, attrs or {})
        with self._lock, store.write(self._db) as db:
            base_name = like or SYSTEM_DEFAULTS[qtype]
            base = queues.load(db, base_name)
            if base is None:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE queue {base_name!r} is not defined")
            if like and base.qtype != qtype:
                raise failed(
                    C.MQRCCF_OBJECT_WRONG_TYPE,
                    f"LIKE({like}) is a {base.qtype}, not a {qtype}",
                )
            merged = default_queue_attrs(qtype)
            merged.update({k: v for k, v in base.attrs.items() if k in merged})
            merged.update(given)
            existing = queues.load(db, name)
            if existing is not None:
                if not replace:
                    raise failed(
                        C.MQRCCF_OBJECT_ALREADY_EXISTS,
                        f"queue {name!r} already exists (add REPLACE to redefine it)",
                    )
                if existing.qtype != qtype:
                    raise failed(
                        C.MQRCCF_OBJECT_WRONG_TYPE,
                        f"queue {name!r} exists as a {existing.qtype}; DELETE it first",
                    )
                db.execute(
                    "UPDATE queues SET attrs = ?, altered = ? WHERE name = ?",
                    (json.dumps(merged), _now_stamp(), name),
                )
                if qtype == LOCAL:
                    ctx = triggers.Context(self.name, self.stamp, time.time())
                    triggers.on_alter(db, ctx, name, existing.attrs, merged)
            else:
                self._insert_queue(db, name, qtype, merged)
        log.info("qmgr.queue_defined", queue=name, qtype=qtype, replace=replace)

    def alter_queue(self, name: str, attrs: Mapping[str, object], qtype: str | None = None) -> None:
        """ALTER QLOCAL|QALIAS|QMODEL(name) attrs."""
        validate_name(name)
        with self._lock, store.write(self._db) as db:
            found = queues.require(db, name)
            if qtype is not None and _queue_type(qtype) != found.qtype:
                raise failed(
                    C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {name!r} is a {found.qtype}, not {qtype}"
                )
            before = dict(found.attrs)
            found.attrs.update(normalize_queue_attrs(found.qtype, attrs))
            db.execute(
                "UPDATE queues SET attrs = ?, altered = ? WHERE name = ?",
                (json.dumps(found.attrs), _now_stamp(), name),
            )
            if found.qtype == LOCAL:
                ctx = triggers.Context(self.name, self.stamp, time.time())
                triggers.on_alter(db, ctx, name, before, found.attrs)
        notify_activity()
        log.info("qmgr.queue_altered", queue=name, attrs=dict(attrs))

    def delete_queue(self, name: str, qtype: str | None = None, *, purge: bool = False) -> None:
        """DELETE QLOCAL(name) [PURGE]: refused while open, or not empty without PURGE."""
        validate_name(name)
        with self._lock, store.write(self._db) as db:
            found = queues.require(db, name)
            if qtype is not None and _queue_type(qtype) != found.qtype:
                raise failed(
                    C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {name!r} is a {found.qtype}, not {qtype}"
                )
            if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1", (name,)).fetchone():
                raise failed(C.MQRC_OBJECT_IN_USE, f"queue {name!r} is open; close it first")
            if found.depth and not purge:
                raise failed(
                    C.MQRC_Q_NOT_EMPTY,
                    f"queue {name!r} holds {found.depth} messages (add PURGE to delete them)",
                )
            db.execute("DELETE FROM messages WHERE queue = ?", (name,))
            db.execute("DELETE FROM queues WHERE name = ?", (name,))
        log.info("qmgr.queue_deleted", queue=name, purge=purge)

    def clear_queue(self, name: str) -> int:
        """CLEAR QLOCAL(name): refused while open or holding uncommitted messages."""
        validate_name(name)
        with self._lock, store.write(self._db) as db:
            found = queues.require(db, name)
            if found.qtype != LOCAL:
                raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {name!r} is a {found.qtype}")
            if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1", (name,)).fetchone():
                raise failed(C.MQRC_OBJECT_IN_USE, f"queue {name!r} is open; close it first")
            if db.execute(
                "SELECT 1 FROM messages WHERE queue = ? AND state != ? LIMIT 1",
                (name, store.AVAILABLE),
            ).fetchone():
                raise failed(C.MQRC_OBJECT_IN_USE, f"queue {name!r} has uncommitted messages")
            cleared = db.execute("DELETE FROM messages WHERE queue = ?", (name,)).rowcount
        log.info("qmgr.queue_cleared", queue=name, messages=cleared)
        return int(cleared)

    def queue_names(self, pattern: str = "*", qtype: str = "QUEUE") -> list[str]:
        kinds = QUEUE_TYPES if qtype.upper() in ("QUEUE", "Q") else (_queue_type(qtype),)
        rows = self._db.execute("SELECT name, qtype FROM queues ORDER BY name").fetchall()
        return [n for n, t in rows if t in kinds and _matches(pattern, n)]

    def display_queues(
        self, pattern: str = "*", qtype: str = "QUEUE", attrs: Sequence[str] | None = None
    ) -> list[dict[str, int | str | bool]]:
        """DISPLAY QUEUE|QLOCAL|QALIAS|QMODEL(pattern) [ALL | attrs]: one dict per queue,
        in MQSC order (QUEUE, TYPE, then the attributes). ``attrs=None`` means ALL."""
        wanted = [a.upper() for a in attrs] if attrs is not None else None
        if wanted is not None:
            for a in wanted:
                if a not in QUEUE_ATTR_BY_NAME and a not in ("QUEUE", "TYPE", "QTYPE", "ALL"):
                    raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"{a} is not a queue attribute")
            if "ALL" in wanted:
                wanted = None
        out: list[dict[str, int | str | bool]] = []
        for qname in self.queue_names(pattern, qtype):
            row = queues.load(self._db, qname)
            if row is None:
                continue
            live = self._status(row)
            item: dict[str, int | str | bool] = {"QUEUE": row.name, "TYPE": row.qtype}
            for attr in QUEUE_ATTRS:
                if row.qtype not in attr.types:
                    continue
                if wanted is not None and attr.name not in wanted:
                    continue
                item[attr.name] = (
                    live[attr.name] if attr.readonly else row.attrs.get(attr.name, attr.default)
                )
            out.append(item)
        return out

    def _status(self, row: queues.QueueRow) -> dict[str, int]:
        if row.qtype != LOCAL:
            return {}
        counts = self._db.execute(
            "SELECT SUM(options & ? != 0), SUM(options & ? != 0) FROM handles WHERE queue = ?",
            (C.MQOO_INPUT_MASK, C.MQOO_OUTPUT, row.name),
        ).fetchone()
        return {
            "CURDEPTH": row.depth,
            "IPPROCS": int(counts[0] or 0),
            "OPPROCS": int(counts[1] or 0),
        }

    def queue_depth(self, name: str) -> int:
        """CURDEPTH: committed and uncommitted messages, expired ones included (seed 000 note 2)."""
        return int(queues.require(self._db, name).depth)

    def alter_qmgr(self, attrs: Mapping[str, object]) -> None:
        """ALTER QMGR attrs (DEADQ, EXPRYINT, TRIGINT, MAXMSGL, DESCR, CCSID)."""
        current = self.display_qmgr()
        changes: dict[str, int | str | bool] = {}
        for key, value in attrs.items():
            attr = QMGR_ATTR_BY_NAME.get(key.upper())
            if attr is None:
                raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"{key} is not a queue manager attribute")
            changes[attr.name] = normalize(attr, value)
        with self._lock, store.write(self._db) as db:
            stored = {k: v for k, v in current.items() if k in QMGR_ATTR_BY_NAME}
            stored.update(changes)
            db.execute("UPDATE meta SET value = ? WHERE key = 'qmgr_attrs'", (json.dumps(stored),))
        log.info("qmgr.altered", qmgr=self.name, attrs=changes)

    def display_qmgr(self, attrs: Iterable[str] | None = None) -> dict[str, int | str | bool]:
        row = self._meta("qmgr_attrs")
        stored: dict[str, int | str | bool] = json.loads(row) if row else {}
        out: dict[str, int | str | bool] = {"QMNAME": str(self._meta("qmgr_name"))}
        wanted = {a.upper() for a in attrs} if attrs is not None else None
        if wanted is not None and "ALL" in wanted:
            wanted = None
        for attr in QMGR_ATTRS:
            if wanted is None or attr.name in wanted:
                out[attr.name] = stored.get(attr.name, attr.default)
        return out

    # ------------------------------------------------------------------ processes
    def define_process(
        self,
        name: str,
        attrs: Mapping[str, object] | None = None,
        *,
        like: str | None = None,
        replace: bool = False,
    ) -> None:
        """DEFINE PROCESS(name) APPLTYPE(...) APPLICID('...') ENVRDATA('...') USERDATA('...')."""
        validate_name(name, "process")
        given = normalize_process_attrs(attrs or {})
        with self._lock, store.write(self._db) as db:
            merged: dict[str, int | str | bool] = {a.name: a.default for a in PROCESS_ATTRS}
            if like:
                base = self._load_process(db, like)
                if base is None:
                    raise failed(
                        C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE process {like!r} is not defined"
                    )
                merged.update(base)
            merged.update(given)
            exists = self._load_process(db, name) is not None
            if exists and not replace:
                raise failed(
                    C.MQRCCF_OBJECT_ALREADY_EXISTS,
                    f"process {name!r} already exists (add REPLACE to redefine it)",
                )
            stamp = _now_stamp()
            db.execute(
                "INSERT INTO processes (name, attrs, created, altered) VALUES (?,?,?,?)"
                " ON CONFLICT(name) DO UPDATE SET attrs = excluded.attrs,"
                " altered = excluded.altered",
                (name, json.dumps(merged), stamp, stamp),
            )
        log.info("qmgr.process_defined", process=name, replace=replace)

    def alter_process(self, name: str, attrs: Mapping[str, object]) -> None:
        validate_name(name, "process")
        changes = normalize_process_attrs(attrs)
        with self._lock, store.write(self._db) as db:
            current = self._load_process(db, name)
            if current is None:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name!r} is not defined")
            current.update(changes)
            db.execute(
                "UPDATE processes SET attrs = ?, altered = ? WHERE name = ?",
                (json.dumps(current), _now_stamp(), name),
            )
        log.info("qmgr.process_altered", process=name, attrs=changes)

    def delete_process(self, name: str) -> None:
        validate_name(name, "process")
        with self._lock, store.write(self._db) as db:
            if not db.execute("DELETE FROM processes WHERE name = ?", (name,)).rowcount:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name!r} is not defined")
        log.info("qmgr.process_deleted", process=name)

    def display_processes(
        self, pattern: str = "*", attrs: Sequence[str] | None = None
    ) -> list[dict[str, int | str | bool]]:
        """DISPLAY PROCESS(pattern) [ALL | attrs]: one dict per process, PROCESS first."""
        wanted = [a.upper() for a in attrs] if attrs is not None else None
        if wanted is not None and "ALL" in wanted:
            wanted = None
        out: list[dict[str, int | str | bool]] = []
        rows = self._db.execute("SELECT name, attrs FROM processes ORDER BY name").fetchall()
        for name, raw in rows:
            if not _matches(pattern, name):
                continue
            stored = json.loads(raw)
            item: dict[str, int | str | bool] = {"PROCESS": name}
            for attr in PROCESS_ATTRS:
                if wanted is None or attr.name in wanted:
                    item[attr.name] = stored.get(attr.name, attr.default)
            out.append(item)
        return out

    def _load_process(
        self, db: sqlite3.Connection, name: str
    ) -> dict[str, int | str | bool] | None:
        row = db.execute("SELECT attrs FROM processes WHERE name = ?", (name,)).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def mqsc(self, text: str) -> list[CommandResult]:
        """Run MQSC commands; see :mod:`mqjms.qmgr.mqsc`."""
        from .mqsc import run_script

        return list(run_script(self, text))


def backout_uow(db: sqlite3.Connection, uow: str) -> tuple[int, int]:
    """Undo a unit of work: its puts vanish, its gets return with BackoutCount + 1 in
    their original position (rows keep their id, which is their place in the queue)."""
    put = db.execute(
        "DELETE FROM messages WHERE uow = ? AND state = ? AND release_on_backout = 0",
        (uow, store.PUT_IN_UOW),
    ).rowcount
    # seed 003 item 10: a FIRST or DEPTH trigger message is released by a backout too
    db.execute(
        "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
        " WHERE uow = ? AND state = ?",
        (store.AVAILABLE, uow, store.PUT_IN_UOW),
    )
    got = db.execute(
        "UPDATE messages SET state = ?, uow = NULL, backout = backout + 1"
        " WHERE uow = ? AND state = ?",
        (store.AVAILABLE, uow, store.GOT_IN_UOW),
    ).rowcount
    return int(got), int(put)


def _queue_type(qtype: str) -> str:
    upper = qtype.upper()
    aliases = {"QL": LOCAL, "QA": ALIAS, "QM": MODEL}
    upper = aliases.get(upper, upper)
    if upper not in QUEUE_TYPES:
        raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, f"{qtype} is not QLOCAL, QALIAS or QMODEL")
    return upper


def _matches(pattern: str, name: str) -> bool:
    """MQSC generic names: a trailing ``*`` matches any suffix; otherwise an exact match."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return fnmatch.fnmatchcase(name, pattern) if "*" in pattern else name == pattern


__all__ = ["MQError", "QueueManager", "backout_uow"]
