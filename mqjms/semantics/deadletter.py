"""Dead-letter messages: an MQDLH in front of a message that could not be delivered.

The one builder for every place that dead-letters (seed 002's poison messages when the
backout queue refuses them, a report that cannot reach its ReplyToQ, a trigger message a
trigger monitor cannot act on): the DLH carries the reason, the intended destination and
the message's own Encoding, CodedCharSetId and Format; the MQMD gets Format MQDEAD,
CCSID 1208 and BackoutCount 0, and the DLH is written in the MQMD's integer encoding.
"""

from __future__ import annotations

import time

from mqjms.mq import constants as C
from mqjms.mq.dlh import MQDLH
from mqjms.mq.md import MQMD

from .contract import Connection, Context
from .put import put_date_time

DEFAULT_ENCODING = C.MQENC_NORMAL  # 273: for a message whose integer encoding is unset


def dead_letter_message(
    md: MQMD,
    data: bytes,
    *,
    reason: int,
    dest_queue: str,
    dest_qmgr: str,
    appl_name: str,
    now: float,
    appl_type: int = C.MQAT_DEFAULT,
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes to put to the dead-letter queue: MQDLH + the message as it was.

    ``reason`` is an MQRC_* or MQFB_* value; ``appl_name``/``appl_type`` say who put it
    there (MQAT_QMGR when the queue manager itself dead-letters).
    """
    encoding = md.Encoding if md.Encoding & C.MQENC_INTEGER_MASK in (1, 2) else DEFAULT_ENCODING
    put_date, put_time = put_date_time(now)
    dlh = MQDLH(
        Reason=reason,
        DestQName=dest_queue,
        DestQMgrName=dest_qmgr,
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
        PutApplType=appl_type,
        PutApplName=appl_name[:28],
        PutDate=put_date,
        PutTime=put_time,
    )
    out = md.copy(
        BackoutCount=0,
        Format=C.MQFMT_DEAD_LETTER_HEADER,
        Encoding=encoding,
        CodedCharSetId=C.CCSID_UTF8,
    )
    return out, dlh.pack(encoding) + data


def put_dead_letter(
    conn: Connection,
    dlq: str,
    md: MQMD,
    data: bytes,
    *,
    reason: int,
    dest_queue: str,
    dest_qmgr: str,
    appl_name: str,
    syncpoint: bool,
) -> None:
    """Put ``md``/``data`` behind an MQDLH to ``dlq`` through the transport contract, its
    context passed on and its MsgId kept (the queue manager's own dead-lettering writes
    rows directly). Raises the put's MQError: each caller has its own fallback."""
    dl_md, dl_data = dead_letter_message(
        md,
        data,
        reason=reason,
        dest_queue=dest_queue,
        dest_qmgr=dest_qmgr,
        appl_name=appl_name,
        now=time.time(),
    )
    conn.put(dlq, dl_md, dl_data, syncpoint=syncpoint, context=Context.PASS_ALL, new_msg_id=False)
