"""The JMS folders ``mcd``, ``jms`` and ``usr`` <-> typed values, as IBM's JMS client writes them.

Exact text matters: IBM MQ classes for JMS write the folders in the order mcd, jms,
(mqext,) usr, omit empty ones, write no ``dt`` in ``jms``, and type ``usr`` properties
with single-quoted ``dt`` attributes (mq-reference §2.5). Reading is more tolerant
(``i1``/``i2``/``int``/``r4``/``string``/``char``, ``true``/``false``) but never guesses:
a value that does not fit its type raises MQFormatError with MQRC_JMS_FORMAT_ERROR.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import TYPE_CHECKING, NoReturn

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.jms_descriptor import SENT_IN_MQMD
from mqjms.mq.rfh2 import parse_folder

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET  # the parsing is parse_folder's

UserPropertyValue = str | int | float | bool | bytes | None
UserProperties = dict[str, UserPropertyValue]

MSD_TEXT = "jms_text"
MSD_BYTES = "jms_bytes"
MSD_MAP = "jms_map"
MSD_STREAM = "jms_stream"
MSD_STREAM = "jms_stream"
MSD_OBJECT = "jms_object"
MSD_NONE = "jms_none"

SELECTOR_KEYWORDS = frozenset(
    {"NULL", "TRUE", "FALSE", "NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "ESCAPE"}
)

_I4 = (-(2**31), 2**31 - 1)
_I8 = (-(2**63), 2**63 - 1)
_INT_RANGES = {
    "i1": (-(2**7), 2**7 - 1),
    "i2": (-(2**15), 2**15 - 1),
    "i4": _I4,
    "i8": _I8,
    "int": _I8,  # IBM: 'int' is read as i8
}


@dataclass(slots=True, eq=True)
class JmsHeaders:
    """JMS header fields carried in ``mcd`` and ``jms``; None means "not written".

    The JMS client's rules for *when* to write a field (Pri only if not 4, Exp only if
    the message expires, Tms only if >= 0) belong to whoever fills this in: the builder
    writes every field that is not None, so that parse(build(h)) == h.
    """

    msd: str | None = None  # mcd.Msd: jms_text, jms_bytes, jms_map, jms_stream, jms_object, ...
    type: str | None = None  # mcd.Type: JMSType
    destination: str | None = None  # jms.Dst: JMSDestination URI, e.g. 'queue:///Q1'
    reply_to: str | None = None  # jms.Rto: JMSReplyTo URI
    timestamp: int | None = None  # jms.Tms: JMSTimestamp, ms since the epoch
    expiration: int | None = None  # jms.Exp: JMSExpiration, absolute ms since the epoch
    correlation_id: str | None = None  # jms.Cid: JMSCorrelationID
    priority: int | None = None  # jms.Pri: JMSPriority 0-9
    delivery_mode: int | None = None  # jms.Dlv: 1 NON_PERSISTENT, 2 PERSISTENT
    group_id: str | None = None  # jms.Gid: JMSXGroupID
    group_seq: int | None = None  # jms.Seq: JMSXGroupSeq
    # jms.Mid, mqjms's own (IBM's client neither writes nor reads it): the JMSMessageID
    # that a broker other than IBM MQ gave a message (ActiveMQ's ``ID:host-...:1:1:1:1``),
    # which a 24-byte MsgId cannot hold. Only the STOMP transport writes it.
    message_id: str | None = None
    null_body: bool = False  # mcd.msgbody xsi:nil: a TextMessage whose text is null
    # mqps.Ret (MQIsRetained): a copy of a retained publication, sent to a new subscription
    # or on request; the JMS client shows it as the property JMS_IBM_Retain = 1
    retained: bool = False


# The JMSX properties the JMS client carries in the jms folder (Gid, Seq), not in usr: an
# application sets and reads them as properties, by these names (build_jms_folders writes
# them there; mqjms.jms.message reads them back as properties).
GROUP_PROPERTIES = {"JMSXGroupID": "group_id", "JMSXGroupSeq": "group_seq"}

# IBM's property for retained publications: a publisher sets it to RETAIN_PUBLICATION to
# publish with MQPMO_RETAIN (it is no RFH2 property: the put carries it), and a subscriber
# reads it as 1 on a copy of a retained publication (mqps.Ret).
RETAIN_PROPERTY = "JMS_IBM_Retain"
RETAIN_PUBLICATION = 1

# IBM MQ classes for JMS's JMS_IBM_Report_* properties ("Mapping JMS provider-specific
# fields"): set on a message they are its MQMD Report options, not RFH2 properties, so
# that a JMS sender can ask for MQRO_DISCARD_MSG (seed 002: a poison message no backout
# queue takes is then discarded, not dead-lettered) or expiration reports (seed 000).
# Each name takes 0 (not set) or one of its values.
REPORT_PROPERTIES: dict[str, tuple[int, ...]] = {
    "JMS_IBM_Report_Exception": (
        C.MQRO_EXCEPTION,
        C.MQRO_EXCEPTION_WITH_DATA,
        C.MQRO_EXCEPTION_WITH_FULL_DATA,
    ),
    "JMS_IBM_Report_Expiration": (
        C.MQRO_EXPIRATION,
        C.MQRO_EXPIRATION_WITH_DATA,
        C.MQRO_EXPIRATION_WITH_FULL_DATA,
    ),
    "JMS_IBM_Report_COA": (C.MQRO_COA, C.MQRO_COA_WITH_DATA, C.MQRO_COA_WITH_FULL_DATA),
    "JMS_IBM_Report_COD": (C.MQRO_COD, C.MQRO_COD_WITH_DATA, C.MQRO_COD_WITH_FULL_DATA),
    "JMS_IBM_Report_PAN": (C.MQRO_PAN,),
    "JMS_IBM_Report_NAN": (C.MQRO_NAN,),
    "JMS_IBM_Report_Pass_Msg_ID": (C.MQRO_PASS_MSG_ID,),
    "JMS_IBM_Report_Pass_Correl_ID": (C.MQRO_PASS_CORREL_ID,),
    "JMS_IBM_Report_Discard_Msg": (C.MQRO_DISCARD_MSG,),
}

_MCD = (("msd", "Msd"), ("type", "Type"))
_JMS_STR = {
    "Dst": "destination",
    "Rto": "reply_to",
    "Cid": "correlation_id",
    "Gid": "group_id",
    "Mid": "message_id",
}
_JMS_INT = {
    "Tms": ("timestamp", _I8),
    "Exp": ("expiration", _I8),
    "Pri": ("priority", _I4),
    "Dlv": ("delivery_mode", _I4),
    "Seq": ("group_seq", _I4),
}
#: the ``dt`` of the jms folder's integers, which IBM's JMS writes without one (Tms and
#: Exp are Java longs, Pri, Dlv and Seq ints): a reader of typed properties types them so
JMS_FOLDER_DT = {"Tms": "i8", "Exp": "i8", "Pri": "i4", "Dlv": "i4", "Seq": "i4"}
_JMS_ORDER = ("Dst", "Rto", "Tms", "Exp", "Cid", "Pri", "Dlv", "Gid", "Seq", "Mid")
_NULL_BODY = '<msgbody xsi:nil="true"></msgbody>'  # IBM writes double quotes here


# --- writing --------------------------------------------------------------------------

_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;", "\r": "&#xD;"}
)  # a raw CR would come back as LF
# The characters XML 1.0 excludes (its Char production's complement), listed rather than
# negated: the negated class with the astral range takes about 7 ms to compile at import.
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def uncarried(text: str, what: str = "value") -> str | None:
    """Why ``text`` cannot be element text of an RFH2 folder (a character XML 1.0
    excludes: a control character, a lone surrogate, U+FFFE or U+FFFF), or None."""
    bad = _NOT_XML_CHAR.search(text)
    if bad is None:
        return None
    return (
        f"{what}: character U+{ord(bad.group()):04X} at index {bad.start()} "
        "cannot be carried in an RFH2 folder (not an XML character)"
    )


def escape(text: str, what: str = "value") -> str:
    """XML-escape element text the way the JMS client does; ValueError for non-XML chars."""
    problem = uncarried(text, what)
    if problem:
        raise ValueError(problem)
    text = text.translate(_ESCAPES)
    return _ASTRAL.sub(lambda m: f"&#x{ord(m.group()):X};", text)


@lru_cache(maxsize=4096)
def _is_xml_name(name: str) -> bool:
    try:
        return parse_folder(f"<{name}/>").tag == name
    except ValueError:
        return False


def check_property_name(name: str) -> None:
    """ValueError unless ``name`` may be a JMS user property in ``usr`` (IBM's rules)."""
    if not isinstance(name, str) or not name:
        raise ValueError(f"usr property name {name!r}: must be a non-empty string")
    if name in GROUP_PROPERTIES:  # written to the jms folder (see build_jms_folders)
        return
    if name == RETAIN_PROPERTY:  # the publisher's MQPMO_RETAIN (see wants_retain)
        return
    if name in REPORT_PROPERTIES or name in SENT_IN_MQMD:  # the MQMD's (see report_options)
        return
    if name.startswith("JMS"):
        raise ValueError(
            f"usr property name {name!r}: names starting with 'JMS' are reserved "
            "for JMS header fields and JMSX/JMS_IBM properties"
        )
    if name.upper() in SELECTOR_KEYWORDS:
        raise ValueError(
            f"usr property name {name!r}: a message selector keyword "
            f"({', '.join(sorted(SELECTOR_KEYWORDS))}) in any case is not allowed"
        )
    if "." in name or ":" in name:
        raise ValueError(f"usr property name {name!r}: must not contain '.' or ':'")
    if not _is_xml_name(name):
        raise ValueError(f"usr property name {name!r}: not a valid XML element name")


def _int_text(what: str, value: object, bounds: tuple[int, int]) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{what} must be int, not {type(value).__name__}")
    if not bounds[0] <= value <= bounds[1]:
        raise ValueError(f"{what}: {value} is outside {bounds[0]}..{bounds[1]}")
    return str(value)


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def property_element(name: str, value: UserPropertyValue) -> str:
    """One ``usr`` element, e.g. ``<Count dt='i4'>42</Count>``."""
    check_property_name(name)
    if value is None:
        return f"<{name} xsi:nil='true'></{name}>"
    if isinstance(value, str):
        return f"<{name}>{escape(value, f'usr property {name!r}')}</{name}>"
    if isinstance(value, bool):
        return f"<{name} dt='boolean'>{int(value)}</{name}>"
    if isinstance(value, int):
        dt = "i4" if _I4[0] <= value <= _I4[1] else "i8"
        return f"<{name} dt='{dt}'>{_int_text(f'usr property {name!r}', value, _I8)}</{name}>"
    if isinstance(value, float):
        return f"<{name} dt='r8'>{_float_text(value)}</{name}>"
    if isinstance(value, bytes | bytearray):
        return f"<{name} dt='bin.hex'>{bytes(value).hex().upper()}</{name}>"
    raise TypeError(
        f"usr property {name!r}: {type(value).__name__} is not a JMS property "
        "type (str, bool, int, float, bytes or None)"
    )


def build_mcd(headers: JmsHeaders) -> str | None:
    parts = [
        f"<{tag}>{escape(v, f'mcd.{tag}')}</{tag}>"
        for attr, tag in _MCD
        if (v := getattr(headers, attr)) is not None
    ]
    if headers.null_body:
        parts.append(_NULL_BODY)
    return f"<mcd>{''.join(parts)}</mcd>" if parts else None


def build_jms(headers: JmsHeaders) -> str | None:
    parts: list[str] = []
    for tag in _JMS_ORDER:
        if tag in _JMS_STR:
            value = getattr(headers, _JMS_STR[tag])
            if value is not None:
                parts.append(f"<{tag}>{escape(value, f'jms.{tag}')}</{tag}>")
        else:
            attr, bounds = _JMS_INT[tag]
            value = getattr(headers, attr)
            if value is not None:
                parts.append(f"<{tag}>{_int_text(f'jms.{tag} ({attr})', value, bounds)}</{tag}>")
    return f"<jms>{''.join(parts)}</jms>" if parts else None


def build_usr(properties: Mapping[str, UserPropertyValue]) -> str | None:
    if not properties:
        return None
    return f"<usr>{''.join(property_element(n, v) for n, v in properties.items())}</usr>"


def build_jms_folders(
    headers: JmsHeaders | None, properties: Mapping[str, UserPropertyValue] | None = None
) -> list[str]:
    """The folders in the JMS client's order (mcd, jms, usr), empty ones left out;
    JMSXGroupID and JMSXGroupSeq among ``properties`` go to the jms folder (Gid, Seq)."""
    properties = properties or {}
    if (
        RETAIN_PROPERTY in properties
        or not REPORT_PROPERTIES.keys().isdisjoint(properties)
        or not SENT_IN_MQMD.isdisjoint(properties)
    ):
        # an option of the put, and MQMD fields: not properties the RFH2 carries
        properties = {
            k: v
            for k, v in properties.items()
            if k != RETAIN_PROPERTY and k not in REPORT_PROPERTIES and k not in SENT_IN_MQMD
        }
    if "JMSXGroupID" in properties or "JMSXGroupSeq" in properties:
        properties = dict(properties)
        base = headers or JmsHeaders()
        group_id, group_seq = (
            properties.pop("JMSXGroupID", None),
            properties.pop("JMSXGroupSeq", None),
        )
        headers = replace(
            base,
            group_id=base.group_id if group_id is None else _group_id(group_id),
            group_seq=base.group_seq if group_seq is None else _group_seq(group_seq),
        )
    folders = [
        build_mcd(headers) if headers else None,
        build_jms(headers) if headers else None,
        build_usr(properties),
    ]
    return [text for text in folders if text is not None]


def wants_retain(properties: Mapping[str, UserPropertyValue]) -> bool:
    """Whether a message's properties ask for a retained publication: JMS_IBM_Retain set
    to RETAIN_PUBLICATION (1); any other value is a TypeError or ValueError."""
    value = properties.get(RETAIN_PROPERTY)
    if value is None:
        return False
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{RETAIN_PROPERTY} must be int, not {type(value).__name__}")
    if value not in (0, RETAIN_PUBLICATION):
        raise ValueError(f"{RETAIN_PROPERTY} must be 0 or {RETAIN_PUBLICATION}, not {value}")
    return value == RETAIN_PUBLICATION


def report_options(properties: Mapping[str, UserPropertyValue]) -> int:
    """The MQMD Report the JMS_IBM_Report_* properties among ``properties`` ask for
    (MQRO_NONE when none is set); a value that is not an int is a TypeError, one that is
    neither 0 nor one of the property's options a ValueError naming them."""
    report = C.MQRO_NONE
    for name, allowed in REPORT_PROPERTIES.items():
        value = properties.get(name)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} must be int, not {type(value).__name__}")
        if value != 0 and value not in allowed:
            options = ", ".join(f"{option:#010x}" for option in allowed)
            raise ValueError(f"{name} must be 0 or one of {options}, not {value:#x}")
        report |= value
    return report


