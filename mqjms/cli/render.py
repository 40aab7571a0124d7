"""How get and browse show a message: one JSON object per line, or a readable summary.

JSON form::

    {"md": {...}, "rfh2": [{...,"folders": [...]}, ...], "dlh": {...} | null,
     "properties": {...}, "jms": {"JMSMessageID": ..., ...}, "body": ...}

``md`` and ``dlh`` use IBM's field names (byte fields as hex); each RFH2 of the chain is
its fixed fields under IBM's names plus ``folders`` (the NameValueData strings). The
headers are walked as the Format fields say (MQDEAD, MQHRF2, in any order). ``body`` is
a string when the final Format is MQSTR and the bytes decode in its CCSID (the table in
:mod:`mqjms.mq.ccsid`, the one the JMS API uses), otherwise
``{"base64": "..."}``. When a header is malformed the object also has ``"error"`` and
``body`` holds every byte from that header on. ``properties`` (the ``usr`` folder, typed;
bytes as ``{"base64": ...}``) and ``jms`` (the JMS header fields) are what a JMS
application receiving the message sees.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from mqjms.jms.message import Message, to_message
from mqjms.mq import constants as C
from mqjms.mq.ccsid import decode
from mqjms.mq.dlh import parse_dlh
from mqjms.mq.errors import MQError, MQFormatError, reason_name
from mqjms.mq.md import MQMD
from mqjms.mq.rfh2 import is_rfh2, parse_chain


def body_value(data: bytes, fmt: str, ccsid: int, encoding: int) -> str | dict[str, str]:
    """Text when the Format is MQSTR and the bytes decode, else ``{"base64": ...}``."""
    if fmt.rstrip() == C.MQFMT_STRING:
        try:
            return decode(data, ccsid, encoding)
        except (MQError, UnicodeDecodeError):  # a CCSID mqjms cannot convert, or bad bytes
            pass
    return {"base64": base64.b64encode(data).decode("ascii")}


def message_json(md: MQMD, data: bytes, qmgr_ccsid: int = 1208, queue: str = "") -> dict[str, Any]:
    """A message as the JSON object that get/browse --json print (``queue``: where it was
    got, named by the warning of a message whose JMS view does not parse)."""
    out: dict[str, Any] = {"md": md.to_dict(), "rfh2": [], "dlh": None}
    out.update(jms_view(to_message(md, data, queue)))
    out["body"] = None
    encoding, fmt = md.Encoding, md.Format
    ccsid = md.CodedCharSetId if md.CodedCharSetId > 0 else qmgr_ccsid
    rest = bytes(data)
    try:
        while True:
            if fmt.rstrip() == C.MQFMT_DEAD_LETTER_HEADER and out["dlh"] is None:
                dlh, rest = parse_dlh(rest, encoding)
                out["dlh"] = dlh.to_dict()
                encoding, fmt = dlh.Encoding, dlh.Format
                if dlh.CodedCharSetId > 0:
                    ccsid = dlh.CodedCharSetId
            elif is_rfh2(fmt):
                chain = parse_chain(rest, encoding, ccsid, fmt)
                out["rfh2"].extend(header.to_dict() for header in chain.headers)
                encoding, ccsid, fmt, rest = (
                    chain.Encoding,
                    chain.CodedCharSetId,
                    chain.Format,
                    chain.body,
                )
            else:
                break
    except MQFormatError as exc:
        out["error"] = f"{exc.reason_name} ({exc.reason}): {exc.detail}"
        out["body"] = {"base64": base64.b64encode(rest).decode("ascii")}
        return out
    out["body"] = body_value(rest, fmt, ccsid, encoding)
    return out


def jms_view(message: Message) -> dict[str, Any]:
    """The properties and JMS header fields a JMS application would see."""
    properties = {
        name: {"base64": base64.b64encode(value).decode("ascii")}
        if isinstance(value, bytes)
        else value
        for name, value in message.properties.items()
    }
    headers = {
        "JMSMessageID": message.jms_message_id,
        "JMSCorrelationID": message.jms_correlation_id,
        "JMSType": message.jms_type,
        "JMSDeliveryMode": message.jms_delivery_mode,
        "JMSPriority": message.jms_priority,
        "JMSTimestamp": message.jms_timestamp,
        "JMSExpiration": message.jms_expiration,
        "JMSReplyTo": message.jms_reply_to,
        "JMSDestination": message.jms_destination,
        "JMSRedelivered": message.jms_redelivered,
        "JMSXDeliveryCount": message.delivery_count,
    }
    return {"properties": properties, "jms": headers}


_REPORT_GROUPS = ("EXCEPTION", "EXPIRATION", "COA", "COD")
_REPORT_BITS = (
    "PAN",
    "NAN",
    "ACTIVITY",
    "PASS_MSG_ID",
    "PASS_CORREL_ID",
    "DISCARD_MSG",
    "PASS_DISCARD_AND_EXPIRY",
)


def report_options() -> dict[str, int]:
    """IBM's MQRO_* names (masks excluded) and their values."""
    return {
        name: value
        for name, value in vars(C).items()
        if name.startswith("MQRO_") and not name.endswith("_MASK") and isinstance(value, int)
    }


