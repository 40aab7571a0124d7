"""Trigger events (seed 003, "Conditions for a trigger event"): which trigger messages to
write, decided here and written by the queue layer.

The queue manager writes a trigger message (an MQTM, Format MQTRIG, non-persistent,
Expiry MQEI_UNLIMITED: seed 000 note 8) to an application queue's initiation queue when
the seed's conditions hold. The events are: a message put (items 1-11), the only
application serving the queue closing it (item 12), and ALTERs, a get-enabled
application queue, a put-enabled initiation queue and a trigger monitor opening the
initiation queue (item 13).

Each ``on_*`` function reads the state of the caller's transaction and returns the
:class:`TriggerMessage` decisions; it writes nothing. The queue layer puts them
(:func:`.queues.write_trigger_messages`) and, for each one written, calls :func:`record`,
which keeps what triggering itself remembers (the time for TRIGINT, a DEPTH trigger
switching TRIGGER off). "Previously on the queue" counts committed and uncommitted
messages alike (item 3 note 1).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.mq.tm import MQTM
from mqjms.semantics.attributes import LOCAL, appl_type_value

from . import catalog, processes, store
from .transaction import Transaction

log = get_logger("mqjms.qmgr")

TRIGGER_ATTRS = ("TRIGTYPE", "TRIGMPRI", "TRIGDPTH")
# item 3 note 1: committed and uncommitted messages count alike (and reserved ones)
_COUNT_AVAILABLE = (
    "SELECT COUNT(*) FROM (SELECT 1 FROM messages INDEXED BY messages_priority"
    f" WHERE queue = ? AND state = {store.AVAILABLE} AND priority >= ? LIMIT ?)"
)
_COUNT_HELD = (
    "SELECT COUNT(*) FROM (SELECT 1 FROM messages INDEXED BY messages_uow"
    " WHERE uow IS NOT NULL AND queue = ? AND priority >= ? LIMIT ?)"
)
_COUNT_HELD_EXCEPT_GOT = _COUNT_HELD.replace(
    "AND priority", f"AND state != {store.GOT_IN_UOW} AND priority"
)
Attrs = dict[str, int | str | bool]


@dataclass(frozen=True, slots=True)
class TriggerMessage:
    """A decision: write a trigger message for application queue ``queue`` to ``initq``."""

    queue: str
    attrs: Attrs  # the application queue's attributes when the event happened
    initq: str
    process_name: str  # "" for a transmission queue with no process (condition 6)
    process: Attrs | None
    #: Item 10: a put in a unit of work makes its trigger message part of that unit of work.
    uow: str | None = None
    #: Item 10: a FIRST or DEPTH trigger message is released by a backout as well.
    release_on_backout: bool = False

    def message(self, qmgr_name: str) -> tuple[MQMD, bytes]:
        """The MQMD and MQTM of the trigger message."""
        process = self.process or {}
        tm = MQTM(
            QName=self.queue,
            ProcessName=self.process_name,
            TriggerData=str(self.attrs.get("TRIGDATA", "")),
            ApplType=appl_type_value(process.get("APPLTYPE", "UNIX"))
            if self.process
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
            PutApplName=qmgr_name[:28],
        )
        return md, tm.pack(C.MQENC_NATIVE)


class HeldDecision(NamedTuple):
    """Trigger messages decided by a put of one trigger event (seed 003 note 2), kept
    until every put of the event is made: the event message's priority for triggering,
    and when the queue's last trigger message had been written as the put saw it
    (:func:`last_written`: None for none)."""

    priority: int
    last_seen: float | None
    decided: list[TriggerMessage]


def last_written(tx: Transaction, queue: str) -> float | None:
    """When the last trigger message for ``queue`` was written (``trigger_times``), None
    when none was since the queue manager started."""
    row = tx.db.execute("SELECT last FROM trigger_times WHERE queue = ?", (queue,)).fetchone()
    return None if row is None else float(row[0])


def _qualifying(
    tx: Transaction, queue: str, min_priority: int, limit: int, exclude_got: bool = False
) -> int:
    """Messages on ``queue`` with priority >= TRIGMPRI (item 2), counted up to ``limit``:
    the available ones, then those in flight (uncommitted, got in a unit of work unless
    ``exclude_got``, reserved), each through its own index (see store.DELIVERY_INDEXES)."""
    available = tx.db.execute(_COUNT_AVAILABLE, (queue, min_priority, limit)).fetchone()[0]
    if available >= limit:
        return int(available)
    held = _COUNT_HELD_EXCEPT_GOT if exclude_got else _COUNT_HELD
    in_flight = tx.db.execute(held, (queue, min_priority, limit - available)).fetchone()[0]
    return int(available + in_flight)


def _decide(
    tx: Transaction,
    name: str,
    attrs: Attrs,
    *,
    check_input: bool = True,
    check_get: bool = True,
    check_monitor: bool = True,
    uow: str | None = None,
    release_on_backout: bool = False,
) -> list[TriggerMessage]:
    """Conditions 4-10 for the application queue ``name``: its trigger message if they
    hold, none otherwise."""
    if not attrs.get("TRIGGER"):  # condition 9: TriggerControl MQTC_ON
        return []
    trigtype = attrs.get("TRIGTYPE", "FIRST")
    if trigtype == "NONE":  # condition 10
        return []
    # condition 4: FIRST and DEPTH need OpenInputCount zero
    if check_input and trigtype in ("FIRST", "DEPTH") and catalog.open_for_input(tx.db, name):
        return []
    # condition 5: get requests are not inhibited
    if check_get and attrs.get("GET", "ENABLED") != "ENABLED":
        return []
    # condition 6: a process definition, or a transmission queue with a blank process
    process_name = str(attrs.get("PROCESS", "")).strip()
    process: Attrs | None = None
    if process_name:
        process = processes.load(tx.db, process_name)
        if process is None:
            return []
    elif attrs.get("USAGE") != "XMITQ":
        return []
    # condition 7: the initiation queue exists, get and put allowed, usage normal
    initq_name = str(attrs.get("INITQ", "")).strip()
    initq = catalog.load(tx.db, initq_name) if initq_name else None
    if initq is None or initq.qtype != LOCAL:
        return []
    if initq.attrs.get("GET") != "ENABLED" or initq.attrs.get("PUT") != "ENABLED":
        return []
    if initq.attrs.get("USAGE", "NORMAL") != "NORMAL":
        return []
    # condition 8: a trigger monitor has the initiation queue open for input
    if check_monitor and not catalog.open_for_input(tx.db, initq_name):
        return []
    return [TriggerMessage(name, attrs, initq_name, process_name, process, uow, release_on_backout)]


def _enough(tx: Transaction, name: str, attrs: Attrs, exclude_got: bool = False) -> bool:
    """At least one (FIRST, EVERY) or TriggerDepth (DEPTH) qualifying messages (items 12, 13)."""
    need = int(attrs.get("TRIGDPTH", 1)) if attrs.get("TRIGTYPE") == "DEPTH" else 1
    priority = int(attrs.get("TRIGMPRI", 0))
    return _qualifying(tx, name, priority, need, exclude_got) >= need


def on_put(
    tx: Transaction,
    name: str,
    attrs: Attrs,
    priority: int,
    uow: str | None,
    *,
    survives_backout: bool = False,
) -> list[TriggerMessage]:
    """Items 1-11: a message of ``priority`` is about to be put on local queue ``name``.
    ``survives_backout``: the message itself is released, not removed, by a backout of
    ``uow`` (a FIRST or DEPTH trigger message, or one dead-lettered), so its own trigger
    message is too, whatever the TRIGTYPE: no message is left without its trigger."""
    if not attrs.get("TRIGGER"):
        return []
    trigtype = attrs.get("TRIGTYPE", "FIRST")
    min_priority = int(attrs.get("TRIGMPRI", 0))
    if priority < min_priority:  # condition 2 (TRIGMPRI 0: any message qualifies)
        return []
    depth = int(attrs.get("TRIGDPTH", 1))
    if trigtype == "FIRST":
        previously = _qualifying(tx, name, min_priority, 1)
        # condition 3 (zero before), or item 11: not empty before and TRIGINT has elapsed
        if previously and not _interval_elapsed(tx, name):
            return []
    elif trigtype == "DEPTH":
        previously = _qualifying(tx, name, min_priority, depth)
        if previously < depth - 1:  # condition 3: TriggerDepth - 1 before this one
            return []
    elif trigtype != "EVERY":
        return []
    # item 10: in a unit of work the trigger message waits for it to end, and a FIRST or
    # DEPTH trigger message is released by a backout as well
    release = trigtype != "EVERY" or survives_backout
    return _decide(tx, name, attrs, uow=uow, release_on_backout=release)


def _interval_elapsed(tx: Transaction, name: str) -> bool:
    row = tx.db.execute("SELECT last FROM trigger_times WHERE queue = ?", (name,)).fetchone()
    if row is None:
        return True
    trigint_ms = int(tx.qmgr_attr("TRIGINT"))
    return (tx.now - float(row[0])) * 1000 >= trigint_ms


def on_close(tx: Transaction, name: str) -> list[TriggerMessage]:
    """Item 12: the only application serving the queue closed it with messages left.

    Messages the closer still holds in its unit of work do not count (note 2: closing
    before backing out leaves an otherwise empty queue untriggered).
    """
    found = catalog.load(tx.db, name)
    if found is None or found.qtype != LOCAL:
        return []
    attrs = found.attrs
    if attrs.get("TRIGTYPE") not in ("FIRST", "DEPTH") or catalog.open_for_input(tx.db, name):
        return []
    if not _enough(tx, name, attrs, exclude_got=True):
        return []
    return _decide(tx, name, attrs, check_get=False)


def on_alter(tx: Transaction, name: str, before: Attrs, after: Attrs) -> list[TriggerMessage]:
    """Item 13: trigger attributes changed, an application queue became get-enabled, or an
    initiation queue became put-enabled. One trigger message per queue (note 1)."""
    decided: list[TriggerMessage] = []
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
        if _enough(tx, name, after):
            # conditions 4 through 10 excluding 8
            decided += _decide(tx, name, after, check_monitor=False)
    elif (
        before.get("GET") == "DISABLED"
        and after.get("GET") == "ENABLED"
        and _enough(tx, name, after)
    ):
        decided += _decide(tx, name, after, check_get=False)  # 4-10 excluding 5
    if before.get("PUT") == "DISABLED" and after.get("PUT") == "ENABLED":
        for app_name, app_attrs in _served_by(tx, name):
            if _enough(tx, app_name, app_attrs):
                decided += _decide(tx, app_name, app_attrs)  # conditions 4 through 10
    return decided


def on_initq_open(tx: Transaction, initq: str) -> list[TriggerMessage]:
    """Item 13: a trigger monitor opened ``initq`` for input and nobody else had it open
    for input: one trigger message per application queue whose conditions already hold."""
    decided: list[TriggerMessage] = []
    for app_name, app_attrs in _served_by(tx, initq):
        if _enough(tx, app_name, app_attrs):
            decided += _decide(tx, app_name, app_attrs, check_monitor=False)
    return decided


def _served_by(tx: Transaction, initq: str) -> list[tuple[str, Attrs]]:
    rows = tx.db.execute(
        "SELECT name, attrs FROM queues WHERE qtype = ? AND json_extract(attrs, '$.INITQ') = ?"
        " ORDER BY name",
        (LOCAL, initq),
    ).fetchall()
    return [(str(r[0]), json.loads(r[1])) for r in rows]


def redecide(tx: Transaction, held: HeldDecision, decided: TriggerMessage) -> list[TriggerMessage]:
    """A decision held since a put of one trigger event (seed 003 note 2), made again from
    the queue as it is now, under its conditions then: none when TRIGGER was switched off
    meanwhile (NOTRIGGER, or a DEPTH trigger message of another put), the event message's
    priority is below TRIGMPRI, a DEPTH queue holds fewer than TRIGDPTH qualifying
    messages, or another trigger message was written for the queue since (its
    ``trigger_times`` changed: another put's FIRST, or an ALTER of its TRIGTYPE, item 13,
    which covers the messages already there). A queue ALTERed to FIRST meanwhile writes
    none: whether it was empty before the event can no longer be told. Then conditions
    4-10 on the current attributes."""
    found = catalog.load(tx.db, decided.queue)
    if found is None or found.qtype != LOCAL or not found.attrs.get("TRIGGER"):
        return []
    attrs = found.attrs
    trigtype = attrs.get("TRIGTYPE", "FIRST")
    if held.priority < int(attrs.get("TRIGMPRI", 0)):  # condition 2, for the event's message
        return []
    changed = trigtype != decided.attrs.get("TRIGTYPE", "FIRST")
    written_since = last_written(tx, decided.queue) != held.last_seen
    if (trigtype == "FIRST" and (changed or written_since)) or (changed and written_since):
        return []
    if trigtype == "DEPTH" and not _enough(tx, decided.queue, attrs):  # condition 3
        return []
    return _decide(
        tx,
        decided.queue,
        attrs,
        uow=decided.uow,
        release_on_backout=decided.release_on_backout,
    )


def record(tx: Transaction, written: TriggerMessage) -> None:
    """What triggering remembers once a trigger message is written: when (TRIGINT, item
    11), and, after a DEPTH trigger, TRIGGER switched off as IBM MQ does (the server turns
    it back on)."""
    tx.db.execute(
        "INSERT INTO trigger_times (queue, last) VALUES (?, ?)"
        " ON CONFLICT(queue) DO UPDATE SET last = excluded.last",
        (written.queue, tx.now),
    )
    if written.attrs.get("TRIGTYPE") == "DEPTH":
        # only the flag: the attributes as they are now, not as the decision saw them (an
        # ALTER made since stays)
        tx.db.execute(
            "UPDATE queues SET attrs = json_set(attrs, '$.TRIGGER', json('false')) WHERE name = ?",
            (written.queue,),
        )
    log.info(
        "trigger.written",
        queue=written.queue,
        initq=written.initq,
        process=written.process_name,
        trigtype=written.attrs.get("TRIGTYPE"),
        in_unit_of_work=written.uow is not None,
    )
