"""An MQ message (MQMD + bytes) as a STOMP frame (headers + body), and back, exactly.

Sending, the MQMD becomes headers any STOMP or JMS client understands where a standard
one exists, and ``mqjms_*`` headers for the rest:

=====================  ==================================================================
MQMD / JMS             STOMP header
=====================  ==================================================================
Priority               ``priority`` (0-9)
Persistence            ``persistent:true`` (absent: not persistent)
Expiry (tenths, rel.)  ``expires`` (absolute ms since the epoch; ActiveMQ expires it)
CorrelId               ``correlation-id`` (text when the id is text, else ``ID:<48 hex>``)
ReplyToQ               ``reply-to:/queue/NAME``
MsgId                  ``mqjms_msg_id`` (48 hex): kept across backouts and moves
BackoutCount           ``mqjms_backout_count`` (kept by the transport; never JMSX*)
any other field        ``mqjms_md_<Field>`` when it differs from IBM's default
mcd.Type (JMSType)     ``type``
usr properties         one header each, by name (strings; the RFH2 keeps their types)
MQDLH                  ``mqjms_dlh_reason`` (+ ``_name``), ``original-destination``,
                       ``mqjms_dlh_dest_q``, ``mqjms_dlh_dest_qmgr``
=====================  ==================================================================

The MQ header chain in front of the body (an MQDLH, RFH2s) travels byte-exact in
``mqjms_chain`` (base64) while the body travels as the frame body, so a STOMP client sees
the payload itself and the JMS fields as headers, and mqjms gets back the very bytes it
put. A chain that does not parse, or is too long for a header, travels with the body.

Receiving a frame no mqjms put (no ``mqjms_msg_id``): the MQMD is made from the standard
headers (MsgId is a digest of ``message-id``, stable across redeliveries), and other
headers become ``usr`` properties of an RFH2 built for them, so the JMS layer sees them
as message properties, as IBM MQ shows properties to a JMS application.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import time
from collections.abc import Mapping

from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
from mqjms.mq.dlh import MQDLH_LENGTH_1, parse_dlh
from mqjms.mq.errors import MQError, reason_name
from mqjms.mq.md import MQMD
from mqjms.mq.structure import BYTE, INT

H_MSG_ID = "mqjms_msg_id"
H_BACKOUT = "mqjms_backout_count"
H_CHAIN = "mqjms_chain"
H_MD = "mqjms_md_"
H_DLH_REASON = "mqjms_dlh_reason"
H_DLH_REASON_NAME = "mqjms_dlh_reason_name"
H_DLH_DEST_Q = "mqjms_dlh_dest_q"
H_DLH_DEST_QMGR = "mqjms_dlh_dest_qmgr"
QUEUE_PREFIX = "/queue/"
MAX_CHAIN_HEADER = 8000  # ActiveMQ refuses a header over 10 KiB

#: Headers a broker or STOMP itself gives meaning to: never user properties.
RESERVED = frozenset(
    {
        "destination",
        "message-id",
        "subscription",
        "ack",
        "receipt",
        "receipt-id",
        "transaction",
        "content-length",
        "content-type",
        "redelivered",
        "expires",
        "priority",
        "persistent",
        "timestamp",
        "correlation-id",
        "reply-to",
        "type",
        "id",
        "browser",
        "selector",
        "transformation",
        "original-destination",
        "originalExpiration",
        "dlqDeliveryFailureCause",
        "redeliveryDelay",
        "scheduledJobId",
        "JMSXGroupID",
        "JMSXGroupSeq",
        "JMSXDeliveryCount",
        "host",
        "login",
        "passcode",
        "heart-beat",
        "accept-version",
        "version",
        "server",
        "session",
    }
)

_MAPPED = frozenset(
    {
        "StrucId",
        "Version",
        "Priority",
        "Persistence",
        "Expiry",
        "MsgId",
        "CorrelId",
        "BackoutCount",
        "ReplyToQ",
    }
)
_DEFAULT_MD = MQMD()
_GENERIC = tuple(
    (spec.name, spec.kind, getattr(_DEFAULT_MD, spec.name))
    for spec in MQMD.SPECS
    if spec.name not in _MAPPED
)
_GENERIC_KINDS = {name: kind for name, kind, _ in _GENERIC}


def is_reserved(name: str) -> bool:
    return name in RESERVED or name.startswith(("mqjms_", "activemq.", "JMS"))


# --------------------------------------------------------------------------- ids


def correl_text(correl_id: bytes) -> str:
    """CorrelId as a ``correlation-id`` header: its text when it is text, else ID:hex."""
    stripped = correl_id.rstrip(b"\x00")
    try:
        text = stripped.decode("ascii")
    except UnicodeDecodeError:
        text = ""
    if text and text.isprintable() and not text.startswith("ID:") and "\x00" not in text:
        return text
    return "ID:" + correl_id.hex()


def correl_bytes(text: str) -> bytes:
    """The CorrelId for a ``correlation-id`` header (the inverse of :func:`correl_text`)."""
    if text.startswith("ID:") and len(text) == 51:
        try:
            return bytes.fromhex(text[3:])
        except ValueError:
            pass
    return text.encode("utf-8")[:24].ljust(24, b"\x00")


def native_msg_id(message_id: str) -> bytes:
    """A 24-byte MsgId for a message mqjms did not put: stable for its ``message-id``."""
    return hashlib.blake2b(message_id.encode("utf-8"), digest_size=24).digest()


def queue_destination(name: str, prefix: str = "") -> str:
    return QUEUE_PREFIX + prefix + name


def queue_name(destination: str, prefix: str = "") -> str:
    """The MQ queue name of a ``/queue/...`` destination; other kinds stay as they are."""
    if destination.startswith(QUEUE_PREFIX):
        name = destination[len(QUEUE_PREFIX) :]
        if prefix and name.startswith(prefix):
            name = name[len(prefix) :]
        return name
    return destination


# --------------------------------------------------------------------------- sending


def to_frame(
    md: MQMD, data: bytes, *, prefix: str = "", now: float | None = None
) -> tuple[dict[str, str], bytes]:
    """Headers and body for ``md`` and ``data``. ``md`` is complete: Priority, Persistence
    and MsgId resolved, Expiry relative to ``now``."""
    now = time.time() if now is None else now
    headers: dict[str, str] = {H_MSG_ID: md.MsgId.hex()}
    if md.Persistence == C.MQPER_PERSISTENT:
        headers["persistent"] = "true"
    headers["priority"] = str(min(max(md.Priority, 0), 9))
    if md.Expiry > 0:
        headers["expires"] = str(int(now * 1000) + md.Expiry * 100)
    if md.CorrelId != C.MQCI_NONE:
        headers["correlation-id"] = correl_text(md.CorrelId)
    if md.ReplyToQ:
        headers["reply-to"] = queue_destination(md.ReplyToQ, prefix)
    if md.BackoutCount > 0:
        headers[H_BACKOUT] = str(md.BackoutCount)
    for name, kind, default in _GENERIC:
        value = getattr(md, name)
        if value != default:
            headers[H_MD + name] = value.hex() if kind == BYTE else str(value)
    body = _split_chain(md, data, headers, prefix)
    return headers, body


def _split_chain(md: MQMD, data: bytes, headers: dict[str, str], prefix: str) -> bytes:
    """Move the MQ header chain of ``data`` into headers; returns the frame body."""
    fmt = md.Format.rstrip()
    if fmt not in (C.MQFMT_DEAD_LETTER_HEADER.rstrip(), C.MQFMT_RF_HEADER_2.rstrip()):
        _text_content_type(fmt, md.CodedCharSetId, data, headers)
        return data
    extra: dict[str, str] = {}
    try:
        encoding, ccsid, rest = md.Encoding, md.CodedCharSetId, data
        if fmt == C.MQFMT_DEAD_LETTER_HEADER.rstrip():
            dlh, rest = parse_dlh(data, encoding)
            extra[H_DLH_REASON] = str(dlh.Reason)
            extra[H_DLH_REASON_NAME] = reason_name(dlh.Reason)
            extra[H_DLH_DEST_Q] = dlh.DestQName
            extra[H_DLH_DEST_QMGR] = dlh.DestQMgrName
            extra["original-destination"] = queue_destination(dlh.DestQName, prefix)
            encoding, ccsid, fmt = dlh.Encoding, dlh.CodedCharSetId, dlh.Format.rstrip()
        body, fmt, ccsid = rest, fmt, ccsid
        if rfh2.is_rfh2(fmt):
            chain = rfh2.parse_chain(rest, encoding, ccsid, fmt)
            body, fmt, ccsid = chain.body, chain.Format, chain.CodedCharSetId
            headers_jms, properties = jms.parse_jms_folders(chain.folders)
            if headers_jms is not None and headers_jms.type:
                extra["type"] = headers_jms.type
            for name, value in properties.items():
                if is_reserved(name) or value is None or isinstance(value, bytes):
                    continue
                extra[name] = _property_text(value)
    except (MQError, ValueError):
        return data  # travels as it is: exact, if less readable
    prefix_bytes = data[: len(data) - len(body)] if body else data
    encoded = base64.b64encode(prefix_bytes).decode("ascii")
    if len(encoded) > MAX_CHAIN_HEADER:
        return data
    headers.update(extra)
    headers[H_CHAIN] = encoded
    _text_content_type(fmt, ccsid, body, headers)
    return body


def _property_text(value: str | int | float | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _text_content_type(fmt: str, ccsid: int, body: bytes, headers: dict[str, str]) -> None:
    """Text bodies are marked so that JMS consumers of the broker see a TextMessage."""
    if fmt == C.MQFMT_STRING.rstrip() and ccsid in (C.CCSID_UTF8, 0) and b"\x00" not in body:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return
        headers["content-type"] = "text/plain;charset=utf-8"


# --------------------------------------------------------------------------- receiving


def from_frame(
    headers: Mapping[str, str], body: bytes, *, prefix: str = "", now: float | None = None
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes of a received frame. BackoutCount is the header's count; the
    caller adds one for ``redelivered:true`` (see the connection)."""
    now = time.time() if now is None else now
    md = MQMD()
    mqjms_put = H_MSG_ID in headers
    for key, value in headers.items():
        if key.startswith(H_MD):
            _set_generic(md, key[len(H_MD) :], value)
    md.Priority = _int(headers.get("priority"), 4)
    md.Persistence = (
        C.MQPER_PERSISTENT if headers.get("persistent") == "true" else C.MQPER_NOT_PERSISTENT
    )
    md.Expiry = remaining_tenths(headers.get("expires"), now)
    correl = headers.get("correlation-id")
    if correl:
        md.CorrelId = correl_bytes(correl)
    reply_to = headers.get("reply-to")
    if reply_to:
        md.ReplyToQ = queue_name(reply_to, prefix)[:48]
    md.BackoutCount = _int(headers.get(H_BACKOUT), 0)
    chain = headers.get(H_CHAIN)
    if mqjms_put:
        md.MsgId = _hex(headers[H_MSG_ID], 24)
        if chain:
            try:
                return md, base64.b64decode(chain, validate=True) + body
            except binascii.Error:
                pass
        return md, body
    return _native(md, headers, body, now)


