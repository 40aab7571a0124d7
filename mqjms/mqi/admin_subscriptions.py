"""PCF subscription commands answered by the embedded queue manager's administration.

CREATE_SUBSCRIPTION, DELETE_SUBSCRIPTION and INQUIRE_SUBSCRIPTION are DEFINE SUB, DELETE
SUB and DISPLAY SUB (the same administration MQSC uses), so that programs that manage
their subscriptions with PCF (pymqi's and ibmmq's own publish/subscribe tests among them)
run unchanged. A subscription is named by MQCACF_SUB_NAME (generic with ``*`` when
inquired) or by MQBACF_SUB_ID; responses carry the name, id, topic string and object,
destination and its class, durability, type and user data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QueueManager

from .admin_params import Params, Response, text

#: Strings MQ returns at their own length (MQCHARV-sized), not blank-padded.
VARIABLE_LENGTH = frozenset(
    {CMQCFC.MQCACF_SUB_NAME, CMQC.MQCA_TOPIC_STRING, CMQCFC.MQCACF_SUB_USER_DATA}
)


def _text(value: Any) -> str:
    """Subscription names, topic strings and user data are UTF-8 (MQCHARV strings)."""
    return text(value, "utf-8", "replace")


def _name(qm: QueueManager, params: Params) -> str:
    """The subscription MQCACF_SUB_NAME or MQBACF_SUB_ID names (2428 for an unknown id)."""
    if CMQCFC.MQCACF_SUB_NAME in params:
        return _text(params[CMQCFC.MQCACF_SUB_NAME])
    if CMQCFC.MQBACF_SUB_ID in params:
        wanted = bytes(params[CMQCFC.MQBACF_SUB_ID]).hex().upper()
        for row in qm.display_subscriptions("*", ["SUBID"]):
            if row["SUBID"] == wanted:
                return str(row["SUBNAME"])
        raise failed(C.MQRC_NO_SUBSCRIPTION, f"no subscription has SUBID {wanted}")
    raise failed(CMQCFC.MQRCCF_PARM_MISSING, "give MQCACF_SUB_NAME or MQBACF_SUB_ID")


def create(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_CREATE_SUBSCRIPTION: DEFINE SUB (durable, as administrative ones are)."""
    klass = int(params.get(CMQCFC.MQIACF_DESTINATION_CLASS, CMQC.MQDC_PROVIDED))
    qm.define_subscription(
        _text(params.get(CMQCFC.MQCACF_SUB_NAME, "")),
        topic_string=_text(params.get(CMQC.MQCA_TOPIC_STRING, "")),
        topic_object=_text(params.get(CMQC.MQCA_TOPIC_NAME, "")),
        dest=_text(params.get(CMQCFC.MQCACF_DESTINATION, "")),
        managed=klass == CMQC.MQDC_MANAGED,
        userdata=_text(params.get(CMQCFC.MQCACF_SUB_USER_DATA, "")),
        replace=int(params.get(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO)) == CMQCFC.MQRP_YES,
        wildcard_chars=int(params.get(CMQCFC.MQIACF_WILDCARD_SCHEMA, CMQC.MQWS_TOPIC))
        == CMQC.MQWS_CHAR,
        pub_priority=int(params.get(CMQCFC.MQIACF_PUB_PRIORITY, CMQC.MQPRI_PRIORITY_AS_PUBLISHED)),
    )
    return []


