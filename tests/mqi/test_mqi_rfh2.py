"""RFH2 in both flavours on the captured messages in shared/testdata/rfh2.

What pymqi's and ibmmq's own test_rfh2.py check, written for us: the folder fields after
``unpack``, ``pack`` giving back the original bytes, building the same header with
``add_folder``, byte order by encoding, and the errors (same texts as theirs).
"""

from __future__ import annotations

import contextlib
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqjms.mq.rfh2 import parse_chain
from mqjms.mqi import ibmmq_flavour, pymqi_flavour
from mqjms.mqi.constants import CMQC
from tests.mqi import mqi_vendor as vendor

FLAVOURS = [pytest.param(pymqi_flavour, id="pymqi"), pytest.param(ibmmq_flavour, id="ibmmq")]
PSC = (
    b"<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
    b"<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>"
)
TEST_FOLDER = b"<testFolder><testVar>testValue</testVar></testFolder>"
MCD = b"<mcd><Msd>xmlnsc</Msd></mcd>"


@pytest.fixture(scope="module")
def single() -> bytes:
    path = vendor.rfh2_testdata() / "single_rfh2.dat"
    if not path.exists():
        vendor.absent(f"{path} is absent")
    return path.read_bytes()


def struc_id(mq: ModuleType) -> str:
    return "StrucId" if mq is pymqi_flavour else "_StrucId"


@pytest.mark.parametrize("mq", FLAVOURS)
@pytest.mark.parametrize("encoding", [None, 273])
def test_parse(mq: ModuleType, single: bytes, encoding: int | None) -> None:
    rfh2 = mq.RFH2()
    rfh2.unpack(single, encoding)
    assert len(rfh2.get()) == 14  # 8 fixed fields, then a Length and a value per folder
    assert rfh2[struc_id(mq)] == CMQC.MQRFH_STRUC_ID and rfh2["Version"] == 2
    assert (rfh2["StrucLength"], rfh2["Encoding"], rfh2["CodedCharSetId"]) == (284, 273, 1208)
    assert rfh2["Format"] == CMQC.MQFMT_STRING and rfh2["NameValueCCSID"] == 1208
    assert (rfh2["pscLength"], rfh2["testFolderLength"], rfh2["mcdLength"]) == (152, 56, 28)
    assert rfh2["psc"] == PSC + b" " and rfh2["testFolder"] == TEST_FOLDER + b"   "
    assert rfh2["mcd"] == MCD
    assert rfh2.get_folders() == ["psc", "testFolder", "mcd"]


@pytest.mark.parametrize("mq", FLAVOURS)
def test_parse_the_fixed_part_only(mq: ModuleType, single: bytes) -> None:
    rfh2 = mq.RFH2()
    rfh2.unpack(single[0:36])
    assert len(rfh2.get()) == 8 and rfh2["StrucLength"] == 284


@pytest.mark.parametrize("mq", FLAVOURS)
def test_pack_gives_back_the_original(mq: ModuleType, single: bytes) -> None:
    rfh2 = mq.RFH2()
    rfh2.unpack(single)
    assert rfh2.pack() == single[0 : rfh2["StrucLength"]]


@pytest.mark.parametrize("mq", FLAVOURS)
def test_add_folder(mq: ModuleType, single: bytes) -> None:
    rfh2 = mq.RFH2()
    rfh2.unpack(single)
    rfh2.add_folder(b"<testFolder2><testVar>testValue</testVar></testFolder2>")
    assert len(rfh2.get()) == 16 and rfh2["StrucLength"] == 344
    assert rfh2["testFolder2"] == b"<testFolder2><testVar>testValue</testVar></testFolder2> "
    assert rfh2["testFolder2Length"] == 56


@pytest.mark.parametrize("mq", FLAVOURS)
def test_create_the_same_header(mq: ModuleType, single: bytes) -> None:
    new = mq.RFH2()
    new[struc_id(mq)] = CMQC.MQRFH_STRUC_ID
    for name, value in (
        ("Version", 2), ("StrucLength", 188), ("Encoding", 273), ("CodedCharSetId", 1208),
        ("Format", CMQC.MQFMT_STRING), ("Flags", 0), ("NameValueCCSID", 1208),
    ):  # fmt: skip
        new[name] = value
    for folder in (PSC, TEST_FOLDER, MCD):
        new.add_folder(folder)
    assert new.pack(encoding=273) == single[0:284]


