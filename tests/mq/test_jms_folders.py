"""JMS folders mcd/jms/usr: IBM's exact text on write, tolerant but exact typing on read."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqjms.mq import (
    RFH2,
    C,
    JmsHeaders,
    MQFormatError,
    UserProperties,
    build_chain,
    build_jms_folders,
    parse_chain,
    parse_jms_folders,
)
from mqjms.mq.jms import SELECTOR_KEYWORDS, check_property_name, escape

# --- writing: IBM's exact strings (mq-reference §2.5) ----------------------------------


@pytest.mark.parametrize(
    "msd", ["jms_text", "jms_bytes", "jms_map", "jms_stream", "jms_object", "jms_none"]
)
def test_mcd_for_each_message_type(msd: str) -> None:
    assert build_jms_folders(JmsHeaders(msd=msd), {}) == [f"<mcd><Msd>{msd}</Msd></mcd>"]


def test_mcd_with_null_text_body() -> None:
    folders = build_jms_folders(JmsHeaders(msd="jms_text", null_body=True), None)
    assert folders == ['<mcd><Msd>jms_text</Msd><msgbody xsi:nil="true"></msgbody></mcd>']


def test_mcd_with_jms_type() -> None:
    folders = build_jms_folders(JmsHeaders(msd="jms_bytes", type="Order"), None)
    assert folders == ["<mcd><Msd>jms_bytes</Msd><Type>Order</Type></mcd>"]


def test_ibm_example_folders() -> None:
    headers = JmsHeaders(
        msd="jms_text",
        destination="queue:///COREDEVREQUESTQ01",
        timestamp=1342462125398,
        delivery_mode=2,
    )
    assert build_jms_folders(headers, {}) == [
        "<mcd><Msd>jms_text</Msd></mcd>",
        "<jms><Dst>queue:///COREDEVREQUESTQ01</Dst><Tms>1342462125398</Tms><Dlv>2</Dlv></jms>",
    ]


def test_jms_elements_in_ibm_order_without_dt() -> None:
    headers = JmsHeaders(
        msd="jms_text",
        destination="queue://QM1/Q1?targetClient=1",
        reply_to="queue:///R",
        timestamp=1,
        expiration=2,
        correlation_id="c<1>",
        priority=7,
        delivery_mode=1,
        group_id="g",
        group_seq=3,
    )
    _, jms = build_jms_folders(headers, {})
    assert jms == (
        "<jms><Dst>queue://QM1/Q1?targetClient=1</Dst><Rto>queue:///R</Rto><Tms>1</Tms>"
        "<Exp>2</Exp><Cid>c&lt;1&gt;</Cid><Pri>7</Pri><Dlv>1</Dlv><Gid>g</Gid><Seq>3</Seq></jms>"
    )
    assert parse_jms_folders([jms]) == (
        JmsHeaders(
            destination="queue://QM1/Q1?targetClient=1",
            reply_to="queue:///R",
            timestamp=1,
            expiration=2,
            correlation_id="c<1>",
            priority=7,
            delivery_mode=1,
            group_id="g",
            group_seq=3,
        ),
        {},
    )


def test_usr_types_as_ibm_writes_them() -> None:
    properties: UserProperties = {
        "Property_1": 42,
        "Big": 2**40,
        "Neg": -(2**31),
        "Ratio": 3.13,
        "Text": "a<b>&'\"",
        "Empty": "",
        "Flag": True,
        "Off": False,
        "Raw": b"\x01\xab",
        "Nothing": None,
    }
    [usr] = build_jms_folders(None, properties)
    assert usr == (
        "<usr><Property_1 dt='i4'>42</Property_1><Big dt='i8'>1099511627776</Big>"
        "<Neg dt='i4'>-2147483648</Neg><Ratio dt='r8'>3.13</Ratio>"
        "<Text>a&lt;b&gt;&amp;&apos;&quot;</Text><Empty></Empty>"
        "<Flag dt='boolean'>1</Flag><Off dt='boolean'>0</Off><Raw dt='bin.hex'>01AB</Raw>"
        "<Nothing xsi:nil='true'></Nothing></usr>"
    )
    assert parse_jms_folders([usr]) == (None, properties)


def test_folder_order_is_mcd_jms_usr_and_empty_folders_are_omitted() -> None:
    folders = build_jms_folders(JmsHeaders(msd="jms_none", destination="topic://T"), {"a": 1})
    assert [f[:5] for f in folders] == ["<mcd>", "<jms>", "<usr>"]
    assert build_jms_folders(JmsHeaders(msd="jms_none"), {}) == ["<mcd><Msd>jms_none</Msd></mcd>"]
    assert build_jms_folders(None, None) == []
    assert build_jms_folders(JmsHeaders(), {}) == []


def test_special_floats_are_written_the_java_way() -> None:
    [usr] = build_jms_folders(None, {"a": math.inf, "b": -math.inf, "c": math.nan})
    assert usr == ("<usr><a dt='r8'>Infinity</a><b dt='r8'>-Infinity</b><c dt='r8'>NaN</c></usr>")
    _, props = parse_jms_folders([usr])
    assert props["a"] == math.inf and props["b"] == -math.inf
    assert isinstance(props["c"], float) and math.isnan(props["c"])


def test_carriage_return_and_astral_characters_survive() -> None:
    assert escape("a\rb\U0001f600") == "a&#xD;b&#x1F600;"
    [usr] = build_jms_folders(None, {"s": "line\r\nnext\t\U0001f600"})
    assert parse_jms_folders([usr])[1] == {"s": "line\r\nnext\t\U0001f600"}


@pytest.mark.parametrize("value", ["\x00", "a\x1fb", "\ufffe", "\ud800"])
def test_non_xml_characters_are_refused(value: str) -> None:
    with pytest.raises(ValueError, match="not an XML character"):
        build_jms_folders(None, {"s": value})


def _is_xml_char(code: int) -> bool:
    """XML 1.0's Char production, written out as the specification gives it."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def test_exactly_the_characters_xml_excludes_are_refused() -> None:
    # every code point, against the Char production: the check is a listed class of the
    # excluded ranges (cheap to compile at import), so each range edge must be right
    refused = []
    for code in range(0x110000):
        try:
            escape(chr(code))
        except ValueError:
            refused.append(code)
    assert refused == [code for code in range(0x110000) if not _is_xml_char(code)]


