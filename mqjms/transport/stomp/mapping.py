"""An MQ message (MQMD + bytes) as a STOMP frame (headers + body), and back, exactly.

Sending, the MQMD becomes headers any STOMP or JMS client understands where a standard
one exists, and ``mqjms_*`` headers for the rest:

=====================  ==================================================================
MQMD / JMS             STOMP header
=====================  ==================================================================
Priority               ``priority`` (0-9)
Persistence            ``persistent:true`` (absent: not persistent)
Expiry (tenths, rel.)  ``expires`` (absolute ms since the epoch; ActiveMQ expires it)
CorrelId               ``correlation-id``: the JMSCorrelationID whole when the RFH2 has
                       one, else the id's text when it is text, else ``ID:<48 hex>``
ReplyToQ               ``reply-to:/queue/NAME``
MsgId                  ``mqjms_msg_id`` (48 hex): kept across backouts and moves
BackoutCount           ``mqjms_backout_count`` (kept by the transport; never JMSX*)
other fields           ``mqjms_md_<Field>`` when it differs from IBM's default; the
                       identity and origin context (UserIdentifier, AccountingToken,
                       ApplIdentityData, PutApplType, PutDate, PutTime, ApplOriginData)
                       only when the putter passed or set it: a default put does not tell
                       every consumer the OS user (PutDate/PutTime come from the broker's
                       ``timestamp`` instead)
mcd.Type (JMSType)     ``type``
usr properties         one header each, by name (strings: STOMP has no other type;
                       bytes as hex digits, as ``bin.hex``)
MQDLH                  ``mqjms_dlh_reason`` (+ ``_name``), ``original-destination``,
                       ``mqjms_dlh_dest_q``, ``mqjms_dlh_dest_qmgr``
moved poison message   its ``mqjms_failure_*`` properties, and ``original-destination``
=====================  ==================================================================

The MQ header chain in front of the body (an MQDLH, RFH2s) travels byte-exact in
``mqjms_chain`` (base64) while the body travels as the frame body, so a STOMP client sees
the payload itself and the JMS fields as headers, and mqjms gets back the very bytes it
put. A chain that does not parse, or is too long for a header, travels with the body.
Text bodies travel as CESU-8, as ActiveMQ keeps text (:mod:`.cesu8`).

``mqjms_digest`` signs the body and the headers that carry the message (not those the
broker sets): a frame whose digest does not match, say one a Java program made by copying
a message's properties and changing one, is read as another client's message, from its
own headers, never from a copied chain.

Receiving a frame no mqjms put (or one that fails its digest): see :mod:`.native`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
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

from . import cesu8
from .bodies import Converted
from .native import from_native, put_date_time

H_MSG_ID = "mqjms_msg_id"
H_BACKOUT = "mqjms_backout_count"
H_CHAIN = "mqjms_chain"
H_DIGEST = "mqjms_digest"
H_MD = "mqjms_md_"
H_DLH_REASON = "mqjms_dlh_reason"
H_DLH_REASON_NAME = "mqjms_dlh_reason_name"
H_DLH_DEST_Q = "mqjms_dlh_dest_q"
H_DLH_DEST_QMGR = "mqjms_dlh_dest_qmgr"
QUEUE_PREFIX = "/queue/"
MAX_CHAIN_HEADER = 8000  # ActiveMQ refuses a header over 10 KiB
TEXT_PLAIN = "text/plain;charset=utf-8"
#: The usr property a listener's poison move carries naming the queue it failed on.
FAILURE_QUEUE = "mqjms_failure_queue"

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
#: mqjms's own headers: how the transport carries the MQMD; never user properties.
TRANSPORT_HEADERS = frozenset(
    {
        H_MSG_ID,
        H_BACKOUT,
        H_CHAIN,
        H_DIGEST,
        H_DLH_REASON,
        H_DLH_REASON_NAME,
        H_DLH_DEST_Q,
        H_DLH_DEST_QMGR,
    }
)
#: Standard headers the digest signs: what the chain could contradict.
_SIGNED_STANDARD = frozenset({"type", "correlation-id", "reply-to", "priority"})

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
#: Identity and origin context (PutApplName aside): sent only when the putter gave them.
_CONTEXT = frozenset(
    {
        "UserIdentifier",
        "AccountingToken",
        "ApplIdentityData",
        "PutApplType",
        "PutDate",
        "PutTime",
        "ApplOriginData",
    }
)
_DEFAULT_MD = MQMD()
_GENERIC = tuple(
    (spec.name, spec.kind, getattr(_DEFAULT_MD, spec.name), spec.name in _CONTEXT)
    for spec in MQMD.SPECS
    if spec.name not in _MAPPED
)
_GENERIC_KINDS = {name: kind for name, kind, _, _ in _GENERIC}


def is_transport_header(name: str) -> bool:
    return name in TRANSPORT_HEADERS or name.startswith(H_MD)


def is_reserved(name: str) -> bool:
    """Not a user property: a broker's or STOMP's header, or one of mqjms's own."""
    return name in RESERVED or is_transport_header(name) or name.startswith(("activemq.", "JMS"))


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
    """The CorrelId for a ``correlation-id`` header (the inverse of :func:`correl_text`;
    a longer text keeps its first 24 bytes: the whole text is the JMSCorrelationID)."""
    if text.startswith("ID:") and len(text) == 51:
        try:
            return bytes.fromhex(text[3:])
        except ValueError:
            pass
    return text.encode("utf-8")[:24].ljust(24, b"\x00")


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
    md: MQMD,
    data: bytes,
    *,
    prefix: str = "",
    now: float | None = None,
    context: bool = True,
) -> tuple[dict[str, str], bytes]:
    """Headers and body for ``md`` and ``data``. ``md`` is complete: Priority, Persistence
    and MsgId resolved, Expiry relative to ``now``. ``context``: the putter passed or set
    the identity and origin context, so it travels (a default put's does not)."""
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
    for name, kind, default, is_context in _GENERIC:
        if is_context and not context:
            continue
        value = getattr(md, name)
        if value != default:
            headers[H_MD + name] = value.hex() if kind == BYTE else str(value)
    body = _split_chain(md, data, headers, prefix)
    headers[H_DIGEST] = digest(headers, body)
    if headers.get("content-type") == TEXT_PLAIN:
        body = cesu8.encode(body)  # as ActiveMQ keeps text (Java's getText() reads it)
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
        dlh_queue = None
        if fmt == C.MQFMT_DEAD_LETTER_HEADER.rstrip():
            dlh, rest = parse_dlh(data, encoding)
            extra[H_DLH_REASON] = str(dlh.Reason)
            extra[H_DLH_REASON_NAME] = reason_name(dlh.Reason)
            extra[H_DLH_DEST_Q] = dlh.DestQName
            extra[H_DLH_DEST_QMGR] = dlh.DestQMgrName
            dlh_queue = dlh.DestQName
            encoding, ccsid, fmt = dlh.Encoding, dlh.CodedCharSetId, dlh.Format.rstrip()
        body, fmt, ccsid = rest, fmt, ccsid
        if rfh2.is_rfh2(fmt):
            chain = rfh2.parse_chain(rest, encoding, ccsid, fmt)
            body, fmt, ccsid = chain.body, chain.Format, chain.CodedCharSetId
            _jms_headers(chain.folders, extra, prefix, topic_reply=not md.ReplyToQ.strip())
        failed_on = extra.get(FAILURE_QUEUE) or dlh_queue
        if failed_on:  # a poison or dead-letter message: where it came from
            extra["original-destination"] = queue_destination(failed_on, prefix)
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


