"""JMS messages and how they map to an MQMD plus bytes, as IBM MQ classes for JMS map them.

Sending writes an RFH2 with the ``mcd``, ``jms`` and ``usr`` folders (MQMD Format MQHRF2,
relative Expiry in the MQMD and absolute ``Exp`` in ``jms``), or, for a destination
marked as a plain MQ application (``targetClient=1``), no RFH2 at all. Receiving reads
the RFH2 when there is one (its values win over the MQMD's) and otherwise makes a
TextMessage of Format MQSTR and a BytesMessage of anything else.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from mqjms.logs import get_logger
from mqjms.mq import ccsid, jms, jms_descriptor, jms_map, jms_stream, rfh2
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD

from .destination import TARGET_JMS as TARGET_JMS  # re-exported: Queue moved there
from .destination import TARGET_MQ as TARGET_MQ
from .destination import Destination as Destination
from .destination import Queue as Queue
from .errors import MessageFormatException

log = get_logger("mqjms.jms")

PropertyValue = str | int | float | bool | bytes | None

NON_PERSISTENT = jms_descriptor.NON_PERSISTENT  # JMS DeliveryMode
PERSISTENT = jms_descriptor.PERSISTENT
DEFAULT_PRIORITY = 4
DEFAULT_TIME_TO_LIVE = 0  # milliseconds; 0 = never expires


class Message:
    """A JMS message: body, typed user properties, JMS headers and the MQMD it came with."""

    msd = "jms_none"

    def __init__(
        self, body: Any = None, properties: Mapping[str, PropertyValue] | None = None
    ) -> None:
        self.body: Any = body
        if properties is not None and not isinstance(properties, Mapping):
            raise TypeError(
                f"properties must be a mapping of names to values, not {type(properties).__name__}"
            )
        self.properties: dict[str, PropertyValue] = dict(properties or {})
        for name in self.properties:
            jms.check_property_name(name)
        self.jms_message_id: str | None = None
        self.jms_correlation_id: str | None = None
        self.jms_timestamp: int = 0
        self.jms_expiration: int = 0
        self.jms_priority: int = DEFAULT_PRIORITY
        self.jms_delivery_mode: int = PERSISTENT
        self.jms_redelivered: bool = False
        self.jms_reply_to: str | None = None
        self.jms_destination: str | None = None
        self.jms_type: str | None = None
        self.md: MQMD | None = None
        self._acknowledge: Callable[[], None] | None = None

    @property
    def delivery_count(self) -> int:
        """JMSXDeliveryCount: BackoutCount + 1."""
        return (self.md.BackoutCount if self.md else 0) + 1

    def get_property(self, name: str) -> PropertyValue:
        """A property's value, as JMS ``getObjectProperty`` gives it: an application
        property, else a JMSX or JMS_IBM_* property IBM MQ classes for JMS give a received
        message from its MQMD (JMSXDeliveryCount, JMS_IBM_PutDate...); None for neither.
        Those are read-only and computed here, so a listener that reads none pays nothing."""
        if name in self.properties:
            return self.properties[name]
        return self._provider_properties().get(name)

    def property_names(self) -> list[str]:
        """The names ``get_property`` answers, as JMS ``getPropertyNames`` lists them:
        the application's properties, then the JMSX and JMS_IBM_* ones of a received
        message (those with a value: JMS_IBM_Feedback only when the MQMD has feedback...)."""
        names = list(self.properties)
        names += [name for name in self._provider_properties() if name not in self.properties]
        return names

    def property_exists(self, name: str) -> bool:
        """JMS ``propertyExists``."""
        return name in self.properties or name in self._provider_properties()

    def _provider_properties(self) -> dict[str, jms_descriptor.ProviderValue]:
        """The JMSX and JMS_IBM_* properties of the MQMD a message was received with (a
        message made to be sent has none); the body's Format, CCSID and Encoding are the
        last RFH2's when the message has one."""
        md = self.md
        if md is None:
            return {}
        body = self._body_descriptor or (md.Format, md.CodedCharSetId, md.Encoding)
        return jms_descriptor.provider_properties(md, *body)

    def acknowledge(self) -> None:
        """CLIENT_ACKNOWLEDGE: acknowledge every message the session has received so far."""
        if self._acknowledge is not None:
            self._acknowledge()

    def __repr__(self) -> str:
        body = self.body if not isinstance(self.body, bytes) else f"<{len(self.body)} bytes>"
        return f"{type(self).__name__}(id={self.jms_message_id}, body={body!r})"

    # A message from ``from_mq(..., lazy=True)`` maps its jms and usr folders (None: it has
    # no RFH2) and its MQMD's headers only when a property or header is first read: a
    # listener that needs the body alone never pays.
    _lazy: tuple[list[str] | None, MQMD, float] | None = None
    # (Format, CodedCharSetId, Encoding) of the body after a received message's RFH2 chain
    # (None: the MQMD describes the body), for JMS_IBM_Format, _Character_Set, _Encoding
    _body_descriptor: tuple[str, int, int] | None = None

    if not TYPE_CHECKING:  # at runtime only, so mypy still catches misspelt attributes

        def __getattr__(self, name: str) -> Any:
            lazy = self.__dict__.get("_lazy")
            if lazy is None or name not in _LAZY_FIELDS:
                raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
            self._lazy = None
            folders, md, now = lazy
            try:
                headers, properties = jms.parse_jms_folders(folders or [])
            except MQError as exc:
                raise MQError(
                    C.MQCC_FAILED,
                    C.MQRC_JMS_FORMAT_ERROR,
                    f"message {md.MsgId.hex()}: its RFH2 folders are not JMS: {exc.detail}",
                ) from None
            given = dict(self.__dict__)  # values the application set before reading
            self.properties = _with_group(properties, headers)
            _headers_from_mq(self, md, headers, now)
            self.__dict__.update({k: v for k, v in given.items() if k in _LAZY_FIELDS})
            return self.__dict__[name]