@pytest.mark.parametrize("value", [2**63, -(2**63) - 1])
def test_integers_beyond_i8_are_refused(value: int) -> None:
    with pytest.raises(ValueError, match="outside"):
        build_jms_folders(None, {"n": value})


def test_unsupported_property_types_are_refused() -> None:
    with pytest.raises(TypeError, match="not a JMS property type"):
        build_jms_folders(None, {"n": [1]})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be int"):
        build_jms_folders(JmsHeaders(priority=True), None)


def test_header_ranges_are_checked() -> None:
    with pytest.raises(ValueError, match=r"jms\.Pri"):
        build_jms_folders(JmsHeaders(priority=2**31), None)


# --- property names -------------------------------------------------------------------

BAD_NAMES = [
    ("JMSPriority", "reserved"),
    ("JMSX_Custom", "reserved"),
    ("JMS_IBM_PutDate", "reserved"),  # read-only (JMS_IBM_Format: the MQMD's)
    ("", "non-empty"),
    ("a.b", "'.'"),
    ("ns:a", "':'"),
    ("1abc", "XML"),
    ("a b", "XML"),
    ("a<b", "XML"),
    ("a'b", "XML"),
    ("-a", "XML"),
    *((kw, "keyword") for kw in SELECTOR_KEYWORDS),
    ("null", "keyword"),
    ("True", "keyword"),
    ("between", "keyword"),
    ("Escape", "keyword"),
]


