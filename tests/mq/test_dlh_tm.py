"""MQDLH, MQTM and MQTMC2: IBM's layouts, both byte orders, and clear format errors."""

from __future__ import annotations

import struct

import pytest

from mqjms.mq import MQDLH, MQTM, MQTMC2, C, MQFormatError, parse_dlh, parse_tm, parse_tmc2
from mqjms.mq.tm import MQRC_TMC_ERROR

# --- MQDLH ----------------------------------------------------------------------------


def sample_dlh() -> MQDLH:
    return MQDLH(
        Reason=C.MQRC_BACKOUT_THRESHOLD_REACHED,
        DestQName="ORDERS.IN",
        DestQMgrName="QM1",
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=1208,
        Format=C.MQFMT_RF_HEADER_2,
        PutApplType=C.MQAT_JAVA,
        PutApplName="mqjms",
        PutDate="20240102",
        PutTime="03040506",
    )


def test_dlh_layout_matches_ibm() -> None:
    assert MQDLH.size() == 172
    raw = sample_dlh().pack(C.MQENC_NORMAL)
    assert struct.calcsize(">4sii48s48sii8si28s8s8s") == len(raw) == 172
    fields = struct.unpack(">4sii48s48sii8si28s8s8s", raw)
    assert fields[0] == b"DLH "
    assert fields[1:3] == (1, 2362)
    assert fields[3] == b"ORDERS.IN".ljust(48)
    assert fields[5:7] == (273, 1208)
    assert fields[7] == b"MQHRF2  "
    assert fields[8] == 28
    assert raw[108:112] == struct.pack(">i", 273)  # Encoding at offset 108


def test_dlh_defaults_are_ibm_initial_values() -> None:
    raw = MQDLH().pack(C.MQENC_NORMAL)
    assert raw[:12] == b"DLH " + struct.pack(">ii", 1, C.MQRC_NONE)
    assert raw[12:108] == b" " * 96
    assert raw[108:124] == struct.pack(">ii", 0, 0) + b" " * 8
    assert raw[124:] == struct.pack(">i", 0) + b" " * 44


@pytest.mark.parametrize("encoding", [C.MQENC_NORMAL, C.MQENC_REVERSED])
def test_parse_dlh_round_trips_and_returns_the_rest(encoding: int) -> None:
    raw = sample_dlh().pack(encoding) + b"original message"
    dlh, rest = parse_dlh(raw, encoding)
    assert dlh == sample_dlh()
    assert rest == b"original message"
    order = ">" if encoding == C.MQENC_NORMAL else "<"
    assert raw[8:12] == struct.pack(order + "i", 2362)


@pytest.mark.parametrize(
    ("raw", "fieldname", "offset"),
    [
        (MQDLH().pack(C.MQENC_NORMAL)[:171], "StrucId", 0),
        (b"DLQ " + MQDLH().pack(C.MQENC_NORMAL)[4:], "StrucId", 0),
        (MQDLH(Version=2).pack(C.MQENC_NORMAL), "Version", 4),
    ],
    ids=["short", "struc-id", "version"],
)
def test_malformed_dlh(raw: bytes, fieldname: str, offset: int) -> None:
    with pytest.raises(MQFormatError) as info:
        parse_dlh(b"\0" * 4 + raw, C.MQENC_NORMAL, offset=4)
    err = info.value
    assert (err.structure, err.field, err.offset) == ("MQDLH", fieldname, 4 + offset)
    assert err.reason == C.MQRC_DLH_ERROR


def test_dlh_with_unusable_encoding_is_a_format_error() -> None:
    with pytest.raises(MQFormatError) as info:
        parse_dlh(sample_dlh().pack(C.MQENC_NORMAL), 0x7)
    assert (info.value.field, info.value.reason) == ("Encoding", C.MQRC_DLH_ERROR)


# --- MQTM -----------------------------------------------------------------------------


def sample_tm() -> MQTM:
    return MQTM(
        QName="ORDERS.IN",
        ProcessName="ORDERS.PROC",
        TriggerData="data",
        ApplType=C.MQAT_UNIX,
        ApplId="/usr/bin/worker",
        EnvData="env",
        UserData="user",
    )


def test_tm_layout_matches_ibm() -> None:
    assert MQTM.size() == 684
    raw = sample_tm().pack(C.MQENC_NORMAL)
    fields = struct.unpack(">4si48s48s64si256s128s128s", raw)
    assert fields[:2] == (b"TM  ", 1)
    assert fields[2] == b"ORDERS.IN".ljust(48)
    assert fields[5] == C.MQAT_UNIX
    assert raw[168:172] == struct.pack(">i", 6)  # ApplType at offset 168


@pytest.mark.parametrize("encoding", [C.MQENC_NORMAL, C.MQENC_REVERSED])
def test_tm_round_trips(encoding: int) -> None:
    assert parse_tm(sample_tm().pack(encoding), encoding) == sample_tm()


@pytest.mark.parametrize(
    ("raw", "fieldname", "offset"),
    [
        (MQTM().pack(C.MQENC_NORMAL)[:600], "StrucId", 0),
        (b"TMC " + MQTM().pack(C.MQENC_NORMAL)[4:], "StrucId", 0),
        (MQTM(Version=2).pack(C.MQENC_NORMAL), "Version", 4),
    ],
    ids=["short", "struc-id", "version"],
)
def test_malformed_tm(raw: bytes, fieldname: str, offset: int) -> None:
    with pytest.raises(MQFormatError) as info:
        parse_tm(raw, C.MQENC_NORMAL)
    err = info.value
    assert (err.structure, err.field, err.offset) == ("MQTM", fieldname, offset)
    assert err.reason == C.MQRC_TM_ERROR


# --- MQTMC2 ---------------------------------------------------------------------------


def test_tmc2_from_tm_is_ibm_character_form() -> None:
    tmc = MQTMC2.from_tm(sample_tm(), "QM1")
    raw = tmc.pack()
    assert MQTMC2.size() == len(raw) == 732
    fields = struct.unpack("4s4s48s48s64s4s256s128s128s48s", raw)
    assert fields[0] == b"TMC "
    assert fields[1] == b"   2"
    assert fields[2] == b"ORDERS.IN".ljust(48)
    assert fields[3] == b"ORDERS.PROC".ljust(48)
    assert fields[5] == b"    "  # ApplType: always blanks, whatever the MQTM's ApplType
    assert fields[6] == b"/usr/bin/worker".ljust(256)
    assert fields[9] == b"QM1".ljust(48)
    assert raw == tmc.pack(C.MQENC_REVERSED)  # no integers: byte order is irrelevant
    assert parse_tmc2(raw) == tmc


@pytest.mark.parametrize(
    ("raw", "fieldname", "offset"),
    [
        (MQTMC2().pack()[:731], "StrucId", 0),
        (b"TM  " + MQTMC2().pack()[4:], "StrucId", 0),
        (MQTMC2(Version="   1").pack(), "Version", 4),
    ],
    ids=["short", "struc-id", "version"],
)
def test_malformed_tmc2(raw: bytes, fieldname: str, offset: int) -> None:
    with pytest.raises(MQFormatError) as info:
        parse_tmc2(raw)
    err = info.value
    assert (err.structure, err.field, err.offset) == ("MQTMC2", fieldname, offset)
    assert err.reason == MQRC_TMC_ERROR == 2191
