"""QMConnection: one hconn on the embedded queue manager, speaking the transport contract.

The MQ rules it shares with the other emulating transports (open checks, put defaults
and context, alias resolution, MQINQ) come from :mod:`mqjms.semantics`; what is its own
here is storage: SQLite transactions, units of work, waiting for messages across processes.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import uuid
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Capability, Context, Handle
from mqjms.semantics.attributes import ALIAS, LOCAL, MODEL, default_queue_attrs, validate_name
from mqjms.semantics.checks import check_get, check_get_allowed, input_mode
from mqjms.semantics.emulated import EmulatedConnection, GetRequest, PutRequest
from mqjms.semantics.inquire import inquire_queue
from mqjms.semantics.put import PutIdentity, priority_warning, set_context

from . import messages, queues, reservations, store, triggers, xmitq
from .delivery import Cursor, next_message
from .failures import StorageError, translating
from .locks import FileLock
from .manager import (
    QueueManager,
    activity_serial,
    backout_uow,
    notify_activity,
    wait_for_activity,
)
from .space import with_room

log = get_logger("mqjms.qmgr")

T = TypeVar("T")

POLL_INTERVAL = 0.02  # seconds between checks for messages put by other processes


def _abandon(alive: FileLock, db: sqlite3.Connection) -> None:
    with contextlib.suppress(Exception):
        db.close()
    alive.release()


class _NeedsDurability(Exception):
    """A non-durable attempt met a persistent message: redo the call durably."""


class _NeedsWrite(Exception):
    """A browse in a read transaction met an expired message: redo it in a write one, which
    discards the message (seed 000)."""


@translating
class QMConnection(EmulatedConnection):
    """An MQI connection. Not thread-safe: use one per thread, as with an MQ hconn.

    On a read-only queue manager (a read-only file system or copy) a connection is not
    registered and can browse, inquire and display, but not get or put.
    """

    #: Everything the contract names: this is IBM MQ's behaviour, emulated in full.
    capabilities: frozenset[Capability] = frozenset(Capability)

    def __init__(self, qm: QueueManager, appl_name: str | None = None) -> None:
        self.qm = qm
        self.id = qm.new_connection_id()
        self.identity = PutIdentity.of(appl_name)
        self._alive = FileLock(
            qm.connection_lock_path(self.id), qm.access.file_mode, what="a connection's lock"
        )
        if not qm.read_only:
            self._alive.acquire(exclusive=True)
        self._db = qm.open_db()
        # A connection dropped without disconnect() lets go of its lock when collected, so
        # its unit of work is backed out like a dead process's.
        self._finalizer = weakref.finalize(self, _abandon, self._alive, self._db)
        # Not at exit: the embedded transport's close_all() disconnects (backs out) open
        # connections then, which it could not do on a database already closed by this.
        self._finalizer.atexit = False
        if not qm.read_only:
            with_room(self._db, qm.reserve, self._register)
        self._handles: dict[int, Handle] = {}
        self._cursors: dict[int, Cursor | None] = {}
        self._in_uow = False
        self._uow_gets = self._uow_puts = self._uow_durable = False
        self._last_persistent: dict[int, bool] = {}
        self._hardened: dict[int, bool] = {}  # the last syncpoint get of the handle: HARDENBO?
        self._defpsist: dict[str, bool] = {}
        self._local_hobj = 0
        #: The MQCC_WARNING the last MQPUT/MQPUT1 completed with, None after MQCC_OK (the
        #: MQI's CompCode and Reason): e.g. 2049 for a Priority above 9.
        self.last_warning: MQError | None = None
        self._closed = False

    def _register(self) -> None:
        with store.write(self._db) as db:
            db.execute(
                "INSERT INTO connections (id, pid, appl, started) VALUES (?,?,?,?)",
                (self.id, os.getpid(), self.identity.appl_name, time.time()),
            )

    # ------------------------------------------------------------------ basics
    @property
    def qmgr_name(self) -> str:
        return self.qm.name

    @property
    def db_file(self) -> Path:
        return self.qm.db_file

    def _refuse_if_read_only(self, what: str) -> None:
        if self.qm.read_only:
            raise StorageError(
                C.MQRC_RESOURCE_PROBLEM,
                f"{self.qm.db_file} is read-only: this queue manager can be browsed, but {what}",
                "SQLITE_READONLY",
            )

    @property
    def in_unit_of_work(self) -> bool:
        return self._in_uow

    def _check_handle(self, handle: Handle) -> None:
        self._handle(handle)

    def _handle(self, handle: Handle) -> Handle:
        self._check_open()
        if self._handles.get(handle.hobj) is not handle:
            raise failed(C.MQRC_HOBJ_ERROR, f"queue {handle.name!r} is not open on this connection")
        return handle

    # ------------------------------------------------------------------ MQOPEN / MQCLOSE
    def _open(self, queue: str, options: int, dynamic_name: str) -> Handle:
        """MQOPEN. Opening a model queue creates a dynamic queue named from ``dynamic_name``."""
        if self.qm.read_only:
            return self._open_read_only(queue, options)
        try:
            return self._with_room(lambda: self._open_queue(queue, options, dynamic_name))
        except MQError as exc:
            # an exclusive user may be a process that died: back its work out, then retry
            if exc.reason != C.MQRC_OBJECT_IN_USE or not self.qm.recover_abandoned(force=True):
                raise
            return self._with_room(lambda: self._open_queue(queue, options, dynamic_name))

    def _with_room(self, attempt: Callable[[], T]) -> T:
        """Run a write; on a full disk make room and run it again (see space.py)."""
        return with_room(self._db, self.qm.reserve, attempt)

    def _open_read_only(self, queue: str, options: int) -> Handle:
        """MQOPEN on a read-only queue manager: for browse and inquire only, not recorded."""
        if options & (C.MQOO_INPUT_MASK | C.MQOO_OUTPUT | C.MQOO_SET):
            self._refuse_if_read_only("not opened for input, output or set")
        with store.read(self._db) as db:
            named, base = queues.resolve(db, queue)
            if named.qtype == MODEL:
                self._refuse_if_read_only("no dynamic queue can be created")
        self._local_hobj -= 1  # no handles row: numbered apart from the database's
        handle = Handle(
            name=named.name, resolved_name=base.name, options=options, hobj=self._local_hobj
        )
        self._handles[handle.hobj] = handle
        self._cursors[handle.hobj] = None
        return handle

    def _open_queue(self, queue: str, options: int, dynamic_name: str) -> Handle:
        with store.write(self._db, durable=False) as db:
            named = queues.require(db, queue)
            if named.qtype == MODEL:
                named = self._create_dynamic(db, named, dynamic_name)
            base = named
            if named.qtype == ALIAS:
                named, base = queues.resolve(db, queue)
            effective = options
            first_input = False
            if options & C.MQOO_INPUT_MASK:
                first_input = not db.execute(
                    "SELECT 1 FROM handles WHERE queue = ? AND options & ? != 0 LIMIT 1",
                    (base.name, C.MQOO_INPUT_MASK),
                ).fetchone()
                effective = self._input_mode(db, base, options)
            cur = db.execute(
                "INSERT INTO handles (conn, queue, options) VALUES (?,?,?)",
                (self.id, base.name, effective),
            )
            hobj = int(cur.lastrowid or 0)
            if first_input:
                # seed 003 item 13: a trigger monitor opening its initiation queue
                triggers.on_initq_open(db, self._trigger_context(), base.name)
        handle = Handle(name=named.name, resolved_name=base.name, options=effective, hobj=hobj)
        self._handles[hobj] = handle
        self._cursors[hobj] = None
        return handle

    def _create_dynamic(
        self, db: sqlite3.Connection, model: queues.QueueRow, dynamic_name: str
    ) -> queues.QueueRow:
        name = dynamic_name
        if name.endswith("*"):
            name = (name[:-1] + uuid.uuid4().hex.upper())[:48]
        validate_name(name)
        if queues.load(db, name) is not None:
            raise failed(C.MQRC_OBJECT_ALREADY_EXISTS, f"dynamic queue {name!r} already exists")
        attrs = default_queue_attrs(LOCAL)
        attrs.update({k: v for k, v in model.attrs.items() if k in attrs})
        deftype = str(model.attrs.get("DEFTYPE", "TEMPDYN"))
        stamp = time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())
        import json

        db.execute(
            "INSERT INTO queues (name, qtype, attrs, deftype, owner, created, altered)"
            " VALUES (?,?,?,?,?,?,?)",
            (
                name,
                LOCAL,
                json.dumps(attrs),
                deftype,
                self.id if deftype == "TEMPDYN" else None,
                stamp,
                stamp,
            ),
        )
        log.info("qmgr.dynamic_queue_created", queue=name, model=model.name, deftype=deftype)
        created = queues.load(db, name)
        assert created is not None
        return created

    def _input_mode(self, db: sqlite3.Connection, base: queues.QueueRow, options: int) -> int:
        others = db.execute(
            "SELECT options FROM handles WHERE queue = ? AND options & ? != 0",
            (base.name, C.MQOO_INPUT_MASK),
        ).fetchall()
        return input_mode(options, base, (row[0] for row in others))

    def _trigger_context(self) -> triggers.Context:
        return triggers.Context(self.qm.name, self.qm.stamp, time.time())

    def close(self, handle: Handle) -> None:
        """MQCLOSE. A temporary dynamic queue is deleted with its messages."""
        self._handle(handle)
        if not self.qm.read_only:
            self._with_room(lambda: self._close(handle))
        del self._handles[handle.hobj]
        self._cursors.pop(handle.hobj, None)

    def _close(self, handle: Handle) -> None:
        with store.write(self._db, durable=False) as db:
            db.execute("DELETE FROM handles WHERE hobj = ?", (handle.hobj,))
            row = queues.load(db, handle.resolved_name)
            if row is not None and row.deftype == "TEMPDYN" and row.owner == self.id:
                db.execute("DELETE FROM messages WHERE queue = ?", (row.name,))
                db.execute("DELETE FROM queues WHERE name = ?", (row.name,))
            elif handle.options & C.MQOO_INPUT_MASK:
                triggers.on_close(db, self._trigger_context(), handle.resolved_name)

    # ------------------------------------------------------------------ MQGET
    def _get(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        wait, syncpoint, browse = request.wait, request.syncpoint, request.browse
        msg_id, correl_id = request.msg_id, request.correl_id
        deadline = None if wait is None else time.monotonic() + wait
        serial = activity_serial()
        # read before the first attempt, so a put that lands just after it is not missed
        seen_version = self._data_version() if wait != 0 else 0
        found = self._get_once(handle, syncpoint, browse, msg_id, correl_id)
        if found is not None or wait == 0:
            return found
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            if self._closed or self.qm._closed:
                raise self._ended_error()
            if self.qm.recover_abandoned():
                seen_version = -1
            timeout = POLL_INTERVAL if remaining is None else min(POLL_INTERVAL, remaining)
            wait_for_activity(serial, timeout)
            serial = activity_serial()
            version = self._data_version()
            if version != seen_version:  # something changed: another process or thread wrote
                seen_version = version
                found = self._get_once(handle, syncpoint, browse, msg_id, correl_id)
                if found is not None:
                    return found

    def _data_version(self) -> int:
        try:
            return int(self._db.execute("PRAGMA data_version").fetchone()[0]) + activity_serial()
        except sqlite3.ProgrammingError:  # closed by another thread while waiting
            raise self._ended_error() from None

    def _ended_error(self) -> MQError:
        if self.qm._closed:
            return failed(C.MQRC_Q_MGR_STOPPING, f"queue manager {self.qm.name} was closed")
        return failed(C.MQRC_HCONN_ERROR, "the connection was disconnected during the get")

    def _get_once(
        self,
        handle: Handle,
        syncpoint: bool,
        browse: Browse | None,
        msg_id: bytes | None,
        correl_id: bytes | None,
    ) -> tuple[MQMD, bytes] | None:
        try:
            if browse is not None:
                return self._browse_once(handle, browse, msg_id, correl_id)
            self._refuse_if_read_only("no message can be removed from it")
            # A get without syncpoint removes the message for good: durable when it is
            # persistent. Under syncpoint, the get's in-flight mark is durable when the
            # queue hardens BackoutCount (HARDENBO). Guess from the last get of this
            # handle; retry if wrong.
            if syncpoint:
                durable = self._hardened.get(handle.hobj, False)
            else:
                durable = self._last_persistent.get(handle.hobj, True)
            try:
                return self._get_attempt(handle, syncpoint, msg_id, correl_id, durable)
            except _NeedsDurability:
                return self._get_attempt(handle, syncpoint, msg_id, correl_id, True)
        except (sqlite3.ProgrammingError, StorageError) as exc:
            closed = isinstance(exc, sqlite3.ProgrammingError) or isinstance(
                exc.__cause__, sqlite3.ProgrammingError
            )
            if closed and (self._closed or self.qm._closed):  # closed by another thread
                raise self._ended_error() from None
            raise

    def _get_attempt(
        self,
        handle: Handle,
        syncpoint: bool,
        msg_id: bytes | None,
        correl_id: bytes | None,
        durable: bool,
    ) -> tuple[MQMD, bytes] | None:
        def attempt() -> tuple[MQMD, bytes] | None:
            with store.write(self._db, durable=durable) as db:
                return self._claim(db, handle, syncpoint, None, msg_id, correl_id, durable)

        return self._with_room(attempt)

    def _browse_once(
        self, handle: Handle, browse: Browse, msg_id: bytes | None, correl_id: bytes | None
    ) -> tuple[MQMD, bytes] | None:
        """A browse reads without the write lock (so it works on a full disk and on a
        read-only copy), unless it must discard an expired message."""
        try:
            with store.read(self._db) as db:
                return self._claim(
                    db, handle, False, browse, msg_id, correl_id, False, writing=False
                )
        except _NeedsWrite:

            def attempt() -> tuple[MQMD, bytes] | None:
                with store.write(self._db, durable=False) as db:
                    return self._claim(db, handle, False, browse, msg_id, correl_id, False)

            return self._with_room(attempt)

    def _claim(
        self,
        db: sqlite3.Connection,
        handle: Handle,
        syncpoint: bool,
        browse: Browse | None,
        msg_id: bytes | None,
        correl_id: bytes | None,
        durable: bool,
        writing: bool = True,
    ) -> tuple[MQMD, bytes] | None:
        """The body of MQGET, inside the caller's transaction (a read one only for a browse:
        ``writing=False``)."""
        now = time.time()
        named = queues.require(db, handle.name)
        base = (
            queues.require(db, handle.resolved_name)
            if named.name != handle.resolved_name
            else named
        )
        check_get_allowed(named, base)
        priority_order = base.attrs.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
        after = self._cursors.get(handle.hobj) if browse is Browse.NEXT else None
        while True:
            row = next_message(db, base.name, priority_order, after, msg_id, correl_id)
            if row is None:
                return None
            msg = messages.from_row(row)
            if not messages.is_expired(msg.expires, now):
                break
            # seed 000: an expired message is never returned; the get that would have
            # returned it discards it (outside any unit of work) and looks further.
            if writing:
                queues.discard_expired(db, self.qm.name, self.qm.stamp, [msg], now)
            elif not self.qm.read_only:
                raise _NeedsWrite
            else:  # a read-only copy cannot discard it: step over it
                after = Cursor(msg.priority, msg.id, MQMD.unpack(msg.md_bytes).MsgId)
        if browse is not None:
            self._cursors[handle.hobj] = Cursor(
                msg.priority, msg.id, MQMD.unpack(msg.md_bytes).MsgId
            )
        elif syncpoint:
            # HARDENBO: the in-flight mark, which a restart turns into BackoutCount + 1,
            # is on disk before the get returns, so a power cut cannot undo the count
            hardened = msg.persistent and bool(base.attrs.get("HARDENBO", False))
            self._hardened[handle.hobj] = hardened
            if hardened and not durable:
                raise _NeedsDurability
            db.execute(
                "UPDATE messages SET state = ?, uow = ? WHERE id = ?",
                (store.GOT_IN_UOW, self.id, msg.id),
            )
            self._in_uow = True
            self._uow_gets = True
            self._uow_durable = self._uow_durable or msg.persistent
        else:
            self._last_persistent[handle.hobj] = msg.persistent
            if msg.persistent and not durable:
                raise _NeedsDurability
            db.execute("DELETE FROM messages WHERE id = ?", (msg.id,))
        md = msg.descriptor(now)
        return md, xmitq.on_get(md, msg.data, msg.md_bytes, now)  # seed 000 note 9

    # ------------------------------------------------------------------ MQPUT / MQPUT1
    def _put(self, name: str, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        syncpoint, context, new_msg_id = request.syncpoint, request.context, request.new_msg_id
        self._refuse_if_read_only("no message can be put")
        if self.qm.reserve is not None:
            self.qm.reserve.check_for_put(self._db)  # the space kept for draining is not for puts
        # A put outside syncpoint is durable when the message is persistent, which for
        # "as queue default" depends on the queue: guess from the last put; retry if wrong.
        if syncpoint:
            durable = False  # the commit makes it durable
        elif md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            durable = self._defpsist.get(name, True)
        else:
            durable = md.Persistence == C.MQPER_PERSISTENT
        try:
            result = self._put_attempt(name, md, data, syncpoint, context, new_msg_id, durable)
        except _NeedsDurability:
            result = self._put_attempt(name, md, data, syncpoint, context, new_msg_id, True)
        if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            self._defpsist[name] = result.Persistence == C.MQPER_PERSISTENT
        if syncpoint:
            self._in_uow = True
            self._uow_puts = True
            self._uow_durable = self._uow_durable or result.Persistence == C.MQPER_PERSISTENT
        else:
            notify_activity()
        self.last_warning = priority_warning(result)
        if self.last_warning is not None:
            log.info(
                "put.warning",
                queue=name,
                msg_id=result.MsgId.hex(),
                reason=self.last_warning.reason_name,
                detail=self.last_warning.detail,
            )
        return result

    def _put_attempt(
        self,
        name: str,
        md: MQMD,
        data: bytes | bytearray | memoryview,
        syncpoint: bool,
        context: Context,
        new_msg_id: bool,
        durable: bool,
    ) -> MQMD:
        now = time.time()
        out = md.copy()
        set_context(out, context, self.identity, now)
        with store.write(self._db, durable=durable, putting=True) as db:
            named, base = queues.resolve(db, name)
            result = queues.put_message(
                db,
                self.qm.name,
                self.qm.stamp,
                named,
                base,
                out,
                bytes(data),
                uow=self.id if syncpoint else None,
                now=now,
                new_msg_id=new_msg_id,
            )
            if not syncpoint and not durable and result.Persistence == C.MQPER_PERSISTENT:
                raise _NeedsDurability
        return result

    # ------------------------------------------------------------------ MQINQ
    def _inquire(self, queue: str, selectors: Sequence[int]) -> dict[int, int | str]:
        row = queues.require(self._db, queue)
        return inquire_queue(row, selectors, lambda: self.qm._status(row), dynamic=row.deftype)

    def _qmgr_attrs(self) -> dict[str, int | str | bool]:
        return self.qm.display_qmgr()

    # ------------------------------------------------------------------ reservations
    def reserve(self, handle: Handle, owner: str, limit: int) -> int:
        """Reserve up to ``limit`` messages of the queue for ``owner`` (see
        :mod:`.reservations`); returns the owner's last number. Needs an input handle."""
        self._handle(handle)
        check_get(handle, wait=0, syncpoint=True, browse=None)
        self._refuse_if_read_only("no message can be reserved")

        def attempt() -> int:
            with store.write(self._db) as db:
                base = queues.require(db, handle.resolved_name)
                check_get_allowed(base, base)
                now = time.time()
                priority = base.attrs.get("MSGDLVSQ", "PRIORITY") == "PRIORITY"
                _, expired = reservations.reserve(db, base.name, owner, limit, priority, now)
                if expired:  # seed 000: never returned; discarded as a get would
                    queues.discard_expired(db, self.qm.name, self.qm.stamp, expired, now)
                return reservations.last_seq(db, owner)

        return self._with_room(attempt)

    def reserved(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, MQMD, bytes]]:
        """``(seq, tag, md, data)`` of the messages reserved for ``owner`` in ``(lo, hi]``."""
        self._check_open()
        now = time.time()
        with store.read(self._db) as db:
            found = reservations.reserved(db, owner, lo, hi)
        return [(r.seq, r.tag, r.message.descriptor(now), r.message.data) for r in found]

    def reserved_numbers(
        self, owner: str, lo: int, hi: int, limit: int | None = None
    ) -> list[tuple[int, int, int]]:
        """``(seq, tag, BackoutCount)`` reserved for ``owner`` in ``(lo, hi]``: no bytes."""
        self._check_open()
        with store.read(self._db) as db:
            return reservations.numbers(db, owner, lo, hi, limit)

    def reservation_end(self, owner: str) -> int:
        """The last number given to ``owner`` (0 before its first reservation)."""
        self._check_open()
        with store.read(self._db) as db:
            return reservations.last_seq(db, owner)

    def release_reserved(self, owner: str, upto: int) -> int:
        """Remove ``owner``'s messages numbered ``<= upto`` (its destructive get)."""
        self._check_open()

        def attempt() -> int:
            with store.write(self._db) as db:
                return reservations.release(db, owner, upto)

        released = self._with_room(attempt)
        return released

    def renumber_reserved(
        self, owner: str, seqs: Sequence[int], *, tag: int, backout: int = 0
    ) -> list[int]:
        """New numbers at the tail for ``seqs`` (see :func:`.reservations.renumber`)."""
        self._check_open()

        def attempt() -> list[int]:
            with store.write(self._db) as db:
                return reservations.renumber(db, owner, seqs, tag, backout)

        return self._with_room(attempt)

    def get_reserved(self, owner: str, seq: int) -> tuple[MQMD, bytes] | None:
        """MQGET under syncpoint of the message reserved as ``seq`` (None: not reserved)."""
        self._check_open()
        self._refuse_if_read_only("no message can be removed from it")

        def attempt() -> messages.StoredMessage | None:
            with store.write(self._db) as db:
                return reservations.take(db, owner, seq, self.id)

        msg = self._with_room(attempt)
        if msg is None:
            return None
        self._in_uow = self._uow_gets = True
        self._uow_durable = self._uow_durable or msg.persistent
        return msg.descriptor(time.time()), msg.data

    def give_back_reserved(self, owner: str, after: int = 0) -> int:
        """Give back ``owner``'s messages numbered above ``after`` (all by default): they
        are available again, in place."""
        self._check_open()

        def attempt() -> int:
            with store.write(self._db) as db:
                return reservations.give_back(db, owner, after)

        count = self._with_room(attempt)
        notify_activity()
        return count

    # ------------------------------------------------------------------ units of work
    def commit(self) -> None:
        """MQCMIT: gets become removals, puts become visible."""
        self._check_open()
        if not self._in_uow:
            return

        # durable only when the unit of work touched persistent messages
        def attempt() -> None:
            with store.write(self._db, durable=self._uow_durable) as db:
                self._commit_statements(db)

        self._with_room(attempt)
        self._end_uow()
        notify_activity()

    def _commit_statements(self, db: sqlite3.Connection) -> None:
        if self._uow_gets:
            db.execute(
                "DELETE FROM messages WHERE uow = ? AND state = ?",
                (self.id, store.GOT_IN_UOW),
            )
        if self._uow_puts:
            db.execute(
                "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
                " WHERE uow = ? AND state = ?",
                (store.AVAILABLE, self.id, store.PUT_IN_UOW),
            )

    def commit_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """MQCMIT, then MQGET under syncpoint without waiting: a consumer's step between
        two messages, in one database transaction where the two calls take two. The
        outcome is exactly that of the two calls in turn; None when no message is there."""
        self._check_open()
        self._handle(handle)
        if not self._in_uow:
            return self.get(handle, wait=0, syncpoint=True)
        check_get(handle, wait=0, syncpoint=True, browse=None)
        saved = (self._in_uow, self._uow_gets, self._uow_puts, self._uow_durable)

        def attempt(durable: bool) -> tuple[MQMD, bytes] | None:
            try:
                with store.write(self._db, durable=durable) as db:
                    self._commit_statements(db)
                    self._end_uow()
                    return self._claim(db, handle, True, None, None, None, durable)
            except BaseException:
                self._in_uow, self._uow_gets, self._uow_puts, self._uow_durable = saved
                raise

        # one fsync covers the commit and a HARDENBO get's in-flight mark alike
        durable = self._uow_durable or self._hardened.get(handle.hobj, False)
        try:
            found = self._with_room(lambda: attempt(durable))
        except _NeedsDurability:
            found = self._with_room(lambda: attempt(True))
        notify_activity()
        return found

    def _end_uow(self) -> None:
        self._in_uow = self._uow_gets = self._uow_puts = self._uow_durable = False

    def backout(self) -> None:
        """MQBACK: puts vanish; gets return to their places with BackoutCount + 1."""
        self._check_open()
        if not self._in_uow:
            return

        # the raised BackoutCount of persistent messages is durable, whatever HARDENBO says
        def attempt() -> None:
            with store.write(self._db, durable=self._uow_durable) as db:
                backout_uow(db, self.id)

        self._with_room(attempt)
        self._end_uow()
        notify_activity()

    def disconnect(self) -> None:
        """MQDISC. Uncommitted work is backed out (as JMS Connection.close() does)."""
        if self._closed:
            return
        self._closed = True
        try:
            if self._in_uow:
                log.info("uow.backed_out", connection=self.id, reason="disconnect without commit")
            self.qm.end_connection(self._db, self.id, reason="disconnect without commit")
        finally:
            self._handles.clear()
            self._finalizer.detach()
            self._db.close()
            self._alive.release()
            if not self.qm.read_only:
                self.qm.connection_lock_path(self.id).unlink(missing_ok=True)
