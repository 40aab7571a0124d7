"""Messages as Spark rows: the columns, and how an MQMD plus bytes become one row.

Decoding never fails a batch (PERMISSIVE, as Spark's file sources say it): a message
whose RFH2 or text does not decode keeps its raw bytes in ``body`` and says why in
``error``. Nothing here imports pyspark: schemas are DDL strings.
"""

from __future__ import annotations

import datetime as dt
import functools
import struct
from typing import Any

from mqjms.backout.failure import PROPERTY_PREFIX
from mqjms.jms.message import TextMessage, from_mq
from mqjms.mq import ccsid, rfh2
from mqjms.mq import constants as C
from mqjms.mq.dlh import parse_dlh
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.mq.structure import byte_order

MESSAGE_COLUMNS = (
    "msg_id STRING, correl_id STRING, queue STRING, body BINARY, text STRING, priority INT, "
    "persistent BOOLEAN, put_time TIMESTAMP, expiry INT, backout_count INT, reply_to STRING, "
    "properties MAP<STRING,STRING>, error STRING"
)
FAILURE_FIELDS = ("exception", "message", "listener", "queue", "time")
#: Every read (streaming source and batch browse): the message, ``seq`` (its number in
#: staging, or its position in a browse), the MQDLH of a dead-lettered message and the
#: failure properties of a moved one.
SCHEMA = (
    MESSAGE_COLUMNS + ", seq LONG, dlh_reason INT, dlh_reason_name STRING, original_queue STRING,"
    " original_qmgr STRING, dlh_put_time TIMESTAMP, "
    + ", ".join(f"failure_{name} STRING" for name in FAILURE_FIELDS)
)
#: What ``mqjms.spark.run`` reads besides (option ``includeRaw``): the packed MQMD and
#: the bytes as they came, so a listener gets the very ``mqjms.Message`` a Worker gives.
RAW_COLUMNS = ", mqmd BINARY, raw BINARY"


