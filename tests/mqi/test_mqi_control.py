"""MQI control blocks: each version packs to IBM's 64-bit length, fields sit where cmqc.h puts them.

The lengths are IBM's MQxx_LENGTH_n constants (public facts, in our CMQC/CMQXC tables);
the offsets are those of the C structures on 64-bit Linux, where a pointer or MQINT64 is
8-aligned. test_mqi_vendor_layouts.py checks the same against the real libraries.
"""

from __future__ import annotations

import contextlib
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqjms.mq import constants as C
from mqjms.mq.bo import MQBO
from mqjms.mq.callback import MQCBD, MQCTLO
from mqjms.mq.cd import MQCD
from mqjms.mq.cno import MQCNO
from mqjms.mq.control import ControlBlock
from mqjms.mq.csp import MQCSP
from mqjms.mq.errors import MQFormatError
from mqjms.mq.gmo import MQGMO
from mqjms.mq.mde import MQMDE, parse_mde
from mqjms.mq.od import MQOD
from mqjms.mq.pcf import (
    MQCFBS,
    MQCFH,
    MQCFIL,
    MQCFIN,
    MQCFSL,
    MQCFST,
    PCFOther,
    build_pcf,
    parse_pcf,
)
from mqjms.mq.pmo import MQPMO
from mqjms.mq.props import MQCMHO, MQDMHO, MQDMPO, MQIMPO, MQPD, MQSMPO
from mqjms.mq.sco import MQSCO
from mqjms.mq.sts import MQSTS
from mqjms.mq.sub import MQSD, MQSRO
from mqjms.mqi.constants import CMQC, CMQXC

STRUCTURES: list[type[ControlBlock]] = [
    MQOD, MQGMO, MQPMO, MQCNO, MQCSP, MQSCO, MQCD, MQSD, MQSRO, MQSTS,
    MQCBD, MQCTLO, MQBO, MQCMHO, MQDMHO, MQPD, MQSMPO, MQIMPO, MQDMPO,
]  # fmt: skip


def ibm_length(cls: type[ControlBlock], version: int) -> int:
    module = CMQXC if cls is MQCD else CMQC
    value = getattr(module, f"{cls.STRUCTURE}_LENGTH_{version}")
    assert isinstance(value, int)
    return value


@pytest.mark.parametrize("cls", STRUCTURES, ids=lambda c: c.STRUCTURE)
def test_every_version_packs_to_ibms_length(cls: type[ControlBlock]) -> None:
    for version in cls.versions():
        assert cls.size(version) == ibm_length(cls, version)
        block = cls()
        if hasattr(block, "Version"):
            block.Version = version  # type: ignore[attr-defined]
        packed = block.pack()
        assert len(packed) == ibm_length(cls, version)
        assert cls.unpack(packed) == block


@pytest.mark.parametrize(
    ("cls", "field", "offset"),
    [
        (MQOD, "ObjectRecPtr", 192),  # after 6 MQLONGs ending at 192: already 8-aligned
        (MQOD, "AlternateSecurityId", 208),
        (MQOD, "ObjectStringVSPtr", 344),
        (MQOD, "ResolvedType", 416),  # then 4 bytes of padding to 424
        (MQGMO, "MsgToken", 80),
        (MQGMO, "Reserved2", 100),
        (MQGMO, "MsgHandle", 104),  # an MQINT64 after Reserved2
        (MQPMO, "PutMsgRecPtr", 144),
        (MQPMO, "OriginalMsgHandle", 160),
        (MQPMO, "NewMsgHandle", 168),
        (MQPMO, "PubLevel", 180),
        (MQCNO, "ClientConnPtr", 16),
        (MQCNO, "SSLConfigPtr", 152),
        (MQCNO, "SecurityParmsPtr", 192),
        (MQCNO, "CCDTUrlPtr", 200),
        (MQCNO, "BalanceParmsPtr", 256),
        (MQCSP, "CSPUserIdPtr", 16),
        (MQCSP, "CSPPasswordPtr", 40),
        (MQCSP, "TokenPtr", 88),
        (MQSCO, "AuthInfoRecPtr", 528),
        (MQSCO, "KeyRepoPasswordPtr", 632),
        (MQCD, "MsgExitPtr", 1520),  # 4 bytes of padding after ReceiveExitsDefined
        (MQCD, "SSLPeerNamePtr", 1720),  # SSLCipherSpec ends 8-aligned
        (MQCD, "HdrCompList", 1792),
        (MQCD, "CertificateLabel", 1920),
        (MQCD, "SPLProtection", 1984),
        (MQSD, "ObjectStringVSPtr", 120),  # SubExpiry ends at 116
        (MQSD, "SelectionStringVSPtr", 288),
        (MQSD, "ResObjectStringVSPtr", 320),
        (MQCBD, "CallbackArea", 16),
        (MQCBD, "MaxMsgLength", 160),  # then 4 bytes of tail padding to 168
        (MQCTLO, "ConnectionArea", 16),
        (MQIMPO, "ReturnedNameVSPtr", 32),
        (MQIMPO, "TypeString", 56),
    ],
)
def test_fields_sit_where_the_64_bit_headers_put_them(
    cls: type[ControlBlock], field: str, offset: int
) -> None:
    assert cls.layout().offset_of(field) == offset


