"""Report messages the queue manager sends: to the original's ReplyToQ (at its
ReplyToQMgr: another queue manager's is routed as :mod:`.remote` says), else (as IBM MQ
does with a report it cannot deliver) to the dead-letter queue with an MQDLH.

Expiration reports (seed 000, :mod:`.expiry`), confirm-on-arrival reports when a put
places a message on its queue (MQRO_COA*) and confirm-on-delivery reports when a get
removes it (MQRO_COD*). A report is sent in the unit of work of what caused it, if any:
a COD report of a get under syncpoint appears with its commit, and goes with its backout.
A report no queue takes never fails what caused it (it is logged); a storage failure
(a full disk) fails the whole call, as any write of it would.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics.put import put_date_time
from mqjms.semantics.reports import COA, COD, ReportKind, report_message

from . import queues, remote
from .failures import StorageError
from .transaction import Transaction

log = get_logger("mqjms.qmgr")


def confirm(
    tx: Transaction, original: MQMD, data: bytes, kind: ReportKind, *, uow: str | None
) -> bool:
    """Send the COA or COD report (``kind``) ``original`` asks for; True when one was
    sent (persistent like the original)."""
    if not original.Report & kind.mask:
        return False
    feedback = C.MQFB_COA if kind is COA else C.MQFB_COD
    report = report_message(original, data, kind=kind, feedback=feedback)
    if report is None:
        return False
    send(tx, original, *report, uow=uow)
    return True


def send(tx: Transaction, original: MQMD, md: MQMD, data: bytes, *, uow: str | None) -> None:
    """Put report ``md``/``data`` about ``original`` to its ReplyToQ, else to the
    dead-letter queue; logged, not raised, when neither takes it."""
    md.PutApplName = tx.qmgr_name[:28]
    md.PutDate, md.PutTime = put_date_time(tx.now)
    reply_to, reply_qmgr = original.ReplyToQ.strip(), original.ReplyToQMgr.strip()
    try:
        named, base, route = remote.to_reply(tx, reply_to, reply_qmgr)
        new_msg_id = md.MsgId == C.MQMI_NONE
        queues.put_message(tx, named, base, md, data, uow=uow, new_msg_id=new_msg_id, route=route)
    except StorageError:
        # a full disk fails the whole call, which the caller may retry with room made:
        # a report is never silently dropped while what caused it commits
        raise
    except MQError as exc:  # an undeliverable report is dead-lettered, as MQ does
        _dead_letter(tx, md, data, exc.reason, (reply_to, reply_qmgr), uow)


def _dead_letter(
    tx: Transaction, md: MQMD, data: bytes, reason: int, dest: tuple[str, str], uow: str | None
) -> None:
    """Put a report that could not reach its ReplyToQ to the dead-letter queue (MQDLH)."""
    deadq = str(tx.qmgr_attr("DEADQ")).strip()
    try:
        queues.put_dead_letter(
            tx,
            md,
            data,
            reason=reason,
            dest=(dest[0], dest[1] or tx.qmgr_name),
            uow=uow,
            new_msg_id=False,
        )
        log.warning(
            "report.dead_lettered",
            reply_to=dest[0],
            dead_letter_queue=deadq,
            feedback=md.Feedback,
            reason=reason,
        )
    except StorageError:
        raise
    except MQError as exc:
        log.error(
            "report.lost",
            reply_to=dest[0],
            dead_letter_queue=deadq,
            feedback=md.Feedback,
            reason=exc.reason_name,
            detail=exc.detail,
        )


__all__ = ["COA", "COD", "confirm", "send"]
