"""MQMD v2: 364 bytes, IBM's initial values, both byte orders, clear format errors."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqjms.mq import MQMD, C, MQFormatError
from mqjms.mq.md import MQMD_LENGTH_2

MQLONG = st.integers(-(2**31), 2**31 - 1)


def text(max_size: int) -> st.SearchStrategy[str]:
    # Latin-1 without trailing blanks/NULs: those are padding and do not survive a round trip.
    alphabet = st.characters(min_codepoint=0x21, max_codepoint=0xFF)
    return st.text(alphabet, max_size=max_size)


def test_size_is_364() -> None:
    assert MQMD.size() == MQMD_LENGTH_2 == 364
    assert len(MQMD().pack(C.MQENC_NORMAL)) == 364


def test_defaults_are_ibm_initial_values() -> None:
    # mq-reference §1: IBM initial values (Version 2 is mqjms's documented exception).
    raw = MQMD().pack(C.MQENC_NORMAL)
    assert raw[0:4] == b"MD  "
    longs = {off: struct.unpack_from(">i", raw, off)[0] for off in range(4, 364, 4)}
    assert longs[4] == 2  # Version
    assert longs[8] == C.MQRO_NONE
    assert longs[12] == C.MQMT_DATAGRAM == 8
    assert longs[16] == C.MQEI_UNLIMITED == -1
    assert longs[20] == C.MQFB_NONE
    assert longs[24] == C.MQENC_NATIVE
    assert longs[28] == C.MQCCSI_Q_MGR == 0
    assert raw[32:40] == b" " * 8  # MQFMT_NONE
    assert longs[40] == C.MQPRI_PRIORITY_AS_Q_DEF == -1
    assert longs[44] == C.MQPER_PERSISTENCE_AS_Q_DEF == 2
    assert raw[48:96] == b"\x00" * 48  # MsgId, CorrelId
    assert longs[96] == 0  # BackoutCount
    assert raw[100:208] == b" " * 108  # ReplyToQ, ReplyToQMgr, UserIdentifier
    assert raw[208:240] == b"\x00" * 32  # AccountingToken
    assert raw[240:272] == b" " * 32
    assert longs[272] == C.MQAT_NO_CONTEXT
    assert raw[276:324] == b" " * 48  # PutApplName, PutDate, PutTime, ApplOriginData
    assert raw[324:348] == b"\x00" * 24  # GroupId
    assert (longs[348], longs[352], longs[356], longs[360]) == (1, 0, C.MQMF_NONE, -1)


@pytest.mark.parametrize("encoding", [C.MQENC_NORMAL, C.MQENC_REVERSED, C.MQENC_S390])
def test_round_trip_in_each_encoding(encoding: int) -> None:
    md = MQMD(
        Report=C.MQRO_EXCEPTION_WITH_DATA,
        Expiry=600,
        Encoding=273,
        CodedCharSetId=1208,
        Format=C.MQFMT_RF_HEADER_2,
        MsgId=bytes(range(24)),
        BackoutCount=3,
        ReplyToQ="REPLY.Q",
        PutApplName="mqjms",
        PutDate="20240102",
        PutTime="03040506",
        MsgSeqNumber=7,
    )
    raw = md.pack(encoding)
    order = ">" if encoding & 0xF == 1 else "<"
    assert raw[4:8] == struct.pack(order + "i", 2)
    assert raw[16:20] == struct.pack(order + "i", 600)
    assert MQMD.unpack(raw, encoding) == md
    assert MQMD.unpack_any(raw) == md


def test_encodings_differ_in_integer_order_only() -> None:
    md = MQMD(BackoutCount=0x01020304)
    big, little = md.pack(C.MQENC_NORMAL), md.pack(C.MQENC_REVERSED)
    assert big[96:100] == b"\x01\x02\x03\x04"
    assert little[96:100] == b"\x04\x03\x02\x01"
    assert big[32:40] == little[32:40]


def test_short_buffer_names_field_and_offset() -> None:
    raw = b"xx" + MQMD().pack(C.MQENC_NORMAL)[:200]
    with pytest.raises(MQFormatError) as info:
        MQMD.unpack(raw, C.MQENC_NORMAL, offset=2)
    err = info.value
    assert (err.structure, err.field, err.offset, err.reason) == ("MQMD", "StrucId", 2, 2026)
    assert "200" in err.problem and "364" in err.problem


def test_wrong_struc_id_names_field_and_offset() -> None:
    raw = b"\x00" * 8 + b"XX  " + MQMD().pack(C.MQENC_NORMAL)[4:]
    with pytest.raises(MQFormatError) as info:
        MQMD.unpack(raw, C.MQENC_NORMAL, offset=8)
    err = info.value
    assert (err.structure, err.field, err.offset) == ("MQMD", "StrucId", 8)
    assert err.reason == C.MQRC_MD_ERROR
    assert "MQRC_MD_ERROR" in str(err)


mds = st.builds(
    MQMD,
    Report=MQLONG,
    MsgType=MQLONG,
    Expiry=MQLONG,
    Encoding=MQLONG,
    CodedCharSetId=MQLONG,
    Format=text(8),
    Priority=MQLONG,
    MsgId=st.binary(min_size=24, max_size=24),
    CorrelId=st.binary(min_size=24, max_size=24),
    BackoutCount=MQLONG,
    ReplyToQ=text(48),
    UserIdentifier=text(12),
    AccountingToken=st.binary(min_size=32, max_size=32),
    PutApplName=text(28),
    GroupId=st.binary(min_size=24, max_size=24),
    MsgSeqNumber=MQLONG,
    OriginalLength=MQLONG,
)


@settings(max_examples=200)
@given(md=mds, encoding=st.sampled_from([C.MQENC_NORMAL, C.MQENC_REVERSED]))
def test_random_md_round_trips(md: MQMD, encoding: int) -> None:
    raw = md.pack(encoding)
    assert len(raw) == 364
    assert MQMD.unpack(raw, encoding) == md
