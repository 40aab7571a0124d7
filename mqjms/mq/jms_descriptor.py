"""The MQMD as IBM MQ classes for JMS map it to JMS header fields and properties.

IBM's "Mapping IBM MQ fields onto JMS fields (incoming messages)" (mq-reference [S36]):
a header field the RFH2 lacks comes from the MQMD (JMSDeliveryMode from Persistence,
JMSTimestamp from PutDate/PutTime, JMSReplyTo from ReplyToQ/ReplyToQMgr), and the JMSX
and JMS_IBM_* properties come from the MQMD alone. Both mqjms's JMS messages and the
drop-in's MQINQMP read them here, so the two present a message alike.

The other way, "Mapping JMS provider-specific fields": JMS_IBM_Format, JMS_IBM_MsgType
and JMS_IBM_Feedback a JMS application sets are the sent message's body Format, MsgType
and Feedback (:func:`sent_settings`), not RFH2 properties (JMS_IBM_Report_* are
:data:`mqjms.mq.jms.REPORT_PROPERTIES`).
"""

from __future__ import annotations

from collections.abc import Mapping

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD

NON_PERSISTENT = 1  # JMS DeliveryMode
PERSISTENT = 2

ProviderValue = str | int | bool

FORMAT_PROPERTY = "JMS_IBM_Format"
MSG_TYPE_PROPERTY = "JMS_IBM_MsgType"
FEEDBACK_PROPERTY = "JMS_IBM_Feedback"
#: the JMS_IBM_* properties (Report_* aside) a sender sets that go to the MQMD
SENT_IN_MQMD = frozenset({FORMAT_PROPERTY, MSG_TYPE_PROPERTY, FEEDBACK_PROPERTY})
_MQLONG = (-(2**31), 2**31 - 1)

#: JMS_IBM_Report_* -> the MQMD Report bits it shows ("Mapping JMS provider-specific
#: fields": each is 0 or one of its MQRO_ options)
REPORT_MASKS = {
    "JMS_IBM_Report_Exception": C.MQRO_EXCEPTION_MASK,
    "JMS_IBM_Report_Expiration": C.MQRO_EXPIRATION_MASK,
    "JMS_IBM_Report_COA": C.MQRO_COA_MASK,
    "JMS_IBM_Report_COD": C.MQRO_COD_MASK,
    "JMS_IBM_Report_PAN": C.MQRO_PAN,
    "JMS_IBM_Report_NAN": C.MQRO_NAN,
    "JMS_IBM_Report_Pass_Msg_ID": C.MQRO_PASS_MSG_ID,
    "JMS_IBM_Report_Pass_Correl_ID": C.MQRO_PASS_CORREL_ID,
    "JMS_IBM_Report_Discard_Msg": C.MQRO_DISCARD_MSG,
}

#: CCSID -> the Java character set name JMS_IBM_Character_Set holds (IBM: "a String
#: value that contains the Java character set equivalent" of CodedCharacterSetId)
JAVA_CHARSETS = {
    37: "IBM037",
    273: "IBM273",
    277: "IBM277",
    278: "IBM278",
    280: "IBM280",
    284: "IBM284",
    285: "IBM285",
    297: "IBM297",
    367: "US-ASCII",
    437: "IBM437",
    500: "IBM500",
    819: "ISO-8859-1",
    850: "IBM850",
    852: "IBM852",
    912: "ISO-8859-2",
    923: "ISO-8859-15",
    932: "x-IBM942C",
    1047: "IBM1047",
    1200: "UTF-16",
    1208: "UTF-8",
    1250: "windows-1250",
    1251: "windows-1251",
    1252: "windows-1252",
    5348: "windows-1252",
}

_GROUP_FLAGS = C.MQMF_MSG_IN_GROUP | C.MQMF_LAST_MSG_IN_GROUP


def delivery_mode(md: MQMD) -> int:
    """JMSDeliveryMode from Persistence: MQPER_PERSISTENT is PERSISTENT (2), else 1."""
    return PERSISTENT if md.Persistence == C.MQPER_PERSISTENT else NON_PERSISTENT


def reply_to_uri(md: MQMD) -> str | None:
    """JMSReplyTo from ReplyToQ and ReplyToQMgr, as a ``queue://QMGR/Q`` URI (None: blank)."""
    queue = md.ReplyToQ.strip()
    return f"queue://{md.ReplyToQMgr.strip()}/{queue}" if queue else None


