"""The message descriptor as properties: MQINQMP of ``Root.MQMD.<Field>`` on a message
handle a get filled answers that field of the message's MQMD, as IBM MQ's "Message
descriptor fields as properties" says (StrucId and Version excepted).

The field's type decides the property's: an MQLONG is an MQTYPE_INT32, an MQBYTEn (MsgId,
CorrelId, GroupId, AccountingToken) an MQTYPE_BYTE_STRING, an MQCHARn an MQTYPE_STRING
of the field's full length (blank-padded, as the MQMD holds it). These never travel in
the message's RFH2: the MQMD carries them.

IBM's "Property name restrictions" make the JMS names synonyms an MQINQMP may use
(:data:`JMS_NAMES`): JMSMessageID is Root.MQMD.MsgId, JMSXDeliveryCount
Root.MQMD.BackoutCount, JMSPriority jms.Pri or Root.MQMD.Priority... Where a name has
both, the RFH2's value is read when the message has one (as IBM MQ classes for JMS read
them), else the MQMD's, as IBM MQ classes for JMS map it (:func:`jms_value`):
JMSDeliveryMode is JMS's (2 PERSISTENT, 1 NON_PERSISTENT), JMSReplyTo a ``queue://``
URI of ReplyToQ and ReplyToQMgr, JMSTimestamp milliseconds from PutDate and PutTime.
"""

from __future__ import annotations

from collections.abc import Callable

from mqjms.mq import jms_descriptor
from mqjms.mq.md import MQMD
from mqjms.mq.structure import BYTE, CHAR, FieldSpec
from mqjms.mqi.constants import CMQC

PREFIX = "Root.MQMD."
DescriptorValue = tuple[bytes | str | int, int]  # (value, MQTYPE)
_HIDDEN = ("StrucId", "Version")
_FIELDS: dict[str, FieldSpec] = {spec.name: spec for spec in MQMD.SPECS if spec.name not in _HIDDEN}


#: JMS name -> (its RFH2 place or None, its MQMD field or None)
JMS_NAMES: dict[str, tuple[str | None, str | None]] = {
    "JMSCorrelationID": ("jms.Cid", "CorrelId"),
    "JMSDeliveryMode": ("jms.Dlv", "Persistence"),
    "JMSDestination": ("jms.Dst", None),
    "JMSExpiration": ("jms.Exp", "Expiry"),
    "JMSMessageID": (None, "MsgId"),
    "JMSPriority": ("jms.Pri", "Priority"),
    "JMSRedelivered": (None, "BackoutCount"),
    "JMSReplyTo": ("jms.Rto", "ReplyToQ"),
    "JMSTimestamp": ("jms.Tms", "PutDate"),
    "JMSType": ("mcd.Type", None),
    "JMSXAppID": (None, "PutApplName"),
    "JMSXDeliveryCount": (None, "BackoutCount"),
    "JMSXGroupID": ("jms.Gid", "GroupId"),
    "JMSXGroupSeq": ("jms.Seq", "MsgSeqNumber"),
    "JMSXUserID": (None, "UserIdentifier"),
}


#: the JMS names an MQI program may also set (MQSETMP), in their RFH2 places alone
SETTABLE = ("JMSCorrelationID", "JMSReplyTo", "JMSType", "JMSXGroupID", "JMSXGroupSeq")


def is_descriptor_name(name: str) -> bool:
    return name.startswith(PREFIX)


def descriptor_value(md: MQMD, name: str) -> DescriptorValue | None:
    """``(value, MQTYPE)`` of the MQMD field ``name`` names, or None for no such field."""
    spec = _FIELDS.get(name[len(PREFIX) :])
    if spec is None:
        return None
    value = getattr(md, spec.name)
    if spec.kind == BYTE:
        return bytes(value).ljust(spec.length, b"\0"), CMQC.MQTYPE_BYTE_STRING
    if spec.kind == CHAR:
        return str(value).ljust(spec.length), CMQC.MQTYPE_STRING
    return int(value), CMQC.MQTYPE_INT32


def _reply_to(md: MQMD) -> DescriptorValue | None:
    uri = jms_descriptor.reply_to_uri(md)
    return None if uri is None else (uri, CMQC.MQTYPE_STRING)


def _timestamp(md: MQMD) -> DescriptorValue | None:
    millis = jms_descriptor.put_millis(md)
    return (millis, CMQC.MQTYPE_INT64) if millis else None


#: the JMS names whose MQMD value IBM MQ classes for JMS translate ("Mapping IBM MQ
#: fields onto JMS fields (incoming messages)"), rather than show the field as it is
_TRANSLATED: dict[str, Callable[[MQMD], DescriptorValue | None]] = {
    "JMSDeliveryMode": lambda md: (jms_descriptor.delivery_mode(md), CMQC.MQTYPE_INT32),
    "JMSReplyTo": _reply_to,
    "JMSTimestamp": _timestamp,
}


def jms_value(md: MQMD, name: str, md_field: str) -> DescriptorValue | None:
    """``(value, MQTYPE)`` of the JMS name ``name`` from the MQMD (its field ``md_field``),
    as IBM MQ classes for JMS present it; None when the MQMD has none (a blank ReplyToQ)."""
    translate = _TRANSLATED.get(name)
    if translate is not None:
        return translate(md)
    return descriptor_value(md, PREFIX + md_field)
