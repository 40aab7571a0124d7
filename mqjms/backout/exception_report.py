"""The exception report a poison message asks for when it is dead-lettered or discarded.

IBM MQ classes for JMS ("Removing messages from the queue in ASF"): a message that could
not be requeued to the backout queue goes where its disposition options say, and the
consumer "also generates a report message", sent "to the message's ReplyToQ on the
ReplyToQmgr", when its Report field holds MQRO_EXCEPTION, MQRO_EXCEPTION_WITH_DATA or
MQRO_EXCEPTION_WITH_FULL_DATA. Its Feedback is the MQDLH's reason: 2362
(MQRC_BACKOUT_THRESHOLD_REACHED) when there is no BOQNAME, else the reason the put to it
failed with. MQRO_NEW_MSG_ID / MQRO_PASS_MSG_ID and MQRO_COPY_MSG_ID_TO_CORREL_ID /
MQRO_PASS_CORREL_ID are honoured. A report that cannot be sent goes to the dead-letter
queue instead. The report is put in the requeue's unit of work, so it stands or falls with
it.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection
from mqjms.semantics.deadletter import put_dead_letter
from mqjms.semantics.reports import EXCEPTION, report_message

from .attributes import dead_letter_queue

log = get_logger("mqjms.backout")

APPL_NAME = "mqjms"


def send_exception_report(
    conn: Connection, md: MQMD, data: bytes, *, feedback: int, queue: str, syncpoint: bool
) -> str:
    """Put the exception report ``md`` asks for (none: nothing is put) to its ReplyToQ,
    else to the dead-letter queue; the queue it went to, "" for none. Never raises an
    MQError: a report that no queue takes is logged, and the requeue goes on."""
    report = report_message(md, data, kind=EXCEPTION, feedback=feedback)
    if report is None:
        return ""
    report_md, report_data = report
    reply_to, reply_qmgr = md.ReplyToQ.strip(), md.ReplyToQMgr.strip() or conn.qmgr_name
    try:
        put_to_reply_queue(conn, reply_to, reply_qmgr, report_md, report_data, syncpoint)
        return reply_to
    except MQError as exc:
        log.warning(
            "poison.report_failed",
            queue=queue,
            msg_id=md.MsgId.hex(),
            reply_to=reply_to,
            reply_qmgr=reply_qmgr,
            reason=exc.reason_name,
            detail=exc.detail,
        )
        dest = (reply_to, reply_qmgr)
        return _dead_letter(conn, report_md, report_data, exc.reason, dest, syncpoint)


def put_to_reply_queue(
    conn: Connection, queue: str, qmgr: str, md: MQMD, data: bytes, syncpoint: bool
) -> None:
    """MQPUT1 to ``queue`` on ``qmgr`` (another queue manager: through its transmission
    queue). new_msg_id=False: MsgId is MQMI_NONE (a new one) unless MQRO_PASS_MSG_ID."""
    if qmgr == conn.qmgr_name:
        conn.put(queue, md, data, syncpoint=syncpoint, new_msg_id=False)
        return
    handle = conn.open(queue, C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING, qmgr=qmgr)
    try:
        conn.put(handle, md, data, syncpoint=syncpoint, new_msg_id=False)
    finally:
        conn.close(handle)


def _dead_letter(
    conn: Connection, md: MQMD, data: bytes, reason: int, dest: tuple[str, str], syncpoint: bool
) -> str:
    dlq = dead_letter_queue(conn)
    if not dlq:
        return ""
    try:
        put_dead_letter(
            conn,
            dlq,
            md,
            data,
            reason=reason,
            dest_queue=dest[0],
            dest_qmgr=dest[1],
            appl_name=APPL_NAME,
            syncpoint=syncpoint,
        )
    except MQError as exc:
        log.warning(
            "poison.report_dead_letter_failed",
            dead_letter_queue=dlq,
            reason=exc.reason_name,
            detail=exc.detail,
        )
        return ""
    return dlq
