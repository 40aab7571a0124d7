"""Queue lookup, the put path and expiry discard, shared by MQI calls and administration.

Every function here runs inside a write transaction the caller opened, so each MQI call
is atomic across processes.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import definitions
from mqjms.semantics.attributes import MODEL
from mqjms.semantics.deadletter import dead_letter_message
from mqjms.semantics.put import (
    check_depth,
    check_md_for_put,
    check_put_allowed,
    put_date_time,
    queue_priority,
    resolve_defaults,
)

from . import messages, store, xmitq

log = get_logger("mqjms.qmgr")


@dataclass(slots=True)
class QueueRow:
    """A row of the queues table; a :class:`~mqjms.semantics.definitions.QueueDefinition`."""

    name: str
    qtype: str
    attrs: dict[str, int | str | bool]
    depth: int
    deftype: str | None
    owner: str | None


@functools.lru_cache(maxsize=1024)
def _parsed(raw: str) -> dict[str, int | str | bool]:
    """Definitions change rarely: parse each stored JSON text once (callers copy)."""
    parsed: dict[str, int | str | bool] = json.loads(raw)
    return parsed


def load(db: sqlite3.Connection, name: str) -> QueueRow | None:
    row = db.execute(
        "SELECT name, qtype, attrs, depth, deftype, owner FROM queues WHERE name = ?", (name,)
    ).fetchone()
    if row is None:
        return None
    return QueueRow(row[0], row[1], dict(_parsed(row[2])), int(row[3]), row[4], row[5])


def require(db: sqlite3.Connection, name: str) -> QueueRow:
    return definitions.require(name, functools.partial(load, db))


def resolve(db: sqlite3.Connection, name: str) -> tuple[QueueRow, QueueRow]:
    """(the queue named, the local queue it resolves to). An alias resolves to its TARGET."""
    return definitions.resolve(name, functools.partial(load, db))


def qmgr_attr(db: sqlite3.Connection, name: str) -> int | str | bool:
    row = db.execute("SELECT value FROM meta WHERE key = 'qmgr_attrs'").fetchone()
    attrs = _parsed(row[0]) if row else {}
    from mqjms.semantics.attributes import QMGR_ATTR_BY_NAME

    return attrs.get(name, QMGR_ATTR_BY_NAME[name].default)


def put_message(
    db: sqlite3.Connection,
    qmgr_name: str,
    stamp: int,
    named: QueueRow,
    base: QueueRow,
    md: MQMD,
    data: bytes,
    *,
    uow: str | None,
    now: float,
    new_msg_id: bool,
    release_on_backout: bool = False,
) -> MQMD:
    """Checks, resolves and stores one message; returns the MQMD as stored.

    The MQMD keeps the putter's Priority; where the message is placed, and what trigger
    conditions compare with TRIGMPRI, is :func:`~mqjms.semantics.put.queue_priority`.
    """
    if named.qtype == MODEL:
        raise failed(
            C.MQRC_Q_TYPE_ERROR, f"{named.name!r} is a model queue: open it to get a dynamic queue"
        )
    check_md_for_put(md)
    xmitq.check_put(md, data, base.name, base.attrs.get("USAGE"))
    check_put_allowed(named, base, len(data), int(qmgr_attr(db, "MAXMSGL")))
    check_depth(base, base.depth)
    resolve_defaults(
        md,
        named,
        qmgr_name=qmgr_name,
        qmgr_ccsid=int(qmgr_attr(db, "CCSID")),
        new_msg_id=new_msg_id,
        msg_ids=messages.make_msg_id,
    )
    priority = queue_priority(md, base)
    if base.attrs.get("TRIGGER"):
        from . import triggers

        triggers.on_put(
            db, triggers.Context(qmgr_name, stamp, now), base.name, base.attrs, priority, uow
        )
    row_id = messages.insert(
        db,
        base.name,
        md,
        data,
        state=store.PUT_IN_UOW if uow else store.AVAILABLE,
        uow=uow,
        expires=messages.expires_at(md.Expiry, now),
        release_on_backout=release_on_backout,
        priority=priority,
    )
    xmitq.record_arrival(db, row_id, md, now)
    base.depth += 1
    return md


def discard_expired(
    db: sqlite3.Connection,
    qmgr_name: str,
    stamp: int,
    expired: list[messages.StoredMessage],
    now: float,
) -> None:
    """Discard expired messages, sending any expiration report they asked for.

    Seed 000 note 4: the discard and the report are never part of the caller's unit of
    work; callers run this in a transaction of its own or commit it with the get's row
    changes, which are not the unit of work either.
    """
    for msg in expired:
        db.execute("DELETE FROM messages WHERE id = ?", (msg.id,))
        original = MQMD.unpack(msg.md_bytes)
        log.info(
            "message.expired",
            queue=msg.queue,
            msg_id=original.MsgId.hex(),
            expiry=original.Expiry,
        )
        report = messages.expiration_report(msg)
        if report is None:
            continue
        md, data = report
        md.PutApplName = qmgr_name[:28]
        md.PutDate, md.PutTime = put_date_time(now)
        try:
            named, base = resolve(db, original.ReplyToQ.strip())
            put_message(
                db,
                qmgr_name,
                stamp,
                named,
                base,
                md,
                data,
                uow=None,
                now=now,
                new_msg_id=md.MsgId == C.MQMI_NONE,
            )
        except MQError as exc:  # an undeliverable report is dead-lettered, as MQ does
            dead_letter_report(
                db,
                qmgr_name,
                stamp,
                md,
                data,
                exc.reason,
                now,
                dest=(original.ReplyToQ.strip(), original.ReplyToQMgr.strip()),
            )
        except Exception as exc:  # a report must never fail the get that discarded
            log.warning(
                "expiry.report_failed",
                queue=msg.queue,
                reply_to=original.ReplyToQ,
                msg_id=original.MsgId.hex(),
                reason=repr(exc),
            )


def dead_letter_report(
    db: sqlite3.Connection,
    qmgr_name: str,
    stamp: int,
    md: MQMD,
    data: bytes,
    reason: int,
    now: float,
    dest: tuple[str, str],
) -> None:
    """Put a report that could not reach its ReplyToQ to the dead-letter queue (MQDLH)."""
    dl_md, dl_data = dead_letter_message(
        md,
        data,
        reason=reason,
        dest_queue=dest[0],
        dest_qmgr=dest[1] or qmgr_name,
        appl_name=qmgr_name,
        appl_type=C.MQAT_QMGR,
        now=now,
    )
    deadq = str(qmgr_attr(db, "DEADQ")).strip()
    try:
        named, base = resolve(db, deadq)
        put_message(
            db,
            qmgr_name,
            stamp,
            named,
            base,
            dl_md,
            dl_data,
            uow=None,
            now=now,
            new_msg_id=False,
        )
        log.warning(
            "expiry.report_dead_lettered", reply_to=dest[0], dead_letter_queue=deadq, reason=reason
        )
    except MQError as exc:
        log.error(
            "expiry.report_lost",
            reply_to=dest[0],
            dead_letter_queue=deadq,
            reason=exc.reason_name,
            detail=exc.detail,
        )


def scan_expired(
    db: sqlite3.Connection, qmgr_name: str, stamp: int, now: float, queue: str | None = None
) -> int:
    """Discard every expired, available message (EXPRYINT scan, REFRESH QMGR TYPE(EXPIRY))."""
    sql = (
        f"SELECT {messages.SELECT_COLUMNS} FROM messages WHERE expires IS NOT NULL"
        " AND expires <= ? AND state = ?"
    )
    params: list[object] = [now + 0.0999, store.AVAILABLE]
    if queue is not None:
        sql += " AND queue = ?"
        params.append(queue)
    rows = [messages.from_row(r) for r in db.execute(sql, params).fetchall()]
    expired = [m for m in rows if messages.is_expired(m.expires, now)]
    discard_expired(db, qmgr_name, stamp, expired, now)
    return len(expired)
