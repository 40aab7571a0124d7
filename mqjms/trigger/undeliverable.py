"""What a trigger monitor does with a trigger message it cannot act on, as runmqtrm does:
an exception report when the message asks for one (MQRO_EXCEPTION*, with a ReplyToQ),
and the message itself to the dead-letter queue behind an MQDLH whose Reason says why
(MQFB_TM_ERROR, MQFB_APPL_TYPE_ERROR, MQFB_APPL_CANNOT_BE_STARTED), unless its report
options say MQRO_DISCARD_MSG. Both puts are in the caller's unit of work (the one that
got the trigger message), so the message is never both kept and dead-lettered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from mqjms.backout.rewrite import for_dead_letter_queue
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.transport.base import Connection, Context

log = get_logger("mqjms.trigger")

WITH_DATA_LENGTH = 100  # MQRO_EXCEPTION_WITH_DATA: the first 100 bytes
APPL_NAME = "mqjms trigger-monitor"


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where the trigger message and its report went."""

    dead_letter_queue: str  # "" when it was not dead-lettered
    report_queue: str  # "" when no report was sent
    discarded: bool  # neither kept nor dead-lettered (MQRO_DISCARD_MSG, or no DLQ took it)


def exception_report(md: MQMD, data: bytes, feedback: int) -> tuple[MQMD, bytes] | None:
    """The exception report ``md`` asks for (MQRO_EXCEPTION*), with ``feedback``, or None."""
    wanted = md.Report & C.MQRO_EXCEPTION_MASK
    if not wanted or not md.ReplyToQ.strip():
        return None
    report = MQMD(
        MsgType=C.MQMT_REPORT,
        Feedback=feedback,
        Priority=md.Priority,
        Persistence=md.Persistence,
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
    )
    report.MsgId = md.MsgId if md.Report & C.MQRO_PASS_MSG_ID else C.MQMI_NONE
    report.CorrelId = md.CorrelId if md.Report & C.MQRO_PASS_CORREL_ID else md.MsgId
    if md.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
        report.Report = md.Report & C.MQRO_DISCARD_MSG
        report.Expiry = md.Expiry
    if wanted == C.MQRO_EXCEPTION_WITH_FULL_DATA:
        body = data
    elif wanted == C.MQRO_EXCEPTION_WITH_DATA:
        body = data[:WITH_DATA_LENGTH]
    else:
        body = b""
        report.Format = C.MQFMT_NONE
    return report, body


def dead_letter_queue(conn: Connection) -> str:
    """The queue manager's DEADQ, or "" when it has none or it cannot be inquired."""
    try:
        value = conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]).get(C.MQCA_DEAD_LETTER_Q_NAME, "")
    except MQError as exc:
        log.warning("trigger.dead_letter_queue_unknown", reason=exc.reason_name, detail=exc.detail)
        return ""
    return str(value).strip()


def reject(
    conn: Connection, md: MQMD, data: bytes, *, feedback: int, initq: str, queue: str = ""
) -> Outcome:
    """Report and dead-letter (or discard) the trigger message ``md``/``data`` got from
    ``initq``, under syncpoint: the caller commits. ``queue`` is its application queue,
    for the log."""
    report_queue = ""
    report = exception_report(md, data, feedback)
    if report is not None:
        try:
            conn.put(md.ReplyToQ.strip(), report[0], report[1], syncpoint=True)
            report_queue = md.ReplyToQ.strip()
            log.info(
                "trigger.reported", queue=queue or None, reply_to=report_queue, feedback=feedback
            )
        except MQError as exc:
            log.warning(
                "trigger.report_failed",
                queue=queue or None,
                reply_to=md.ReplyToQ.strip(),
                reason=exc.reason_name,
                detail=exc.detail,
            )
    if md.Report & C.MQRO_DISCARD_MSG:
        log.warning(
            "trigger.discarded", queue=queue or None, feedback=feedback, reason="MQRO_DISCARD_MSG"
        )
        return Outcome("", report_queue, True)
    dlq = dead_letter_queue(conn)
    if dlq:
        dl_md, dl_data = for_dead_letter_queue(
            md,
            data,
            reason=feedback,
            dest_queue=initq,
            dest_qmgr=conn.qmgr_name,
            appl_name=APPL_NAME,
            now=time.time(),
        )
        try:
            conn.put(
                dlq, dl_md, dl_data, syncpoint=True, context=Context.PASS_ALL, new_msg_id=False
            )
            log.warning(
                "trigger.dead_lettered",
                queue=queue or None,
                initq=initq,
                dead_letter_queue=dlq,
                feedback=feedback,
            )
            return Outcome(dlq, report_queue, False)
        except MQError as exc:
            log.error(
                "trigger.dead_letter_failed",
                queue=queue or None,
                dead_letter_queue=dlq,
                reason=exc.reason_name,
                detail=exc.detail,
            )
    # A trigger message is regenerated by the queue manager (seed 003 item 13: a trigger
    # monitor opening the initiation queue), so dropping one never strands the messages.
    log.error(
        "trigger.discarded",
        queue=queue or None,
        feedback=feedback,
        reason="no dead-letter queue took the trigger message",
    )
    return Outcome("", report_queue, True)