def put_millis(md: MQMD) -> int:
    """JMSTimestamp from PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` (GMT); 0 if invalid."""
    date, clock = md.PutDate, md.PutTime
    if len(date) != 8 or len(clock) < 6 or not (date + clock).isdigit():
        return 0
    year, month, day = int(date[:4]), int(date[4:6]), int(date[6:])
    hour, minute, second = int(clock[:2]), int(clock[2:4]), int(clock[4:6])
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 62):
        return 0
    hundredths = int(clock[6:8] or 0)
    import calendar  # here: it loads locale, which a bare import of mqjms never needs

    return calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)) * 1000 + (
        hundredths * 10
    )


def java_charset(ccsid: int) -> str:
    """JMS_IBM_Character_Set's value for a CCSID (its number, for one not listed)."""
    return JAVA_CHARSETS.get(ccsid, str(ccsid))


def provider_properties(
    md: MQMD, body_format: str, body_ccsid: int, body_encoding: int
) -> dict[str, ProviderValue]:
    """The JMSX and JMS_IBM_* properties IBM MQ classes for JMS give a received message,
    from its MQMD; ``body_*`` describe the body (after any RFH2), which JMS_IBM_Format,
    JMS_IBM_Character_Set and JMS_IBM_Encoding tell. JMSXGroupID and JMSXGroupSeq come
    from the MQMD only for a message in a group (MQMF_MSG_IN_GROUP or
    MQMF_LAST_MSG_IN_GROUP), as IBM's note says; Report and Feedback properties only when
    set. MQCHAR fields keep the MQMD's full, blank-padded length."""
    found: dict[str, ProviderValue] = {
        "JMSXAppID": md.PutApplName.ljust(28),
        "JMSXDeliveryCount": md.BackoutCount + 1,
        "JMSXUserID": md.UserIdentifier.ljust(12),
    }
    in_group = bool(md.MsgFlags & _GROUP_FLAGS)
    if in_group:
        found["JMSXGroupID"] = "ID:" + md.GroupId.hex()
        found["JMSXGroupSeq"] = md.MsgSeqNumber
    found["JMS_IBM_Character_Set"] = java_charset(body_ccsid)
    found["JMS_IBM_Encoding"] = body_encoding
    if md.Feedback != C.MQFB_NONE:
        found["JMS_IBM_Feedback"] = md.Feedback
    found["JMS_IBM_Format"] = body_format.ljust(8)
    if in_group:
        found["JMS_IBM_Last_Msg_In_Group"] = bool(md.MsgFlags & C.MQMF_LAST_MSG_IN_GROUP)
    found["JMS_IBM_MsgType"] = md.MsgType
    found["JMS_IBM_PutApplType"] = md.PutApplType
    found["JMS_IBM_PutDate"] = md.PutDate.ljust(8)
    found["JMS_IBM_PutTime"] = md.PutTime.ljust(8)
    for name, mask in REPORT_MASKS.items():
        if md.Report & mask:
            found[name] = md.Report & mask
    return found


def sent_settings(properties: Mapping[str, object]) -> tuple[str | None, int | None, int | None]:
    """The body Format, MsgType and Feedback a message's JMS_IBM_Format, JMS_IBM_MsgType
    and JMS_IBM_Feedback ask for (None: not set). A Format is a str of at most 8 ASCII
    characters, the others MQLONGs: anything else is a TypeError or ValueError naming the
    property."""
    fmt = properties.get(FORMAT_PROPERTY)
    if fmt is not None:
        if not isinstance(fmt, str):
            raise TypeError(f"{FORMAT_PROPERTY} must be str, not {type(fmt).__name__}")
        if len(fmt) > 8 or not fmt.isascii():
            raise ValueError(f"{FORMAT_PROPERTY} must be at most 8 ASCII characters: {fmt!r}")
        fmt = fmt.rstrip()  # as the MQMD model keeps Formats: MQFMT_NONE is ""
    return fmt, _mqlong(properties, MSG_TYPE_PROPERTY), _mqlong(properties, FEEDBACK_PROPERTY)


def _mqlong(properties: Mapping[str, object], name: str) -> int | None:
    value = properties.get(name)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be int, not {type(value).__name__}")
    if not _MQLONG[0] <= value <= _MQLONG[1]:
        raise ValueError(f"{name} must be an MQLONG, not {value}")
    return value
