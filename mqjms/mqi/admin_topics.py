"""PCF for TOPIC objects: CREATE_TOPIC (and COPY_TOPIC), CHANGE_TOPIC, DELETE_TOPIC,
INQUIRE_TOPIC, INQUIRE_TOPIC_NAMES, INQUIRE_TOPIC_STATUS and CLEAR_TOPIC_STRING, on the
embedded queue manager's topic administration (the one DEFINE/ALTER/DELETE/DISPLAY TOPIC,
DISPLAY TPSTATUS and CLEAR TOPICSTR use). An attribute left ASPARENT is answered as MQ
does, with its ``*_AS_PARENT`` value (a model queue name left to inherit, blank)."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QueueManager
from mqjms.semantics.attributes import inquire_value
from mqjms.semantics.topics import TOPIC_ATTRS

from .admin_params import Params, Response, attributes_asked, mqsc_attrs, text

_BY_SELECTOR = {attr.selector: attr for attr in TOPIC_ATTRS if attr.selector is not None}
#: Parameters of the commands that are no attribute of the topic.
_NOT_ATTRIBUTES = {
    CMQC.MQCA_TOPIC_NAME,
    CMQCFC.MQCACF_FROM_TOPIC_NAME,
    CMQCFC.MQCACF_TO_TOPIC_NAME,
    CMQC.MQIA_TOPIC_TYPE,
    CMQCFC.MQIACF_REPLACE,
    CMQCFC.MQIACF_TOPIC_ATTRS,
    CMQC.MQIA_QSG_DISP,
}


def _attribute_text(value: str | bytes | bytearray) -> str:
    """A topic attribute's string (a topic string among them) as UTF-8 text, up to its
    first NUL, without the blanks it is padded with on the right."""
    decoded = value.decode("utf-8") if isinstance(value, bytes | bytearray) else value
    return decoded.split("\x00", 1)[0].rstrip(" ")


def _topic_string(params: Params) -> str:
    """MQCA_TOPIC_STRING: UTF-8, as a topic string is everywhere else (MQSUB, DEFINE TOPIC,
    the subscription commands), so given as bytes it names the same topic as given as text."""
    return text(params.get(CMQC.MQCA_TOPIC_STRING, ""), "utf-8", "replace")


def _attrs(params: Params) -> dict[str, object]:
    """PCF attribute parameters as DEFINE TOPIC's; ones mqjms does not keep are logged.
    A DEFPRTY number goes on as its digits, as MQSC would give it."""
    out = mqsc_attrs(params, _BY_SELECTOR, _NOT_ATTRIBUTES, decode=_attribute_text)
    if isinstance(out.get("DEFPRTY"), int):
        out["DEFPRTY"] = str(out["DEFPRTY"])
    return out


def _name(params: Params, selector: int = CMQC.MQCA_TOPIC_NAME) -> str:
    name = text(params.get(selector, ""))
    if not name:
        raise failed(CMQCFC.MQRCCF_PARM_COUNT_TOO_SMALL, "the topic's name is missing")
    return name


def _create_topic(qm: QueueManager, params: Params) -> list[Response]:
    copying = CMQCFC.MQCACF_TO_TOPIC_NAME in params
    name = _name(params, CMQCFC.MQCACF_TO_TOPIC_NAME if copying else CMQC.MQCA_TOPIC_NAME)
    like = _name(params, CMQCFC.MQCACF_FROM_TOPIC_NAME) if copying else None
    replace = int(params.get(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO)) == CMQCFC.MQRP_YES
    qm.define_topic(name, _attrs(params), like=like, replace=replace)
    return []


def _change_topic(qm: QueueManager, params: Params) -> list[Response]:
    qm.alter_topic(_name(params), _attrs(params))
    return []


def _delete_topic(qm: QueueManager, params: Params) -> list[Response]:
    qm.delete_topic(_name(params))
    return []


def _found(qm: QueueManager, params: Params) -> list[dict[str, int | str | bool]]:
    pattern = text(params.get(CMQC.MQCA_TOPIC_NAME, "*")) or "*"
    found = qm.display_topics(pattern)
    if not found:
        generic = "*" in pattern
        raise failed(
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"no topic matches {pattern!r}" if generic else f"topic {pattern!r} is not defined",
        )
    return found


def _inquire_topic(qm: QueueManager, params: Params) -> list[Response]:
    wanted = attributes_asked(params, CMQCFC.MQIACF_TOPIC_ATTRS)
    out: list[Response] = []
    for topic in _found(qm, params):
        response: Response = {
            CMQC.MQCA_TOPIC_NAME: str(topic["TOPIC"]),
            CMQC.MQIA_TOPIC_TYPE: CMQC.MQTOPT_LOCAL,
        }
        response.update(_attributes(topic, wanted))
        out.append(response)
    return out


def _attributes(
    topic: Mapping[str, int | str | bool], wanted: set[int] | None = None, *, given: bool = False
) -> Response:
    """The topic attributes of a DISPLAY row as PCF parameters (``wanted``: those only;
    ``given``: only those the row has, as a status row's resolved ones)."""
    response: Response = {}
    for attr in TOPIC_ATTRS:
        if attr.selector is None or (wanted is not None and attr.selector not in wanted):
            continue
        if given and attr.name not in topic:
            continue
        value = topic.get(attr.name, attr.default)
        if attr.kind == "text":
            response[attr.selector] = str(value)
        elif attr.name == "DEFPRTY" and str(value).isdigit():
            response[attr.selector] = int(str(value))
        else:
            response[attr.selector] = inquire_value(attr, value)
    return response


def _inquire_topic_names(qm: QueueManager, params: Params) -> list[Response]:
    """ "Zero or more names" (IBM's Inquire Topic Names response): none is an empty list."""
    pattern = text(params.get(CMQC.MQCA_TOPIC_NAME, "*")) or "*"
    return [{CMQCFC.MQCACF_TOPIC_NAMES: [str(t["TOPIC"]) for t in qm.display_topics(pattern)]}]


def _inquire_topic_status(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_TOPIC_STATUS: DISPLAY TPSTATUS(string) (``#`` for the tree)."""
    topic_string = _topic_string(params)
    out = []
    for row in qm.topic_status(topic_string):
        response = _attributes(row, given=True)
        response[CMQC.MQCA_TOPIC_STRING] = str(row.get("TOPICSTR", topic_string))
        response[CMQC.MQCA_ADMIN_TOPIC_NAME] = str(row["ADMIN"])
        response[CMQC.MQIA_SUB_COUNT] = int(str(row["SUBCOUNT"]))
        response[CMQCFC.MQIACF_RETAINED_PUBLICATION] = (
            CMQCFC.MQQSO_YES if row["RETAINED"] == "YES" else CMQCFC.MQQSO_NO
        )
        out.append(response)
    return out


def _clear_topic_string(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_CLEAR_TOPIC_STRING with MQIACF_CLEAR_TYPE MQCLRT_RETAINED: CLEAR TOPICSTR
    CLRTYPE(RETAINED), its retained publication goes (none is no error, as on MQ)."""
    if CMQC.MQCA_TOPIC_STRING not in params:
        raise failed(CMQCFC.MQRCCF_PARM_MISSING, "give MQCA_TOPIC_STRING")
    clear_type = int(params.get(CMQCFC.MQIACF_CLEAR_TYPE, 0))
    if clear_type != CMQCFC.MQCLRT_RETAINED:
        raise failed(
            C.MQRCCF_ATTR_VALUE_ERROR,
            f"MQIACF_CLEAR_TYPE {clear_type} is not MQCLRT_RETAINED ({CMQCFC.MQCLRT_RETAINED})",
        )
    qm.clear_topic_string(_topic_string(params))
    return []


COMMANDS: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    "MQCMD_CREATE_TOPIC": _create_topic,
    "MQCMD_COPY_TOPIC": _create_topic,
    "MQCMD_CHANGE_TOPIC": _change_topic,
    "MQCMD_DELETE_TOPIC": _delete_topic,
    "MQCMD_INQUIRE_TOPIC": _inquire_topic,
    "MQCMD_INQUIRE_TOPIC_NAMES": _inquire_topic_names,
    "MQCMD_INQUIRE_TOPIC_STATUS": _inquire_topic_status,
    "MQCMD_CLEAR_TOPIC_STRING": _clear_topic_string,
}

__all__ = ["COMMANDS"]
