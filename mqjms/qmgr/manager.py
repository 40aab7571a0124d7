"""The embedded queue manager: one directory, shared by any number of local processes.

Lifecycle. Like a real queue manager, the embedded one runs independently of the
applications that use it: it *starts* at its first use after the machine boots (the
kernel's boot id changes) and when an administrator restarts it (:meth:`QueueManager.restart`,
``mqjms restart``), which is refused while another process has it open. A start drops
non-persistent messages, resets trigger intervals and backs out every unit of work left
behind (BackoutCount + 1), which is what IBM MQ does at restart. Applications coming and
going, even killed ones, do not restart it: their units of work are backed out one by one.

Abandoned units of work. A connection that ends without committing is backed out. When
its process died (even by SIGKILL) the next user of the directory notices and backs out
its work: a get that waits at once (each process watches the others with pidfds,
:mod:`.owners`), otherwise within ``RECOVERY_INTERVAL`` seconds: every connect, and every
get that finds nothing, looks for connections whose lock file nobody holds any more.

Storage. The directory and its files are private to their owner (``files``), a start
refuses a missing, emptied or damaged database (``integrity``), a full disk stops puts
but not consumers (``space``), a read-only directory opens for browsing only, and every
SQLite failure reaches callers as an MQError (``failures``).

Threads. A QueueManager is shared by the threads of its process; its own database
connection serves one of them at a time, and each QMConnection has its own. Closing the
queue manager waits for the calls in flight and ends the waiting ones with an MQError.

The parts: this module (opening, starting, closing, recovery), :mod:`.admin` (what MQSC
does; :mod:`.topics` and :mod:`.subscriptions` for publish/subscribe), :mod:`.connection`
(the MQI), :mod:`.queues` and :mod:`.triggers` (the put path
and seed 003), :mod:`.expiry`, :mod:`.recovery`, each change one :mod:`.transaction`.
"""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import threading
import time
import uuid
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics.attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    QMGR_ATTRS,
    REMOTE,
    default_queue_attrs,
    validate_name,
)

from . import (
    bells,
    catalog,
    files,
    integrity,
    meta,
    owners,
    qstats,
    recovery,
    retained,
    status,
    store,
    subscription_admin,
    subscriptions,
    topics,
    wakeup,
)
from .expiry import ExpiryScanner
from .failures import StorageError, translating
from .locks import FileLock, owner_is_dead
from .space import SpaceReserve, disk_full, with_room
from .transaction import writing

if TYPE_CHECKING:
    from .connection import QMConnection
    from .mqsc import CommandResult

log = get_logger("mqjms.qmgr")

RECOVERY_INTERVAL = 1.0  # seconds: the bound on noticing a dead connection's unit of work
DEFAULT_OBJECTS: tuple[tuple[str, str, dict[str, int | str | bool]], ...] = (
    (LOCAL, "SYSTEM.DEFAULT.LOCAL.QUEUE", {}),
    (ALIAS, "SYSTEM.DEFAULT.ALIAS.QUEUE", {}),
    (MODEL, "SYSTEM.DEFAULT.MODEL.QUEUE", {}),
    (REMOTE, "SYSTEM.DEFAULT.REMOTE.QUEUE", {}),
    (MODEL, "SYSTEM.DURABLE.MODEL.QUEUE", {"DEFTYPE": "PERMDYN"}),
    (MODEL, "SYSTEM.NDURABLE.MODEL.QUEUE", {}),
    (
        LOCAL,
        "SYSTEM.DEAD.LETTER.QUEUE",
        {"DESCR": "mqjms dead-letter queue", "MAXDEPTH": 999_999_999},
    ),
    (LOCAL, "SYSTEM.DEFAULT.INITIATION.QUEUE", {}),
    # PCF commands put here by pymqi and ibmmq programs are answered by the drop-in
    # (mqjms/mqi/command_server.py)
    (LOCAL, "SYSTEM.ADMIN.COMMAND.QUEUE", {"DESCR": "mqjms PCF command queue"}),
    # the rest of IBM MQ's default local queues, which monitoring programs read until
    # 2033 (mqjms writes no statistics, accounting or event messages to them)
    *(
        (LOCAL, f"SYSTEM.ADMIN.{name}", {})
        for name in (
            "ACCOUNTING.QUEUE",
            "ACTIVITY.QUEUE",
            "CHANNEL.EVENT",
            "COMMAND.EVENT",
            "CONFIG.EVENT",
            "LOGGER.EVENT",
            "PERFM.EVENT",
            "PUBSUB.EVENT",
            "QMGR.EVENT",
            "STATISTICS.QUEUE",
            "TRACE.ACTIVITY.QUEUE",
            "TRACE.ROUTE.QUEUE",
        )
    ),
)
#: What a queue manager made before meta's "default_objects" was kept had.
_DEFAULTS_BEFORE_LIST = frozenset(
    (
        "SYSTEM.DEFAULT.LOCAL.QUEUE",
        "SYSTEM.DEFAULT.ALIAS.QUEUE",
        "SYSTEM.DEFAULT.MODEL.QUEUE",
        "SYSTEM.DURABLE.MODEL.QUEUE",
        "SYSTEM.NDURABLE.MODEL.QUEUE",
        "SYSTEM.DEAD.LETTER.QUEUE",
        "SYSTEM.DEFAULT.INITIATION.QUEUE",
    )
)

