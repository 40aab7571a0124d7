"""Object attributes under their MQSC names, with MQ's defaults, types and MQINQ selectors.

One table drives validation (MQSC and the Python API alike), DISPLAY output and MQINQ,
so an attribute is described once. Values are held in their MQSC form: ints, keyword
strings (``"ENABLED"``), plain strings, or booleans for on/off keywords such as
``HARDENBO``/``NOHARDENBO``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed

LOCAL = "QLOCAL"
ALIAS = "QALIAS"
MODEL = "QMODEL"
REMOTE = "QREMOTE"  # a local definition of a remote queue, or a queue manager alias
QUEUE_TYPES = (LOCAL, ALIAS, MODEL, REMOTE)
QTYPE_CODES = {
    LOCAL: C.MQQT_LOCAL,
    ALIAS: C.MQQT_ALIAS,
    MODEL: C.MQQT_MODEL,
    REMOTE: C.MQQT_REMOTE,
}

INT = "int"
TEXT = "text"
KEYWORD = "keyword"
FLAG = "flag"  # e.g. HARDENBO / NOHARDENBO: True / False


@dataclass(frozen=True, slots=True)
class Attr:
    name: str
    kind: str
    types: tuple[str, ...]
    default: int | str | bool
    length: int = 0  # TEXT: maximum characters
    low: int = 0
    high: int = 999_999_999
    choices: tuple[str, ...] = ()
    negative: str = ""  # FLAG: the keyword that means False
    selector: int | None = None  # MQIA_* / MQCA_*
    inquire_map: tuple[tuple[str | bool, int], ...] = ()  # MQSC value -> MQINQ value
    readonly: bool = False
    name_ref: bool = False  # TEXT that names an MQ object: validated as a name


_LM = (LOCAL, MODEL)
_ALL = (LOCAL, ALIAS, MODEL)  # the queues a program can get from
_ANY = (LOCAL, ALIAS, MODEL, REMOTE)

QUEUE_ATTRS: tuple[Attr, ...] = (
    Attr("DESCR", TEXT, _ANY, "", length=64, selector=C.MQCA_Q_DESC),
    Attr(
        "PUT",
        KEYWORD,
        _ANY,
        "ENABLED",
        choices=("ENABLED", "DISABLED"),
        selector=C.MQIA_INHIBIT_PUT,
        inquire_map=(("ENABLED", C.MQQA_PUT_ALLOWED), ("DISABLED", C.MQQA_PUT_INHIBITED)),
    ),
    Attr(
        "GET",
        KEYWORD,
        _ALL,
        "ENABLED",
        choices=("ENABLED", "DISABLED"),
        selector=C.MQIA_INHIBIT_GET,
        inquire_map=(("ENABLED", C.MQQA_GET_ALLOWED), ("DISABLED", C.MQQA_GET_INHIBITED)),
    ),
    Attr("DEFPRTY", INT, _ANY, 0, low=0, high=9, selector=C.MQIA_DEF_PRIORITY),
    Attr(
        "DEFPSIST",
        KEYWORD,
        _ANY,
        "NO",
        choices=("NO", "YES"),
        selector=C.MQIA_DEF_PERSISTENCE,
        inquire_map=(("NO", C.MQPER_NOT_PERSISTENT), ("YES", C.MQPER_PERSISTENT)),
    ),
    Attr("TARGET", TEXT, (ALIAS,), "", length=48, selector=C.MQCA_BASE_Q_NAME, name_ref=True),
    # QREMOTE: the queue (blank for a queue manager alias) on queue manager RQMNAME, reached
    # through transmission queue XMITQ (blank: the one named RQMNAME, else DEFXMITQ)
    Attr("RNAME", TEXT, (REMOTE,), "", length=48, selector=C.MQCA_REMOTE_Q_NAME, name_ref=True),
    Attr(
        "RQMNAME",
        TEXT,
        (REMOTE,),
        "",
        length=48,
        selector=C.MQCA_REMOTE_Q_MGR_NAME,
        name_ref=True,
    ),
    Attr("XMITQ", TEXT, (REMOTE,), "", length=48, selector=C.MQCA_XMIT_Q_NAME, name_ref=True),
    Attr("BOTHRESH", INT, _LM, 0, low=0, high=999_999_999, selector=C.MQIA_BACKOUT_THRESHOLD),
    Attr("BOQNAME", TEXT, _LM, "", length=48, selector=C.MQCA_BACKOUT_REQ_Q_NAME, name_ref=True),
    Attr(
        "HARDENBO",
        FLAG,
        _LM,
        False,
        negative="NOHARDENBO",
        selector=C.MQIA_HARDEN_GET_BACKOUT,
        inquire_map=((True, C.MQQA_BACKOUT_HARDENED), (False, C.MQQA_BACKOUT_NOT_HARDENED)),
    ),
    Attr(
        "MSGDLVSQ",
        KEYWORD,
        _LM,
        "PRIORITY",
        choices=("PRIORITY", "FIFO"),
        selector=C.MQIA_MSG_DELIVERY_SEQUENCE,
        inquire_map=(("PRIORITY", C.MQMDS_PRIORITY), ("FIFO", C.MQMDS_FIFO)),
    ),
    Attr("MAXDEPTH", INT, _LM, 5000, low=0, high=999_999_999, selector=C.MQIA_MAX_Q_DEPTH),
    Attr("MAXMSGL", INT, _LM, 4_194_304, low=0, high=104_857_600, selector=C.MQIA_MAX_MSG_LENGTH),
    Attr(
        "SHARE",
        FLAG,
        _LM,
        True,
        negative="NOSHARE",
        selector=C.MQIA_SHAREABILITY,
        inquire_map=((True, C.MQQA_SHAREABLE), (False, C.MQQA_NOT_SHAREABLE)),
    ),
    Attr(
        "DEFSOPT",
        KEYWORD,
        _LM,
        "SHARED",
        choices=("SHARED", "EXCL"),
        selector=C.MQIA_DEF_INPUT_OPEN_OPTION,
        inquire_map=(("SHARED", C.MQOO_INPUT_SHARED), ("EXCL", C.MQOO_INPUT_EXCLUSIVE)),
    ),
    Attr(
        "DEFTYPE",
        KEYWORD,
        (MODEL,),
        "TEMPDYN",
        choices=("TEMPDYN", "PERMDYN"),
        selector=C.MQIA_DEFINITION_TYPE,
        inquire_map=(
            ("TEMPDYN", C.MQQDT_TEMPORARY_DYNAMIC),
            ("PERMDYN", C.MQQDT_PERMANENT_DYNAMIC),
        ),
    ),
    Attr(
        "USAGE",
        KEYWORD,
        _LM,
        "NORMAL",
        choices=("NORMAL", "XMITQ"),
        selector=C.MQIA_USAGE,
        inquire_map=(("NORMAL", C.MQUS_NORMAL), ("XMITQ", C.MQUS_TRANSMISSION)),
    ),
    # Kept, shown and inquired as IBM MQ has them; mqjms generates no queue depth events,
    # keeps no retention interval, has no distribution lists and no read-ahead, and its
    # puts are synchronous whatever DEFPRESP says.
    Attr("QDEPTHHI", INT, _LM, 80, low=0, high=100, selector=C.MQIA_Q_DEPTH_HIGH_LIMIT),
    Attr("QDEPTHLO", INT, _LM, 20, low=0, high=100, selector=C.MQIA_Q_DEPTH_LOW_LIMIT),
    *(
        Attr(
            name,
            KEYWORD,
            _LM,
            default,
            choices=("ENABLED", "DISABLED"),
            selector=selector,
            inquire_map=(("ENABLED", C.MQEVR_ENABLED), ("DISABLED", C.MQEVR_DISABLED)),
        )
        for name, default, selector in (
            ("QDPHIEV", "DISABLED", C.MQIA_Q_DEPTH_HIGH_EVENT),
            ("QDPLOEV", "DISABLED", C.MQIA_Q_DEPTH_LOW_EVENT),
            ("QDPMAXEV", "ENABLED", C.MQIA_Q_DEPTH_MAX_EVENT),
        )
    ),
    Attr("RETINTVL", INT, _LM, 999_999_999, selector=C.MQIA_RETENTION_INTERVAL),
    Attr(
        "DISTL",
        KEYWORD,
        _LM,
        "NO",
        choices=("YES", "NO"),
        selector=C.MQIA_DIST_LISTS,
        inquire_map=(("YES", C.MQDL_SUPPORTED), ("NO", C.MQDL_NOT_SUPPORTED)),
    ),
    Attr(
        "DEFPRESP",
        KEYWORD,
        _ANY,
        "SYNC",
        choices=("SYNC", "ASYNC"),
        selector=C.MQIA_DEF_PUT_RESPONSE_TYPE,
        inquire_map=(("SYNC", C.MQPRT_SYNC_RESPONSE), ("ASYNC", C.MQPRT_ASYNC_RESPONSE)),
    ),
    Attr(
        "DEFREADA",
        KEYWORD,
        _ALL,
        "NO",
        choices=("NO", "YES", "DISABLED"),
        selector=C.MQIA_DEF_READ_AHEAD,
        inquire_map=(
            ("NO", C.MQREADA_NO),
            ("YES", C.MQREADA_YES),
            ("DISABLED", C.MQREADA_DISABLED),
        ),
    ),
    # Triggering (seed 003)
    Attr(
        "TRIGGER",
        FLAG,
        _LM,
        False,
        negative="NOTRIGGER",
        selector=C.MQIA_TRIGGER_CONTROL,
        inquire_map=((True, C.MQTC_ON), (False, C.MQTC_OFF)),
    ),
    Attr(
        "TRIGTYPE",
        KEYWORD,
        _LM,
        "FIRST",
        choices=("NONE", "FIRST", "EVERY", "DEPTH"),
        selector=C.MQIA_TRIGGER_TYPE,
        inquire_map=(
            ("NONE", C.MQTT_NONE),
            ("FIRST", C.MQTT_FIRST),
            ("EVERY", C.MQTT_EVERY),
            ("DEPTH", C.MQTT_DEPTH),
        ),
    ),
    Attr("TRIGDPTH", INT, _LM, 1, low=1, high=999_999_999, selector=C.MQIA_TRIGGER_DEPTH),
    Attr("TRIGMPRI", INT, _LM, 0, low=0, high=9, selector=C.MQIA_TRIGGER_MSG_PRIORITY),
    Attr("TRIGDATA", TEXT, _LM, "", length=64, selector=C.MQCA_TRIGGER_DATA),
    Attr("INITQ", TEXT, _LM, "", length=48, selector=C.MQCA_INITIATION_Q_NAME, name_ref=True),
    Attr("PROCESS", TEXT, _LM, "", length=48, selector=C.MQCA_PROCESS_NAME, name_ref=True),
    # Read-only status attributes, computed when displayed or inquired.
    Attr("CURDEPTH", INT, (LOCAL,), 0, selector=C.MQIA_CURRENT_Q_DEPTH, readonly=True),
    Attr("IPPROCS", INT, (LOCAL,), 0, selector=C.MQIA_OPEN_INPUT_COUNT, readonly=True),
    Attr("OPPROCS", INT, (LOCAL,), 0, selector=C.MQIA_OPEN_OUTPUT_COUNT, readonly=True),
    # When the definition was made and last changed (UTC): yyyy-mm-dd, hh.mm.ss
    Attr("CRDATE", TEXT, _ANY, "", length=12, selector=C.MQCA_CREATION_DATE, readonly=True),
    Attr("CRTIME", TEXT, _ANY, "", length=8, selector=C.MQCA_CREATION_TIME, readonly=True),
    Attr("ALTDATE", TEXT, _ANY, "", length=12, selector=C.MQCA_ALTERATION_DATE, readonly=True),
    Attr("ALTTIME", TEXT, _ANY, "", length=8, selector=C.MQCA_ALTERATION_TIME, readonly=True),
)

QMGR_ATTRS: tuple[Attr, ...] = (
    Attr("DESCR", TEXT, ("QMGR",), "", length=64, selector=C.MQCA_Q_MGR_DESC),
    Attr(
        "DEADQ",
        TEXT,
        ("QMGR",),
        "SYSTEM.DEAD.LETTER.QUEUE",
        length=48,
        selector=C.MQCA_DEAD_LETTER_Q_NAME,
        name_ref=True,
    ),
    Attr(
        "DEFXMITQ",
        TEXT,
        ("QMGR",),
        "",
        length=48,
        selector=C.MQCA_DEF_XMIT_Q_NAME,
        name_ref=True,
    ),
    # EXPRYINT: seconds between periodic expiry scans, 0 meaning OFF (as MQSC shows it).
    Attr("EXPRYINT", INT, ("QMGR",), 0, low=0, high=99_999_999, selector=C.MQIA_EXPIRY_INTERVAL),
    Attr(
        "TRIGINT",
        INT,
        ("QMGR",),
        999_999_999,
        low=0,
        high=999_999_999,
        selector=C.MQIA_TRIGGER_INTERVAL,
    ),
    Attr(
        "MAXMSGL",
        INT,
        ("QMGR",),
        4_194_304,
        low=32_768,
        high=104_857_600,
        selector=C.MQIA_MAX_MSG_LENGTH,
    ),
    Attr("CCSID", INT, ("QMGR",), 1208, low=1, high=65535, selector=C.MQIA_CODED_CHAR_SET_ID),
)

PROCESS = "PROCESS"
# APPLTYPE keywords and the MQAT_* values a trigger message carries in MQTM.ApplType.
APPL_TYPES = {
    "UNIX": C.MQAT_UNIX,
    "DEF": C.MQAT_DEFAULT,
    "WINDOWSNT": C.MQAT_WINDOWS_NT,
    "WINDOWS": C.MQAT_WINDOWS,
    "JAVA": C.MQAT_JAVA,
    "CICS": C.MQAT_CICS,
    "MVS": C.MQAT_ZOS,
    "ZOS": C.MQAT_ZOS,
    "IMS": C.MQAT_IMS,
    "OS400": C.MQAT_OS400,
    "NSK": C.MQAT_GUARDIAN,
}
PROCESS_ATTRS: tuple[Attr, ...] = (
    Attr("DESCR", TEXT, (PROCESS,), "", length=64),
    Attr("APPLTYPE", KEYWORD, (PROCESS,), "UNIX", choices=tuple(APPL_TYPES)),
    Attr("APPLICID", TEXT, (PROCESS,), "", length=C.MQ_PROCESS_APPL_ID_LENGTH),
    Attr("ENVRDATA", TEXT, (PROCESS,), "", length=C.MQ_PROCESS_ENV_DATA_LENGTH),
    Attr("USERDATA", TEXT, (PROCESS,), "", length=C.MQ_PROCESS_USER_DATA_LENGTH),
)
PROCESS_ATTR_BY_NAME = {a.name: a for a in PROCESS_ATTRS}

QUEUE_ATTR_BY_NAME = {a.name: a for a in QUEUE_ATTRS}
QMGR_ATTR_BY_NAME = {a.name: a for a in QMGR_ATTRS}
QUEUE_ATTR_BY_SELECTOR = {a.selector: a for a in QUEUE_ATTRS if a.selector is not None}
QMGR_ATTR_BY_SELECTOR = {a.selector: a for a in QMGR_ATTRS if a.selector is not None}
# Negative flag keywords (NOHARDENBO) -> their attribute (HARDENBO).
NEGATIVE_FLAGS = {a.negative: a for a in (*QUEUE_ATTRS, *QMGR_ATTRS) if a.kind == FLAG}

_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/%")


def validate_name(name: object, what: str = "queue") -> str:
    if isinstance(name, str) and name in _VALID_NAMES:
        return name
    _check_name(name, what)
    if len(_VALID_NAMES) < 10_000:
        _VALID_NAMES.add(name)  # type: ignore[arg-type]
    return name  # type: ignore[return-value]


_VALID_NAMES: set[str] = set()


#: The last position an asterisk may take in an MQOD's DynamicQName (MQ: "to allow a
#: sufficient number of characters" for the unique part it stands for).
LAST_ASTERISK = 33


def dynamic_queue_name(pattern: str, unique: str) -> str:
    """The name MQOPEN of a model queue gives its dynamic queue from DynamicQName: a
    trailing asterisk (in positions 1 to 33, nothing but blanks after it) stands for
    ``unique``; MQRC_DYNAMIC_Q_NAME_ERROR (2011) for anything else that is not a name."""
    name = pattern.rstrip(" ")
    star = name.find("*")
    if star >= 0:
        if star != len(name) - 1 or star >= LAST_ASTERISK:
            raise failed(
                C.MQRC_DYNAMIC_Q_NAME_ERROR,
                f"DynamicQName {pattern!r}: an asterisk stands for the generated part only "
                f"as its last character, in positions 1 to {LAST_ASTERISK}",
            )
        name = (name[:-1] + unique)[: C.MQ_Q_NAME_LENGTH]
    try:
        return validate_name(name)
    except MQError as exc:
        raise failed(C.MQRC_DYNAMIC_Q_NAME_ERROR, f"DynamicQName: {exc.detail}") from None


def _check_name(name: object, what: str) -> str:
    """Check an MQ object name: 1-48 of A-Z a-z 0-9 . _ / %, else MQRC_OBJECT_NAME_ERROR."""
    if not isinstance(name, str):
        raise failed(
            C.MQRC_OBJECT_NAME_ERROR, f"{what} name must be a str, not {type(name).__name__}"
        )
    if not name:
        raise failed(C.MQRC_OBJECT_NAME_ERROR, f"{what} name is empty")
    if len(name) > C.MQ_Q_NAME_LENGTH:
        raise failed(
            C.MQRC_OBJECT_NAME_ERROR,
            f"{what} name {name!r} is {len(name)} characters; MQ allows at most 48",
        )
    bad = sorted({ch for ch in name if ch not in _NAME_CHARS})
    if bad:
        raise failed(
            C.MQRC_OBJECT_NAME_ERROR,
            f"{what} name {name!r} has characters MQ does not allow: {''.join(bad)!r} "
            "(allowed: A-Z a-z 0-9 . _ / %)",
        )
    return name


def attr_error(detail: str) -> MQError:
    return failed(C.MQRCCF_ATTR_VALUE_ERROR, detail)


def normalize(attr: Attr, value: object) -> int | str | bool:
    """Validate one value (Python or MQSC text form) and return its canonical form."""
    where = f"{attr.name}({value!r})"
    if attr.readonly:
        raise attr_error(f"{attr.name} is read-only")
    if attr.kind == INT:
        if isinstance(value, bool):
            raise attr_error(f"{where}: expected a whole number")
        if isinstance(value, str):
            text = value.strip()
            if attr.name == "EXPRYINT" and text.upper() == "OFF":
                return 0
            try:
                value = int(text)
            except ValueError:
                raise attr_error(f"{where}: expected a whole number") from None
        if not isinstance(value, int):
            raise attr_error(f"{where}: expected a whole number")
        if not attr.low <= value <= attr.high:
            raise attr_error(f"{where}: must be from {attr.low} to {attr.high}")
        return value
    if attr.kind == FLAG:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.upper() in (attr.name, "YES", "TRUE"):
            return True
        if isinstance(value, str) and value.upper() in (attr.negative, "NO", "FALSE"):
            return False
        raise attr_error(f"{where}: expected {attr.name} or {attr.negative}")
    if not isinstance(value, str):
        raise attr_error(f"{where}: expected text")
    if attr.kind == KEYWORD:
        word = value.strip().upper()
        if word not in attr.choices:
            raise attr_error(f"{where}: must be one of {', '.join(attr.choices)}")
        return word
    if len(value) > attr.length:
        raise attr_error(f"{where}: longer than {attr.length} characters")
    if attr.name_ref and value.strip():
        validate_name(value.strip(), attr.name)
        return value.strip()
    return value


def queue_attr(name: str, qtype: str) -> Attr:
    attr = QUEUE_ATTR_BY_NAME.get(name.upper())
    if attr is None:
        raise attr_error(f"{name} is not a queue attribute mqjms knows")
    if qtype not in attr.types:
        raise failed(C.MQRCCF_PARM_CONFLICT, f"{attr.name} does not apply to {qtype}")
    return attr


def normalize_queue_attrs(qtype: str, attrs: Mapping[str, object]) -> dict[str, int | str | bool]:
    out: dict[str, int | str | bool] = {}
    for name, value in attrs.items():
        upper = name.upper()
        if upper in NEGATIVE_FLAGS:  # NOHARDENBO=True means HARDENBO False
            attr = queue_attr(NEGATIVE_FLAGS[upper].name, qtype)
            out[attr.name] = not normalize(attr, value)
            continue
        attr = queue_attr(upper, qtype)
        out[attr.name] = normalize(attr, value)
    return out


def appl_type_value(keyword: object) -> int:
    """MQTM.ApplType for a process's APPLTYPE (a keyword, or a user-defined number)."""
    if isinstance(keyword, int):
        return keyword
    return APPL_TYPES.get(str(keyword).upper(), C.MQAT_UNKNOWN)


def normalize_process_attrs(attrs: Mapping[str, object]) -> dict[str, int | str | bool]:
    out: dict[str, int | str | bool] = {}
    for name, value in attrs.items():
        attr = PROCESS_ATTR_BY_NAME.get(name.upper())
        if attr is None:
            raise attr_error(f"{name} is not a process attribute mqjms knows")
        if attr.name == "APPLTYPE" and isinstance(value, int | str) and str(value).isdigit():
            out[attr.name] = int(value)  # a user-defined application type (65536 and up)
            continue
        out[attr.name] = normalize(attr, value)
    return out


def default_queue_attrs(qtype: str) -> dict[str, int | str | bool]:
    return {a.name: a.default for a in QUEUE_ATTRS if qtype in a.types and not a.readonly}


def inquire_value(attr: Attr, value: int | str | bool) -> int | str:
    """An attribute's MQSC value as MQINQ returns it (e.g. PUT(DISABLED) -> 1)."""
    for mqsc_value, mq_value in attr.inquire_map:
        if mqsc_value == value:
            return mq_value
    if isinstance(value, bool):
        return int(value)
    return value