_LAZY_FIELDS = frozenset(
    {
        "properties",
        "jms_message_id",
        "jms_correlation_id",
        "jms_timestamp",
        "jms_expiration",
        "jms_priority",
        "jms_delivery_mode",
        "jms_redelivered",
        "jms_reply_to",
        "jms_destination",
        "jms_type",
    }
)


class TextMessage(Message):
    msd = "jms_text"
    body: str | None


class BytesMessage(Message):
    msd = "jms_bytes"
    body: bytes


class MapMessage(Message):
    """Named, typed values (str, int, float, bool, bytes or None), as a JMS MapMessage."""

    msd = "jms_map"
    body: dict[str, PropertyValue]


class StreamMessage(Message):
    """Typed values in order (str, int, float, bool, bytes or None), as a JMS
    StreamMessage: ``body`` is their list."""

    msd = "jms_stream"
    body: list[PropertyValue]


class ObjectMessage(Message):
    """A JMS ObjectMessage: a serialized Java object, which Python cannot deserialize.

    Reading ``body`` raises MessageFormatException, as JMS ``getObject()`` does for an
    object it cannot deserialize, unless the object came as text: over ActiveMQ, the
    broker's XML of the object when it can make one (docs/java-interop.md). ``data`` has
    the serialized bytes, when a transport can carry them.
    """

    msd = "jms_object"

    def __init__(
        self,
        text: str | None = None,
        properties: Mapping[str, PropertyValue] | None = None,
        data: bytes = b"",
    ) -> None:
        super().__init__(text, properties)
        self.data = data

    @property
    def body(self) -> str:
        text: str | None = self.__dict__.get("_text")
        if text is None:
            raise MessageFormatException(
                f"message {self.__dict__.get('jms_message_id')}: an ObjectMessage holds a "
                f"serialized Java object ({len(self.data)} bytes), which Python cannot read; "
                "have the Java side send a TextMessage (JSON) or a MapMessage"
            )
        return text

    @body.setter
    def body(self, text: str | None) -> None:
        self.__dict__["_text"] = text


def make_message(body: object, properties: Mapping[str, PropertyValue] | None = None) -> Message:
    """A message for a body: str -> TextMessage, bytes -> BytesMessage, dict ->
    MapMessage, list -> StreamMessage, None -> Message."""
    if isinstance(body, Message):
        if properties:
            body.properties.update(properties)
        return body
    if isinstance(body, str):
        return TextMessage(body, properties)
    if isinstance(body, bytes | bytearray | memoryview):
        return BytesMessage(bytes(body), properties)
    if isinstance(body, dict):
        return MapMessage(dict(body), properties)
    if isinstance(body, list):
        return StreamMessage(list(body), properties)
    if body is None:
        return Message(None, properties)
    raise TypeError(
        f"a message body must be str, bytes, dict, list or a Message, not {type(body).__name__}"
    )