@pytest.mark.parametrize("mq", FLAVOURS)
def test_byte_order_by_encoding(mq: ModuleType) -> None:
    big = [CMQC.MQENC_INTEGER_NORMAL, 273, 17, 257, 785]  # (785: z/OS)
    little = [None, CMQC.MQENC_NATIVE, CMQC.MQENC_INTEGER_REVERSED, 34, 514]
    for encoding in big:
        assert mq.RFH2().pack(encoding=encoding)[4:8] == b"\x00\x00\x00\x02", encoding
    for encoding in little:
        assert mq.RFH2().pack(encoding=encoding)[4:8] == b"\x02\x00\x00\x00", encoding
    # pymqi's list: the decimal and float "normal" encodings alone are big-endian too
    assert pymqi_flavour.RFH2().pack(encoding=CMQC.MQENC_DECIMAL_NORMAL)[4:8] == b"\x00\x00\x00\x02"


@pytest.mark.parametrize("mq", FLAVOURS)
def test_errors(mq: ModuleType, single: bytes) -> None:
    prefix = "PYMQI Error: " if mq is pymqi_flavour else "PYIBMMQ Error: "
    cases = [
        ((single, 546), "RFH2 - Buffer too short. Expected: 469827584 Buffer Length: 333"),
        ((single[116:],), f"RFH2 - {struc_id(mq)} not MQRFH_STRUC_ID. Value: b'ame>'"),
        ((single[0:32],), "RFH2 - Buffer too short. Should be 36+ bytes instead of 32"),
        ((single[0:188],), "RFH2 - Buffer too short. Expected: 284 Buffer Length: 188"),
    ]
    for args, text in cases:
        with pytest.raises(mq.PYIFError) as caught:
            mq.RFH2().unpack(*args)
        assert str(caught.value) == prefix + text
    with pytest.raises(mq.PYIFError, match="XML Folder not well formed"):
        mq.RFH2().unpack(single[0:117] + single[121:])
    if mq is pymqi_flavour:  # (ibmmq names such a folder by its first tag: see below)
        with pytest.raises(mq.PYIFError) as caught:
            mq.RFH2().add_folder(b"<a><b>c</a>")
        assert str(caught.value).startswith(
            prefix + "RFH2 - XML Folder not well formed. Exception:"
        )
    with pytest.raises(mq.PYIFError) as caught:
        mq.RFH2().add_folder(b"no element at all")
    assert str(caught.value).startswith(prefix + "RFH2 - XML Folder not well formed. Exception:")


def test_ibmmq_keeps_java_folders_that_are_not_well_formed() -> None:
    rfh2 = ibmmq_flavour.RFH2()
    rfh2.add_folder(b"<usr><a>1</a><usr2>")  # not XML; ibmmq names it by its first tag
    assert rfh2.get_folders() == ["usr"]
    with pytest.raises(pymqi_flavour.PYIFError):
        pymqi_flavour.RFH2().add_folder(b"<usr><a>1</a><usr2>")


@pytest.mark.parametrize("mq", FLAVOURS)
def test_to_and_from_mqjms_rfh2(mq: ModuleType, single: bytes) -> None:
    rfh2 = mq.RFH2()
    rfh2.unpack(single)
    header = rfh2.to_header()
    chain = parse_chain(single, 273, 1208, "MQHRF2")
    assert header.folders == chain.headers[0].folders
    assert header.Format == "MQSTR" and header.CodedCharSetId == 1208
    back = mq.RFH2.from_header(chain.headers[0], 273)
    assert back.pack() == single[0:284] and back.get() == rfh2.get()


@pytest.mark.parametrize("mq", FLAVOURS)
def test_a_negative_folder_length_is_a_clear_error(mq: ModuleType, single: bytes) -> None:
    broken = single[:36] + (-4).to_bytes(4, "big", signed=True) + single[40:]
    with pytest.raises(mq.PYIFError, match=r"folder length is negative \(-4\)"):
        mq.RFH2().unpack(broken)


@settings(max_examples=200, deadline=None)
@given(tail=st.binary(max_size=80), big=st.booleans())
def test_any_bytes_unpack_or_raise_pyiferror(tail: bytes, big: bool) -> None:
    order = "big" if big else "little"
    head = b"RFH " + (2).to_bytes(4, order) + (36 + len(tail)).to_bytes(4, order)
    data = head + bytes(24) + tail
    for mq in (pymqi_flavour, ibmmq_flavour):
        with contextlib.suppress(mq.PYIFError):  # and nothing else, and it ends
            mq.RFH2().unpack(data)
