"""What a QMConnection keeps between MQI calls, shared by the modules of its concepts.

A :class:`~.connection.QMConnection` is one class assembled from one module per concept
(:mod:`.connection`: connecting, MQOPEN, MQCLOSE, MQINQ, MQDISC; :mod:`.getting`,
:mod:`.putting`, :mod:`.syncpoint`, :mod:`.reserving`, :mod:`.subscribing`); each mixes in
:class:`ConnectionState`, which declares the state they share and how they use the
connection's database handle.

Threads: an hconn serves one thread at a time, but another thread may end it (the queue
manager closing, a disconnect from a shutdown handler) while a call runs. Every use of
the database handle is inside :meth:`ConnectionState._session`, which holds the
connection's lock and fails with an MQError once the connection or its queue manager has
ended; :meth:`~.connection.QMConnection.disconnect` takes the same lock, so it waits for a
call in flight and never closes the handle under it. A get that waits releases the lock
between its looks.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics import Handle
from mqjms.semantics.emulated import EmulatedConnection

from .delivery import Cursor
from .failures import StorageError, log_unsynced
from .space import with_room
from .transaction import Transaction

if TYPE_CHECKING:
    from .manager import QueueManager

T = TypeVar("T")


#: A unit of work's messages are noted by row id up to this many gets and as many puts, so
#: that MQCMIT and MQBACK find them by id (SQLite reads the rows of an UPDATE or DELETE
#: through messages_uow into a row set first: several times the cost for one message); a
#: larger unit of work is ended through the index, in one statement, its ids not kept.
TRACKED = 16


@dataclass(slots=True)
class UnitOfWorkState:
    """What the connection's current unit of work holds, to know what MQCMIT and MQBACK
    must do and whether they need an fsync."""

    active: bool = False
    gets: bool = False
    puts: bool = False
    durable: bool = False  # it touched persistent messages: its end is made durable
    retains: bool = False  # it put a retained publication: MQCMIT makes it the retained one
    #: the row ids of the messages got in it (every get under syncpoint names its row)
    #: and put in it (see :meth:`note_put`), up to TRACKED + 1 (more: see TRACKED)
    got_ids: list[int] = field(default_factory=list)
    put_ids: list[int] = field(default_factory=list)
    #: the earliest time a message put in it expires (None: none of them expires): one
    #: whose expiry ends before MQCMIT is discarded at the commit (seed 004)
    expires: float | None = None

    def got(self, persistent: bool, message_id: int) -> None:
        self.active = self.gets = True
        self.durable = self.durable or persistent
        if len(self.got_ids) <= TRACKED:
            self.got_ids.append(message_id)

    def put(self, persistent: bool, expires: float | None = None) -> None:
        self.active = self.puts = True
        self.durable = self.durable or persistent
        if expires is not None and (self.expires is None or expires < self.expires):
            self.expires = expires

    def note_put(self, message_id: int) -> None:
        """A message was stored in this unit of work (by any put of the connection: its
        own, a trigger message, a report, a publication)."""
        if len(self.put_ids) <= TRACKED:
            self.put_ids.append(message_id)

    def tracked_gets(self) -> list[int] | None:
        """The row ids of the messages got in it; None when there are too many to keep."""
        return self.got_ids if len(self.got_ids) <= TRACKED else None

    def tracked_puts(self) -> list[int] | None:
        """The row ids of the messages put in it; None when there are too many to keep."""
        return self.put_ids if len(self.put_ids) <= TRACKED else None

    def end(self) -> None:
        self.active = self.gets = self.puts = self.durable = self.retains = False
        self.got_ids = []
        self.put_ids = []
        self.expires = None

    def copy(self) -> UnitOfWorkState:
        return UnitOfWorkState(
            self.active,
            self.gets,
            self.puts,
            self.durable,
            self.retains,
            list(self.got_ids),
            list(self.put_ids),
            self.expires,
        )

    def restore(self, saved: UnitOfWorkState) -> None:
        self.active, self.gets, self.puts, self.durable, self.retains = (
            saved.active,
            saved.gets,
            saved.puts,
            saved.durable,
            saved.retains,
        )
        self.got_ids = list(saved.got_ids)
        self.put_ids = list(saved.put_ids)
        self.expires = saved.expires


class Session:
    """A connection's database handle held by one thread for one block (a class, not a
    generator: every MQI call enters one). Fails with an MQError, without touching the
    handle, once the connection or its queue manager has ended."""

    __slots__ = ("_conn",)

    def __init__(self, conn: ConnectionState) -> None:
        self._conn = conn

    def __enter__(self) -> sqlite3.Connection:
        conn = self._conn
        conn._lock.acquire()
        if conn._closed or conn.qm.closed:
            conn._lock.release()
            raise conn._ended_error()
        return conn._db

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._conn._lock.release()


class ConnectionState(EmulatedConnection):
    """The state of one connection to the embedded queue manager."""

    qm: QueueManager
    id: str  # the connection's id, which is also its unit of work's
    _db: sqlite3.Connection
    _lock: threading.RLock
    _closed: bool
    _handles: dict[int, Handle]
    _cursors: dict[int, Cursor | None]  # a handle's browse position
    _locks: dict[int, int]  # a handle's locked message (MQGMO_LOCK): its row id
    _uow: UnitOfWorkState
    _last_persistent: dict[int, bool]  # the last get of the handle outside syncpoint
    _hardened: dict[int, bool]  # the last syncpoint get of the handle: HARDENBO?
    _empty_looks: dict[int, tuple[object, ...]]  # a handle's last look that found nothing
    _defpsist: dict[str, bool]  # a queue's DEFPSIST, as the last put found it
    _interrupted: bool  # interrupt_wait() was called: the next wait ends at once

    @property
    def qmgr_name(self) -> str:
        return self.qm.name

    # ------------------------------------------------------------------ the database handle
    def _session(self) -> Session:
        """The connection's database handle, for this thread until the block ends."""
        return Session(self)

    def _ended_error(self) -> MQError:
        if self.qm.closed:
            return failed(C.MQRC_Q_MGR_STOPPING, f"queue manager {self.qm.name} was closed")
        return failed(C.MQRC_HCONN_ERROR, "the connection is closed")

    def _writing(self, *, durable: bool = True, putting: bool = False) -> Transaction:
        """One write transaction of this connection (inside :meth:`_session`)."""
        return Transaction(
            self._db,
            self.qm.name,
            conn_id=self.id,
            durable=durable,
            putting=putting,
            note_put=self._uow.note_put,
        )

    def _reading(self) -> Transaction:
        """A read snapshot for this connection (inside :meth:`_session`)."""
        return Transaction(self._db, self.qm.name, conn_id=self.id, writable=False)

    def _taking(self, body: Callable[[Transaction], T], *, durable: bool = True) -> T:
        """One write transaction running ``body``, for a call that takes a message: its
        result is returned even when the commit's fsync failed (logged), since the
        message has left its queue or is in flight, and raising would lose it."""
        try:
            with self._writing(durable=durable) as tx:
                result = body(tx)
        except StorageError as exc:
            if not exc.unsynced:
                raise
            log_unsynced(exc, "MQGET")  # raised once the body had returned: result is set
        return result

    def _with_room(self, attempt: Callable[[], T]) -> T:
        """Run a write; on a full disk make room and run it again (see space.py)."""
        return with_room(self._db, self.qm.reserve, attempt)

    # ------------------------------------------------------------------ checks
    def _refuse_if_read_only(self, what: str) -> None:
        if self.qm.read_only:
            raise StorageError(
                C.MQRC_RESOURCE_PROBLEM,
                f"{self.qm.db_file} is read-only: this queue manager can be browsed, but {what}",
                "SQLITE_READONLY",
            )

    def _check_handle(self, handle: Handle) -> None:
        self._handle(handle)

    def _handle(self, handle: Handle) -> Handle:
        self._check_open()
        if self._handles.get(handle.hobj) is not handle:
            raise failed(C.MQRC_HOBJ_ERROR, f"queue {handle.name!r} is not open on this connection")
        return handle
