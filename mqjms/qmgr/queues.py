"""Queue lookup, the put path and expiry discard, shared by MQI calls and administration.

Every function here runs inside a write transaction the caller opened, so each MQI call
is atomic across processes.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD

from . import messages, store, xmitq
from .attributes import ALIAS, LOCAL, MODEL, validate_name

log = get_logger("mqjms.qmgr")

MAX_EXPIRY = 999_999_999
MAX_PRIORITY = 9  # the queue manager's MaxPriority (MQIA_MAX_PRIORITY)
# Report options whose reports go to the ReplyToQ (MQRO_PASS_*, DISCARD and the like do not).
REPORTS_NEEDING_REPLY_Q = (
    C.MQRO_EXCEPTION_MASK
    | C.MQRO_EXPIRATION_MASK
    | C.MQRO_COA_MASK
    | C.MQRO_COD_MASK
    | C.MQRO_PAN
    | C.MQRO_NAN
    | C.MQRO_ACTIVITY
)


@dataclass(slots=True)
class QueueRow:
    name: str
    qtype: str
    attrs: dict[str, int | str | bool]
    depth: int
    deftype: str | None
    owner: str | None

    def enabled(self, attr: str) -> bool:
        return self.attrs.get(attr, "ENABLED") == "ENABLED"


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
    validate_name(name)
    found = load(db, name)
    if found is None:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name!r} is not defined")
    return found


def resolve(db: sqlite3.Connection, name: str) -> tuple[QueueRow, QueueRow]:
    """(the queue named, the local queue it resolves to). An alias resolves to its TARGET."""
    named = require(db, name)
    if named.qtype != ALIAS:
        return named, named
    target = str(named.attrs.get("TARGET", "")).strip()
    base = load(db, target) if target else None
    if base is None:
        raise failed(
            C.MQRC_UNKNOWN_ALIAS_BASE_Q,
            f"alias queue {name!r} targets {target!r}, which is not defined",
        )
    if base.qtype != LOCAL:
        raise failed(
            C.MQRC_UNKNOWN_ALIAS_BASE_Q,
            f"alias queue {name!r} targets {target!r}, a {base.qtype}, not a local queue",
        )
    return named, base


def qmgr_attr(db: sqlite3.Connection, name: str) -> int | str | bool:
    row = db.execute("SELECT value FROM meta WHERE key = 'qmgr_attrs'").fetchone()
    attrs = _parsed(row[0]) if row else {}
    from .attributes import QMGR_ATTR_BY_NAME

    return attrs.get(name, QMGR_ATTR_BY_NAME[name].default)


def check_md_for_put(md: MQMD) -> None:
    """The MQMD checks MQPUT makes before anything else (seed 000 note 1: Expiry 0 fails)."""
    if md.Expiry == 0 or md.Expiry < C.MQEI_UNLIMITED:
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"Expiry {md.Expiry} is not valid: give tenths of a second > 0 or MQEI_UNLIMITED (-1)",
        )
    if md.Priority < C.MQPRI_PRIORITY_AS_Q_DEF:
        raise failed(
            C.MQRC_PRIORITY_ERROR,
            f"Priority {md.Priority} is not valid: give 0-9 or -1 (MQPRI_PRIORITY_AS_Q_DEF)",
        )
    if md.Persistence not in (
        C.MQPER_NOT_PERSISTENT,
        C.MQPER_PERSISTENT,
        C.MQPER_PERSISTENCE_AS_Q_DEF,
    ):
        raise failed(
            C.MQRC_PERSISTENCE_ERROR,
            f"Persistence {md.Persistence} is not valid (0, 1 or 2 = as queue default)",
        )
    if md.Expiry > MAX_EXPIRY and os.environ.get("AMQ_ENFORCE_MAX_EXPIRY_ERROR") is not None:
        raise failed(  # seed 004 note 1: enforced only when the variable is exported
            C.MQRC_EXPIRY_ERROR,
            f"Expiry {md.Expiry} is more than 999 999 999 and AMQ_ENFORCE_MAX_EXPIRY_ERROR is set",
        )
    if md.MsgType < 1:
        raise failed(C.MQRC_MSG_TYPE_ERROR, f"MsgType {md.MsgType} is not valid")
    if not md.ReplyToQ.strip():
        if md.MsgType == C.MQMT_REQUEST:
            raise failed(C.MQRC_MISSING_REPLY_TO_Q, "a request message needs a ReplyToQ")
        if md.Report & REPORTS_NEEDING_REPLY_Q:
            raise failed(
                C.MQRC_MISSING_REPLY_TO_Q,
                f"Report {md.Report:#x} asks for report messages, which need a ReplyToQ",
            )


def put_checks(named: QueueRow, base: QueueRow, data: bytes, qmgr_maxmsgl: int) -> None:
    """PUT inhibited (2051), message too big (2030/2031), queue full (2053)."""
    for queue in (named, base):
        if not queue.enabled("PUT"):
            raise failed(C.MQRC_PUT_INHIBITED, f"queue {queue.name!r} is PUT(DISABLED)")
    if len(data) > int(base.attrs["MAXMSGL"]):
        raise failed(
            C.MQRC_MSG_TOO_BIG_FOR_Q,
            f"{len(data)} bytes is more than MAXMSGL({base.attrs['MAXMSGL']}) of {base.name!r}",
        )
    if len(data) > qmgr_maxmsgl:
        raise failed(
            C.MQRC_MSG_TOO_BIG_FOR_Q_MGR,
            f"{len(data)} bytes is more than the queue manager's MAXMSGL({qmgr_maxmsgl})",
        )
    if base.depth >= int(base.attrs["MAXDEPTH"]):
        raise failed(
            C.MQRC_Q_FULL, f"queue {base.name!r} is full: MAXDEPTH({base.attrs['MAXDEPTH']})"
        )


def resolve_defaults(md: MQMD, named: QueueRow) -> None:
    """Priority and persistence 'as queue default' take the named queue's DEFPRTY/DEFPSIST.

    Any other Priority stays in the MQMD as the putter gave it, even above MaxPriority:
    see :func:`queue_priority` for where the message is placed.
    """
    if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        md.Priority = int(named.attrs["DEFPRTY"])
    if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
        md.Persistence = (
            C.MQPER_PERSISTENT if named.attrs["DEFPSIST"] == "YES" else C.MQPER_NOT_PERSISTENT
        )


def queue_priority(md: MQMD, base: QueueRow) -> int:
    """The priority the queue gives the message, for ordering and trigger conditions.

    On a FIFO queue that is the queue's DEFPRTY (seed 003 item 14: "The priority of the
    message is ignored and the default priority of the queue is assigned to the
    message"); above MaxPriority it is MaxPriority (MQRC_PRIORITY_EXCEEDS_MAXIMUM: "placed
    on the queue at the queue manager's maximum priority"). The MQMD's Priority is left as
    the putter set it either way ("The Priority field in the message descriptor retains
    the value specified by the application that put the message").
    """
    if base.attrs.get("MSGDLVSQ") == "FIFO":
        return int(base.attrs.get("DEFPRTY", 0))
    return min(md.Priority, MAX_PRIORITY)


def priority_warning(md: MQMD) -> MQError | None:
    """MQCC_WARNING 2049 when a put's Priority is above MaxPriority (the put succeeds)."""
    if md.Priority <= MAX_PRIORITY:
        return None
    return MQError(
        C.MQCC_WARNING,
        C.MQRC_PRIORITY_EXCEEDS_MAXIMUM,
        f"Priority {md.Priority} is above MaxPriority {MAX_PRIORITY}: the message was put at "
        f"priority {MAX_PRIORITY} and keeps Priority {md.Priority} in its MQMD",
    )


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
    conditions compare with TRIGMPRI, is :func:`queue_priority`.
    """
    if named.qtype == MODEL:
        raise failed(
            C.MQRC_Q_TYPE_ERROR, f"{named.name!r} is a model queue: open it to get a dynamic queue"
        )
    check_md_for_put(md)
    xmitq.check_put(md, data, base.name, base.attrs.get("USAGE"))
    put_checks(named, base, data, int(qmgr_attr(db, "MAXMSGL")))
    resolve_defaults(md, named)
    if md.ReplyToQ.strip() and not md.ReplyToQMgr.strip():
        md.ReplyToQMgr = qmgr_name  # MQPUT fills a blank ReplyToQMgr with the local name
    if md.CodedCharSetId == C.MQCCSI_Q_MGR:  # MQ stores the queue manager's CCSID instead
        md.CodedCharSetId = int(qmgr_attr(db, "CCSID"))
    md.BackoutCount = 0
    if new_msg_id or md.MsgId == C.MQMI_NONE:
        md.MsgId = messages.make_msg_id(qmgr_name)
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
        report = messages.expiration_report(msg, now)
        if report is None:
            continue
        md, data = report
        md.PutApplName = qmgr_name[:28]
        md.PutDate, md.PutTime = messages.put_date_time(now)
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
    from mqjms.mq.dlh import MQDLH

    dlh = MQDLH(
        Reason=reason,
        DestQName=dest[0],
        DestQMgrName=dest[1] or qmgr_name,
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
        PutApplType=C.MQAT_QMGR,
        PutApplName=qmgr_name[:28],
        PutDate=md.PutDate,
        PutTime=md.PutTime,
    )
    dl_md = md.copy(
        Format=C.MQFMT_DEAD_LETTER_HEADER, Encoding=C.MQENC_NATIVE, CodedCharSetId=C.CCSID_UTF8
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
            dlh.pack() + data,
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