@pytest.mark.parametrize(("name", "why"), BAD_NAMES)
def test_bad_property_names_get_a_clear_error(name: str, why: str) -> None:
    with pytest.raises(ValueError, match=why) as info:
        build_jms_folders(None, {name: "x"})
    assert repr(name) in str(info.value)


@pytest.mark.parametrize(
    "name", ["a", "_x", "Order_Id", "jmsLower", "\u00e9t\u00e9", "a-b1", "NULLS", "Island", "ORDER"]
)
def test_good_property_names(name: str) -> None:
    check_property_name(name)


# --- reading --------------------------------------------------------------------------


def test_reader_accepts_every_ibm_type_spelling() -> None:
    usr = (
        "<usr><a dt='i1'>-128</a><b dt='i2'>32767</b><c dt='int'>9000000000</c>"
        "<d dt='r4'>1.5</d><e dt='string'>s</e><f dt='char'>c</f><g dt='boolean'>true</g>"
        '<h dt="bin.hex">0aFF</h><i xsi:nil="true"/><j/><k dt=\'i8\'> 7 </k></usr>'
    )
    assert parse_jms_folders([usr]) == (
        None,
        {
            "a": -128,
            "b": 32767,
            "c": 9000000000,
            "d": 1.5,
            "e": "s",
            "f": "c",
            "g": True,
            "h": b"\n\xff",
            "i": None,
            "j": "",
            "k": 7,
        },
    )


def test_first_folder_of_each_name_wins_and_others_are_ignored() -> None:
    folders = [
        "<psc><Command>RegSub</Command></psc>",
        "<usr><a>first</a></usr>",
        "<mcd><Msd>jms_bytes</Msd></mcd>",
        "<usr><a>second</a></usr>",
        "<mcd><Msd>jms_text</Msd></mcd>",
        "<mqext><Arm>1</Arm></mqext>",
    ]
    assert parse_jms_folders(folders) == (JmsHeaders(msd="jms_bytes"), {"a": "first"})


def test_no_mcd_or_jms_gives_no_headers() -> None:
    assert parse_jms_folders(["<usr><a>1</a></usr>"]) == (None, {"a": "1"})
    assert parse_jms_folders([]) == (None, {})


def test_unknown_jms_elements_are_ignored() -> None:
    jms = "<jms><Dst>queue:///Q</Dst><Uci dt='bin.hex'>414D51</Uci></jms>"
    assert parse_jms_folders([jms]) == (JmsHeaders(destination="queue:///Q"), {})


BAD_FOLDERS = [
    ("<usr><a dt='i4'>x</a></usr>", "usr.a"),
    ("<usr><a dt='i1'>128</a></usr>", "usr.a"),
    ("<usr><a dt='i4'>2147483648</a></usr>", "usr.a"),
    ("<usr><a dt='boolean'>yes</a></usr>", "usr.a"),
    ("<usr><a dt='r8'>one</a></usr>", "usr.a"),
    ("<usr><a dt='bin.hex'>0g</a></usr>", "usr.a"),
    ("<usr><a dt='date'>2024</a></usr>", "usr.a"),
    ("<usr><a><b>1</b></a></usr>", "usr.a"),
    ("<usr><a>1</a><a>2</a></usr>", "usr.a"),
    ("<jms><Tms>soon</Tms></jms>", "jms.Tms"),
    ("<jms><Pri>99999999999</Pri></jms>", "jms.Pri"),
    ("<usr>", "NameValueData"),
]


@pytest.mark.parametrize(("folder", "where"), BAD_FOLDERS)
def test_uninterpretable_folders_are_jms_format_errors(folder: str, where: str) -> None:
    with pytest.raises(MQFormatError) as info:
        parse_jms_folders([folder])
    assert (info.value.structure, info.value.field) == ("MQRFH2", where)
    assert info.value.reason == C.MQRC_JMS_FORMAT_ERROR


# --- round trips ----------------------------------------------------------------------