def _jms_headers(
    folders: list[str], extra: dict[str, str], prefix: str = "", *, topic_reply: bool = False
) -> None:
    """JMSType, the whole JMSCorrelationID, a topic JMSReplyTo (which the MQMD cannot
    hold: ``topic_reply`` when its ReplyToQ is blank) and the usr properties of an RFH2,
    as headers."""
    headers_jms, properties = jms.parse_jms_folders(folders)
    if headers_jms is not None and headers_jms.type:
        extra["type"] = headers_jms.type
    reply_to = headers_jms.reply_to if headers_jms is not None else None
    if topic_reply and reply_to and reply_to.startswith("topic://"):
        from .pubsub import topic_destination  # pubsub imports this module

        with contextlib.suppress(MQError):  # a topic ActiveMQ cannot name: RFH2 only
            extra["reply-to"] = topic_destination(reply_to[len("topic://") :], prefix)
    if headers_jms is not None and headers_jms.correlation_id:
        extra["correlation-id"] = headers_jms.correlation_id  # CorrelId holds only 24 bytes
    for name, value in properties.items():
        if is_reserved(name) or value is None:
            continue
        extra[name] = _property_text(value)


def _property_text(value: str | int | float | bool | bytes) -> str:
    """A property as header text: STOMP has no other type. bytes as hex digits, as the
    RFH2 writes them (``dt='bin.hex'``); the chain keeps every type for mqjms readers."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, bytes):
        return value.hex().upper()
    return str(value)


def _text_content_type(fmt: str, ccsid: int, body: bytes, headers: dict[str, str]) -> None:
    """Text bodies are marked so that JMS consumers of the broker see a TextMessage."""
    if fmt == C.MQFMT_STRING.rstrip() and ccsid in (C.CCSID_UTF8, 0) and b"\x00" not in body:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            return
        headers["content-type"] = TEXT_PLAIN


def digest(headers: Mapping[str, str], body: bytes) -> str:
    """What ``mqjms_digest`` says: the body and the headers that carry the message (not
    those a broker sets, nor ``expires``, which a broker may adjust), so that a frame
    someone changed no longer matches."""
    signed = hashlib.blake2b(digest_size=16)
    for name in sorted(headers):
        if name == H_DIGEST:
            continue
        if name in _SIGNED_STANDARD or not (
            name in RESERVED or name.startswith(("activemq.", "JMSX"))
        ):
            signed.update(f"{name}\x00{headers[name]}\x00".encode())
    signed.update(b"persistent\x00" + (b"1" if headers.get("persistent") == "true" else b"0"))
    signed.update(b"\x00" + body)
    return signed.hexdigest()


# --------------------------------------------------------------------------- receiving


def from_frame(
    headers: Mapping[str, str],
    body: bytes,
    *,
    prefix: str = "",
    now: float | None = None,
    converted: Converted | None = None,
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes of a received frame. BackoutCount is the header's count; the
    caller adds one for ``redelivered:true`` (see the connection). ``converted``: what
    :func:`.bodies.probe` found an empty frame from another client to be."""
    now = time.time() if now is None else now
    content_type = headers.get("content-type", "")
    text = content_type.startswith("text/") or (
        not content_type and "content-length" not in headers
    )
    if text and body:
        try:
            body = cesu8.decode(body)
        except ValueError:
            text = False  # not text after all: bytes, never a text that fails to decode
    md = MQMD()
    md.Priority = _int(headers.get("priority"), 4)
    md.Persistence = (
        C.MQPER_PERSISTENT if headers.get("persistent") == "true" else C.MQPER_NOT_PERSISTENT
    )
    md.Expiry = remaining_tenths(headers.get("expires"), now)
    reply_to = headers.get("reply-to")
    if reply_to and not reply_to.startswith("/topic/"):  # a topic is no MQMD ReplyToQ
        md.ReplyToQ = queue_name(reply_to, prefix)[:48]
    if H_MSG_ID in headers and headers.get(H_DIGEST) == digest(headers, body):
        return _from_mqjms(md, headers, body)
    return _native(md, headers, body, text, converted)


