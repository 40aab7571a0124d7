"""Message handles and their properties (MQCRTMH, MQSETMP, MQINQMP, MQDLTMP, MQDLTMH),
carried in the message as an MQRFH2, as IBM MQ does for a queue with PROPCTL(COMPAT).

A property named without a folder (``Property_1``) or with ``usr.`` is a user property,
written in the RFH2's ``usr`` folder with the ``dt`` of its MQTYPE (IBM MQ classes for
JMS read it as a JMS property, and mqjms's own consumers do); ``jms.*``, ``mcd.*`` and
other prefixes go to the folder they name. A put whose MQPMO (version 3) names a message
handle prepends that RFH2 to the data; a get with MQGMO_PROPERTIES_IN_HANDLE takes the
RFH2 chain off the data into the handle, MQGMO_NO_PROPERTIES drops it, and the default
(MQGMO_PROPERTIES_AS_Q_DEF) leaves it in the data, as PROPCTL(COMPAT) does (an RFH2
of the queue manager's ``mqps`` folder alone excepted: COMPAT drops it).

IBM's names of the publish/subscribe properties are synonyms of their RFH2 places:
MQTopicString is ``mqps.Top``, MQSubUserData ``mqps.Sud``, MQIsRetained ``mqps.Ret``; so
are the JMS names MQSETMP may set (JMSCorrelationID is ``jms.Cid``, JMSType ``mcd.Type``...).
MQSETMP checks a name as IBM MQ's default validation does: 2442 for one MQ refuses.
"""

from __future__ import annotations

import itertools
import re
import threading
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

from mqjms.mq import constants as C
from mqjms.mq import jms, rfh2
from mqjms.mq.errors import MQError, MQFormatError, failed
from mqjms.mq.md import MQMD
from mqjms.mqi import descriptor_properties
from mqjms.mqi.constants import CMQC

Value = str | int | float | bool | bytes | None

# MQTYPE_* <-> the RFH2 ``dt`` attribute of a property element
_DT_OF_TYPE = {
    CMQC.MQTYPE_STRING: None,
    CMQC.MQTYPE_BOOLEAN: "boolean",
    CMQC.MQTYPE_BYTE_STRING: "bin.hex",
    CMQC.MQTYPE_INT8: "i1",
    CMQC.MQTYPE_INT16: "i2",
    CMQC.MQTYPE_INT32: "i4",
    CMQC.MQTYPE_INT64: "i8",
    CMQC.MQTYPE_FLOAT32: "r4",
    CMQC.MQTYPE_FLOAT64: "r8",
    CMQC.MQTYPE_NULL: None,
}
_TYPE_OF_DT = {
    None: CMQC.MQTYPE_STRING,
    "string": CMQC.MQTYPE_STRING,
    "char": CMQC.MQTYPE_STRING,
    "boolean": CMQC.MQTYPE_BOOLEAN,
    "bin.hex": CMQC.MQTYPE_BYTE_STRING,
    "i1": CMQC.MQTYPE_INT8,
    "i2": CMQC.MQTYPE_INT16,
    "i4": CMQC.MQTYPE_INT32,
    "int": CMQC.MQTYPE_INT64,
    "i8": CMQC.MQTYPE_INT64,
    "r4": CMQC.MQTYPE_FLOAT32,
    "r8": CMQC.MQTYPE_FLOAT64,
}
USER_FOLDER = "usr"
JMS_DT = jms.JMS_FOLDER_DT


@dataclass
class Property:
    value: Value
    type: int