def report_names(report: int) -> list[str]:
    """The MQRO_* names that make up a Report field, e.g. ['MQRO_EXPIRATION_WITH_DATA']."""
    names: list[str] = []
    options = report_options()
    for group in _REPORT_GROUPS:
        part = report & getattr(C, f"MQRO_{group}_MASK")
        for suffix in ("_WITH_FULL_DATA", "_WITH_DATA", ""):
            name = f"MQRO_{group}{suffix}"
            if part and options.get(name) == part:
                names.append(name)
                break
    for bit in _REPORT_BITS:
        if report & options[f"MQRO_{bit}"]:
            names.append(f"MQRO_{bit}")
    known = 0
    for name in names:
        known |= options[name]
    if report & ~known:
        names.append(f"{report & ~known:#010x}")
    return names


#: Control characters but the tab, each shown as ``\\xNN``: a message's escape sequences,
#: written to a terminal as they are, clear the screen, retitle the window or set the
#: clipboard (--json has the exact text).
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c != 0x09}


#: DEL and the C1 controls, which JSON may hold as they are: escaped as ``\\u00NN`` (the
#: same string), for a terminal that takes U+009B for CSI.
_JSON_CONTROLS = {c: f"\\u{c:04x}" for c in range(0x7F, 0xA0)}


def json_line(obj: dict[str, Any]) -> str:
    """:func:`message_json`'s object as one line of JSON that is safe on a terminal."""
    return json.dumps(obj, ensure_ascii=False).translate(_JSON_CONTROLS)


def _line(label: str, value: object) -> str:
    return f"  {label:<16}{value}"


def message_text(obj: dict[str, Any], number: int, queue: str) -> list[str]:
    """A readable summary of :func:`message_json`'s object."""
    md = obj["md"]
    out = [f"message {number} on {queue}"]
    out.append(_line("MsgId", md["MsgId"]))
    if md["CorrelId"] != "00" * 24:
        out.append(_line("CorrelId", md["CorrelId"]))
    out.append(
        _line(
            "Format",
            f"{md['Format'] or '(none)'}  Encoding {md['Encoding']}  "
            f"CodedCharSetId {md['CodedCharSetId']}",
        )
    )
    out.append(
        _line(
            "Priority",
            f"{md['Priority']}  Persistence {md['Persistence']}  "
            f"Expiry {md['Expiry']}  BackoutCount {md['BackoutCount']}",
        )
    )
    out.append(_line("MsgType", f"{md['MsgType']}  Feedback {md['Feedback']}"))
    if md["Report"]:
        out.append(_line("Report", " ".join(report_names(md["Report"]))))
    if md["ReplyToQ"]:
        out.append(_line("ReplyToQ", f"{md['ReplyToQ']}  ReplyToQMgr {md['ReplyToQMgr']}"))
    out.append(
        _line(
            "Put",
            f"{md['PutDate']} {md['PutTime']} by {md['PutApplName']!r} ({md['UserIdentifier']})",
        )
    )
    dlh = obj["dlh"]
    if dlh is not None:
        out.append(
            _line(
                "DLH",
                f"Reason {dlh['Reason']} ({reason_name(dlh['Reason'])})  "
                f"DestQName {dlh['DestQName']}  "
                f"DestQMgrName {dlh['DestQMgrName']}",
            )
        )
    for index, header in enumerate(obj["rfh2"], 1):
        out.append(
            _line(
                f"RFH2 {index}",
                f"Format {header['Format']}  Encoding "
                f"{header['Encoding']}  CodedCharSetId {header['CodedCharSetId']}",
            )
        )
        out.extend(_line("", folder) for folder in header["folders"])
    if "error" in obj:
        out.append(_line("error", obj["error"]))
    body = obj["body"]
    if isinstance(body, str):
        out.append(_line("body", f"text, {len(body)} characters:"))
        out.extend("    " + line for line in (body.splitlines() or [""]))
    else:
        raw = base64.b64decode(body["base64"])
        out.append(
            _line("body", f"{len(raw)} bytes: {raw[:64].hex()}{'...' if len(raw) > 64 else ''}")
        )
    return [line.translate(_CONTROLS) for line in out]