def test_pack_writes_only_the_version_in_the_version_field() -> None:
    gmo = MQGMO(Version=1, MatchOptions=0, MsgHandle=12345)
    assert len(gmo.pack()) == 72  # v1: MatchOptions and MsgHandle are not passed
    gmo.Version = 4
    data = gmo.pack()
    assert struct.unpack_from("<q", data, 104) == (12345,)
    # unpacking a version-1 structure leaves later fields at their initial values
    short = MQGMO.unpack(MQGMO(Version=1, WaitInterval=5).pack())
    assert short.WaitInterval == 5 and short.MatchOptions == 3 and short.MsgHandle == 0


def test_pointers_and_int64s_round_trip_in_either_byte_order() -> None:
    pmo = MQPMO(Version=3, PutMsgRecPtr=0x7FFF_0000_1000, OriginalMsgHandle=-2, NewMsgHandle=2**40)
    for encoding in (C.MQENC_NATIVE, C.MQENC_NORMAL):
        assert MQPMO.unpack(pmo.pack(encoding), encoding) == pmo


def test_a_buffer_may_stop_at_the_last_field_without_tail_padding() -> None:
    # pymqi packs its MQSCO (version 5) as 628 bytes, not MQSCO_LENGTH_5 = 632.
    sco = MQSCO(Version=5, CertificateLabel="ibmwebspheremqapp")
    assert MQSCO.unpack(sco.pack()[:628]) == sco
    with pytest.raises(MQFormatError) as caught:
        MQSCO.unpack(sco.pack()[:627])
    assert caught.value.reason == C.MQRC_SCO_ERROR
    assert "needs 628" in str(caught.value)


@pytest.mark.parametrize(
    ("cls", "reason"),
    [(MQOD, C.MQRC_OD_ERROR), (MQGMO, C.MQRC_GMO_ERROR), (MQCNO, C.MQRC_CNO_ERROR)],
)
def test_malformed_blocks_fail_with_the_structures_reason(
    cls: type[ControlBlock], reason: int
) -> None:
    good = cls().pack()
    bad_version = good[:4] + struct.pack("<i", 99) + good[8:]
    with pytest.raises(MQFormatError) as caught:
        cls.unpack(bad_version)
    assert caught.value.reason == reason and "Version" in str(caught.value)
    with pytest.raises(MQFormatError) as caught:
        cls.unpack(b"XXXX" + good[4:])
    assert caught.value.reason == reason and "StrucId" in str(caught.value)


def test_bad_values_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"MQCNO\.ClientConnPtr"):
        MQCNO(Version=2, ClientConnPtr=-1).pack()
    with pytest.raises(TypeError, match=r"MQOD\.ObjectName must be str"):
        MQOD(ObjectName=5).pack()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="longer than 48"):
        MQOD(ObjectName="Q" * 49).pack()
    with pytest.raises(ValueError, match=r"MQOD\.Version 9 is not one of 1\.\.4"):
        MQOD(Version=9).pack()
    with pytest.raises(TypeError, match=r"MQCD\.MsgCompList must be 16 MQLONGs"):
        MQCD(Version=8, MsgCompList=(0,)).pack()


def test_char_fields_are_blank_padded_and_read_back_without_nul_or_blank_padding() -> None:
    od = MQOD(ObjectName="Q1")
    assert od.pack()[12:60] == b"Q1".ljust(48, b" ")
    nul_padded = od.pack()[:12] + b"Q1".ljust(48, b"\x00") + od.pack()[60:]  # as pymqi packs
    assert MQOD.unpack(nul_padded).ObjectName == "Q1"