@dataclass
class MessageProperties:
    """The properties of one message handle, in the order they were set."""

    items: dict[str, Property] = field(default_factory=dict)
    cursor: int = -1  # MQIMPO_INQ_NEXT: the index of the last property returned
    descriptor: MQMD | None = None  # the MQMD of the message a get filled the handle with
    named: str | None = None  # the synonym or Root.MQMD name MQINQMP last returned

    def set(self, name: str, value: object, property_type: int) -> None:
        key = property_key(name)
        check_settable(name)
        typed = typed_value(key, value, property_type)
        if isinstance(typed, str):
            _check_carried(name, typed)
        self.items[key] = Property(typed, property_type)

    def delete(self, name: str) -> None:
        key = property_key(name)
        if self.items.pop(key, None) is None:  # MQDLTMP: a warning, not a failure
            raise MQError(
                C.MQCC_WARNING,
                CMQC.MQRC_PROPERTY_NOT_AVAILABLE,
                f"message property {name!r} is not set",
            )

    def inquire(self, name: str, options: int) -> tuple[str, Property]:
        """MQINQMP: ``name`` may end with ``%`` (every property of a folder, one per call:
        MQIMPO_INQ_FIRST, then MQIMPO_INQ_NEXT); 2471 when none (more) match.
        ``Root.MQMD.<Field>`` is that field of the MQMD of the message a get filled the
        handle with."""
        synonym = descriptor_properties.JMS_NAMES.get(name)
        if synonym is not None:
            self._not_again(name, options)
            found = self._synonym(name, *synonym)
            self.named = name
            return name, found
        if self.descriptor is not None and descriptor_properties.is_descriptor_name(name):
            field_value = descriptor_properties.descriptor_value(self.descriptor, name)
            if field_value is not None:
                self._not_again(name, options)
                self.named = name
                return name, Property(*field_value)
        matching = [(i, key) for i, key in enumerate(self.items) if _matches(name, key)]
        if options & CMQC.MQIMPO_INQ_NEXT:
            matching = [(i, key) for i, key in matching if i > self.cursor]
        elif options & CMQC.MQIMPO_INQ_PROP_UNDER_CURSOR:
            matching = [(i, key) for i, key in matching if i == self.cursor]
        if not matching:
            raise failed(
                CMQC.MQRC_PROPERTY_NOT_AVAILABLE, f"no (more) message properties match {name!r}"
            )
        index, key = matching[0]
        self.cursor = index
        return key, self.items[key]

    def _not_again(self, name: str, options: int) -> None:
        """A name that is one property (a JMS synonym, a Root.MQMD field): MQIMPO_INQ_NEXT
        after it was returned finds no more (2471), as for any other property name."""
        if options & CMQC.MQIMPO_INQ_NEXT and self.named == name:
            raise failed(CMQC.MQRC_PROPERTY_NOT_AVAILABLE, f"no more properties match {name!r}")

    def _synonym(self, name: str, place: str | None, md_field: str | None) -> Property:
        """A JMS name's value: its RFH2 place's, else its MQMD field's (2471 for neither)."""
        if place is not None and place in self.items:
            return self.items[place]
        if md_field is not None and self.descriptor is not None:
            found = descriptor_properties.jms_value(self.descriptor, name, md_field)
            if found is not None:
                return Property(*found)
        raise failed(CMQC.MQRC_PROPERTY_NOT_AVAILABLE, f"the message has no {name}")

    def folders(self) -> list[str]:
        """The RFH2 folders holding these properties (usr first, then the others)."""
        by_folder: dict[str, list[str]] = {}
        for key, prop in self.items.items():
            folder, _, short = key.rpartition(".")
            implied = folder == "jms" and short in JMS_DT  # IBM's JMS writes these bare
            by_folder.setdefault(folder or USER_FOLDER, []).append(
                _element(short, prop, typed=not implied)
            )
        ordered = sorted(by_folder, key=lambda f: (f != "mcd", f != "jms", f != USER_FOLDER))
        return [f"<{folder}>{''.join(by_folder[folder])}</{folder}>" for folder in ordered]

    def fill_from(self, folders: list[str], descriptor: MQMD | None = None) -> None:
        """Replace the properties with those of an RFH2's folders, and the message
        descriptor with ``descriptor`` (its fields are ``Root.MQMD.*``)."""
        self.items.clear()
        self.cursor = -1
        self.named = None
        self.descriptor = descriptor
        for text in folders:
            element = rfh2.parse_folder(text)
            prefix = "" if element.tag == USER_FOLDER else element.tag + "."
            for child in element:
                if len(child):
                    continue  # a property group: not a single property
                if element.tag == "jms" and child.get("dt") is None and child.tag in JMS_DT:
                    # JMSPriority 7 is an int, not '7'; typed on a copy: the parsed folder
                    # is shared by every reader of the same text (rfh2.parse_folder's cache)
                    typed = ET.Element(child.tag, {**child.attrib, "dt": JMS_DT[child.tag]})
                    typed.text, child = child.text, typed
                dt = child.get("dt")
                try:
                    value = jms.property_value(child)
                except MQFormatError:  # kept as the text it is, and typed so
                    value, dt = child.text or "", None
                kind = (
                    CMQC.MQTYPE_NULL if value is None else _TYPE_OF_DT.get(dt, CMQC.MQTYPE_STRING)
                )
                self.items.setdefault(prefix + child.tag, Property(value, kind))


#: The JMS names an MQI program may set (IBM's "Property name restrictions") -> their
#: RFH2 places, where IBM MQ classes for JMS read them.
JMS_SYNONYMS = {
    name: place
    for name, (place, _) in descriptor_properties.JMS_NAMES.items()
    if name in descriptor_properties.SETTABLE and place is not None
}
#: IBM MQ's names of the properties it keeps in the ``mqps`` folder, and the JMS names
#: above -> their RFH2 places.
SYNONYMS = {
    "MQTopicString": "mqps.Top",
    "MQSubUserData": "mqps.Sud",
    "MQIsRetained": "mqps.Ret",
    **JMS_SYNONYMS,
}


