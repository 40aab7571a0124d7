"""MQXQH, the transmission-queue header: IBM's layout (mq-reference §4.2), both byte
orders, clear format errors, and the embedded Expiry the queue manager rewrites (seeds
000/001/004 note 9)."""

from __future__ import annotations

import struct

import pytest

from mqjms.mq import MQMD, MQXQH, C, MQFormatError, parse_xqh
from mqjms.mq.xqh import EMBEDDED_EXPIRY_OFFSET, embedded_expiry, with_embedded_expiry

ENCODINGS = [C.MQENC_NORMAL, C.MQENC_REVERSED]


def sample() -> MQXQH:
    return MQXQH(
        RemoteQName="ORDERS.IN",
        RemoteQMgrName="QM2",
        MsgDesc=MQMD(Expiry=600, Format=C.MQFMT_STRING, Priority=5, PutApplName="app"),
    )


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_xqh_layout_matches_ibm(encoding: int) -> None:
    raw = sample().pack(encoding)
    order = ">" if encoding == C.MQENC_NORMAL else "<"
    assert len(raw) == 428  # MQXQH_LENGTH_1
    assert raw[:4] == b"XQH "
    assert raw[4:8] == struct.pack(order + "i", 1)
    assert raw[8:56] == b"ORDERS.IN".ljust(48)
    assert raw[56:104] == b"QM2".ljust(48)
    # MsgDesc: an MQMD version 1 (324 bytes) at offset 104
    assert raw[104:108] == b"MD  "
    assert raw[108:112] == struct.pack(order + "i", 1)
    assert raw[EMBEDDED_EXPIRY_OFFSET : EMBEDDED_EXPIRY_OFFSET + 4] == struct.pack(order + "i", 600)
    assert EMBEDDED_EXPIRY_OFFSET == 104 + 16


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_parse_xqh_round_trips_and_returns_the_rest(encoding: int) -> None:
    xqh, rest = parse_xqh(sample().pack(encoding) + b"payload", encoding)
    assert rest == b"payload"
    assert (xqh.RemoteQName, xqh.RemoteQMgrName) == ("ORDERS.IN", "QM2")
    assert xqh.MsgDesc.Version == 1
    assert xqh.MsgDesc.Expiry == 600
    assert xqh.MsgDesc.Format == C.MQFMT_STRING
    assert xqh.MsgDesc.PutApplName == "app"


def test_malformed_xqh_names_the_field_with_mqrc_xqh_error() -> None:
    raw = sample().pack(C.MQENC_NORMAL)
    with pytest.raises(MQFormatError) as err:
        parse_xqh(b"XYZ " + raw[4:], C.MQENC_NORMAL)
    assert err.value.reason == C.MQRC_XQH_ERROR == 2260
    assert "MQXQH.StrucId" in str(err.value)
    with pytest.raises(MQFormatError) as err:
        parse_xqh(raw[:200], C.MQENC_NORMAL)
    assert err.value.reason == C.MQRC_XQH_ERROR
    assert "MQXQH.MsgDesc" in str(err.value)
    with pytest.raises(MQFormatError) as err:
        parse_xqh(raw[:4] + struct.pack(">i", 2) + raw[8:], C.MQENC_NORMAL)
    assert "MQXQH.Version" in str(err.value)


def test_version_2_fields_are_not_dropped_silently() -> None:
    with pytest.raises(ValueError, match="MQMDE"):
        MQXQH(MsgDesc=MQMD(MsgSeqNumber=2)).pack()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_embedded_expiry_read_and_rewritten_in_place(encoding: int) -> None:
    raw = sample().pack(encoding) + b"payload"
    assert embedded_expiry(raw, encoding) == 600
    changed = with_embedded_expiry(raw, encoding, 0)
    assert embedded_expiry(changed, encoding) == 0
    assert len(changed) == len(raw)
    assert changed[:EMBEDDED_EXPIRY_OFFSET] == raw[:EMBEDDED_EXPIRY_OFFSET]
    assert changed[EMBEDDED_EXPIRY_OFFSET + 4 :] == raw[EMBEDDED_EXPIRY_OFFSET + 4 :]


def test_embedded_expiry_of_data_too_short_or_not_an_xqh_is_none() -> None:
    # seed 000 note 9: "No error is raised if the message data is not long enough to
    # include the Expiry field in the MQXQH."
    raw = sample().pack(C.MQENC_NORMAL)
    assert embedded_expiry(raw[: EMBEDDED_EXPIRY_OFFSET + 3], C.MQENC_NORMAL) is None
    assert embedded_expiry(raw[: EMBEDDED_EXPIRY_OFFSET + 4], C.MQENC_NORMAL) == 600
    assert embedded_expiry(b"hello", C.MQENC_NORMAL) is None
    assert embedded_expiry(b"ABCD" + raw[4:], C.MQENC_NORMAL) is None
    assert embedded_expiry(raw, 3) is None  # integer encoding 3: no byte order
    assert with_embedded_expiry(b"short", C.MQENC_NORMAL, 5) == b"short"
