"""Trigger events (seed 003, "Conditions for a trigger event").

The queue manager writes a trigger message (an MQTM, Format MQTRIG, non-persistent,
Expiry MQEI_UNLIMITED: seed 000 note 8) to an application queue's initiation queue when
the seed's conditions hold. The events are: a message put (items 1-11), the only
application serving the queue closing it (item 12), and ALTERs, a get-enabled
application queue, a put-enabled initiation queue and a trigger monitor opening the
initiation queue (item 13). Every function here runs inside the caller's write
transaction; "previously on the queue" counts committed and uncommitted messages alike
(item 3 note 1).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.mq.tm import MQTM
from mqjms.semantics.attributes import LOCAL, appl_type_value

from . import store

log = get_logger("mqjms.qmgr")

TRIGGER_ATTRS = ("TRIGTYPE", "TRIGMPRI", "TRIGDPTH")


@dataclass(frozen=True, slots=True)
class Context:
    qmgr_name: str
    stamp: int
    now: float


@dataclass(frozen=True, slots=True)
class _Target:
    initq: str
    process_name: str  # "" for a transmission queue with no process (item 6)
    process: dict[str, int | str | bool] | None


def _qualifying(
    db: sqlite3.Connection, queue: str, min_priority: int, limit: int, exclude_got: bool = False
) -> int:
    """Messages on ``queue`` with priority >= TRIGMPRI (item 2), counted up to ``limit``."""
    sql = "SELECT COUNT(*) FROM (SELECT 1 FROM messages WHERE queue = ? AND priority >= ?"
    params: list[object] = [queue, min_priority]
    if exclude_got:
        sql += " AND state != ?"
        params.append(store.GOT_IN_UOW)
    sql += " LIMIT ?)"
    params.append(limit)
    return int(db.execute(sql, params).fetchone()[0])


def _input_count(db: sqlite3.Connection, queue: str) -> int:
    """OpenInputCount (IPPROCS)."""
    return int(
        db.execute(
            "SELECT COUNT(*) FROM handles WHERE queue = ? AND options & ? != 0",
            (queue, C.MQOO_INPUT_MASK),
        ).fetchone()[0]
    )


def _load(
    db: sqlite3.Connection, name: str
) -> tuple[str, dict[str, int | str | bool], str | None] | None:
    row = db.execute("SELECT qtype, attrs, deftype FROM queues WHERE name = ?", (name,)).fetchone()
    return None if row is None else (row[0], json.loads(row[1]), row[2])


def _conditions(
    db: sqlite3.Connection,
    name: str,
    attrs: dict[str, int | str | bool],
    *,
    check_input: bool = True,
    check_get: bool = True,
    check_monitor: bool = True,
) -> _Target | None:
    """Conditions 4-10 for the application queue ``name``; the trigger target if they hold."""
    if not attrs.get("TRIGGER"):  # condition 9: TriggerControl MQTC_ON
        return None
    trigtype = attrs.get("TRIGTYPE", "FIRST")
    if trigtype == "NONE":  # condition 10
        return None
    # condition 4: FIRST and DEPTH need OpenInputCount zero
    if check_input and trigtype in ("FIRST", "DEPTH") and _input_count(db, name) > 0:
        return None
    # condition 5: get requests are not inhibited
    if check_get and attrs.get("GET", "ENABLED") != "ENABLED":
        return None
    # condition 6: a process definition, or a transmission queue with a blank process
    process_name = str(attrs.get("PROCESS", "")).strip()
    process: dict[str, int | str | bool] | None = None
    if process_name:
        row = db.execute("SELECT attrs FROM processes WHERE name = ?", (process_name,)).fetchone()
        if row is None:
            return None
        process = json.loads(row[0])
    elif attrs.get("USAGE") != "XMITQ":
        return None
    # condition 7: the initiation queue exists, get and put allowed, usage normal
    initq_name = str(attrs.get("INITQ", "")).strip()
    initq = _load(db, initq_name) if initq_name else None
    if initq is None or initq[0] != LOCAL:
        return None
    initq_attrs = initq[1]
    if initq_attrs.get("GET") != "ENABLED" or initq_attrs.get("PUT") != "ENABLED":
        return None
    if initq_attrs.get("USAGE", "NORMAL") != "NORMAL":
        return None
    # condition 8: a trigger monitor has the initiation queue open for input
    if check_monitor and _input_count(db, initq_name) == 0:
        return None
    return _Target(initq_name, process_name, process)


def _enough(
    db: sqlite3.Connection, name: str, attrs: dict[str, int | str | bool], exclude_got: bool = False
) -> bool:
    """At least one (FIRST, EVERY) or TriggerDepth (DEPTH) qualifying messages (items 12, 13)."""
    need = int(attrs.get("TRIGDPTH", 1)) if attrs.get("TRIGTYPE") == "DEPTH" else 1
    priority = int(attrs.get("TRIGMPRI", 0))
    return _qualifying(db, name, priority, need, exclude_got) >= need


def on_put(
    db: sqlite3.Connection,
    ctx: Context,
    name: str,
    attrs: dict[str, int | str | bool],
    priority: int,
    uow: str | None,
) -> None:
    """Items 1-11: a message of ``priority`` is about to be put on local queue ``name``."""
    if not attrs.get("TRIGGER"):
        return
    trigtype = attrs.get("TRIGTYPE", "FIRST")
    min_priority = int(attrs.get("TRIGMPRI", 0))
    if priority < min_priority:  # condition 2 (TRIGMPRI 0: any message qualifies)
        return
    depth = int(attrs.get("TRIGDPTH", 1))
    if trigtype == "FIRST":
        previously = _qualifying(db, name, min_priority, 1)
        # condition 3 (zero before), or item 11: not empty before and TRIGINT has elapsed
        if previously and not _interval_elapsed(db, ctx, name):
            return
    elif trigtype == "DEPTH":
        previously = _qualifying(db, name, min_priority, depth)
        if previously < depth - 1:  # condition 3: TriggerDepth - 1 before this one
            return
    elif trigtype != "EVERY":
        return
    target = _conditions(db, name, attrs)
    if target is not None:
        # item 10: in a unit of work the trigger message waits for it to end, and a
        # FIRST or DEPTH trigger message is released by a backout as well
        _write(db, ctx, name, attrs, target, uow=uow, release_on_backout=trigtype != "EVERY")


def _interval_elapsed(db: sqlite3.Connection, ctx: Context, name: str) -> bool:
    row = db.execute("SELECT last FROM trigger_times WHERE queue = ?", (name,)).fetchone()
    if row is None:
        return True
    trigint_ms = int(_qmgr_attr(db, "TRIGINT"))
    return (ctx.now - float(row[0])) * 1000 >= trigint_ms


def _qmgr_attr(db: sqlite3.Connection, name: str) -> int | str | bool:
    from .queues import qmgr_attr

    return qmgr_attr(db, name)


def on_close(db: sqlite3.Connection, ctx: Context, name: str) -> None:
    """Item 12: the only application serving the queue closed it with messages left.

    Messages the closer still holds in its unit of work do not count (note 2: closing
    before backing out leaves an otherwise empty queue untriggered).
    """
    found = _load(db, name)
    if found is None or found[0] != LOCAL:
        return
    attrs = found[1]
    if attrs.get("TRIGTYPE") not in ("FIRST", "DEPTH") or _input_count(db, name) > 0:
        return
    if not _enough(db, name, attrs, exclude_got=True):
        return
    target = _conditions(db, name, attrs, check_get=False)
    if target is not None:
        _write(db, ctx, name, attrs, target)


def on_alter(
    db: sqlite3.Connection,
    ctx: Context,
    name: str,
    before: dict[str, int | str | bool],
    after: dict[str, int | str | bool],
) -> None:
    """Item 13: trigger attributes changed, an application queue became get-enabled, or an
    initiation queue became put-enabled. One trigger message per queue (note 1)."""
    turned_on = bool(after.get("TRIGGER")) and not before.get("TRIGGER")
    # TRIGDPTH matters only "if relevant": for a DEPTH trigger (item 13)
    relevant = (
        TRIGGER_ATTRS
        if "DEPTH" in (before.get("TRIGTYPE"), after.get("TRIGTYPE"))
        else ("TRIGTYPE", "TRIGMPRI")
    )
    criteria_changed = bool(after.get("TRIGGER")) and any(
        before.get(key) != after.get(key) for key in relevant
    )
    if turned_on or criteria_changed:
        if _enough(db, name, after):
            # conditions 4 through 10 excluding 8
            target = _conditions(db, name, after, check_monitor=False)
            if target is not None:
                _write(db, ctx, name, after, target)
    elif (
        before.get("GET") == "DISABLED"
        and after.get("GET") == "ENABLED"
        and _enough(db, name, after)
    ):
        target = _conditions(db, name, after, check_get=False)  # 4-10 excluding 5
        if target is not None:
            _write(db, ctx, name, after, target)
    if before.get("PUT") == "DISABLED" and after.get("PUT") == "ENABLED":
        for app_name, app_attrs in _served_by(db, name):
            if _enough(db, app_name, app_attrs):
                target = _conditions(db, app_name, app_attrs)  # conditions 4 through 10
                if target is not None:
                    _write(db, ctx, app_name, app_attrs, target)


def on_initq_open(db: sqlite3.Connection, ctx: Context, initq: str) -> None:
    """Item 13: a trigger monitor opened ``initq`` for input and nobody else had it open
    for input: one trigger message per application queue whose conditions already hold."""
    for app_name, app_attrs in _served_by(db, initq):
        if _enough(db, app_name, app_attrs):
            target = _conditions(db, app_name, app_attrs, check_monitor=False)
            if target is not None:
                _write(db, ctx, app_name, app_attrs, target)


def _served_by(db: sqlite3.Connection, initq: str) -> list[tuple[str, dict[str, int | str | bool]]]:
    rows = db.execute(
        "SELECT name, attrs FROM queues WHERE qtype = ? AND json_extract(attrs, '$.INITQ') = ?"
        " ORDER BY name",
        (LOCAL, initq),
    ).fetchall()
    return [(str(r[0]), json.loads(r[1])) for r in rows]


def trigger_message(
    name: str, attrs: dict[str, int | str | bool], target: _Target
) -> tuple[MQMD, bytes]:
    """The MQMD and MQTM of a trigger message for application queue ``name``."""
    process = target.process or {}
    tm = MQTM(
        QName=name,
        ProcessName=target.process_name,
        TriggerData=str(attrs.get("TRIGDATA", "")),
        ApplType=appl_type_value(process.get("APPLTYPE", "UNIX"))
        if target.process
        else C.MQAT_UNKNOWN,
        ApplId=str(process.get("APPLICID", "")),
        EnvData=str(process.get("ENVRDATA", "")),
        UserData=str(process.get("USERDATA", "")),
    )
    md = MQMD(
        Format=C.MQFMT_TRIGGER,
        Persistence=C.MQPER_NOT_PERSISTENT,
        Expiry=C.MQEI_UNLIMITED,  # seed 000 note 8: trigger messages never expire
        CodedCharSetId=C.CCSID_UTF8,
        Encoding=C.MQENC_NATIVE,
        PutApplType=C.MQAT_QMGR,
    )
    return md, tm.pack(C.MQENC_NATIVE)


def _write(
    db: sqlite3.Connection,
    ctx: Context,
    name: str,
    attrs: dict[str, int | str | bool],
    target: _Target,
    *,
    uow: str | None = None,
    release_on_backout: bool = False,
) -> None:
    from . import queues

    md, data = trigger_message(name, attrs, target)
    md.PutApplName = ctx.qmgr_name[:28]
    try:
        initq = queues.require(db, target.initq)
        queues.put_message(
            db,
            ctx.qmgr_name,
            ctx.stamp,
            initq,
            initq,
            md,
            data,
            uow=uow,
            now=ctx.now,
            new_msg_id=True,
            release_on_backout=release_on_backout,
        )
    except MQError as exc:
        log.warning(
            "trigger.not_written",
            queue=name,
            initq=target.initq,
            reason=exc.reason_name,
            detail=exc.detail,
        )
        return
    db.execute(
        "INSERT INTO trigger_times (queue, last) VALUES (?, ?)"
        " ON CONFLICT(queue) DO UPDATE SET last = excluded.last",
        (name, ctx.now),
    )
    if attrs.get("TRIGTYPE") == "DEPTH":
        # IBM MQ switches triggering off after a depth trigger; the server turns it back on
        attrs = dict(attrs, TRIGGER=False)
        db.execute("UPDATE queues SET attrs = ? WHERE name = ?", (json.dumps(attrs), name))
    log.info(
        "trigger.written",
        queue=name,
        initq=target.initq,
        process=target.process_name,
        trigtype=attrs.get("TRIGTYPE"),
        in_unit_of_work=uow is not None,
    )