def property_key(name: object) -> str:
    """A property's name as stored: ``usr.`` dropped, IBM's synonyms (:data:`SYNONYMS`)
    by their folder, the rest kept."""
    text = name.decode("utf-8") if isinstance(name, bytes) else str(name)
    text = text.strip().rstrip("\x00")
    if not text or len(text) > 4095:
        raise failed(
            CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR,
            f"message property name {text[:64]!r} has {len(text)} characters: 1 to 4095 may be",
        )
    text = SYNONYMS.get(text, text)
    return text[len("usr.") :] if text.startswith("usr.") else text


def check_settable(name: str) -> None:
    """2442 MQRC_PROPERTY_NAME_ERROR for a name IBM MQ's MQSETMP refuses: at the set,
    where the program's ``except MQMIError`` is, rather than a failure at the put."""
    problem = _name_problem(name.strip().rstrip("\x00"))
    if problem:
        raise failed(CMQC.MQRC_PROPERTY_NAME_ERROR, f"message property name {name!r}: {problem}")


def _check_carried(name: str, value: str) -> None:
    """2466 MQRC_PROP_VALUE_NOT_CONVERTED at the set for a string an RFH2 cannot hold (a
    control character...): IBM MQ keeps such a value, mqjms's RFH2 folders cannot, and a
    failure at the put would come where the program does not expect it."""
    problem = jms.uncarried(value, f"message property {name!r}")
    if problem:
        raise failed(
            CMQC.MQRC_PROP_VALUE_NOT_CONVERTED,
            f"{problem}: remove it, or set the value as bytes (MQTYPE_BYTE_STRING)",
        )


def _name_problem(name: str) -> str | None:
    """What IBM's property name rules (MQCMHO_VALIDATE) say is wrong with ``name``."""
    short = name[len("usr.") :] if name.startswith("usr.") else name
    if short.startswith("JMS") and name not in JMS_SYNONYMS:
        return "a name beginning JMS or usr.JMS is reserved; MQSETMP may set only " + ", ".join(
            JMS_SYNONYMS
        )
    if short.upper() in jms.SELECTOR_KEYWORDS:
        return "a message selector keyword is not a property name"
    if name.startswith(("Body.", "Root.")) and not name.startswith("Root.MQMD."):
        return "names beginning Body. or Root. (but Root.MQMD.) are reserved"
    parts = name.split(".")
    if not all(parts):
        return "a '.' must not begin or end the name nor follow another '.'"
    if name[:2].lower() == "mq" and not name.lower().startswith("mq_usr") and len(parts) > 2:
        return "a name beginning mq may have one '.' at most"
    for part in parts:
        if not part.replace("$", "_").isidentifier():
            return f"{part!r} is not a Java identifier (letters, digits, _ and $; no digit first)"
        if "$" in part:
            return "mqjms carries properties as RFH2 (XML) elements, which cannot hold a '$'"
    return None


def _matches(pattern: str, key: str) -> bool:
    wanted = property_key(pattern)
    if wanted.endswith("%"):
        folder = wanted[:-1].rstrip(".")
        key_folder = key.rpartition(".")[0]
        return (folder in ("", USER_FOLDER) and not key_folder) or key_folder == folder
    return key == wanted


def typed_value(name: str, value: object, property_type: int) -> Value:
    """MQSETMP's value as the type says (2473 when it is not one)."""
    try:
        if property_type == CMQC.MQTYPE_NULL or value is None:
            return None
        if property_type == CMQC.MQTYPE_STRING:
            return value.decode("utf-8") if isinstance(value, bytes) else str(value)
        if property_type == CMQC.MQTYPE_BYTE_STRING:
            return bytes(value) if isinstance(value, bytes | bytearray) else str(value).encode()
        if property_type == CMQC.MQTYPE_BOOLEAN:
            return bool(value)
        if property_type in (CMQC.MQTYPE_FLOAT32, CMQC.MQTYPE_FLOAT64):
            return float(value)  # type: ignore[arg-type]
        if property_type in _DT_OF_TYPE:
            return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError, UnicodeDecodeError):
        pass
    raise failed(
        CMQC.MQRC_PROPERTY_TYPE_ERROR,
        f"message property {name!r}: {value!r} is not of MQTYPE {property_type}",
    )