def remaining_time_to_live(message: Message) -> int:
    """The request's remaining lifetime in milliseconds, for its reply (0: unlimited).

    Seed 000 note 7: a reply may copy the remaining expiry of the request. The MQGET
    returned it in the MQMD's Expiry (tenths of a second), so nothing is guessed.
    """
    if message.md is None or message.md.Expiry <= 0:
        return DEFAULT_TIME_TO_LIVE
    return message.md.Expiry * 100


# --------------------------------------------------------------------------- receiving
def from_mq(md: MQMD, data: bytes, now: float | None = None, *, lazy: bool = False) -> Message:
    """The JMS view of a received MQ message (seed-faithful mapping, RFH2 values win).

    ``lazy=True`` reads only what decides the message type and body (the ``mcd`` folder)
    now; the other folders are mapped when a property or header is first read, and a
    malformed one raises MQError MQRC_JMS_FORMAT_ERROR (2364) then.
    """
    now = time.time() if now is None else now
    if lazy:
        return _lazy_from_mq(md, data, now)
    headers: jms.JmsHeaders | None = None
    properties: dict[str, PropertyValue] = {}
    body_bytes, body_format, body_ccsid, body_encoding = (
        data,
        md.Format,
        md.CodedCharSetId,
        md.Encoding,
    )
    if rfh2.is_rfh2(md.Format):
        # the JMS mapping parses the folders it reads; malformed ones raise from there
        chain = rfh2.chain_folders(data, md.Encoding, md.CodedCharSetId, md.Format)
        headers, parsed = jms.parse_jms_folders(chain.folders)
        properties = _with_group(parsed, headers)
        body_bytes, body_format = chain.body, chain.Format
        body_ccsid, body_encoding = chain.CodedCharSetId, chain.Encoding
    message = _body_message(headers, body_bytes, body_format, body_ccsid, body_encoding)
    message.properties = properties
    message.md = md
    if rfh2.is_rfh2(md.Format):  # the body after the RFH2 chain has its own description
        message._body_descriptor = (body_format, body_ccsid, body_encoding)
    _headers_from_mq(message, md, headers, now)
    return message


# A folder's root element name when the folder starts with it (after XML whitespace);
# one that starts otherwise (an XML declaration, a comment, a BOM) is parsed to find it.
_FOLDER_START = re.compile(r"[ \t\r\n]*<([^ \t\r\n/>?!][^ \t\r\n/>]*)")


def _is_folder(text: str, name: str) -> bool:
    """Whether the folder's root element is ``name``, reading only its start if it can."""
    start = _FOLDER_START.match(text)
    if start is not None:
        return start[1] == name
    try:
        return rfh2.folder_name(text) == name
    except ValueError:  # malformed: reported when the folders are mapped, as when eager
        return False


def _lazy_from_mq(md: MQMD, data: bytes, now: float) -> Message:
    if not rfh2.is_rfh2(md.Format):  # the body alone: the MQMD's headers are mapped later
        message = _body_message(None, data, md.Format, md.CodedCharSetId, md.Encoding, lazy=True)
        message.md = md
        message._acknowledge = None
        message._lazy = (None, md, now)
        return message
    chain = rfh2.chain_folders(data, md.Encoding, md.CodedCharSetId, md.Format)
    folders = chain.folders
    if folders and folders[0].startswith("<mcd>"):  # where a JMS producer writes it
        mcd: str | None = folders[0]
    else:
        mcd = next((f for f in folders if _is_folder(f, "mcd")), None)
    headers = (_mcd_headers if mcd and len(mcd) <= _MCD_CACHED else _mcd_parsed)(mcd)
    message = _body_message(
        headers, chain.body, chain.Format, chain.CodedCharSetId, chain.Encoding, lazy=True
    )
    message.md = md
    message._acknowledge = None
    message._lazy = (folders, md, now)
    message._body_descriptor = (chain.Format, chain.CodedCharSetId, chain.Encoding)
    return message


_MCD_CACHED = 200  # characters: an mcd folder up to this long is parsed once, then cached


def _mcd_parsed(mcd: str | None) -> jms.JmsHeaders | None:
    """The headers of the ``mcd`` folder alone (what decides the type and the body)."""
    return jms.parse_jms_folders([mcd])[0] if mcd else None


