"""Report messages: what a queue manager or application sends to a message's ReplyToQ
when the message asked for it in its MQMD.Report options.

One builder serves every kind (an expiration report when the queue manager discards an
expired message, seed 000; confirm-on-arrival and confirm-on-delivery reports when a
message reaches its queue and leaves it; an exception report when a trigger monitor
cannot act on a trigger message): MsgType MQMT_REPORT, the Feedback given, MsgId and CorrelId by
MQRO_PASS_MSG_ID / MQRO_PASS_CORREL_ID, MQRO_PASS_DISCARD_AND_EXPIRY honoured, and none,
the first 100 bytes or all of the data, as the option chosen says.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD

# MQRO_*_WITH_DATA reports carry the MQ headers at the start of the data (an RFH2, an
# MQDLH...) and the first 100 bytes of the application data after them
WITH_DATA_LENGTH = 100

# Headers of a fixed length: their length, and where the next one's Encoding and Format
# are (MQDLH: 172 bytes; MQXQH: 428, the next described by the MQMD inside it). Every
# other MQ header (MQH*, MQIMS) has StrucLength at 8, Encoding at 12 and Format at 20.
_FIXED_HEADERS = {
    C.MQFMT_DEAD_LETTER_HEADER: (172, 108, 116),
    C.MQFMT_XMIT_Q_HEADER: (428, 128, 136),
}
_MAX_HEADERS = 32  # a chain longer than this is taken for data


@dataclass(frozen=True, slots=True)
class ReportKind:
    """The Report options that ask for one kind of report, and with how much data."""

    name: str
    mask: int  # every option of the kind
    with_data: int  # the first 100 bytes
    with_full_data: int  # all of it


EXPIRATION = ReportKind(
    "expiration",
    C.MQRO_EXPIRATION_MASK,
    C.MQRO_EXPIRATION_WITH_DATA,
    C.MQRO_EXPIRATION_WITH_FULL_DATA,
)
EXCEPTION = ReportKind(
    "exception",
    C.MQRO_EXCEPTION_MASK,
    C.MQRO_EXCEPTION_WITH_DATA,
    C.MQRO_EXCEPTION_WITH_FULL_DATA,
)
COA = ReportKind("coa", C.MQRO_COA_MASK, C.MQRO_COA_WITH_DATA, C.MQRO_COA_WITH_FULL_DATA)
COD = ReportKind("cod", C.MQRO_COD_MASK, C.MQRO_COD_WITH_DATA, C.MQRO_COD_WITH_FULL_DATA)


def report_message(
    original: MQMD, data: bytes, *, kind: ReportKind, feedback: int
) -> tuple[MQMD, bytes] | None:
    """The ``kind`` of report ``original`` asks for, with ``feedback``; None when it asks
    for none or has no ReplyToQ to send it to.

    With MQRO_PASS_DISCARD_AND_EXPIRY the report keeps the original's MQRO_DISCARD_MSG
    and its remaining Expiry (an expiration report's original has none left: its report
    does not expire).
    """
    wanted = original.Report & kind.mask
    if not wanted or not original.ReplyToQ.strip():
        return None
    report = MQMD(
        MsgType=C.MQMT_REPORT,
        Feedback=feedback,
        Priority=original.Priority,
        Persistence=original.Persistence,
        Encoding=original.Encoding,
        CodedCharSetId=original.CodedCharSetId,
        Format=original.Format,
        PutApplType=C.MQAT_QMGR,
    )
    report.MsgId = original.MsgId if original.Report & C.MQRO_PASS_MSG_ID else C.MQMI_NONE
    report.CorrelId = (
        original.CorrelId if original.Report & C.MQRO_PASS_CORREL_ID else original.MsgId
    )
    if original.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
        report.Report = original.Report & C.MQRO_DISCARD_MSG
        if feedback != C.MQFB_EXPIRATION:
            report.Expiry = original.Expiry
    if wanted == kind.with_full_data:
        body = data
    elif wanted == kind.with_data:
        body = data[: headers_length(data, original.Format, original.Encoding) + WITH_DATA_LENGTH]
    else:
        body = b""
        report.Format = C.MQFMT_NONE
    return report, body


def headers_length(data: bytes, fmt: str, encoding: int) -> int:
    """How many bytes at the start of ``data`` are MQ headers, by the chain of Format names
    from the MQMD's (IBM's "Reports and segmented messages": MQMDE, MQDLH, MQXQH, MQIIH and
    every MQH* name); a header that does not fit or says a length it cannot have ends the
    chain, its bytes counted as application data."""
    offset = 0
    for _ in range(_MAX_HEADERS):
        name = fmt.strip()
        fixed = _FIXED_HEADERS.get(name)
        if fixed is not None:
            length, encoding_at, format_at = fixed
        elif name.startswith("MQH") or name == C.MQFMT_IMS:
            length, encoding_at, format_at = -1, 12, 20
        else:
            return offset
        order = "<" if encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_REVERSED else ">"
        if length < 0:
            if len(data) < offset + 28:
                return offset
            (length,) = struct.unpack_from(order + "i", data, offset + 8)
            if length < 28:
                return offset
        if len(data) < offset + length:
            return offset
        (encoding,) = struct.unpack_from(order + "i", data, offset + encoding_at)
        fmt = data[offset + format_at : offset + format_at + 8].decode("ascii", "replace")
        offset += length
    return offset