def delete(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_DELETE_SUBSCRIPTION: DELETE SUB, by name or id."""
    qm.delete_subscription(_name(qm, params))
    return []


def inquire(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_SUBSCRIPTION: DISPLAY SUB; 2428 when a name that is not generic
    names no subscription."""
    pattern = _name(qm, params) if params else "*"
    rows = qm.display_subscriptions(pattern or "*")
    if not rows and "*" not in pattern:
        raise failed(C.MQRC_NO_SUBSCRIPTION, f"subscription {pattern!r} does not exist")
    return [_response(row) for row in rows]


def _response(row: Mapping[str, Any]) -> Response:
    return {
        CMQCFC.MQCACF_SUB_NAME: str(row["SUBNAME"]),
        CMQCFC.MQBACF_SUB_ID: bytes.fromhex(str(row["SUBID"])),
        CMQC.MQCA_TOPIC_STRING: str(row["TOPICSTR"]),
        CMQC.MQCA_TOPIC_NAME: str(row["TOPICOBJ"]),
        CMQCFC.MQCACF_DESTINATION: str(row["DEST"]),
        CMQCFC.MQIACF_DESTINATION_CLASS: (
            CMQC.MQDC_MANAGED if row["DESTCLAS"] == "MANAGED" else CMQC.MQDC_PROVIDED
        ),
        CMQCFC.MQIACF_DURABLE_SUBSCRIPTION: (
            CMQC.MQSUB_DURABLE_YES if row["DURABLE"] == "YES" else CMQC.MQSUB_DURABLE_NO
        ),
        CMQCFC.MQIACF_SUB_TYPE: (
            CMQCFC.MQSUBTYPE_ADMIN if row["SUBTYPE"] == "ADMIN" else CMQCFC.MQSUBTYPE_API
        ),
        CMQCFC.MQCACF_SUB_USER_DATA: str(row["USERDATA"]),
        CMQCFC.MQIACF_WILDCARD_SCHEMA: (
            CMQC.MQWS_CHAR if row["WSCHEMA"] == "CHAR" else CMQC.MQWS_TOPIC
        ),
        CMQCFC.MQIACF_PUB_PRIORITY: _PRIORITIES.get(str(row["PUBPRTY"]), row["PUBPRTY"]),
    }


_PRIORITIES = {
    "ASPUB": CMQC.MQPRI_PRIORITY_AS_PUBLISHED,
    "ASQDEF": CMQC.MQPRI_PRIORITY_AS_Q_DEF,
}


def inquire_status(qm: QueueManager, params: Params) -> list[Response]:
    """MQCMD_INQUIRE_SUB_STATUS: DISPLAY SBSTATUS; 2428 when a name that is not generic
    names no subscription."""
    pattern = _name(qm, params) if params else "*"
    rows = qm.subscription_status(pattern or "*")
    if not rows and "*" not in pattern:
        raise failed(C.MQRC_NO_SUBSCRIPTION, f"subscription {pattern!r} does not exist")
    return [
        {
            CMQCFC.MQCACF_SUB_NAME: str(row["SUB"]),
            CMQCFC.MQBACF_SUB_ID: bytes.fromhex(str(row["SUBID"])),
            CMQCFC.MQIACF_DURABLE_SUBSCRIPTION: (
                CMQC.MQSUB_DURABLE_YES if row["DURABLE"] == "YES" else CMQC.MQSUB_DURABLE_NO
            ),
            CMQCFC.MQIACF_SUB_TYPE: (
                CMQCFC.MQSUBTYPE_ADMIN if row["SUBTYPE"] == "ADMIN" else CMQCFC.MQSUBTYPE_API
            ),
            CMQC.MQCA_TOPIC_STRING: str(row["TOPICSTR"]),
            CMQCFC.MQBACF_CONNECTION_ID: bytes.fromhex(str(row["ACTCONN"])),
            CMQC.MQCA_RESUME_DATE: str(row["RESMDATE"]),
            CMQC.MQCA_RESUME_TIME: str(row["RESMTIME"]),
            CMQCFC.MQIACF_MESSAGE_COUNT: int(row["NUMMSGS"]),
            CMQCFC.MQCACF_LAST_MSG_DATE: str(row["LMSGDATE"]),
            CMQCFC.MQCACF_LAST_MSG_TIME: str(row["LMSGTIME"]),
            CMQCFC.MQCACF_SUB_USER_ID: str(row["SUBUSER"]),
        }
        for row in rows
    ]


COMMANDS: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    "MQCMD_CREATE_SUBSCRIPTION": create,
    "MQCMD_DELETE_SUBSCRIPTION": delete,
    "MQCMD_INQUIRE_SUBSCRIPTION": inquire,
    "MQCMD_INQUIRE_SUB_STATUS": inquire_status,
}