# A producer writes the same few mcd folders (`<mcd><Msd>jms_text</Msd></mcd>`): each is
# parsed once. Shared: the callers only read the result.
_mcd_headers = lru_cache(maxsize=64)(_mcd_parsed)


def _body_message(
    headers: jms.JmsHeaders | None,
    body: bytes,
    body_format: str,
    body_ccsid: int,
    encoding: int,
    *,
    lazy: bool = False,
) -> Message:
    """The message of the JMS type ``mcd.Msd`` says (else the Format), with its body;
    ``lazy``: made without ``__init__``, for :func:`_lazy_from_mq` to fill in."""
    msd = headers.msd if headers and headers.msd else None
    # no mcd, or a broker's domain (xmlnsc, mrm...): the body's Format says text or bytes
    by_format = msd is None or not msd.startswith("jms_")
    value: Any
    data = b""
    if msd == jms.MSD_TEXT or (by_format and body_format == C.MQFMT_STRING):
        kind: type[Message] = TextMessage
        null = headers is not None and headers.null_body
        value = None if null else _decode(body, body_ccsid, encoding)
    elif msd == jms.MSD_MAP:
        kind, value = MapMessage, jms_map.parse_map(_decode(body, body_ccsid, encoding))
    elif msd == jms.MSD_STREAM:
        kind = StreamMessage
        value = jms_stream.parse_stream(_decode(body, body_ccsid, encoding))
    elif msd == jms.MSD_OBJECT:
        kind = ObjectMessage
        if body_format == C.MQFMT_STRING:  # the object as text (see ObjectMessage)
            value = _decode(body, body_ccsid, encoding)
        else:
            value, data = None, body
    elif msd == jms.MSD_NONE and not body:
        kind, value = Message, None
    else:
        kind, value = BytesMessage, body
    message = kind(value) if not lazy else kind.__new__(kind)
    message.body = value
    if isinstance(message, ObjectMessage):
        message.data = data
    return message


def _decode(raw: bytes, body_ccsid: int, encoding: int) -> str:
    """The text of a body; CCSID 0 (MQCCSI_Q_MGR, unresolved by the transport) is UTF-8.

    An unsupported CCSID raises MQError MQRC_SOURCE_CCSID_ERROR, bytes that are not
    valid in it MQRC_JMS_FORMAT_ERROR; either way ``to_message`` delivers the raw bytes.
    """
    body_ccsid = body_ccsid or C.CCSID_UTF8
    try:
        return ccsid.decode(raw, body_ccsid, encoding)
    except UnicodeDecodeError as exc:
        raise MQError(
            C.MQCC_FAILED,
            C.MQRC_JMS_FORMAT_ERROR,
            f"text body is not valid in CCSID {body_ccsid} "
            f"({ccsid.codec_name(body_ccsid, encoding)}): {exc}",
        ) from None


def _headers_from_mq(message: Message, md: MQMD, h: jms.JmsHeaders | None, now: float) -> None:
    """Set every JMS header field: RFH2 values win, the MQMD fills the rest.

    Every field is assigned, present or not, because a lazily decoded message has no
    defaults from ``__init__`` to fall back on (a header it lacks must read as None or 0,
    exactly as on an eagerly decoded one).
    """
    if h and h.message_id:  # the id a broker other than IBM MQ gave it
        message.jms_message_id = h.message_id
    else:
        message.jms_message_id = "ID:" + md.MsgId.hex()
    if h and h.correlation_id is not None:
        message.jms_correlation_id = h.correlation_id
    elif md.CorrelId != C.MQCI_NONE:
        message.jms_correlation_id = "ID:" + md.CorrelId.hex()
    else:
        message.jms_correlation_id = None
    message.jms_timestamp = (
        h.timestamp if h and h.timestamp is not None else jms_descriptor.put_millis(md)
    )
    if h and h.expiration is not None:
        message.jms_expiration = h.expiration
    elif md.Expiry > 0:
        message.jms_expiration = int(now * 1000) + md.Expiry * 100
    else:
        message.jms_expiration = 0
    if h and h.priority is not None:
        message.jms_priority = h.priority
    else:
        message.jms_priority = md.Priority if 0 <= md.Priority <= 9 else DEFAULT_PRIORITY
    if h and h.delivery_mode is not None:
        message.jms_delivery_mode = h.delivery_mode
    else:
        message.jms_delivery_mode = jms_descriptor.delivery_mode(md)
    message.jms_redelivered = md.BackoutCount > 0
    if h and h.reply_to:
        message.jms_reply_to = h.reply_to
    else:
        message.jms_reply_to = jms_descriptor.reply_to_uri(md)
    message.jms_destination = h.destination if h else None
    message.jms_type = h.type if h else None