def _from_mqjms(md: MQMD, headers: Mapping[str, str], body: bytes) -> tuple[MQMD, bytes]:
    """A frame mqjms put, unchanged since: the MQMD and the very bytes that were put."""
    for key, value in headers.items():
        if key.startswith(H_MD):
            _set_generic(md, key[len(H_MD) :], value)
    correl = headers.get("correlation-id")
    if correl:
        md.CorrelId = correl_bytes(correl)
    md.BackoutCount = _int(headers.get(H_BACKOUT), 0)
    md.MsgId = _hex(headers[H_MSG_ID], 24)
    if not md.PutDate.strip():
        stamp = _int(headers.get("timestamp"), 0)
        if stamp > 0:
            md.PutDate, md.PutTime = put_date_time(stamp)
    chain = headers.get(H_CHAIN)
    if chain:
        try:
            return md, base64.b64decode(chain, validate=True) + body
        except binascii.Error:
            pass
    return md, body


def _native(
    md: MQMD,
    headers: Mapping[str, str],
    body: bytes,
    text: bool,
    converted: Converted | None,
) -> tuple[MQMD, bytes]:
    """A frame from another client: its own headers say everything (see :mod:`.native`)."""
    correl = headers.get("correlation-id")
    if correl:
        md.CorrelId = correl_bytes(correl)
    properties: dict[str, jms.UserPropertyValue] = {}
    for name, value in headers.items():
        if is_reserved(name):
            continue
        try:
            jms.check_property_name(name)
        except ValueError:
            continue
        properties[name] = value
    return from_native(md, headers, body, text=text, properties=properties, converted=converted)


def remaining_tenths(expires: str | None, now: float) -> int:
    """The MQMD Expiry for an ``expires`` header: remaining tenths, at least 1."""
    at = _int(expires, 0)
    if at <= 0:
        return C.MQEI_UNLIMITED
    return max(1, math.ceil((at - now * 1000) / 100 - 1e-9))


def is_expired(headers: Mapping[str, str], now: float) -> bool:
    at = _int(headers.get("expires"), 0)
    return 0 < at <= now * 1000


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
