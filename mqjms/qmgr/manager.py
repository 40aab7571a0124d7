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

The parts: this module (the object: restart, closing, connections, recovery),
:mod:`.opening` (opening and creating), :mod:`.startup` (a start), :mod:`.defaults` (the
SYSTEM.* objects), :mod:`.admin` (what MQSC
does; :mod:`.topics` and :mod:`.subscriptions` for publish/subscribe), :mod:`.connection`
(the MQI), :mod:`.queues` and :mod:`.triggers` (the put path
and seed 003), :mod:`.expiry`, :mod:`.recovery`, each change one :mod:`.transaction`.
"""

from __future__ import annotations

import math
import os
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

from . import (
    bells,
    files,
    meta,
    opening,
    owners,
    recovery,
    status,
    store,
    subscription_admin,
    topics,
    wakeup,
)
from .expiry import ExpiryScanner
from .failures import StorageError, translating
from .locks import FileLock, owner_is_dead
from .space import SpaceReserve, disk_full, with_room
from .startup import start
from .transaction import writing

if TYPE_CHECKING:
    from .connection import QMConnection
    from .mqsc import CommandResult

log = get_logger("mqjms.qmgr")

RECOVERY_INTERVAL = 1.0  # seconds: the bound on noticing a dead connection's unit of work


def _writable(path: Path, db_file: Path) -> bool:
    """False on a read-only file system, or for a user who may only read the directory."""
    if not os.access(path, os.W_OK):
        return False
    return not db_file.exists() or os.access(db_file, os.W_OK)


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
            self._db = opening.open_read_only(self.path, marker)
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
        """:func:`.opening.open_read_write`; on a full disk, once more after giving up the space
        reserve (space.py): opening writes (the shared-memory index, a start's recovery),
        and consumers must be able to connect to drain the queues."""

        def attempt() -> sqlite3.Connection:
            return opening.open_read_write(self.path, self.access, self._active, name, group_access)

        try:
            return attempt()
        except StorageError:
            if self.reserve is None or not disk_full(self.path) or not self.reserve.release():
                raise
        return attempt()

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
                    with_room(self._db, self.reserve, lambda: start(self.path, self._db))
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
