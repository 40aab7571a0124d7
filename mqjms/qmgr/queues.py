"""The put path every message takes: an application's, a report's, a trigger message's.

Every function here runs inside the caller's :class:`~.transaction.Transaction`, so each
MQI call is atomic across processes. A put asks :mod:`.triggers` which trigger messages
it causes and writes them itself, through this same path: triggering decides, the queue
layer writes.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics.attributes import MODEL, REMOTE
from mqjms.semantics.deadletter import dead_letter_message
from mqjms.semantics.put import (
    check_depth,
    check_md_for_put,
    check_put_allowed,
    queue_priority,
    resolve_defaults,
)

from . import catalog, messages, remote, store, triggers, xmitq
from .catalog import QueueRow
from .failures import StorageError
from .transaction import Transaction

log = get_logger("mqjms.qmgr")


def put_message(
    tx: Transaction,
    named: QueueRow,
    base: QueueRow,
    md: MQMD,
    data: bytes,
    *,
    uow: str | None,
    new_msg_id: bool,
    release_on_backout: bool = False,
    by_application: bool = False,
    route: remote.Route | None = None,
    dead_letter_triggers: bool = True,
    triggered: dict[str, triggers.HeldDecision] | None = None,
) -> MQMD:
    """Checks, resolves and stores one message (in unit of work ``uow``, or available at
    once when None), with the trigger messages it causes; returns the MQMD as put.

    A message for a remote queue (``base`` a QREMOTE, or ``route`` given with ``base``
    its transmission queue) is stored on the transmission queue behind an MQXQH
    (:mod:`.remote`); the MQMD returned is the message's own, as the putter sees it.

    The MQMD keeps the putter's Priority; where the message is placed, and what trigger
    conditions compare with TRIGMPRI, is :func:`~mqjms.semantics.put.queue_priority`.

    ``triggered``: the trigger messages of the puts of one trigger event (a message the
    queue manager segments, :mod:`.trigger_events`), by queue: kept there, not written,
    and only the first put's that decided any for the queue, with its time.
    """
    if named.qtype == MODEL:
        raise failed(
            C.MQRC_Q_TYPE_ERROR, f"{named.name!r} is a model queue: open it to get a dynamic queue"
        )
    check_md_for_put(md)
    if base.qtype == REMOTE:
        named, base, route = remote.definition(tx, named, base)
    length = len(data)
    if route is None:
        xmitq.check_put(md, data, base.name, base.attrs.get("USAGE"))
    else:
        length += remote.header_length(md)
    check_put_allowed(named, base, length, int(tx.qmgr_attr("MAXMSGL")))
    check_depth(base, base.depth)
    if by_application and md.ReplyToQ.strip() and not md.ReplyToQMgr.strip():
        remote.reply_to_alias(tx, md)
    resolve_defaults(
        md,
        named,
        qmgr_name=tx.qmgr_name,
        qmgr_ccsid=int(tx.qmgr_attr("CCSID")),
        new_msg_id=new_msg_id,
        msg_ids=messages.make_msg_id,
    )
    put = md
    if route is not None:  # seed 000 note 9: the same Expiry in both MQMDs
        md, data = remote.wrap(tx, route, md, data)
    if by_application and base.deftype == "TEMPDYN" and md.Persistence == C.MQPER_PERSISTENT:
        # MQPUT/MQPUT1: a temporary dynamic queue holds no persistent message (the
        # queue manager's own copies, publications to a non-durable subscription's
        # managed queue among them, are not refused here)
        raise failed(
            C.MQRC_PERSISTENT_NOT_ALLOWED,
            f"{base.name!r} is a temporary dynamic queue: it cannot hold persistent messages "
            "(put non-persistent, or use a model queue with DEFTYPE(PERMDYN))",
        )
    priority = queue_priority(md, base)
    if base.attrs.get("TRIGGER") and not (triggered is not None and base.name in triggered):
        decided = triggers.on_put(
            tx, base.name, base.attrs, priority, uow, survives_backout=release_on_backout
        )
        if triggered is None:
            write_trigger_messages(tx, decided, dead_letter=dead_letter_triggers)
        elif decided:
            triggered[base.name] = triggers.HeldDecision(
                priority, triggers.last_written(tx, base.name), decided
            )
    row_id = messages.insert(
        tx.db,
        base.name,
        md,
        data,
        state=store.PUT_IN_UOW if uow else store.AVAILABLE,
        uow=uow,
        expires=messages.expires_at(md.Expiry, tx.now),
        release_on_backout=release_on_backout,
        priority=priority,
    )
    if uow is not None and uow == tx.conn_id:
        tx.put_in_unit_of_work(row_id)
    xmitq.record_arrival(tx.db, row_id, md, tx.now)
    base.depth += 1
    if uow is None:
        tx.wake_getters()
    return put


def write_trigger_messages(
    tx: Transaction, decided: list[triggers.TriggerMessage], *, dead_letter: bool = True
) -> None:
    """Put the trigger messages :mod:`.triggers` decided on, each recorded as an event once
    put. One the initiation queue refuses (full, or longer than its MAXMSGL) goes to the
    dead-letter queue behind an MQDLH, as IBM MQ puts it ("When triggering does not
    work"); one neither takes is logged and dropped. ``dead_letter=False`` for the trigger
    messages of that dead-letter put itself: IBM discards those that would go there too."""
    for trigger in decided:
        md, data = trigger.message(tx.qmgr_name)
        try:
            initq = catalog.require(tx.db, trigger.initq)
            put_message(
                tx,
                initq,
                initq,
                md,
                data,
                uow=trigger.uow,
                new_msg_id=True,
                release_on_backout=trigger.release_on_backout,
            )
        except StorageError:
            raise  # a full disk fails the whole call, as any write of it would
        except MQError as exc:
            if not (dead_letter and _dead_letter_trigger(tx, trigger, md, data, exc)):
                log.warning(
                    "trigger.not_written",
                    queue=trigger.queue,
                    initq=trigger.initq,
                    reason=exc.reason_name,
                    detail=exc.detail,
                )
                continue
        triggers.record(tx, trigger)


def _dead_letter_trigger(
    tx: Transaction, trigger: triggers.TriggerMessage, md: MQMD, data: bytes, exc: MQError
) -> bool:
    """Put the trigger message the initiation queue refused with ``exc`` on the dead-letter
    queue (MQDLH Reason: the refusal's); whether it is there."""
    try:
        deadq = put_dead_letter(
            tx,
            md,
            data,
            reason=exc.reason,
            dest=(trigger.initq, tx.qmgr_name),
            uow=trigger.uow,
            new_msg_id=True,
            release_on_backout=trigger.release_on_backout,
            dead_letter_triggers=False,
        )
    except StorageError:
        raise
    except MQError:
        return False
    log.warning(
        "trigger.dead_lettered",
        queue=trigger.queue,
        initq=trigger.initq,
        dead_letter_queue=deadq,
        reason=exc.reason_name,
        in_unit_of_work=trigger.uow is not None,  # as trigger.written: a backout may undo it
    )
    return True


def put_dead_letter(
    tx: Transaction,
    md: MQMD,
    data: bytes,
    *,
    reason: int,
    dest: tuple[str, str],
    uow: str | None,
    new_msg_id: bool,
    release_on_backout: bool = False,
    dead_letter_triggers: bool = True,
) -> str:
    """Put ``md``/``data``, which the queue manager could not deliver to ``dest`` (queue,
    queue manager), on its DEADQ behind an MQDLH saying ``reason``; the DEADQ's name.
    Raises the put's MQError when the dead-letter queue does not take it."""
    dl_md, dl_data = dead_letter_message(
        md,
        data,
        reason=reason,
        dest_queue=dest[0],
        dest_qmgr=dest[1],
        appl_name=tx.qmgr_name,
        appl_type=C.MQAT_QMGR,
        now=tx.now,
    )
    deadq = str(tx.qmgr_attr("DEADQ")).strip()
    named, base = remote.resolve_here(tx, deadq, "the dead-letter queue")
    put_message(
        tx,
        named,
        base,
        dl_md,
        dl_data,
        uow=uow,
        new_msg_id=new_msg_id,
        release_on_backout=release_on_backout,
        dead_letter_triggers=dead_letter_triggers,
    )
    return deadq
