"""One write of the queue manager: a SQLite transaction and what the rules inside it share.

Every change to the database (an MQI call, a commit, an expiry scan, an administrative
command, the backout of a dead process's work) runs as one :class:`Transaction`: the
database handle, the queue manager it writes for, the connection whose unit of work it
belongs to, one clock reading for every rule inside it (expiry, PutDate and PutTime,
TRIGINT), the queue manager's attributes read at most once, and the side effects that
must wait until COMMIT: waking the gets that wait (:mod:`.wakeup` in this process,
:mod:`.bells` in the others).

A Transaction is its own context manager (a class, not a generator: it is entered on
every MQI call): :func:`writing` makes one for a write transaction (BEGIN IMMEDIATE ...
COMMIT, see :func:`.store.write`), :func:`reading` one for a read-only snapshot (a
browse), which takes no write lock.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from types import TracebackType

from . import bells, meta, store, wakeup


class Transaction:
    """The context of one database transaction of the queue manager."""

    __slots__ = (
        "_after",
        "_attrs",
        "_durable",
        "_note_put",
        "_now",
        "_putting",
        "_ring",
        "conn_id",
        "db",
        "qmgr_name",
        "writable",
    )

    def __init__(
        self,
        db: sqlite3.Connection,
        qmgr_name: str,
        *,
        conn_id: str | None = None,
        writable: bool = True,
        durable: bool = True,
        putting: bool = False,
        note_put: Callable[[int], None] | None = None,
    ) -> None:
        self.db = db
        self.qmgr_name = qmgr_name
        #: The connection the transaction works for (its unit of work's id), None for the
        #: queue manager's own work (expiry scans, administration, recovery).
        self.conn_id = conn_id
        #: False in a read snapshot: a rule that must write (discard an expired message)
        #: cannot run there.
        self.writable = writable
        self._durable = durable
        self._putting = putting
        self._now: float | None = None
        self._attrs: dict[str, meta.AttrValue] | None = None
        self._ring = False
        self._after: list[Callable[[], None]] = []
        self._note_put = note_put

    @property
    def now(self) -> float:
        """The time every rule of this transaction uses: read once, at first use (inside
        the transaction, after any wait for the write lock)."""
        if self._now is None:
            self._now = time.time()
        return self._now

    def qmgr_attr(self, name: str) -> meta.AttrValue:
        """A queue manager attribute (MAXMSGL, CCSID, DEADQ, TRIGINT...), read once per
        transaction."""
        if self._attrs is None:
            self._attrs = meta.qmgr_attrs(self.db)
        return meta.qmgr_attr(self._attrs, name)

    def knows_qmgr_attrs(self, raw: str | None) -> None:
        """The queue manager's attributes as stored, read by a statement of this
        transaction that fetched them beside something else (see ``meta.QMGR_ATTRS_SQL``)."""
        self._attrs = meta.parse_qmgr_attrs(raw)

    def wake_getters(self) -> None:
        """Messages become available when this transaction commits: wake the waiting gets
        then (never before: they would look and find nothing)."""
        self._ring = True

    def put_in_unit_of_work(self, message_id: int) -> None:
        """A message was stored in the unit of work of the connection this transaction
        works for: the connection's MQCMIT finds it by its row id."""
        if self._note_put is not None:
            self._note_put(message_id)

    def after_commit(self, action: Callable[[], None]) -> None:
        """Run ``action`` once the transaction has committed (not if it rolls back)."""
        self._after.append(action)

    def __enter__(self) -> Transaction:
        if self.writable:
            store.begin_write(self.db, self._durable, putting=self._putting)
        else:
            store.begin_read(self.db)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # raises a SQLite failure translated; the gets that wait are woken as soon as the
        # COMMIT is done (while a durable one waits for its fsync): a get that takes the
        # message commits after this one, so its fsync covers both
        store.end(self.db, exc, putting=self._putting, committed=self._wake if self._ring else None)
        if exc is None:
            for action in self._after:
                action()

    def _wake(self) -> None:
        wakeup.ring()
        directory = getattr(self.db, "directory", None)
        if directory is not None:
            bells.ring_others(directory)


def writing(
    db: sqlite3.Connection,
    qmgr_name: str,
    *,
    conn_id: str | None = None,
    durable: bool = True,
    putting: bool = False,
) -> Transaction:
    """One write transaction (see :func:`.store.write` for ``durable`` and ``putting``);
    its side effects run after COMMIT."""
    return Transaction(db, qmgr_name, conn_id=conn_id, durable=durable, putting=putting)


def reading(db: sqlite3.Connection, qmgr_name: str, *, conn_id: str | None = None) -> Transaction:
    """A read-only snapshot (see :func:`.store.read`) seen through a Transaction."""
    return Transaction(db, qmgr_name, conn_id=conn_id, writable=False)