def remaining_tenths(expires: str | None, now: float) -> int:
    """The MQMD Expiry for an ``expires`` header: remaining tenths, at least 1."""
    at = _int(expires, 0)
    if at <= 0:
        return C.MQEI_UNLIMITED
    return max(1, math.ceil((at - now * 1000) / 100 - 1e-9))


def is_expired(headers: Mapping[str, str], now: float) -> bool:
    at = _int(headers.get("expires"), 0)
    return 0 < at <= now * 1000


def _native(md: MQMD, headers: Mapping[str, str], body: bytes, now: float) -> tuple[MQMD, bytes]:
    """A frame from another STOMP client: text or bytes, its headers as properties."""
    md.MsgId = native_msg_id(headers.get("message-id", ""))
    md.CodedCharSetId = C.CCSID_UTF8
    stamp = _int(headers.get("timestamp"), 0)
    if stamp > 0:
        t = time.gmtime(stamp / 1000)
        md.PutDate = time.strftime("%Y%m%d", t)
        md.PutTime = time.strftime("%H%M%S", t) + f"{(stamp % 1000) // 10:02d}"
    content_type = headers.get("content-type", "")
    text = content_type.startswith("text/") or (
        not content_type and "content-length" not in headers
    )
    body_format = C.MQFMT_STRING if text else C.MQFMT_NONE
    properties: dict[str, jms.UserPropertyValue] = {}
    for name, value in headers.items():
        if is_reserved(name):
            continue
        try:
            jms.check_property_name(name)
        except ValueError:
            continue
        properties[name] = value
    jms_type = headers.get("type")
    if not properties and not jms_type:
        md.Format = body_format
        return md, body
    expires = _int(headers.get("expires"), 0)
    info = jms.JmsHeaders(
        msd=jms.MSD_TEXT if text else jms.MSD_BYTES,
        type=jms_type,
        destination="queue:///" + queue_name(headers.get("destination", "")),
        timestamp=stamp or None,
        expiration=expires or None,
        correlation_id=headers.get("correlation-id") or None,
        reply_to=("queue:///" + md.ReplyToQ) if md.ReplyToQ else None,
        priority=md.Priority if md.Priority != 4 else None,
        delivery_mode=2 if md.Persistence == C.MQPER_PERSISTENT else 1,
    )
    try:
        folders = jms.build_jms_folders(info, properties)
    except ValueError:
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


def _set_generic(md: MQMD, name: str, value: str) -> None:
    kind = _GENERIC_KINDS.get(name)
    if kind is None:
        return
    if kind == INT:
        setattr(md, name, _int(value, getattr(_DEFAULT_MD, name)))
    elif kind == BYTE:
        length = len(getattr(_DEFAULT_MD, name))
        setattr(md, name, _hex(value, length))
    else:
        setattr(md, name, value)


def _int(value: str | None, default: int) -> int:
    if value is None or value == "":
        return default
    try:
        return int(value)
    except ValueError:
        return default


def _hex(value: str, length: int) -> bytes:
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raw = value.encode("utf-8")
    return raw[:length].ljust(length, b"\x00")


DLH_LENGTH = MQDLH_LENGTH_1
