"""PCF topic commands answered by the embedded queue manager's administration.

CREATE_TOPIC (and COPY_TOPIC), CHANGE_TOPIC, DELETE_TOPIC, INQUIRE_TOPIC,
INQUIRE_TOPIC_NAMES, INQUIRE_TOPIC_STATUS and CLEAR_TOPIC_STRING are DEFINE, ALTER, DELETE
and DISPLAY TOPIC, DISPLAY TPSTATUS and CLEAR TOPICSTR (the administration MQSC uses),
with IBM MQ's PCF parameters: MQCA_TOPIC_NAME, MQCA_TOPIC_STRING, MQCA_TOPIC_DESC,
MQCA_MODEL_DURABLE_Q, MQCA_MODEL_NON_DURABLE_Q, MQIA_TOPIC_DEF_PERSISTENCE,
MQIA_DEF_PRIORITY, MQIA_INHIBIT_PUB, MQIA_INHIBIT_SUB, MQIA_DURABLE_SUB, and their
``AS_PARENT`` values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QueueManager

Params = Mapping[int, Any]
Response = dict[int, Any]
Value = int | str | bool

# MQSC keyword -> (PCF selector, MQSC value -> PCF value); text attributes map as they are
_KEYWORDS: dict[str, tuple[int, dict[str, int]]] = {
    "DEFPSIST": (
        CMQC.MQIA_TOPIC_DEF_PERSISTENCE,
        {
            "ASPARENT": CMQC.MQPER_PERSISTENCE_AS_PARENT,
            "NO": CMQC.MQPER_NOT_PERSISTENT,
            "YES": CMQC.MQPER_PERSISTENT,
        },
    ),
    "PUB": (
        CMQC.MQIA_INHIBIT_PUB,
        {
            "ASPARENT": CMQC.MQTA_PUB_AS_PARENT,
            "DISABLED": CMQC.MQTA_PUB_INHIBITED,
            "ENABLED": CMQC.MQTA_PUB_ALLOWED,
        },
    ),
    "SUB": (
        CMQC.MQIA_INHIBIT_SUB,
        {
            "ASPARENT": CMQC.MQTA_SUB_AS_PARENT,
            "DISABLED": CMQC.MQTA_SUB_INHIBITED,
            "ENABLED": CMQC.MQTA_SUB_ALLOWED,
        },
    ),
    "DURSUB": (
        CMQC.MQIA_DURABLE_SUB,
        {
            "ASPARENT": CMQC.MQSUB_DURABLE_AS_PARENT,
            "YES": CMQC.MQSUB_DURABLE_ALLOWED,
            "NO": CMQC.MQSUB_DURABLE_INHIBITED,
        },
    ),
}
_TEXTS: dict[str, int] = {
    "TOPICSTR": CMQC.MQCA_TOPIC_STRING,
    "DESCR": CMQC.MQCA_TOPIC_DESC,
    "MDURMDL": CMQC.MQCA_MODEL_DURABLE_Q,
    "MNDURMDL": CMQC.MQCA_MODEL_NON_DURABLE_Q,
}


def _text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).split(b"\x00", 1)[0].decode("utf-8", "replace").strip()
    return str(value).strip()


def _attrs(params: Params) -> dict[str, Value]:
    """The MQSC attributes a CREATE/CHANGE_TOPIC's parameters set."""
    attrs: dict[str, Value] = {}
    for keyword, selector in _TEXTS.items():
        if selector in params:
            attrs[keyword] = _text(params[selector])
    for keyword, (selector, values) in _KEYWORDS.items():
        if selector in params:
            wanted = int(params[selector])
            named = next((k for k, v in values.items() if v == wanted), None)
            if named is None:
                raise failed(
                    C.MQRCCF_ATTR_VALUE_ERROR,
                    f"{keyword} {wanted} is not one of {sorted(values.values())}",
                )
            attrs[keyword] = named
    if CMQC.MQIA_DEF_PRIORITY in params:
        priority = int(params[CMQC.MQIA_DEF_PRIORITY])
        attrs["DEFPRTY"] = "ASPARENT" if priority == CMQC.MQPRI_PRIORITY_AS_PARENT else priority
    return attrs