def test_mqcd_never_shows_a_password() -> None:
    cd = MQCD(ChannelName="APP.SVRCONN", Password="s3cret", RemotePassword="other")
    assert "s3cret" not in repr(cd) and "other" not in repr(cd)
    assert cd.to_dict()["Password"] == "***"
    assert "s3cret" not in str(cd.to_dict())


def test_mqsts_strucid_is_stat() -> None:
    assert MQSTS().pack()[:4] == CMQC.MQSTS_STRUC_ID == b"STAT"


def test_mqmde_parses_and_tells_where_the_data_starts() -> None:
    mde = MQMDE(Format="MQSTR", GroupId=b"G" * 24, MsgSeqNumber=3)
    parsed, rest = parse_mde(mde.pack(C.MQENC_NORMAL) + b"body", C.MQENC_NORMAL)
    assert parsed == mde and rest == b"body"
    with pytest.raises(MQFormatError) as caught:
        parse_mde(mde.pack()[:40], C.MQENC_NATIVE)
    assert caught.value.reason == C.MQRC_MDE_ERROR


def test_pcf_message_round_trips() -> None:
    parameters: list[MQCFIN | MQCFST | MQCFIL | MQCFSL | MQCFBS | PCFOther] = [
        MQCFST(2016, 0, b"TEST.Q1".ljust(48)),  # MQCA_Q_NAME, blank padded as MQ sends it
        MQCFIN(20, 1),  # MQIA_Q_TYPE
        MQCFIL(1002, (2016, 3)),
        MQCFSL(3000, 1208, (b"A", b"BCD")),
        MQCFBS(7001, b"\x01\x02"),
    ]
    header = MQCFH(Type=2, Version=3, Command=13)
    for encoding in (C.MQENC_NATIVE, C.MQENC_NORMAL):
        data = build_pcf(header, parameters, encoding)
        parsed_header, parsed = parse_pcf(data, encoding)
        assert parsed_header.ParameterCount == 5 and parsed_header.Command == 13
        assert parsed[0] == parameters[0]
        assert parsed[3] == MQCFSL(3000, 1208, (b"A  ", b"BCD"), 3)  # blank padded to 3
        assert [p.StrucLength for p in parsed] == [68, 16, 24, 32, 20]


def test_pcf_keeps_parameters_it_does_not_decode() -> None:
    cfif = struct.pack("<5i", 13, 20, 3, 2, 4)  # an MQCFIF (a filter): kept whole
    data = build_pcf(MQCFH(), [MQCFIN(1, 2)]) + cfif
    data = MQCFH(ParameterCount=2).pack() + data[36:]
    _header, parsed = parse_pcf(data)
    assert parsed[1] == PCFOther(13, 3, cfif)


def test_pcf_lengths_are_checked() -> None:
    cfst = bytearray(MQCFST(2016, 0, b"ABC").pack())
    struct.pack_into("<i", cfst, 16, 40)  # StringLength past StrucLength
    with pytest.raises(MQFormatError) as caught:
        MQCFST.unpack(bytes(cfst))
    assert caught.value.reason == C.MQRCCF_CFST_STRING_LENGTH_ERR
    with pytest.raises(MQFormatError) as caught:
        MQCFIN.unpack(MQCFST(1, 0, b"").pack())
    assert caught.value.reason == C.MQRCCF_CFH_TYPE_ERROR
    with pytest.raises(MQFormatError) as caught:
        parse_pcf(MQCFH(ParameterCount=1).pack())
    assert caught.value.reason == C.MQRCCF_CFH_PARM_COUNT_ERROR


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=2100), version=st.integers(-1, 14))
def test_any_bytes_unpack_or_raise_mqformaterror(data: bytes, version: int) -> None:
    for cls in STRUCTURES:
        block = bytearray(cls().pack()) + data
        offset = cls.layout().offset_of("Version")
        block[offset : offset + 4] = version.to_bytes(4, "little", signed=True)
        for candidate in (bytes(block), data):
            with contextlib.suppress(MQFormatError):
                assert cls.unpack(candidate).pack()


@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=400))
def test_any_bytes_parse_as_pcf_or_raise_mqformaterror(data: bytes) -> None:
    with contextlib.suppress(MQFormatError):
        parse_pcf(MQCFH(ParameterCount=3).pack() + data)