def _group_id(value: UserPropertyValue) -> str:
    """JMSXGroupID is a String (the JMS specification)."""
    if not isinstance(value, str):
        raise TypeError(f"JMSXGroupID must be str, not {type(value).__name__}")
    return value


def _group_seq(value: UserPropertyValue) -> int:
    """JMSXGroupSeq is an int from 1 (the JMS specification)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"JMSXGroupSeq must be int, not {type(value).__name__}")
    if not 1 <= value <= _I4[1]:
        raise ValueError(f"JMSXGroupSeq must be 1..{_I4[1]}, not {value}")
    return value


# --- reading --------------------------------------------------------------------------


def _bad(where: str, problem: str) -> NoReturn:
    raise MQFormatError("MQRFH2", where, 0, problem, C.MQRC_JMS_FORMAT_ERROR)


def _parse_int(where: str, text: str, bounds: tuple[int, int]) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        _bad(where, f"{text[:40]!r} is not an integer")
    if not bounds[0] <= value <= bounds[1]:
        _bad(where, f"{value} is outside {bounds[0]}..{bounds[1]}")
    return value


def property_value(element: ET.Element) -> UserPropertyValue:
    """The typed value of one ``usr`` element (or MQFormatError naming it)."""
    where = f"usr.{element.tag}"
    if len(element):
        _bad(where, "nested elements (property groups) are not JMS properties")
    if element.get("xsi:nil", "").lower() == "true":
        return None
    text = element.text or ""
    dt = element.get("dt")
    if dt is None or dt in ("string", "char"):
        return text
    if dt == "boolean":
        flag = text.strip().lower()
        if flag in ("1", "true"):
            return True
        if flag in ("0", "false"):
            return False
        _bad(where, f"dt='boolean' value {text[:40]!r} is not 1, 0, true or false")
    if dt in _INT_RANGES:
        return _parse_int(where, text, _INT_RANGES[dt])
    if dt in ("r4", "r8"):
        try:
            return float(text.strip())
        except ValueError:
            _bad(where, f"dt='{dt}' value {text[:40]!r} is not a number")
    if dt == "bin.hex":
        try:
            return bytes.fromhex(text)
        except ValueError:
            _bad(where, f"dt='bin.hex' value {text[:40]!r} is not hex digits")
    _bad(where, f"unknown dt={dt!r}")


def parse_usr(element: ET.Element) -> UserProperties:
    properties: UserProperties = {}
    for child in element:
        if child.tag in properties:
            _bad(f"usr.{child.tag}", "the property appears more than once")
        properties[child.tag] = property_value(child)
    return properties


def _parse_headers(mcd: ET.Element | None, jms: ET.Element | None) -> JmsHeaders:
    headers = JmsHeaders()
    if mcd is not None:
        for attr, tag in _MCD:
            found = mcd.find(tag)
            if found is not None:
                setattr(headers, attr, found.text or "")
        body = mcd.find("msgbody")
        headers.null_body = body is not None and body.get("xsi:nil", "").lower() == "true"
    if jms is not None:
        for tag, attr in _JMS_STR.items():
            found = jms.find(tag)
            if found is not None:
                setattr(headers, attr, found.text or "")
        for tag, (attr, bounds) in _JMS_INT.items():
            found = jms.find(tag)
            if found is not None:
                setattr(headers, attr, _parse_int(f"jms.{tag}", found.text or "", bounds))
    return headers


def parse_jms_folders(folders: Iterable[str]) -> tuple[JmsHeaders | None, UserProperties]:
    """The JMS headers (None if there is neither mcd nor jms) and the usr properties.

    The first folder of each name wins, as in the JMS client; other folders are ignored.
    """
    found: dict[str, ET.Element] = {}
    for index, text in enumerate(folders):
        try:
            element = parse_folder(text)
        except ValueError as exc:
            _bad("NameValueData", f"folder {index} {text[:40]!r}: {exc}")
        if element.tag in ("mcd", "jms", "usr", "mqps"):
            found.setdefault(element.tag, element)
    mcd, jms, usr = found.get("mcd"), found.get("jms"), found.get("usr")
    headers = None if mcd is None and jms is None else _parse_headers(mcd, jms)
    mqps = found.get("mqps")
    top = mqps.find("Top") if mqps is not None else None
    if top is not None and top.text and (headers is None or headers.destination is None):
        # a publication's topic string (MQTopicString), the JMSDestination of a copy that
        # came without a jms folder (published by a program that is not JMS)
        headers = headers or JmsHeaders()
        headers.destination = TOPIC_URI + top.text
    ret = mqps.find("Ret") if mqps is not None else None
    if ret is not None and (ret.text or "").strip().lower() in ("1", "true"):
        headers = headers or JmsHeaders()
        headers.retained = True
    return headers, parse_usr(usr) if usr is not None else {}


TOPIC_URI = "topic://"


def build_mqps(topic_string: str, *, retained: bool = False) -> str:
    """The ``mqps`` folder IBM MQ gives a publication: its topic string (MQTopicString),
    and ``Ret`` (MQIsRetained, a boolean) for a retained publication sent to a new
    subscription or on MQSUBRQ."""
    ret = RETAINED_ELEMENT if retained else ""
    return f"<mqps><Top>{escape(topic_string, 'topic string')}</Top>{ret}</mqps>"


#: MQIsRetained in the mqps folder, as a publication sent from the retained ones has it.
RETAINED_ELEMENT = "<Ret dt='boolean'>1</Ret>"
