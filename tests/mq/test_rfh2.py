"""MQRFH2 chains: captured messages, IBM's byte example, and every malformed-input case."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from mqjms.mq import RFH2, C, MQFormatError, build_chain, parse_chain
from mqjms.mq.rfh2 import parse_folder

# The repo's parent holds shared/ (CI clones the repo with shared/ beside it).
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
RFH2_DATA = SHARED / "testdata" / "rfh2"

PSC = (
    "<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
    "<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>"
)
TEST_FOLDER = "<testFolder><testVar>testValue</testVar></testFolder>"
MCD_XMLNSC = "<mcd><Msd>xmlnsc</Msd></mcd>"
BODY = b"<testData><testVar>testValue</testVar></testData>"


def captured(name: str) -> bytes:
    path = RFH2_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent: clone the repo with shared/ beside it")
    return path.read_bytes()


def canonical(header: RFH2) -> RFH2:
    """The same header built from its fields, so pack() cannot reuse the decoded bytes."""
    return RFH2(
        Encoding=header.Encoding,
        CodedCharSetId=header.CodedCharSetId,
        Format=header.Format,
        Flags=header.Flags,
        NameValueCCSID=header.NameValueCCSID,
        folders=list(header.folders),
    )


# --- captured messages ----------------------------------------------------------------


def test_single_rfh2_decodes_and_reencodes_byte_identically() -> None:
    data = captured("single_rfh2.dat")
    chain = parse_chain(data, C.MQENC_NORMAL, 1208, C.MQFMT_RF_HEADER_2)
    [header] = chain.headers
    assert header.folders == [PSC, TEST_FOLDER, MCD_XMLNSC]
    assert header.StrucLength == 284 == 36 + (4 + 152) + (4 + 56) + (4 + 28)
    assert (header.Encoding, header.CodedCharSetId, header.Format) == (273, 1208, "MQSTR")
    assert (chain.Encoding, chain.CodedCharSetId, chain.Format, chain.body) == (
        273,
        1208,
        "MQSTR",
        BODY,
    )
    assert chain.folders == header.folders
    assert header.folder("mcd") == MCD_XMLNSC
    assert header.folder("usr") is None
    assert build_chain(chain.headers, chain.body, C.MQENC_NORMAL) == data
    assert build_chain([canonical(header)], chain.body, C.MQENC_NORMAL) == data


def test_multiple_rfh2_decodes_and_reencodes_byte_identically() -> None:
    data = captured("multiple_rfh2.dat")
    chain = parse_chain(data, C.MQENC_NORMAL, 1208, C.MQFMT_RF_HEADER_2)
    first, second = chain.headers
    assert first.Format == C.MQFMT_RF_HEADER_2
    assert first.folders == [PSC, TEST_FOLDER]
    assert first.StrucLength == 252
    assert second.folders == [PSC, TEST_FOLDER, MCD_XMLNSC]
    assert chain.Format == C.MQFMT_STRING
    assert chain.body == BODY
    assert chain.folders == [PSC, TEST_FOLDER, PSC, TEST_FOLDER, MCD_XMLNSC]
    assert build_chain(chain.headers, chain.body, C.MQENC_NORMAL) == data
    rebuilt = [canonical(h) for h in chain.headers]
    assert build_chain(rebuilt, chain.body, C.MQENC_NORMAL) == data


# --- IBM's verified JMS TextMessage example (mq-reference §2.4) ------------------------

JMS_EXAMPLE = (
    bytes.fromhex("52464820 00000002 000000a0 00000111")
    + bytes.fromhex("000004b8 4d515354 52202020 00000000")
    + bytes.fromhex("000004b8")
    + bytes.fromhex("00000020")
    + b"<mcd><Msd>jms_text</Msd></mcd>  "
    + bytes.fromhex("00000054")
    + b"<jms><Dst>queue:///COREDEVREQUESTQ01</Dst><Tms>1342462125398</Tms><Dlv>2</Dlv></jms>"
)


def test_ibm_jms_text_message_example_is_reproduced() -> None:
    header = RFH2(
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=1208,
        Format=C.MQFMT_STRING,
        folders=[
            "<mcd><Msd>jms_text</Msd></mcd>",
            "<jms><Dst>queue:///COREDEVREQUESTQ01</Dst><Tms>1342462125398</Tms><Dlv>2</Dlv></jms>",
        ],
    )
    assert header.StrucLength == 160
    assert header.pack(C.MQENC_NORMAL) == JMS_EXAMPLE
    chain = parse_chain(JMS_EXAMPLE + b"hello", 273, 1208, "MQHRF2")
    assert chain.headers == [header]
    assert chain.body == b"hello"


# --- encodings ------------------------------------------------------------------------


def test_integers_follow_the_preceding_header() -> None:
    # MQMD little-endian -> first RFH2's integers little-endian; its Encoding 273 makes
    # the second RFH2's integers big-endian; the second's Encoding describes the body.
    first = RFH2(
        Encoding=C.MQENC_NORMAL, CodedCharSetId=1208, Format="MQHRF2", folders=["<a>1</a>"]
    )
    second = RFH2(
        Encoding=C.MQENC_REVERSED, CodedCharSetId=819, Format="MQSTR", folders=["<b>2</b>"]
    )
    data = build_chain([first, second], b"body", C.MQENC_REVERSED)
    assert data[4:8] == struct.pack("<i", 2)
    assert data[36:40] == struct.pack("<i", 8)  # NameValueLength, little-endian
    assert data[48:52] == b"RFH "
    assert data[52:56] == struct.pack(">i", 2)
    assert data[84:88] == struct.pack(">i", 8)
    chain = parse_chain(data, C.MQENC_REVERSED, 1208, "MQHRF2")
    assert chain.headers == [first, second]
    assert (chain.Encoding, chain.CodedCharSetId, chain.Format, chain.body) == (
        546,
        819,
        "MQSTR",
        b"body",
    )


def test_ccsid_inherit_resolves_to_the_header_ccsid() -> None:
    header = RFH2(Encoding=273, CodedCharSetId=C.MQCCSI_INHERIT, Format="MQSTR", folders=["<a/>"])
    chain = parse_chain(header.pack(273) + b"x", 273, 819, "MQHRF2")
    assert chain.CodedCharSetId == 819
    assert chain.headers[0].CodedCharSetId == C.MQCCSI_INHERIT


def test_no_rfh2_returns_the_data_as_body() -> None:
    chain = parse_chain(b"plain", 546, 1208, "MQSTR")
    assert chain == ([], 546, 1208, "MQSTR", b"plain")


@pytest.mark.parametrize("ccsid", [1200, 13488, 17584])
@pytest.mark.parametrize("encoding", [C.MQENC_NORMAL, C.MQENC_REVERSED])
def test_utf16_folders_follow_the_integer_byte_order(ccsid: int, encoding: int) -> None:
    header = RFH2(NameValueCCSID=ccsid, folders=["<usr><Name>\u00e9t\u00e9</Name></usr>", "<a/>"])
    raw = header.pack(encoding)
    codec = "utf-16-be" if encoding == C.MQENC_NORMAL else "utf-16-le"
    assert "<usr>".encode(codec) in raw
    assert len(raw) % 4 == 0
    assert RFH2.unpack(raw, encoding) == header
    assert canonical(RFH2.unpack(raw, encoding)).pack(encoding) == raw


def test_unusual_padding_round_trips_byte_identically() -> None:
    # NUL padding (as pymqi-style writers produce) and surplus blanks are not canonical,
    # yet an unchanged header must re-encode exactly as it was received.
    fixed = struct.pack(
        ">4s4i8s2i", b"RFH ", 2, 36 + 4 + 12 + 4 + 8, 273, 1208, b"MQSTR\x00\x00\x00", 0, 1208
    )
    raw = fixed + struct.pack(">i", 12) + b"<a/>\x00\x00\x00\x00\x00\x00\x00\x00"
    raw += struct.pack(">i", 8) + b"<b/>    "
    header = RFH2.unpack(raw, 273)
    assert header.folders == ["<a/>", "<b/>"]
    assert header.Format == "MQSTR"
    assert header.StrucLength == len(raw)
    assert header.pack(273) == raw
    header.folders.append("<c/>")  # a change: canonical bytes from now on
    repacked = header.pack(273)
    assert repacked != raw
    assert RFH2.unpack(repacked, 273).folders == ["<a/>", "<b/>", "<c/>"]
    assert header.StrucLength == len(repacked) == 36 + 8 + 8 + 8


def test_undeclared_xsi_prefix_is_accepted() -> None:
    # IBM writes xsi:nil without declaring xsi; the folder must still be readable.
    element = parse_folder("<usr><p xsi:nil='true'></p></usr>")
    assert element[0].get("xsi:nil") == "true"


# --- building -------------------------------------------------------------------------


def test_build_chain_refuses_a_chain_that_would_stop_early() -> None:
    first = RFH2(Format="MQSTR", folders=["<a/>"])
    with pytest.raises(ValueError, match="MQHRF2"):
        build_chain([first, RFH2()], b"", 273)


@pytest.mark.parametrize(
    ("header", "match"),
    [
        (RFH2(folders=["not xml"]), "folder 0"),
        (RFH2(folders=["<a/><b/>"]), "folder 0"),
        (RFH2(folders=["<!DOCTYPE a []><a/>"]), "DOCTYPE"),
        (RFH2(NameValueCCSID=819, folders=["<a/>"]), "NameValueCCSID 819"),
        (RFH2(Format="TOOLONGFMT"), "Format"),
        (RFH2(Version=1), "Version"),
        (RFH2(Flags=2**31), "MQLONG"),
    ],
)
def test_pack_refuses_bad_headers(header: RFH2, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        header.pack(273)


def test_pack_refuses_a_bad_encoding() -> None:
    with pytest.raises(ValueError, match="integer encoding"):
        RFH2().pack(0x3)


# --- malformed input ------------------------------------------------------------------


def fixed(
    *,
    strucid: bytes = b"RFH ",
    version: int = 2,
    length: int = 36,
    nvccsid: int = 1208,
    fmt: bytes = b"MQSTR   ",
) -> bytes:
    return struct.pack(">4s4i8s2i", strucid, version, length, 273, 1208, fmt, 0, nvccsid)


def pair(data: bytes, length: int | None = None) -> bytes:
    return struct.pack(">i", len(data) if length is None else length) + data


def folder(data: bytes, nvccsid: int = 1208) -> bytes:
    """A header holding one pair whose NameValueLength is right: only the data is bad."""
    return fixed(length=36 + 4 + len(data), nvccsid=nvccsid) + pair(data)


PREFIX = b"\xee" * 8  # decode at offset 8 so that offsets are visibly absolute

MALFORMED = [
    # (buffer after PREFIX, field, offset from PREFIX, reason)
    pytest.param(fixed()[:35], "StrucId", 0, C.MQRC_RFH_ERROR, id="short-fixed-part"),
    pytest.param(fixed(strucid=b"RFH2"), "StrucId", 0, C.MQRC_RFH_ERROR, id="struc-id"),
    pytest.param(fixed(strucid=b"RFH\x00"), "StrucId", 0, C.MQRC_RFH_ERROR, id="struc-id-nul"),
    pytest.param(fixed(version=1), "Version", 4, C.MQRC_RFH_ERROR, id="version"),
    pytest.param(fixed(length=32), "StrucLength", 8, C.MQRC_RFH_ERROR, id="length-short"),
    pytest.param(fixed(length=-4), "StrucLength", 8, C.MQRC_RFH_ERROR, id="length-negative"),
    pytest.param(
        fixed(length=38) + b"\0\0",
        "StrucLength",
        8,
        C.MQRC_RFH_ERROR,
        id="length-not-multiple-of-4",
    ),
    pytest.param(
        fixed(length=48) + pair(b"<a/>"), "StrucLength", 8, C.MQRC_RFH_ERROR, id="length-past-end"
    ),
    pytest.param(
        fixed(length=44) + pair(b"<a/>", -4),
        "NameValueLength",
        36,
        C.MQRC_RFH_ERROR,
        id="nvlength-negative",
    ),
    pytest.param(
        fixed(length=44) + pair(b"<a/>", 8) + b"    ",
        "NameValueLength",
        36,
        C.MQRC_RFH_ERROR,
        id="nvlength-past-struclength",
    ),
    pytest.param(
        fixed(length=48) + pair(b"<a/>  ", 6) + b"  ",
        "NameValueLength",
        36,
        C.MQRC_RFH_ERROR,
        id="nvlength-not-multiple-of-4",
    ),
    pytest.param(
        fixed(length=52) + pair(b"<a/>") + pair(b"<b/>", 12),
        "NameValueLength",
        44,
        C.MQRC_RFH_ERROR,
        id="second-nvlength-past-struclength",
    ),
    pytest.param(
        folder(b"<a>\xff\xfe</a>   "),
        "NameValueData",
        40,
        C.MQRC_RFH_FORMAT_ERROR,
        id="invalid-utf8",
    ),
    pytest.param(
        folder(b"<a>x</b>    "), "NameValueData", 40, C.MQRC_RFH_FORMAT_ERROR, id="mismatched-tags"
    ),
    pytest.param(
        folder(b"<a/><b/>    "), "NameValueData", 40, C.MQRC_RFH_FORMAT_ERROR, id="two-roots"
    ),
    pytest.param(folder(b"    "), "NameValueData", 40, C.MQRC_RFH_FORMAT_ERROR, id="empty-folder"),
    pytest.param(
        folder(b"<a>\x01</a>    "), "NameValueData", 40, C.MQRC_RFH_FORMAT_ERROR, id="control-char"
    ),
    pytest.param(
        folder(b'<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>'),
        "NameValueData",
        40,
        C.MQRC_RFH_FORMAT_ERROR,
        id="doctype",
    ),
    pytest.param(
        folder(b"<a>&unknown;</a>"),
        "NameValueData",
        40,
        C.MQRC_RFH_FORMAT_ERROR,
        id="undefined-entity",
    ),
    pytest.param(
        folder(b"<a/>", nvccsid=819), "NameValueCCSID", 32, C.MQRC_RFH_ERROR, id="name-value-ccsid"
    ),
]


@pytest.mark.parametrize(("raw", "fieldname", "offset", "reason"), MALFORMED)
def test_malformed_rfh2_names_structure_field_and_offset(
    raw: bytes, fieldname: str, offset: int, reason: int
) -> None:
    with pytest.raises(MQFormatError) as info:
        RFH2.unpack(PREFIX + raw, C.MQENC_NORMAL, offset=len(PREFIX))
    err = info.value
    assert (err.structure, err.field, err.offset) == ("MQRFH2", fieldname, len(PREFIX) + offset)
    assert err.reason == reason
    assert f"MQRFH2.{fieldname} at byte offset {len(PREFIX) + offset}" in str(err)


def test_malformed_second_header_reports_its_absolute_offset() -> None:
    first = RFH2(Encoding=273, Format="MQHRF2", folders=["<a/>"]).pack(273)
    bad = fixed(length=44) + pair(b"<a/>", 12)
    with pytest.raises(MQFormatError) as info:
        parse_chain(first + bad, 273, 1208, "MQHRF2")
    assert (info.value.field, info.value.offset) == ("NameValueLength", len(first) + 36)


def test_chained_header_with_unusable_encoding_blames_the_previous_encoding() -> None:
    first = RFH2(Encoding=0x115, Format="MQHRF2", folders=["<a/>"]).pack(273)
    with pytest.raises(MQFormatError) as info:
        parse_chain(first + fixed(), 273, 1208, "MQHRF2")
    assert (info.value.structure, info.value.field, info.value.offset) == ("MQRFH2", "Encoding", 12)


def test_unusable_mqmd_encoding_is_a_format_error() -> None:
    with pytest.raises(MQFormatError) as info:
        parse_chain(fixed(), 0x5, 1208, "MQHRF2")
    assert (info.value.field, info.value.offset) == ("Encoding", 0)


def test_chain_claimed_by_format_but_missing_is_a_format_error() -> None:
    with pytest.raises(MQFormatError) as info:
        parse_chain(b"", 273, 1208, "MQHRF2")
    assert (info.value.field, info.value.offset) == ("StrucId", 0)
    assert "0 bytes" in info.value.problem