def _with_group(
    properties: Mapping[str, PropertyValue], headers: jms.JmsHeaders | None
) -> dict[str, PropertyValue]:
    """The usr properties, and JMSXGroupID/JMSXGroupSeq from the jms folder (Gid, Seq),
    which the application set as properties; JMS_IBM_Retain 1 on a copy of a retained
    publication."""
    found = dict(properties)
    if headers is not None:
        for name, field in jms.GROUP_PROPERTIES.items():
            value = getattr(headers, field)
            if value is not None:
                found[name] = value
        if headers.retained:
            found[jms.RETAIN_PROPERTY] = jms.RETAIN_PUBLICATION
    return found


# --------------------------------------------------------------------------- sending
def _integral(value: object) -> bool:
    """An integer other than ``int`` (numpy's, pandas's), not a bool; ``numbers`` is
    imported here, with the first one (it adds milliseconds to ``import mqjms``)."""
    import numbers

    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def to_mq(
    message: Message,
    destination: Destination,
    *,
    delivery_mode: int = PERSISTENT,
    priority: int = DEFAULT_PRIORITY,
    time_to_live: int = DEFAULT_TIME_TO_LIVE,
    now: float | None = None,
) -> tuple[MQMD, bytes]:
    """The MQMD and bytes IBM MQ classes for JMS would put for ``message``."""
    md, data, _ = to_mq_described(
        message,
        destination,
        delivery_mode=delivery_mode,
        priority=priority,
        time_to_live=time_to_live,
        now=now,
    )
    return md, data


def to_mq_described(
    message: Message,
    destination: Destination,
    *,
    delivery_mode: int = PERSISTENT,
    priority: int = DEFAULT_PRIORITY,
    time_to_live: int = DEFAULT_TIME_TO_LIVE,
    now: float | None = None,
) -> tuple[MQMD, bytes, tuple[str, int, int] | None]:
    """:func:`to_mq`, and what describes the body after the RFH2 (None: the MQMD does),
    which a producer gives the message with the MQMD of the put (JMS_IBM_Format...):
    a message a listener forwards keeps describing the body it was received with."""
    now = time.time() if now is None else now
    for name, value in (
        ("delivery_mode", delivery_mode),
        ("priority", priority),
        ("time_to_live", time_to_live),
    ):
        if type(value) is not int and not _integral(value):  # every send comes here
            raise TypeError(f"{name} must be an int, not {type(value).__name__} {value!r}")
    # a numpy or pandas integer (a DataFrame's column) is taken as the int it holds
    delivery_mode, priority, time_to_live = int(delivery_mode), int(priority), int(time_to_live)
    if delivery_mode not in (NON_PERSISTENT, PERSISTENT):
        raise ValueError(
            f"delivery_mode must be PERSISTENT (2) or NON_PERSISTENT (1), not {delivery_mode}"
        )
    if not 0 <= priority <= 9:
        raise ValueError(f"priority must be 0-9, not {priority}")
    if time_to_live < 0:
        raise ValueError(f"time_to_live must be >= 0 milliseconds (0 = never), not {time_to_live}")
    timestamp = int(now * 1000)
    expiration = timestamp + time_to_live if time_to_live else 0
    md = MQMD(
        Priority=priority,
        Persistence=C.MQPER_PERSISTENT if delivery_mode == PERSISTENT else C.MQPER_NOT_PERSISTENT,
        Expiry=_ttl_tenths(time_to_live),
        Report=jms.report_options(message.properties),  # JMS_IBM_Report_* (IBM's mapping)
    )
    reply_uri = message.jms_reply_to or None
    if reply_uri is not None and not reply_uri.startswith("topic://"):
        reply_to = Queue.parse(reply_uri)  # a topic is named in jms.Rto alone (no MQMD field)
        md.ReplyToQ = reply_to.name
        md.ReplyToQMgr = reply_to.qmgr
        md.MsgType = C.MQMT_REQUEST
        reply_uri = reply_to.uri
    cid = message.jms_correlation_id
    if cid:
        md.CorrelId = _correl_bytes(cid)
    body, body_format = _body_bytes(message)
    if message.properties:  # JMS_IBM_Format, _MsgType, _Feedback: the MQMD's (IBM's mapping)
        fmt, msg_type, feedback = jms_descriptor.sent_settings(message.properties)
        body_format = body_format if fmt is None else fmt
        md.MsgType = md.MsgType if msg_type is None else msg_type
        md.Feedback = md.Feedback if feedback is None else feedback
    message.jms_timestamp, message.jms_expiration = timestamp, expiration
    message.jms_priority, message.jms_delivery_mode = priority, delivery_mode
    message.jms_destination = destination.uri
    if destination.target_client == TARGET_MQ:
        md.Format, md.CodedCharSetId, md.Encoding = body_format, C.CCSID_UTF8, C.MQENC_NATIVE
        return md, body, None  # the MQMD describes the body
    headers = jms.JmsHeaders(
        msd=message.msd,
        type=message.jms_type,
        destination=destination.uri,
        reply_to=reply_uri,
        timestamp=timestamp,
        expiration=expiration or None,
        correlation_id=cid or None,  # in jms.Cid whatever it is, as IBM's JMS writes it
        priority=priority if priority != DEFAULT_PRIORITY else None,
        delivery_mode=delivery_mode,
        null_body=isinstance(message, TextMessage) and message.body is None,
    )
    header = rfh2.RFH2(
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=C.CCSID_UTF8,
        Format=body_format,
        NameValueCCSID=C.CCSID_UTF8,
        folders=jms.build_jms_folders(headers, message.properties),
    )
    md.Format, md.CodedCharSetId, md.Encoding = C.MQFMT_RF_HEADER_2, C.CCSID_UTF8, C.MQENC_NORMAL
    data = rfh2.build_chain([header], body, C.MQENC_NORMAL)
    return md, data, (body_format, C.CCSID_UTF8, C.MQENC_NORMAL)


