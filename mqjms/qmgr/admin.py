"""Administration of the embedded queue manager: what MQSC's commands do (DEFINE, ALTER,
DELETE, CLEAR, DISPLAY of queues, process definitions and the queue manager; REFRESH
QMGR TYPE(EXPIRY)), in Python.

:class:`Administration` is part of :class:`~.manager.QueueManager`; it works on the queue
manager's own database connection, one thread at a time (:meth:`_database`), and each
change is one :class:`~.transaction.Transaction`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
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
    REMOTE,
    default_queue_attrs,
    normalize,
    normalize_process_attrs,
    normalize_queue_attrs,
    validate_name,
)

from . import catalog, expiry, meta, processes, queues, store, triggers
from .failures import translating
from .naming import matches, queue_type
from .space import SpaceReserve, with_room
from .transaction import Transaction, writing

log = get_logger("mqjms.qmgr")

SYSTEM_DEFAULTS = {
    LOCAL: "SYSTEM.DEFAULT.LOCAL.QUEUE",
    ALIAS: "SYSTEM.DEFAULT.ALIAS.QUEUE",
    MODEL: "SYSTEM.DEFAULT.MODEL.QUEUE",
    REMOTE: "SYSTEM.DEFAULT.REMOTE.QUEUE",
}


@translating
class Administration:
    """The queue manager's administrative interface (a part of QueueManager)."""

    name: str
    _db: sqlite3.Connection
    _lock: threading.RLock
    reserve: SpaceReserve | None
    _closed: bool
    recover_abandoned: Callable[[], int]  # QueueManager's: a dead process's work backed out

    def _live(self) -> None:
        """Before a read of what connections hold (depths, open handles, units of work):
        the connections of processes that died are ended first, as the next get's or
        connect's look would, so the figures are those of the living."""
        self.recover_abandoned()

    @contextmanager
    def _database(self) -> Iterator[sqlite3.Connection]:
        """The queue manager's own connection, for one thread at a time, and never once
        the queue manager is closed (another thread's close waits for this use to end)."""
        with self._lock:
            if self._closed:
                raise failed(C.MQRC_Q_MGR_NOT_AVAILABLE, f"queue manager {self.name} is closed")
            yield self._db

    def _with_room(self, batch: Callable[[], int]) -> int:
        """One of REFRESH expiry's batches: discards free the disk, so on a full one they
        may use the room kept for draining (space.with_room), for a second at most."""
        with self._database() as db:
            return with_room(db, self.reserve, batch, patience=1.0)

    @contextmanager
    def _writing(self, durable: bool = True) -> Iterator[Transaction]:
        """One write transaction on the queue manager's own connection."""
        with self._database() as db, writing(db, self.name, durable=durable) as tx:
            yield tx

    # ------------------------------------------------------------------ queues
    def define_queue(
        self,
        qtype: str,
        name: str,
        attrs: Mapping[str, object] | None = None,
        *,
        like: str | None = None,
        replace: bool = False,
    ) -> None:
        """DEFINE QLOCAL|QALIAS|QMODEL|QREMOTE(name) [LIKE(q)] [REPLACE] attrs."""
        qtype = queue_type(qtype)
        validate_name(name)
        given = normalize_queue_attrs(qtype, attrs or {})
        with self._writing() as tx:
            base_name = like or SYSTEM_DEFAULTS[qtype]
            base = catalog.load(tx.db, base_name)
            if base is None and like is None:  # made before mqjms had it: MQ's defaults
                base = catalog.QueueRow(base_name, qtype, {}, 0, None, None)
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
            existing = catalog.load(tx.db, name)
            if existing is None:
                catalog.insert(tx.db, name, qtype, merged)
            else:
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
                catalog.update_attrs(tx.db, name, merged)
                if qtype == LOCAL:
                    queues.write_trigger_messages(
                        tx, triggers.on_alter(tx, name, existing.attrs, merged)
                    )
        log.info("qmgr.queue_defined", queue=name, qtype=qtype, replace=replace)

    def alter_queue(self, name: str, attrs: Mapping[str, object], qtype: str | None = None) -> None:
        """ALTER QLOCAL|QALIAS|QMODEL|QREMOTE(name) attrs."""
        validate_name(name)
        with self._writing() as tx:
            found = _require_queue(tx, name, qtype)
            before = dict(found.attrs)
            found.attrs.update(normalize_queue_attrs(found.qtype, attrs))
            catalog.update_attrs(tx.db, name, found.attrs)
            if found.qtype == LOCAL:
                queues.write_trigger_messages(tx, triggers.on_alter(tx, name, before, found.attrs))
            tx.wake_getters()  # e.g. GET(ENABLED): the waiting gets look again
        log.info("qmgr.queue_altered", queue=name, attrs=dict(attrs))

    def delete_queue(self, name: str, qtype: str | None = None, *, purge: bool = False) -> None:
        """DELETE QLOCAL(name) [PURGE]: refused while open, while messages are in units of
        work not yet ended, or not empty without PURGE."""
        validate_name(name)
        with self._writing() as tx:
            found = _require_queue(tx, name, qtype)
            _refuse_if_open(tx.db, name)
            if found.depth and not purge:
                raise failed(
                    C.MQRC_Q_NOT_EMPTY,
                    f"queue {name!r} holds {found.depth} messages (add PURGE to delete them)",
                )
            # messages in units of work not yet ended (out of CURDEPTH when got): never
            # purged from under their unit of work, as on IBM MQ
            held = tx.db.execute(
                "SELECT 1 FROM messages INDEXED BY messages_uow WHERE uow IS NOT NULL"
                " AND queue = ? AND state IN (?, ?) LIMIT 1",
                (name, store.GOT_IN_UOW, store.PUT_IN_UOW),
            ).fetchone()
            if held is not None:
                raise failed(
                    C.MQRC_Q_NOT_EMPTY,
                    f"queue {name!r} has messages in units of work not yet committed or"
                    " backed out: end them first",
                )
            catalog.delete(tx.db, name)
        log.info("qmgr.queue_deleted", queue=name, purge=purge)

    def clear_queue(self, name: str) -> int:
        """CLEAR QLOCAL(name): refused while open or holding uncommitted messages."""
        validate_name(name)
        with self._writing() as tx:
            found = catalog.require(tx.db, name)
            if found.qtype != LOCAL:
                raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {name!r} is a {found.qtype}")
            _refuse_if_open(tx.db, name)
            if catalog.holds_messages_in_flight(tx.db, name):
                raise failed(C.MQRC_OBJECT_IN_USE, f"queue {name!r} has uncommitted messages")
            cleared = catalog.clear(tx.db, name, held=False)
        log.info("qmgr.queue_cleared", queue=name, messages=cleared)
        return int(cleared)

    def queue_names(self, pattern: str = "*", qtype: str = "QUEUE") -> list[str]:
        kinds = QUEUE_TYPES if qtype.upper() in ("QUEUE", "Q") else (queue_type(qtype),)
        with self._database() as db:
            rows = db.execute("SELECT name, qtype FROM queues ORDER BY name").fetchall()
        return [n for n, t in rows if t in kinds and matches(pattern, n)]

    def display_queues(
        self, pattern: str = "*", qtype: str = "QUEUE", attrs: Sequence[str] | None = None
    ) -> list[dict[str, int | str | bool]]:
        """DISPLAY QUEUE|QLOCAL|QALIAS|QMODEL|QREMOTE(pattern) [ALL | attrs]: one dict per queue,
        in MQSC order (QUEUE, TYPE, then the attributes). ``attrs=None`` means ALL."""
        wanted = [a.upper() for a in attrs] if attrs is not None else None
        if wanted is not None:
            for a in wanted:
                if a not in QUEUE_ATTR_BY_NAME and a not in ("QUEUE", "TYPE", "QTYPE", "ALL"):
                    raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"{a} is not a queue attribute")
            if "ALL" in wanted:
                wanted = None
        out: list[dict[str, int | str | bool]] = []
        self._live()
        for qname in self.queue_names(pattern, qtype):
            with self._database() as db:
                row = catalog.load(db, qname)
                live = {} if row is None else catalog.status(db, row)
            if row is None:
                continue
            item: dict[str, int | str | bool] = {"QUEUE": row.name, "TYPE": row.qtype}
            for attr in QUEUE_ATTRS:
                if row.qtype not in attr.types:
                    continue
                if wanted is not None and attr.name not in wanted:
                    continue
                item[attr.name] = (
                    live[attr.name] if attr.readonly else row.attrs.get(attr.name, attr.default)
                )
            if row.qtype == LOCAL and (wanted is None or "DEFTYPE" in wanted):
                # shown, never set: how the queue came to be (WHERE(DEFTYPE EQ PREDEFINED)
                # leaves dynamic queues out of a listing)
                item["DEFTYPE"] = row.deftype or "PREDEFINED"
            out.append(item)
        return out

    def connections(self) -> list[dict[str, int | str | float]]:
        """The connections to this queue manager now (DISPLAY CONN): CONN (its id), PID,
        APPLTAG (the application name it puts as) and STARTED (epoch seconds)."""
        self._live()
        with self._database() as db:
            rows = db.execute(
                "SELECT id, pid, appl, started FROM connections ORDER BY started, id"
            ).fetchall()
        return [{"CONN": r[0], "PID": r[1], "APPLTAG": r[2], "STARTED": r[3]} for r in rows]

    def dynamic_queues(self) -> dict[str, str]:
        """The dynamic queues now, each with its DEFTYPE (TEMPDYN or PERMDYN): what
        INQUIRE_Q's DefinitionType tells apart from the predefined ones."""
        with self._database() as db:
            rows = db.execute(
                "SELECT name, deftype FROM queues WHERE deftype IS NOT NULL"
            ).fetchall()
        return {str(r[0]): str(r[1]) for r in rows}

    def queue_handles(self, name: str) -> list[dict[str, int | str]]:
        """The handles open on local queue ``name`` now (DISPLAY QSTATUS TYPE(HANDLE)):
        HOBJ, OPENOPTS (the input mode resolved: shared or exclusive), CONN, PID and
        APPLTAG of the connection that holds it."""
        self._live()
        with self._database() as db:
            rows = db.execute(
                "SELECT h.hobj, h.options, c.id, c.pid, c.appl FROM handles h"
                " LEFT JOIN connections c ON c.id = h.conn WHERE h.queue = ? ORDER BY h.hobj",
                (name,),
            ).fetchall()
        return [
            {
                "HOBJ": int(r[0]),
                "OPENOPTS": int(r[1]),
                "CONN": str(r[2] or ""),
                "PID": int(r[3] or 0),
                "APPLTAG": str(r[4] or ""),
            }
            for r in rows
        ]

    def uncommitted_messages(self, name: str) -> int:
        """UNCOM: the messages put or got on queue ``name`` in units of work not yet
        committed or backed out."""
        self._live()
        with self._database() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM messages INDEXED BY messages_uow"
                " WHERE uow IS NOT NULL AND queue = ?",
                (name,),
            ).fetchone()
        return int(row[0])

    def got_in_units_of_work(self, name: str) -> int:
        """The messages of queue ``name`` got in units of work not yet committed or backed
        out: on the queue still, out of CURDEPTH."""
        self._live()
        with self._database() as db:
            row = db.execute(
                "SELECT COUNT(*) FROM messages INDEXED BY messages_uow"
                " WHERE uow IS NOT NULL AND queue = ? AND state = ?",
                (name, store.GOT_IN_UOW),
            ).fetchone()
        return int(row[0])

    def queue_backlog(self, name: str) -> int:
        """CURDEPTH plus the messages got in units of work not yet ended: every message
        still on the queue, read in one statement (one snapshot: a backout between two
        reads would count a message twice)."""
        self._live()
        with self._database() as db:
            row = db.execute(
                "SELECT depth + (SELECT COUNT(*) FROM messages INDEXED BY messages_uow"
                " WHERE uow IS NOT NULL AND queue = ?1 AND state = ?2)"
                " FROM queues WHERE name = ?1",
                (name, store.GOT_IN_UOW),
            ).fetchone()
            if row is None:
                catalog.require(db, name)  # no such queue: 2085, as queue_depth says
        return int(row[0])

    def queue_depth(self, name: str) -> int:
        """CURDEPTH as IBM MQ counts it: committed messages and uncommitted puts, not the
        messages got in units of work not yet ended; expired ones included (seed 000 note 2)."""
        self._live()
        with self._database() as db:
            return int(catalog.require(db, name).depth)

    def refresh_expiry(self, pattern: str = "*") -> int:
        """REFRESH QMGR TYPE(EXPIRY) NAME(pattern): discard expired messages now."""
        names = [q["QUEUE"] for q in self.display_queues(pattern, LOCAL, ["QUEUE"])]
        total = 0
        for qname in names:
            total += expiry.scan_all(self._writing, str(qname), room=self._with_room)
        log.info("expiry.refreshed", qmgr=self.name, pattern=pattern, discarded=total)
        return total

    # ------------------------------------------------------------------ the queue manager
    def alter_qmgr(self, attrs: Mapping[str, object]) -> None:
        """ALTER QMGR attrs (DEADQ, EXPRYINT, TRIGINT, MAXMSGL, DESCR, CCSID)."""
        changes: dict[str, int | str | bool] = {}
        for key, value in attrs.items():
            attr = QMGR_ATTR_BY_NAME.get(key.upper())
            if attr is None:
                raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"{key} is not a queue manager attribute")
            changes[attr.name] = normalize(attr, value)
        with self._writing() as tx:
            stored = meta.qmgr_attrs(tx.db)
            stored.update(changes)
            meta.set_qmgr_attrs(tx.db, stored)
            tx.wake_getters()  # and the expiry scanner, asleep until EXPRYINT is due
        log.info("qmgr.altered", qmgr=self.name, attrs=changes)

    def display_qmgr(self, attrs: Iterable[str] | None = None) -> dict[str, int | str | bool]:
        with self._database() as db:
            stored = meta.qmgr_attrs(db)
            out: dict[str, int | str | bool] = {"QMNAME": str(meta.get(db, "qmgr_name"))}
        wanted = {a.upper() for a in attrs} if attrs is not None else None
        if wanted is not None and "ALL" in wanted:
            wanted = None
        for attr in QMGR_ATTRS:
            if wanted is None or attr.name in wanted:
                out[attr.name] = meta.qmgr_attr(stored, attr.name)
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
        with self._writing() as tx:
            merged: dict[str, int | str | bool] = {a.name: a.default for a in PROCESS_ATTRS}
            if like:
                base = processes.load(tx.db, like)
                if base is None:
                    raise failed(
                        C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE process {like!r} is not defined"
                    )
                merged.update(base)
            merged.update(given)
            if processes.load(tx.db, name) is not None and not replace:
                raise failed(
                    C.MQRCCF_OBJECT_ALREADY_EXISTS,
                    f"process {name!r} already exists (add REPLACE to redefine it)",
                )
            processes.save(tx.db, name, merged, catalog.stamp())
        log.info("qmgr.process_defined", process=name, replace=replace)

    def alter_process(self, name: str, attrs: Mapping[str, object]) -> None:
        validate_name(name, "process")
        changes = normalize_process_attrs(attrs)
        with self._writing() as tx:
            current = processes.load(tx.db, name)
            if current is None:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name!r} is not defined")
            current.update(changes)
            processes.save(tx.db, name, current, catalog.stamp())
        log.info("qmgr.process_altered", process=name, attrs=changes)

    def delete_process(self, name: str) -> None:
        validate_name(name, "process")
        with self._writing() as tx:
            if not processes.delete(tx.db, name):
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"process {name!r} is not defined")
        log.info("qmgr.process_deleted", process=name)

    def display_processes(
        self, pattern: str = "*", attrs: Sequence[str] | None = None
    ) -> list[dict[str, int | str | bool]]:
        """DISPLAY PROCESS(pattern) [ALL | attrs]: one dict per process, PROCESS first."""
        wanted = [a.upper() for a in attrs] if attrs is not None else None
        if wanted is not None and "ALL" in wanted:
            wanted = None
        with self._database() as db:
            found = processes.every(db)
        out: list[dict[str, int | str | bool]] = []
        for name, stored in found:
            if not matches(pattern, name):
                continue
            item: dict[str, int | str | bool] = {"PROCESS": name}
            for attr in PROCESS_ATTRS:
                if wanted is None or attr.name in wanted:
                    item[attr.name] = stored.get(attr.name, attr.default)
            out.append(item)
        return out


def _require_queue(tx: Transaction, name: str, qtype: str | None) -> catalog.QueueRow:
    """The queue ``name``, which must be a ``qtype`` when one is given (ALTER QLOCAL...)."""
    found = catalog.require(tx.db, name)
    if qtype is not None and queue_type(qtype) != found.qtype:
        raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {name!r} is a {found.qtype}, not {qtype}")
    return found


def _refuse_if_open(db: sqlite3.Connection, name: str) -> None:
    if db.execute("SELECT 1 FROM handles WHERE queue = ? LIMIT 1", (name,)).fetchone():
        raise failed(C.MQRC_OBJECT_IN_USE, f"queue {name!r} is open; close it first")
