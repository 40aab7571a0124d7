"""How a poison message is rewritten before it is moved (seed 002) or dead-lettered.

To the backout queue: an RFH2 is added when the message has none, carrying the original
CodedCharSetId and Encoding so the header chain stays correct, and the MQMD gets Format
MQHRF2, CodedCharSetId 1208, Encoding 273. In every case BackoutCount is reset to 0 and
Expiry is the remaining expiry at the time the message was received (the MQGET already
returned it as remaining, and the queue it moves to keeps decrementing it: seed 000
note 7).

To the dead-letter queue: an MQDLH in front of the message as it was, with the original
Encoding, CodedCharSetId and Format in the DLH and MQDEAD in the MQMD.
"""

from __future__ import annotations

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
from mqjms.mq.dlh import MQDLH
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.qmgr.messages import put_date_time

log = get_logger("mqjms.backout")

RFH2_ENCODING = C.MQENC_NORMAL  # 273, as IBM MQ classes for JMS write it
RFH2_CCSID = C.CCSID_UTF8  # 1208


def for_backout_queue(
    md: MQMD, data: bytes, properties: dict[str, str] | None = None
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes to put to BOQNAME (seed 002: 'What happens to a message when it
    is moved to the backout queue'). ``properties`` are added to the ``usr`` folder."""
    out = md.copy(BackoutCount=0)
    if rfh2.is_rfh2(md.Format):
        if properties:
            try:
                data = _add_properties(md, data, properties)
            except (MQError, ValueError) as exc:
                # A malformed RFH2 is moved as it is: losing the reason beats losing the message.
                log.warning("backout.properties_not_added", msg_id=md.MsgId.hex(), error=str(exc))
        return out, data
    header = rfh2.RFH2(
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
        NameValueCCSID=C.CCSID_UTF8,
        folders=[folder for folder in [jms.build_usr(properties or {})] if folder],
    )
    out.Format = C.MQFMT_RF_HEADER_2
    out.CodedCharSetId = RFH2_CCSID
    out.Encoding = RFH2_ENCODING
    return out, rfh2.build_chain([header], data, RFH2_ENCODING)


def _add_properties(md: MQMD, data: bytes, properties: dict[str, str]) -> bytes:
    chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    headers = chain.headers
    for header in headers:
        text = header.folder("usr")
        if text is not None:
            index = header.folders.index(text)
            _, existing = jms.parse_jms_folders([text])
            existing.update(properties)
            header.folders[index] = jms.build_usr(existing) or text
            break
    else:
        usr = jms.build_usr(properties)
        if usr:
            headers[0].folders.append(usr)
    return rfh2.build_chain(headers, chain.body, md.Encoding)


def for_dead_letter_queue(
    md: MQMD,
    data: bytes,
    *,
    reason: int,
    dest_queue: str,
    dest_qmgr: str,
    appl_name: str,
    now: float,
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes to put to the dead-letter queue: MQDLH + the message as it was."""
    encoding = md.Encoding if md.Encoding & C.MQENC_INTEGER_MASK in (1, 2) else RFH2_ENCODING
    put_date, put_time = put_date_time(now)
    dlh = MQDLH(
        Reason=reason,
        DestQName=dest_queue,
        DestQMgrName=dest_qmgr,
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
        PutApplType=C.MQAT_DEFAULT,
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