def _ttl_tenths(time_to_live: int) -> int:
    if not time_to_live:
        return C.MQEI_UNLIMITED
    tenths = math.ceil(time_to_live / 100)
    return tenths if tenths <= 2_147_483_647 else C.MQEI_UNLIMITED


def _body_bytes(message: Message) -> tuple[bytes, str]:
    if isinstance(message, TextMessage):
        try:
            return (message.body or "").encode("utf-8"), C.MQFMT_STRING
        except UnicodeEncodeError as exc:  # a lone surrogate: no UTF-8 for it
            raise ValueError(
                f"a text body must be valid Unicode: {exc.reason} at index {exc.start}"
            ) from None
    if isinstance(message, BytesMessage):
        return bytes(message.body or b""), C.MQFMT_NONE
    if isinstance(message, MapMessage):
        return jms_map.build_map(message.body or {}).encode("utf-8"), C.MQFMT_STRING
    if isinstance(message, StreamMessage):
        return jms_stream.build_stream(message.body or []).encode("utf-8"), C.MQFMT_STRING
    if isinstance(message, ObjectMessage):
        raise TypeError("mqjms cannot send an ObjectMessage (a serialized Java object)")
    return b"", C.MQFMT_NONE


def _is_id(value: str) -> bool:
    return value.startswith("ID:") and len(value) == 51


def _correl_bytes(value: str) -> bytes:
    if _is_id(value):
        try:
            return bytes.fromhex(value[3:])
        except ValueError:
            pass
    return value.encode("utf-8")[:24].ljust(24, b"\x00")


def to_message(md: MQMD, data: bytes, queue: str, *, lazy: bool = False) -> Message:
    """The JMS view of a received message; bytes that do not parse are delivered as a
    BytesMessage of the raw data, never lost."""
    try:
        return from_mq(md, data, lazy=lazy)
    except Exception as exc:  # whatever is wrong with it, the message is delivered, not lost
        log.warning(
            "message.unparsed",
            queue=queue,
            msg_id=md.MsgId.hex(),
            reason=exc.reason_name if isinstance(exc, MQError) else type(exc).__name__,
            detail=str(exc),
        )
        message = BytesMessage(data)
        message.md = md
        _headers_from_mq(message, md, None, time.time())  # the MQMD's, never defaults
        return message