def _name(params: Params, selector: int = CMQC.MQCA_TOPIC_NAME) -> str:
    if selector not in params:
        raise failed(CMQCFC.MQRCCF_PARM_MISSING, "give MQCA_TOPIC_NAME")
    return _text(params[selector])


def create(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_CREATE_TOPIC (MQCMD_COPY_TOPIC: MQCACF_FROM_TOPIC_NAME, MQCACF_TO_TOPIC_NAME)."""
    like = None
    name_selector = CMQC.MQCA_TOPIC_NAME
    if CMQCFC.MQCACF_FROM_TOPIC_NAME in params:
        like = _text(params[CMQCFC.MQCACF_FROM_TOPIC_NAME])
        name_selector = CMQCFC.MQCACF_TO_TOPIC_NAME
    replace = int(params.get(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO)) == CMQCFC.MQRP_YES
    qm.define_topic(_name(params, name_selector), _attrs(params), like=like, replace=replace)
    return []


def change(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_CHANGE_TOPIC."""
    qm.alter_topic(_name(params), _attrs(params))
    return []


def delete(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_DELETE_TOPIC."""
    qm.delete_topic(_name(params))
    return []


def _response(row: Mapping[str, Value]) -> Response:
    out: Response = {}
    if "TOPIC" in row:
        out[CMQC.MQCA_TOPIC_NAME] = str(row["TOPIC"])
        out[CMQC.MQIA_TOPIC_TYPE] = CMQC.MQTOPT_LOCAL
    for keyword, selector in _TEXTS.items():
        if keyword in row:
            out[selector] = str(row[keyword])
    for keyword, (selector, values) in _KEYWORDS.items():
        if keyword in row:
            out[selector] = values[str(row[keyword])]
    if "DEFPRTY" in row:
        priority = row["DEFPRTY"]
        out[CMQC.MQIA_DEF_PRIORITY] = (
            CMQC.MQPRI_PRIORITY_AS_PARENT if priority == "ASPARENT" else int(priority)
        )
    return out


def inquire(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_TOPIC: DISPLAY TOPIC(name) ALL (generic names too); 2085 for a
    name that is not generic and names no topic."""
    pattern = _text(params.get(CMQC.MQCA_TOPIC_NAME, "*")) or "*"
    rows = qm.display_topics(pattern)
    if not rows and "*" not in pattern:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic {pattern!r} is not defined")
    return [_response(row) for row in rows]


def inquire_names(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_TOPIC_NAMES: MQCACF_TOPIC_NAMES, the names a generic name matches."""
    pattern = _text(params.get(CMQC.MQCA_TOPIC_NAME, "*")) or "*"
    names = [str(row["TOPIC"]) for row in qm.display_topics(pattern)]
    return [{CMQCFC.MQCACF_TOPIC_NAMES: names}]


def inquire_status(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_TOPIC_STATUS: DISPLAY TPSTATUS(string) (``#`` for the tree)."""
    topic_string = _text(params.get(CMQC.MQCA_TOPIC_STRING, ""))
    out = []
    for row in qm.topic_status(topic_string):
        response = _response(row)
        response[CMQC.MQCA_ADMIN_TOPIC_NAME] = str(row["ADMIN"])
        response[CMQC.MQIA_SUB_COUNT] = int(row["SUBCOUNT"])
        response[CMQCFC.MQIACF_RETAINED_PUBLICATION] = (
            CMQCFC.MQQSO_YES if row["RETAINED"] == "YES" else CMQCFC.MQQSO_NO
        )
        out.append(response)
    return out


def clear_topic_string(qm: QueueManager, params: Params) -> list[Response]:
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
    qm.clear_topic_string(_text(params[CMQC.MQCA_TOPIC_STRING]))
    return []


COMMANDS: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    "MQCMD_CREATE_TOPIC": create,
    "MQCMD_COPY_TOPIC": create,
    "MQCMD_CHANGE_TOPIC": change,
    "MQCMD_DELETE_TOPIC": delete,
    "MQCMD_INQUIRE_TOPIC": inquire,
    "MQCMD_INQUIRE_TOPIC_NAMES": inquire_names,
    "MQCMD_INQUIRE_TOPIC_STATUS": inquire_status,
    "MQCMD_CLEAR_TOPIC_STRING": clear_topic_string,
}