#: meta's "default_objects": the system objects this mqjms makes.
_DEFAULT_LIST = ",".join(name for _, name, _ in DEFAULT_OBJECTS)


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
class QueueManager(
    topics.TopicAdministration,
    subscription_admin.SubscriptionAdministration,
    status.QueueManagerStatus,
):
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
        # what the last recovery saw: this process, owners' deaths noticed, doorbell rings,
        # and whether every other process's connections are watched (see recovery_wait)
        self._recovered_at = (0, 0, -1)
        self._watched = False
        self._unrung = False  # a commit that rang no bell was seen since the last recovery
        self._directory = self.db_file.parent
        self._connections: weakref.WeakSet[QMConnection] = weakref.WeakSet()
        self._scanner: ExpiryScanner | None = None
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
            self._db = self._open_with_room(name, group_access)
        self._directory = getattr(self._db, "directory", None) or self.db_file.resolve().parent
        try:
            self.name = str(meta.get(self._db, "qmgr_name"))
            self.stamp = int(meta.get(self._db, "created_stamp") or 0)
            if self.read_only:
                return
            self.recover_abandoned(force=True)
            self._keep_reserve()
        except BaseException:
            self.name = getattr(self, "name", "")
            self.close()  # let go of the lock and the database: this object is never used
            raise
        self._scanner = ExpiryScanner(self.name, self.open_db, self.reserve)
        self._scanner.start()

    def _open_with_room(self, name: str | None, group_access: bool | None) -> sqlite3.Connection:
        """:meth:`_open_read_write`; on a full disk, once more after giving up the space
        reserve (space.py): opening writes (the shared-memory index, a start's recovery),
        and consumers must be able to connect to drain the queues."""
        try:
            return self._open_read_write(name, group_access)
        except StorageError:
            if self.reserve is None or not disk_full(self.path) or not self.reserve.release():
                raise
        return self._open_read_write(name, group_access)

    def _open_read_write(self, name: str | None, group_access: bool | None) -> sqlite3.Connection:
        """Open (creating it if no queue manager was ever created here) and start if due."""
        files.make_directory(self.path, self.access)
        files.secure(self.path, self.access)
        startup = FileLock(
            self.path / "startup.lock", self.access.file_mode, what="the queue manager's start-up"
        )
        startup.acquire(exclusive=True)
        db: sqlite3.Connection | None = None
        opened = False
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
            # an upgrade changes what the other processes read (they may be older
            # versions): only a process that has the queue manager to itself upgrades it
            if self._active.acquire(exclusive=True, blocking=False) and store.upgrade(db):
                log.info("qmgr.upgraded", path=str(self.path), schema=store.SCHEMA_VERSION)
            store.prepare(db)
            topics.ensure(db)  # pub/sub tables and SYSTEM.BASE.TOPIC (also in older ones)
            if meta.get(db, "default_objects") != _DEFAULT_LIST:
                # a newer mqjms's system objects, on a queue manager already started (a
                # definition is a row other processes see, whatever their version)
                with store.write(db) as tx:
                    self._add_new_default_objects(tx)
            regroup = marker is not None and group_access not in (None, marker.group_access)
            if marker is None or not marker.name or regroup:
                created = marker.created if marker else ""
                qmname = str(meta.get(db, "qmgr_name"))
                marker = files.Marker(qmname, created, self.access.group)
                files.write_marker(self.path, marker, self.access)
            if meta.get(db, "boot_id") != boot_id():
                self._start()
            self._active.acquire(exclusive=False)
            opened = True
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
            if not opened:
                self._active.release()  # it may be held, exclusively, for the upgrade
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
            store.prepare(db)
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
    def _ensure_created(self, name: str | None) -> None:
        with store.write(self._db) as db:
            if meta.get(db, "qmgr_name") is not None:
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
                catalog.insert(db, qname, qtype, {**default_queue_attrs(qtype), **attrs})
            meta.put(db, "default_objects", _DEFAULT_LIST)
            log.info("qmgr.created", qmgr=qmname, path=str(self.path))

    @staticmethod
    def _add_new_default_objects(db: sqlite3.Connection) -> None:
        """The system objects a newer mqjms defines, made at start on a queue manager
        created before it (as an MQ upgrade adds its new ones); one deleted on purpose
        since it was made is not made again."""
        made = meta.get(db, "default_objects")
        known = set(made.split(",")) if made is not None else _DEFAULTS_BEFORE_LIST
        for qtype, qname, attrs in DEFAULT_OBJECTS:
            if qname not in known and catalog.load(db, qname) is None:
                catalog.insert(db, qname, qtype, {**default_queue_attrs(qtype), **attrs})
                log.info("qmgr.default_object_added", queue=qname, qtype=qtype)
        meta.put(db, "default_objects", _DEFAULT_LIST)

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
            db.execute(  # MQGMO_LOCKs end with the connections that held them
                "UPDATE messages SET state = ?, uow = NULL WHERE state = ?",
                (store.AVAILABLE, store.LOCKED),
            )
            subscriptions.on_restart(db)  # non-durable subscriptions end with their queues
            retained.on_restart(db)  # non-persistent retained publications are lost, as on MQ
            db.execute("DELETE FROM queues WHERE deftype = 'TEMPDYN'")
            db.execute("DELETE FROM handles")
            db.execute("DELETE FROM connections")
            db.execute("DELETE FROM trigger_times")  # seed 003 item 11: restart resets TRIGINT
            self._add_new_default_objects(db)
            db.execute(
                "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'incarnation'"
            )
            meta.put(db, "boot_id", boot_id())
            # depth counters are rebuilt from the rows, so a crash can never skew them
            db.execute(store.RECOUNT_DEPTHS)
            qstats.reset_all(db)  # as MQ's start resets RESET QSTATS's statistics
            meta.put(db, "started", str(time.time()))  # DISPLAY QMSTATUS's STARTDA/STARTTI
        for stale in (self.path / "conn").glob("*.lock"):
            if owner_is_dead(stale):
                stale.unlink(missing_ok=True)
        log.info(
            "qmgr.started",
            qmgr=meta.get(self._db, "qmgr_name"),
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
                with self._lock:
                    # as an open's start: on a full disk, checkpoint and lend the reserve
                    with_room(self._db, self.reserve, self._start)
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
        """Close every connection of this object (backing out their work) and let go.

        Safe while other threads are inside calls: a call on a connection finishes (or, a
        get that waits, wakes) and the next one fails with an MQError; nothing uses a
        database handle after it is closed."""
        with self._lock:  # waits for the use of the queue manager's own connection
            if self._closed:
                return
            self._closed = True
        wakeup.ring()  # the gets that wait look again, and find the queue manager closing
        try:
            if self._scanner is not None:
                self._scanner.stop()
            for conn in list(self._connections):
                try:
                    conn.disconnect()  # waits for the connection's call in flight
                except MQError as exc:  # e.g. a damaged database: still let go of the rest
                    log.error("qmgr.disconnect_failed", qmgr=self.name, detail=exc.detail)
        finally:
            directory = self._directory
            bells.stop(directory)
            owners.stop(directory)
            wakeup.ring()  # the gets of another object on the directory listen again
            with self._lock:
                self._active.release()
                self._db.close()

    @property
    def closed(self) -> bool:
        return self._closed

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
        with self._lock:
            closed = self._closed
            if not closed:
                self._connections.add(conn)
        if closed:  # closed meanwhile, by another thread
            conn.disconnect()
            raise failed(C.MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {self.name} is closed")
        return conn

    def new_connection_id(self) -> str:
        return uuid.uuid4().hex

    def connection_lock_path(self, conn_id: str) -> Path:
        return Path(self._lock_file(conn_id))

    def _lock_file(self, conn_id: str) -> str:
        """The lock file of connection ``conn_id``, as a string (recovery checks each
        connection's every second: no pathlib objects)."""
        return os.path.join(self.path, "conn", f"{conn_id}.lock")

    def open_db(self) -> sqlite3.Connection:
        """A new connection to the database, for a QMConnection or a thread of its own."""
        db = store.connect_db(self.db_file, read_only=self.read_only, create=False)
        try:
            store.prepare(db)
        except BaseException:
            db.close()
            raise
        return db

    def mqsc(self, text: str) -> list[CommandResult]:
        """Run MQSC commands; see :mod:`mqjms.qmgr.mqsc`."""
        from .mqsc import run_script

        return list(run_script(self, text))

    # ------------------------------------------------------------------ recovery
    def recover_abandoned(self, force: bool = False) -> int:
        """Back out the units of work of connections whose process is gone (when due, see
        :meth:`recovery_wait`; at once with ``force``)."""
        now = time.monotonic()
        if not force and self.recovery_wait(now) > 0:
            return 0
        self._last_recovery = now
        with self._lock:
            if self._closed or self.read_only:
                return 0
            # read before the look: a death or a new connection after it is seen next time
            seen = (os.getpid(), owners.deaths(), wakeup.rings())
            self._unrung = False
            rows = self._db.execute("SELECT id, pid FROM connections").fetchall()
            dead = [cid for cid, _ in rows if owner_is_dead(self._lock_file(cid))]
            for cid in dead:
                self.end_connection(self._db, cid, reason="process ended")
            others: dict[int, list[str]] = {}
            strangers = False  # this pid's number, not this process's connection
            for cid, pid in rows:
                if cid in dead:
                    continue
                if pid != seen[0]:
                    others.setdefault(pid, []).append(self._lock_file(cid))
                elif not owners.is_mine(cid):  # a process of another pid namespace
                    strangers = True
            watch = owners.watch(self._directory)
            self._watched = watch.cover(others) and not strangers and bells.heard(self._directory)
            self._recovered_at = seen
        return len(dead)

    def note_unrung_commit(self) -> None:
        """A get saw a commit that rang no bell (an older mqjms, which neither rings nor
        says it connected): its connections are not watched, so recovery polls again
        until it has looked."""
        self._unrung = True

    def recovery_wait(self, now: float | None = None) -> float:
        """Seconds until :meth:`recover_abandoned` is due: 0 once an owner has ended (or
        after a fork: the watch stayed with the parent); never (infinity) while every
        other process's connections are watched, the others ring this process's bell and
        nothing rang since the last recovery (a ring may be a new connection's), nor did
        any commit go unrung;
        otherwise what is left of ``RECOVERY_INTERVAL``, the polling bound."""
        if self.read_only or self._closed:
            return math.inf  # nothing to recover
        pid, deaths, rings = self._recovered_at
        if owners.deaths() != deaths or pid != os.getpid():
            return 0.0
        if (
            self._watched
            and not self._unrung
            and wakeup.rings() == rings
            and bells.heard(self._directory)
        ):
            return math.inf
        if now is None:
            now = time.monotonic()
        return max(0.0, self._last_recovery + RECOVERY_INTERVAL - now)

    def end_connection(self, db: sqlite3.Connection, conn_id: str, reason: str) -> None:
        """Back out a connection's unit of work and drop its handles and temporary queues,
        on ``db`` (the connection's own, or the queue manager's for a dead process's)."""
        if self.read_only:
            return

        def attempt() -> tuple[int, int] | None:
            with writing(db, self.name) as tx:
                return recovery.end_connection(tx, conn_id)

        ended = with_room(db, self.reserve, attempt)
        if ended is None:
            return
        self.connection_lock_path(conn_id).unlink(missing_ok=True)
        got, put = ended
        if got or put:
            # the queue manager's housekeeping (IBM MQ notes it in its own error log): this
            # process did nothing wrong, and the messages are back on their queues
            log.info(
                "uow.backed_out",
                connection=conn_id,
                reason=reason,
                messages_got=got,
                messages_put=put,
            )


__all__ = ["RECOVERY_INTERVAL", "QueueManager"]
