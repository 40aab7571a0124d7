"""QMConnection: one hconn on the embedded queue manager, speaking the transport contract.

The MQ rules it shares with the other emulating transports (open checks, put defaults
and context, alias resolution, MQINQ) come from :mod:`mqjms.semantics`; what is its own
is storage: SQLite transactions, units of work, waiting for messages across processes.
It is assembled from one module per concept (see :mod:`.connection_state`); this one
connects, opens and closes queues, answers MQINQ and disconnects; :mod:`.subscribing`
is publish/subscribe.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics import Capability, Handle
from mqjms.semantics.attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    REMOTE,
    default_queue_attrs,
    dynamic_queue_name,
)
from mqjms.semantics.checks import input_mode
from mqjms.semantics.definitions import AttrValue, QueueDefinition
from mqjms.semantics.inquire import inquire_queue
from mqjms.semantics.put import PutIdentity

from . import bells, catalog, meta, owners, queues, remote, store, triggers, wakeup
from .connection_state import UnitOfWorkState
from .delivery import Cursor
from .failures import StorageError, translating
from .getting import release_lock
from .locking import Locking
from .locks import FileLock
from .manager import QueueManager
from .reserving import Reserving
from .space import with_room
from .subscribing import Subscribing
from .syncpoint import UnitOfWork
from .transaction import Transaction

log = get_logger("mqjms.qmgr")


def _abandon(conn_id: str, alive: FileLock, db: sqlite3.Connection) -> None:
    directory = getattr(db, "directory", None)
    with contextlib.suppress(Exception):
        db.close()
    alive.release()
    owners.disown(conn_id)
    owners.note_death()  # the waiting gets of this process now back out its unit of work
    if directory is not None:  # and those of the others within RECOVERY_INTERVAL
        with contextlib.suppress(Exception):
            bells.ring_others(directory)


@translating
class QMConnection(UnitOfWork, Locking, Reserving, Subscribing):
    """An MQI connection: one unit of work at a time, used by one thread at a time (as an
    MQ hconn); another thread may end it (see :mod:`.connection_state`).

    On a read-only queue manager (a read-only file system or copy) a connection is not
    registered and can browse, inquire and display, but not get or put.
    """

    #: Everything the contract names: this is IBM MQ's behaviour, emulated in full.
    capabilities: frozenset[Capability] = frozenset(Capability)

    def __init__(self, qm: QueueManager, appl_name: str | None = None) -> None:
        self.qm = qm
        self.id = qm.new_connection_id()
        self.identity = PutIdentity.of(appl_name)
        self._lock = threading.RLock()
        self._closed = False
        self._alive = FileLock(
            qm.connection_lock_path(self.id), qm.access.file_mode, what="a connection's lock"
        )
        if not qm.read_only:
            self._alive.acquire(exclusive=True)
        self._db = qm.open_db()
        # A connection dropped without disconnect() lets go of its lock when collected, so
        # its unit of work is backed out like a dead process's.
        self._finalizer = weakref.finalize(self, _abandon, self.id, self._alive, self._db)
        # Not at exit: the embedded transport's close_all() disconnects (backs out) open
        # connections then, which it could not do on a database already closed by this.
        self._finalizer.atexit = False
        if not qm.read_only:
            self._with_room(self._register)
        self._handles: dict[int, Handle] = {}
        # the handles whose MQOPEN made a temporary dynamic queue: its MQCLOSE deletes it
        self._creators: set[int] = set()
        self._cursors: dict[int, Cursor | None] = {}
        self._locks: dict[int, int] = {}
        self._uow = UnitOfWorkState()
        self._last_persistent: dict[int, bool] = {}
        self._hardened: dict[int, bool] = {}
        self._empty_looks: dict[int, tuple[object, ...]] = {}
        self._defpsist: dict[str, bool] = {}
        self._interrupted = False
        self._local_hobj = 0
        #: The MQCC_WARNING the last MQPUT/MQPUT1 completed with, None after MQCC_OK (the
        #: MQI's CompCode and Reason): e.g. 2049 for a Priority above 9.
        self.last_warning: MQError | None = None
        #: Where the last MQPUT/MQPUT1 went (queue, queue manager): MQPMO ResolvedQName.
        self.last_resolved: tuple[str, str] | None = None

    def _register(self) -> None:
        owners.own(self.id)  # before its row exists: a recovery never finds it a stranger's
        with store.write(self._db) as db:
            db.execute(
                "INSERT INTO connections (id, pid, appl, started) VALUES (?,?,?,?)",
                (self.id, os.getpid(), self.identity.appl_name, time.time()),
            )
        directory = getattr(self._db, "directory", None)
        if directory is not None:
            # the other processes' waiting gets watch this process from now on (owners.py)
            bells.ring_others(directory)

    @property
    def db_file(self) -> Path:
        return self.qm.db_file

    # ------------------------------------------------------------------ MQOPEN / MQCLOSE
    def _open(self, queue: str, options: int, dynamic_name: str, qmgr: str) -> Handle:
        """MQOPEN. Opening a model queue creates a dynamic queue named from ``dynamic_name``;
        a remote queue (``qmgr``, or a QREMOTE) is opened to put to (remote.py)."""
        if self.qm.read_only:
            return self._open_read_only(queue, options, qmgr)
        # the space kept on a full disk is for draining: an open to put (and not to get or
        # browse) never gives it up, or a putter would leave consumers none; one to
        # inquire alone may (a consumer reads BOTHRESH so)
        drains = not options & C.MQOO_OUTPUT or bool(options & (C.MQOO_INPUT_MASK | C.MQOO_BROWSE))
        try:
            with self._session():
                return self._open_with_room(queue, options, dynamic_name, qmgr, drains)
        except MQError as exc:
            # an exclusive user may be a process that died: back its work out, then retry
            if exc.reason != C.MQRC_OBJECT_IN_USE or not self.qm.recover_abandoned(force=True):
                raise
            with self._session():
                return self._open_with_room(queue, options, dynamic_name, qmgr, drains)

    def _open_with_room(
        self, queue: str, options: int, dynamic_name: str, qmgr: str, drains: bool
    ) -> Handle:
        def attempt() -> Handle:
            return self._open_queue(queue, options, dynamic_name, qmgr)

        creates = not qmgr and catalog.load_of_type(self._db, queue, MODEL) is not None
        if creates:
            self._refuse_new_queue_on_full_disk(queue)
        elif drains:
            return self._with_room(attempt)
        try:
            # the log emptied, the reserve kept; a put to the queue would fail at once
            return with_room(self._db, None, attempt, patience=0)
        except StorageError as exc:
            if not exc.disk_full:
                raise
            if creates:
                raise self._no_room_for_a_queue(queue) from None
            raise StorageError(
                C.MQRC_Q_SPACE_NOT_AVAILABLE,
                f"{queue!r} cannot be opened to put: the file system holding "
                f"{self.qm.path} is full (the room kept free is for gets and commits)",
                "SQLITE_FULL",
            ) from None

    def _refuse_new_queue_on_full_disk(self, queue: str) -> None:
        """MQOPEN of a model queue creates a queue, which the disk keeps: on a full disk
        it fails (2102) as a put does, without the room kept for draining (each dynamic
        queue would take some of it for good); its write never borrows that room."""
        reserve = self.qm.reserve
        if reserve is not None and not reserve.has_room(self._db):
            raise self._no_room_for_a_queue(queue)

    def _no_room_for_a_queue(self, queue: str) -> StorageError:
        return StorageError(
            C.MQRC_RESOURCE_PROBLEM,
            f"no dynamic queue can be made from model queue {queue!r}: the file system "
            f"holding {self.qm.path} is full (the room kept free is for gets and commits)",
            "SQLITE_FULL",
        )

    def _open_read_only(self, queue: str, options: int, qmgr: str) -> Handle:
        """MQOPEN on a read-only queue manager: for browse and inquire only, not recorded."""
        if options & (C.MQOO_INPUT_MASK | C.MQOO_OUTPUT | C.MQOO_SET) or qmgr:
            self._refuse_if_read_only("not opened for input, output or set")
        with self._session(), self._reading() as tx:
            named, base = catalog.resolve(tx.db, queue)
            if base.qtype == REMOTE:
                remote.check_open(options, queue, definition=True)
            if named.qtype == MODEL:
                self._refuse_if_read_only("no dynamic queue can be created")
            self._local_hobj -= 1  # no handles row: numbered apart from the database's
            handle = Handle(
                name=named.name, resolved_name=base.name, options=options, hobj=self._local_hobj
            )
            self._handles[handle.hobj] = handle
            self._cursors[handle.hobj] = None
        return handle

    def _open_queue(self, queue: str, options: int, dynamic_name: str, qmgr: str) -> Handle:
        with self._writing(durable=False) as tx:
            db = tx.db
            if qmgr:
                to = remote.to_qmgr(tx, queue, qmgr)
                if to.route is not None:
                    return self._open_remote(tx, queue, options, to, qmgr)
                # an alias of this queue manager: a local queue, opened to put to only
                remote.check_open(options, queue, definition=False)
                if to.named.qtype == MODEL:
                    raise failed(
                        C.MQRC_Q_TYPE_ERROR,
                        f"{queue!r} is a model queue: open it without ObjectQMgrName "
                        f"{qmgr!r} to get a dynamic queue",
                    )
            named = catalog.require(db, queue)
            created = named.qtype == MODEL
            if created:
                named = self._create_dynamic(db, named, dynamic_name)
            base = named
            if named.qtype == ALIAS:
                named, base = catalog.resolve(db, queue)
            if base.qtype == REMOTE:
                # the route is checked now, for MQOPEN's reasons (each put follows the
                # definitions as they are at the put, as a QALIAS's handle does)
                if options & C.MQOO_OUTPUT:
                    resolved = remote.definition(tx, named, base)
                    return self._open_remote(tx, queue, options, resolved, "")
                remote.check_open(options, queue, definition=True)
            effective = options
            first_input = False
            if options & C.MQOO_INPUT_MASK:
                first_input = not catalog.open_for_input(db, base.name)
                effective = self._input_mode(db, base, options)
            cur = db.execute(
                "INSERT INTO handles (conn, queue, options) VALUES (?,?,?)",
                (self.id, base.name, effective),
            )
            hobj = int(cur.lastrowid or 0)
            if first_input:
                # seed 003 item 13: a trigger monitor opening its initiation queue
                queues.write_trigger_messages(tx, triggers.on_initq_open(tx, base.name))
        handle = Handle(name=named.name, resolved_name=base.name, options=effective, hobj=hobj)
        self._handles[hobj] = handle
        self._cursors[hobj] = None
        if created and named.deftype == "TEMPDYN":
            self._creators.add(hobj)
        return handle

    def _open_remote(
        self, tx: Transaction, queue: str, options: int, to: remote.Resolved, qmgr: str
    ) -> Handle:
        """MQOPEN of a queue of another queue manager (named by ``qmgr``, or through a
        QREMOTE), to put to: its route is resolved and checked now, as MQ does."""
        remote.check_open(options, queue, definition=not qmgr)
        if to.route is None:
            raise AssertionError("a remote open resolves to a route")
        resolved_name, resolved_qmgr = to.route.queue, to.route.qmgr
        cur = tx.db.execute(  # counted in the OPPROCS of the queue the messages go to
            "INSERT INTO handles (conn, queue, options) VALUES (?,?,?)",
            (self.id, to.base.name, options),
        )
        hobj = int(cur.lastrowid or 0)
        handle = Handle(
            name=queue,
            resolved_name=resolved_name,
            options=options,
            hobj=hobj,
            qmgr=qmgr,
            resolved_qmgr=resolved_qmgr,
        )
        self._handles[hobj] = handle
        self._cursors[hobj] = None
        return handle

    def _create_dynamic(
        self, db: sqlite3.Connection, model: catalog.QueueRow, dynamic_name: str
    ) -> catalog.QueueRow:
        name = dynamic_queue_name(dynamic_name, uuid.uuid4().hex.upper())
        if catalog.load(db, name) is not None:
            raise failed(C.MQRC_OBJECT_ALREADY_EXISTS, f"dynamic queue {name!r} already exists")
        attrs = default_queue_attrs(LOCAL)
        attrs.update({k: v for k, v in model.attrs.items() if k in attrs})
        deftype = str(model.attrs.get("DEFTYPE", "TEMPDYN"))
        owner = self.id if deftype == "TEMPDYN" else None
        catalog.insert(db, name, LOCAL, attrs, deftype=deftype, owner=owner)
        log.info("qmgr.dynamic_queue_created", queue=name, model=model.name, deftype=deftype)
        return catalog.require(db, name)

    def _input_mode(self, db: sqlite3.Connection, base: catalog.QueueRow, options: int) -> int:
        others = db.execute(
            "SELECT options FROM handles WHERE queue = ? AND options & ? != 0",
            (base.name, C.MQOO_INPUT_MASK),
        ).fetchall()
        return input_mode(options, base, (row[0] for row in others))

    def close(self, handle: Handle) -> None:
        """MQCLOSE. A temporary dynamic queue is deleted with its messages when the handle
        whose MQOPEN made it is closed (at the latest when its connection ends)."""
        with self._session():
            self._handle(handle)
            if not self.qm.read_only:
                self._with_room(lambda: self._close(handle))
            del self._handles[handle.hobj]
            self._creators.discard(handle.hobj)
            self._cursors.pop(handle.hobj, None)
            self._locks.pop(handle.hobj, None)
            self._empty_looks.pop(handle.hobj, None)

    def _close(self, handle: Handle) -> None:
        with self._writing(durable=False) as tx:
            locked = self._locks.get(handle.hobj)
            if locked is not None:  # MQCLOSE ends the handle's lock
                release_lock(tx, self.id, locked)
            tx.db.execute("DELETE FROM handles WHERE hobj = ?", (handle.hobj,))
            row = catalog.load(tx.db, handle.resolved_name)
            if handle.hobj in self._creators and row is not None and row.owner == self.id:
                catalog.delete(tx.db, row.name)  # only the handle that made it (MQCLOSE)
            elif handle.options & C.MQOO_INPUT_MASK:
                # seed 003 item 12: the only application serving the queue closed it
                queues.write_trigger_messages(tx, triggers.on_close(tx, handle.resolved_name))

    # ------------------------------------------------------------------ MQINQ
    def _inquire(self, queue: str, selectors: Sequence[int]) -> dict[int, int | str]:
        self.qm.recover_abandoned()  # a dead process's opens and unit of work count no more
        with self._session() as db:
            row = catalog.require(db, queue)
            return inquire_queue(
                row, selectors, lambda: catalog.status(db, row), dynamic=row.deftype
            )

    def _qmgr_attrs(self) -> dict[str, int | str | bool]:
        with self._session() as db:
            return meta.qmgr_attrs(db)

    def _qmgr_identifier(self) -> str | None:
        """The name and when the queue manager was made, as IBM MQ's QMID (the name alone
        for one made before mqjms kept that time)."""
        if not self.qm.stamp:
            return None
        return f"{self.qmgr_name}_{time.strftime('%Y-%m-%d_%H.%M.%S', time.gmtime(self.qm.stamp))}"

    # ------------------------------------------------------------------ MQSET
    def _set(
        self, queue: str, change: Callable[[QueueDefinition], Mapping[str, AttrValue]]
    ) -> None:
        self._refuse_if_read_only("no queue attribute can be set")
        with self._session() as db:
            row = catalog.require(db, queue)
        self.qm.alter_queue(queue, change(row))

    def interrupt_wait(self) -> None:
        """End the get with wait this connection is in (another thread's call): it returns
        no message (unless it found one meanwhile); when it is in none, the next get with
        wait returns none once it has looked and found nothing. MQ has no
        such call (JMS has: MessageConsumer.close() ends a receive); a worker stops its
        consumers with it instead of having their gets return every half second
        (:attr:`~mqjms.semantics.Capability.INTERRUPT_WAIT`)."""
        self._interrupted = True
        wakeup.nudge()

    # ------------------------------------------------------------------ MQDISC
    def disconnect(self, *, commit: bool = False) -> None:
        """MQDISC. Uncommitted work is backed out (as JMS Connection.close() does), or
        committed first with ``commit`` (as MQDISC does for an MQI application); when that
        commit fails the work is backed out and the error raised.

        Another thread may call it while this connection is in a call: it waits for the
        call to end, or, for a get that waits, ends the wait with an MQError."""
        try:
            with self._lock:
                if self._closed:
                    return
                reason = "disconnect without commit"
                try:
                    if commit and self._uow.active:
                        reason = "disconnect: the commit failed"
                        self.commit()
                        reason = "disconnect after commit"
                finally:
                    self._end(reason)
        finally:
            wakeup.ring()  # a get of this connection waiting in another thread ends now

    def _end(self, reason: str) -> None:
        """Close the connection (under its lock), backing out what is left of its work."""
        if not self._closed:
            self._closed = True
            try:
                if self._uow.active:
                    log.info("uow.backed_out", connection=self.id, reason=reason)
                self.qm.end_connection(self._db, self.id, reason=reason)
            finally:
                self._handles.clear()
                self._finalizer.detach()
                self._db.close()
                self._alive.release()
                owners.disown(self.id)
                if not self.qm.read_only:
                    self.qm.connection_lock_path(self.id).unlink(missing_ok=True)