def put_time(date: str, time: str) -> dt.datetime | None:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH), GMT, as a datetime; None if blank."""
    date, time = date.strip(), time.strip()
    if len(date) != 8 or len(time) < 6:
        return None
    try:
        hundredths = int(time[6:8] or 0)
        return dt.datetime(
            int(date[:4]),
            int(date[4:6]),
            int(date[6:8]),
            int(time[:2]),
            int(time[2:4]),
            int(time[4:6]),
            hundredths * 10_000,
            tzinfo=dt.UTC,
        )
    except ValueError:
        return None


def _jms_properties(message: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for name, value in (
        ("JMSType", message.jms_type),
        ("JMSDestination", message.jms_destination),
        ("JMSReplyTo", message.jms_reply_to),
        ("JMSCorrelationID", message.jms_correlation_id),
    ):
        if value:
            out[name] = str(value)
    return out


def decode(md: MQMD, data: bytes) -> tuple[bytes, str | None, dict[str, str], str | None]:
    """``(body, text, properties, error)`` of one message, never raising."""
    if not rfh2.is_rfh2(md.Format):  # no folders: the body is the bytes, text if MQSTR
        if md.Format != C.MQFMT_STRING:
            return data, None, {}, None
        try:
            return (
                data,
                ccsid.decode(data, md.CodedCharSetId or C.CCSID_UTF8, md.Encoding),
                {},
                None,
            )
        except Exception:
            pass  # the JMS mapping below says why, in its own words
    payload = data
    chain = None
    try:
        if rfh2.is_rfh2(md.Format):
            chain = rfh2.parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
            payload = chain.body
        message = from_mq(md, data)
    except Exception as exc:
        reason = exc.reason_name if isinstance(exc, MQError) else type(exc).__name__
        detail = exc.detail if isinstance(exc, MQError) else str(exc)
        return payload, None, {}, f"{reason}: {detail}"
    properties = {name: _text(value) for name, value in message.properties.items()}
    if rfh2.is_rfh2(md.Format):
        properties.update(_jms_properties(message))
    text = message.body if isinstance(message, TextMessage) else None
    if text is None and chain is not None and chain.Format == C.MQFMT_STRING.rstrip():
        # MQSTR behind an RFH2 of another domain (a broker's <Msd>xmlnsc</Msd>): still text
        try:
            text = ccsid.decode(payload, chain.CodedCharSetId or C.CCSID_UTF8, chain.Encoding)
        except Exception:
            text = None
    return payload, text, properties, None


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def message_values(md: MQMD, data: bytes, queue: str) -> tuple[Any, ...]:
    """The values of :data:`MESSAGE_COLUMNS` for one message."""
    body, text, properties, error = decode(md, data)
    return (
        md.MsgId.hex(),
        md.CorrelId.hex(),
        queue,
        body,
        text,
        md.Priority,
        md.Persistence == C.MQPER_PERSISTENT,
        put_time(md.PutDate, md.PutTime),
        md.Expiry,
        md.BackoutCount,
        md.ReplyToQ.strip() or None,
        properties,
        error,
    )


def row(seq: int, md: MQMD, data: bytes, queue: str, raw: bool = False) -> tuple[Any, ...]:
    """One row of :data:`SCHEMA` (plus :data:`RAW_COLUMNS` when ``raw``). A message with
    an MQDLH has its fields in the ``dlh_*`` columns and the message inside it described
    by the others."""
    original_md, original_data = md, data
    dlh_values: tuple[Any, ...] = (None, None, None, None, None)
    dlh_error = None
    if md.Format.rstrip(" \x00") == C.MQFMT_DEAD_LETTER_HEADER.rstrip():
        try:
            dlh, inner = parse_dlh(data, md.Encoding)
        except Exception as exc:
            dlh_error = f"MQDLH: {exc}"
        else:
            dlh_values = (
                dlh.Reason,
                MQError(C.MQCC_FAILED, dlh.Reason).reason_name,
                dlh.DestQName.strip() or None,
                dlh.DestQMgrName.strip() or None,
                put_time(dlh.PutDate, dlh.PutTime),
            )
            md = md.copy(
                Format=dlh.Format, CodedCharSetId=dlh.CodedCharSetId, Encoding=dlh.Encoding
            )
            data = bytes(inner)
    values = message_values(md, data, queue)
    if dlh_error is not None:
        values = (*values[:-1], dlh_error)
    properties: dict[str, str] = values[11]
    failure = tuple(properties.get(PROPERTY_PREFIX + name) for name in FAILURE_FIELDS)
    out = (*values, seq, *dlh_values, *failure)
    return (*out, original_md.pack(), original_data) if raw else out


# The MQMD fields a row shows, straight from a packed MQMD (native encoding): Expiry,
# Encoding, CodedCharSetId, Format, Priority, Persistence, MsgId, CorrelId, BackoutCount,
# ReplyToQ, PutDate and PutTime (offsets 16 to 320 of MQMD version 1 and 2)
_ROW_FIELDS = struct.Struct(byte_order(C.MQENC_NATIVE) + "16xi4xii8sii24s24si48s156x8s8s")
_NO_DLH_OR_FAILURE = (None,) * (5 + len(FAILURE_FIELDS))


def packed_row(
    seq: int, packed: bytes, data: bytes, queue: str, raw: bool = False
) -> tuple[Any, ...]:
    """:func:`row` of a packed MQMD (native encoding), the same values: a message without
    headers (most of a stream) is read from the few fields its row shows, at a fraction of
    the cost of unpacking all 30; one with an RFH2 or MQDLH, one whose text does not
    decode, and a raw row take :func:`row`'s own way."""
    if raw or len(packed) < _ROW_FIELDS.size or packed[:4] != b"MD  ":
        return row(seq, MQMD.unpack(packed), data, queue, raw)
    (expiry, encoding, ccsid_, fmt, priority, persistence, msg_id, correl_id, backout,
     reply_to, put_date, put_clock) = _ROW_FIELDS.unpack_from(packed)  # fmt: skip
    format_name = fmt.rstrip(b" \x00").decode("latin-1")
    text = None
    if format_name == C.MQFMT_STRING:
        try:
            text = ccsid.decode(data, ccsid_ or C.CCSID_UTF8, encoding)
        except Exception:
            return row(seq, MQMD.unpack(packed), data, queue, raw)  # says why, in its words
    elif rfh2.is_rfh2(format_name) or format_name == C.MQFMT_DEAD_LETTER_HEADER:
        return row(seq, MQMD.unpack(packed), data, queue, raw)
    return (
        msg_id.hex(),
        correl_id.hex(),
        queue,
        data,
        text,
        priority,
        persistence == C.MQPER_PERSISTENT,
        _put_time(put_date, put_clock),
        expiry,
        backout,
        reply_to.rstrip(b" \x00").decode("latin-1").strip() or None,
        {},
        None,
        seq,
        *_NO_DLH_OR_FAILURE,
    )


@functools.lru_cache(maxsize=4096)
def _put_time(date: bytes, time: bytes) -> dt.datetime | None:
    """:func:`put_time` of the packed fields; messages put in one hundredth share it."""
    return put_time(
        date.rstrip(b" \x00").decode("latin-1"), time.rstrip(b" \x00").decode("latin-1")
    )
