"""A message another client put (a Java JMS application, a STOMP script) as MQMD + bytes.

Such a frame carries no MQMD: the standard headers give Priority, Persistence, Expiry,
ReplyToQ and PutDate/PutTime (``timestamp``), its MsgId is a digest of the broker's
``message-id`` (stable across redeliveries), and everything a JMS application needs is
put in an RFH2 built for it, as IBM MQ shows a JMS message to an MQ application:

* ``mcd``: the body's kind (text, bytes, or a Java MapMessage / ObjectMessage found by
  :mod:`.bodies`) and JMSType;
* ``jms``: JMSDestination, JMSTimestamp, JMSExpiration, JMSReplyTo, JMSPriority,
  JMSDeliveryMode, the whole JMSCorrelationID (a CorrelId holds only 24 bytes), and the
  broker's ``message-id`` as JMSMessageID (``jms.Mid``), which a Java requester matches
  its reply on;
* ``usr``: the other headers, as string properties.

A reply's ``correlation-id`` that is the broker's id of a request this process sent
(:mod:`.broker_ids`) becomes that request's MsgId as CorrelId.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq import jms, jms_map, rfh2
from mqjms.mq.md import MQMD

from . import broker_ids
from .bodies import MAP, OBJECT, Converted

log = get_logger("mqjms.transport.stomp")


def native_msg_id(message_id: str) -> bytes:
    """A 24-byte MsgId for a message mqjms did not put: stable for its ``message-id``."""
    return hashlib.blake2b(message_id.encode("utf-8"), digest_size=24).digest()


def from_native(
    md: MQMD,
    headers: Mapping[str, str],
    body: bytes,
    *,
    text: bool,
    properties: dict[str, jms.UserPropertyValue],
    converted: Converted | None = None,
) -> tuple[MQMD, bytes]:
    """``md`` (standard headers already applied) completed, and the bytes with the RFH2.
    ``text``: the body is UTF-8 text; ``properties``: the headers that are properties."""
    message_id = headers.get("message-id", "")
    md.MsgId = native_msg_id(message_id)
    md.CodedCharSetId = C.CCSID_UTF8
    stamp = _int(headers.get("timestamp"))
    if stamp > 0:
        md.PutDate, md.PutTime = put_date_time(stamp)
    correlation = headers.get("correlation-id") or None
    if correlation is not None:
        request = broker_ids.requests.msg_id(correlation)
        if request is not None:  # a reply to a request of ours: its MsgId, as on MQ
            md.CorrelId, correlation = request, None
    msd, body_format = (jms.MSD_TEXT, C.MQFMT_STRING) if text else (jms.MSD_BYTES, C.MQFMT_NONE)
    if converted is not None and converted.kind == MAP:
        msd, body_format = jms.MSD_MAP, C.MQFMT_STRING
        body = jms_map.build_map(_representable(converted.entries or {}, "map entry")).encode()
    elif converted is not None and converted.kind == OBJECT:
        msd = jms.MSD_OBJECT
        # the object's XML when the broker could make it; else nothing is readable
        body_format = C.MQFMT_STRING if converted.text is not None else C.MQFMT_NONE
        body = (converted.text or "").encode("utf-8")
    expires = _int(headers.get("expires"))
    info = jms.JmsHeaders(
        msd=msd,
        type=headers.get("type") or None,
        destination="queue:///" + _queue_name(headers.get("destination", "")),
        timestamp=stamp or None,
        expiration=expires or None,
        correlation_id=correlation,
        reply_to=("queue:///" + md.ReplyToQ) if md.ReplyToQ else None,
        priority=md.Priority if md.Priority != 4 else None,
        delivery_mode=2 if md.Persistence == C.MQPER_PERSISTENT else 1,
        message_id=message_id or None,
    )
    try:
        folders = jms.build_jms_folders(info, _representable(properties, "property"))
    except ValueError as exc:  # a header value XML cannot carry: the body, as it is
        log.warning("stomp.headers_not_mapped", message_id=message_id, error=str(exc))
        md.Format = body_format
        return md, body
    header = rfh2.RFH2(
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=C.CCSID_UTF8,
        Format=body_format,
        NameValueCCSID=C.CCSID_UTF8,
        folders=folders,
    )
    md.Format, md.Encoding = C.MQFMT_RF_HEADER_2, C.MQENC_NORMAL
    return md, rfh2.build_chain([header], body, C.MQENC_NORMAL)


def _representable(
    values: Mapping[str, jms.UserPropertyValue], what: str
) -> dict[str, jms.UserPropertyValue]:
    """The values an RFH2 can carry (a header may hold characters XML cannot)."""
    out: dict[str, jms.UserPropertyValue] = {}
    for name, value in values.items():
        try:
            jms.property_element("p", value)
        except (ValueError, TypeError) as exc:
            log.warning("stomp.value_not_mapped", what=what, name=name, error=str(exc))
            continue
        out[name] = value
    return out


def put_date_time(stamp_ms: int) -> tuple[str, str]:
    """PutDate and PutTime (GMT, hundredths) for a broker ``timestamp`` in milliseconds."""
    t = time.gmtime(stamp_ms / 1000)
    return time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t) + f"{(stamp_ms % 1000) // 10:02d}"


def _queue_name(destination: str) -> str:
    return destination[len("/queue/") :] if destination.startswith("/queue/") else destination


def _int(value: str | None) -> int:
    try:
        return int(value) if value else 0
    except ValueError:
        return 0