def _element(name: str, prop: Property, *, typed: bool = True) -> str:
    """One folder element; ``typed=False``: no ``dt`` (a type the folder implies)."""
    jms.check_property_name(name)
    value = prop.value
    if value is None:
        return f"<{name} xsi:nil='true'></{name}>"
    dt = _DT_OF_TYPE.get(prop.type)
    if isinstance(value, bytes):
        text = value.hex().upper()
    elif isinstance(value, bool):
        text = str(int(value))
    else:
        text = jms.escape(str(value), f"property {name!r}")
    attribute = f" dt='{dt}'" if dt and typed else ""
    return f"<{name}{attribute}>{text}</{name}>"


def value_bytes(value: Value) -> int:
    """The length MQINQMP reports for a value (DataLength)."""
    if isinstance(value, str):
        return len(value.encode("utf-8"))
    if isinstance(value, bytes):
        return len(value)
    return 8 if value is not None else 0


class PropertyStore:
    """One connection's message handles (MQCRTMH numbers them)."""

    _numbers = itertools.count(1_000_001)  # unique across connections, never 0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._handles: dict[int, MessageProperties] = {}

    def create(self) -> int:
        number = next(self._numbers)
        with self._lock:
            self._handles[number] = MessageProperties()
        return number

    def delete(self, number: int) -> None:
        with self._lock:
            if self._handles.pop(number, None) is None:
                raise failed(CMQC.MQRC_HMSG_ERROR, f"message handle {number} does not exist")

    def get(self, number: int) -> MessageProperties:
        with self._lock:
            found = self._handles.get(number)
        if found is None:
            raise failed(CMQC.MQRC_HMSG_ERROR, f"message handle {number} does not exist")
        return found

    def clear(self) -> None:
        with self._lock:
            self._handles.clear()

    def __iter__(self) -> Iterator[int]:
        return iter(list(self._handles))


# --------------------------------------------------------------------------- in the message


def with_properties(md: MQMD, data: bytes, properties: MessageProperties) -> bytes:
    """The data with an RFH2 of ``properties`` in front (``md`` updated to describe it)."""
    folders = properties.folders()
    if not folders:
        return data
    header = rfh2.RFH2(
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId or C.MQCCSI_INHERIT,
        Format=md.Format,
        folders=folders,
    )
    packed = header.pack(C.MQENC_NATIVE)
    md.Format = C.MQFMT_RF_HEADER_2
    md.Encoding = C.MQENC_NATIVE
    md.CodedCharSetId = C.CCSID_UTF8
    return packed + data


#: ``<mqps`` in a folder of UTF-8 or UTF-16 (either byte order)
_MQPS = re.compile(rb"<mqps|<\x00m\x00q\x00p\x00s|\x00<\x00m\x00q\x00p\x00s")

#: The folders of properties the queue manager adds to a publication (MQTopicString,
#: MQIsRetained...): alone in an RFH2, PROPCTL(COMPAT) does not deliver them in the data.
QMGR_FOLDERS = frozenset({"mqps"})


def without_qmgr_properties(md: MQMD, data: bytes) -> bytes:
    """A get's data under PROPCTL(COMPAT) (MQGMO_PROPERTIES_AS_Q_DEF): IBM MQ delivers
    the properties in an RFH2 only when one is a JMS one (mcd, jms, usr, mqext); a
    publication whose RFH2 holds nothing but the queue manager's ``mqps`` folder (the
    retained mark of a copy of a program's publication) comes as it was published, its
    body alone. ``md`` describes what is returned."""
    if not rfh2.is_rfh2(md.Format) or not _MQPS.search(_first_header(md, data)):
        return data  # most RFH2s (a JMS message's: mcd first) are not parsed again
    try:
        chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    except MQError:
        return data
    names = {rfh2.folder_name(text) for text in chain.folders}
    if not names or not names <= QMGR_FOLDERS:
        return data
    md.Format = chain.Format
    md.Encoding = chain.Encoding
    md.CodedCharSetId = chain.CodedCharSetId
    return chain.body


def _first_header(md: MQMD, data: bytes) -> bytes:
    """The first RFH2 of the chain (its StrucLength, in the MQMD's integer encoding),
    never the body: the folders to look in, bounded whatever the message's size."""
    if len(data) < 12:
        return b""
    big = md.Encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL
    length = int.from_bytes(data[8:12], "big" if big else "little", signed=True)
    return data[: max(0, min(length, len(data)))]


def split_properties(md: MQMD, data: bytes) -> tuple[list[str], bytes]:
    """The folders of the RFH2 chain at the start of the data, and the body; ``md``'s
    Format, Encoding and CodedCharSetId describe the body afterwards. Data that is no
    (valid) RFH2 chain comes back unchanged with no folders."""
    if not rfh2.is_rfh2(md.Format):
        return [], data
    try:
        chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    except MQError:
        return [], data
    md.Format = chain.Format
    md.Encoding = chain.Encoding
    md.CodedCharSetId = chain.CodedCharSetId
    return chain.folders, chain.body