xml_text = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\ufffe\uffff").filter(
        lambda c: c in "\t\n\r" or ord(c) >= 0x20
    ),
    max_size=30,
)
names = st.from_regex(r"[A-Za-z_\u00c0-\u00d6][A-Za-z0-9_\-\u00c0-\u00d6]{0,15}", fullmatch=True)
values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.binary(max_size=16),
    xml_text,
)
properties_st = st.dictionaries(
    names.filter(lambda n: not n.startswith("JMS") and n.upper() not in SELECTOR_KEYWORDS),
    values,
    max_size=8,
)
i8 = st.integers(-(2**63), 2**63 - 1)
i4 = st.integers(-(2**31), 2**31 - 1)
headers_st = st.builds(
    JmsHeaders,
    msd=st.sampled_from(["jms_text", "jms_bytes", "jms_map", "jms_none"]),
    type=st.none() | xml_text,
    destination=st.none() | xml_text,
    reply_to=st.none() | xml_text,
    timestamp=st.none() | i8,
    expiration=st.none() | i8,
    correlation_id=st.none() | xml_text,
    priority=st.none() | i4,
    delivery_mode=st.none() | st.sampled_from([1, 2]),
    group_id=st.none() | xml_text,
    group_seq=st.none() | i4,
    null_body=st.booleans(),
)


@settings(max_examples=300)
@given(headers=st.none() | headers_st, properties=properties_st)
def test_folders_round_trip(headers: JmsHeaders | None, properties: UserProperties) -> None:
    folders = build_jms_folders(headers, properties)
    assert parse_jms_folders(folders) == (headers, properties)


@settings(max_examples=200)
@given(
    headers=headers_st,
    properties=properties_st,
    mqmd_encoding=st.sampled_from([C.MQENC_NORMAL, C.MQENC_REVERSED]),
    nvccsid=st.sampled_from([1208, 1200]),
    body=st.binary(max_size=32),
)
def test_folders_round_trip_through_an_rfh2_message(
    headers: JmsHeaders,
    properties: UserProperties,
    mqmd_encoding: int,
    nvccsid: int,
    body: bytes,
) -> None:
    header = RFH2(
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=1208,
        Format=C.MQFMT_STRING,
        NameValueCCSID=nvccsid,
        folders=build_jms_folders(headers, properties),
    )
    data = build_chain([header], body, mqmd_encoding)
    chain = parse_chain(data, mqmd_encoding, 1208, C.MQFMT_RF_HEADER_2)
    assert chain.body == body
    assert parse_jms_folders(chain.folders) == (headers, properties)


@pytest.mark.parametrize(
    ("entries", "error", "message"),
    [
        ({"note": "x\x01y"}, ValueError, "MapMessage entry 'note': character U+0001"),
        ({"items": [1]}, TypeError, "MapMessage entry 'items'"),
    ],
)
def test_a_bad_map_entry_is_named_by_its_key(
    entries: dict[str, object], error: type[Exception], message: str
) -> None:
    # the errors named the XML element every entry is written as ("usr property 'elt'")
    from mqjms.mq.jms_map import build_map

    with pytest.raises(error, match=re.escape(message)):
        build_map(entries)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ("<map></map>", "root element <map>, not <stream>"),
        ("<stream><x>1</x></stream>", "each value is <elt>"),
        ("<stream><elt>", "jms_stream"),
    ],
)
def test_a_stream_body_that_is_not_one_is_a_jms_format_error(body: str, problem: str) -> None:
    # mq-reference 2.5 jms_stream: the body is <stream> of <elt> values
    from mqjms.mq.errors import MQError
    from mqjms.mq.jms_stream import build_stream, parse_stream

    with pytest.raises(MQError) as raised:
        parse_stream(body)
    assert raised.value.reason == C.MQRC_JMS_FORMAT_ERROR and problem in str(raised.value)
    values = ["a", 1, 2**40, True, None, b"\x01"]
    assert parse_stream(build_stream(values)) == values
