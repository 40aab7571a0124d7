"""Random and mutated bytes: every decoder either succeeds or raises MQFormatError.

A successful RFH2 decode must also re-encode to exactly the bytes it came from.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from mqjms.mq import (
    MQDLH,
    MQMD,
    MQTM,
    MQTMC2,
    RFH2,
    C,
    MQFormatError,
    build_chain,
    parse_chain,
    parse_dlh,
    parse_jms_folders,
    parse_tm,
    parse_tmc2,
)

ENCODINGS = st.sampled_from([C.MQENC_NORMAL, C.MQENC_REVERSED, C.MQENC_S390, 0, 0x5, -1])
SAFE_ENCODINGS = st.sampled_from([C.MQENC_NORMAL, C.MQENC_REVERSED])

XML_BITS = [
    b"<",
    b">",
    b"/",
    b"</",
    b"<a>",
    b"</a>",
    b"<usr>",
    b"</usr>",
    b" ",
    b"\x00",
    b"dt='i4'",
    b"xsi:nil='true'",
    b"&amp;",
    b"&#x41;",
    b"<!DOCTYPE",
    b"\xff",
    b"\xc3\xa9",
]


def check_chain(data: bytes, encoding: int, fmt: str = C.MQFMT_RF_HEADER_2) -> None:
    try:
        chain = parse_chain(data, encoding, 1208, fmt)
    except MQFormatError as err:
        assert err.structure == "MQRFH2"
        assert 0 <= err.offset <= len(data)
        return
    assert build_chain(chain.headers, chain.body, encoding) == data
    with contextlib.suppress(MQFormatError):
        parse_jms_folders(chain.folders)


@st.composite
def rfh2_like(draw: st.DrawFn) -> bytes:
    """Bytes shaped like an RFH2, mostly valid, so that fuzzing gets past the fixed part."""
    pieces = draw(st.lists(st.sampled_from([*XML_BITS, b"a", b"b"]), max_size=12))
    folder = b"".join(pieces)
    if draw(st.booleans()):
        folder += b" " * (-len(folder) % 4)
    nvlength = draw(st.sampled_from([len(folder)] * 4 + [len(folder) + 4, -4, 3]))
    exact = 36 + 4 + len(folder)
    struclength = draw(st.sampled_from([exact] * 4 + [36 + 4 + nvlength, 36, 1 << 20]))
    fixed = struct.pack(
        ">4s4i8s2i",
        draw(st.sampled_from([b"RFH "] * 6 + [b"RFH\x00"])),
        draw(st.sampled_from([2] * 6 + [1])),
        struclength,
        draw(st.sampled_from([273, 546, 0x115])),
        1208,
        draw(st.sampled_from([b"MQSTR   ", b"MQHRF2  "])),
        0,
        draw(st.sampled_from([1208] * 4 + [1200, 819])),
    )
    return fixed + struct.pack(">i", nvlength) + folder + draw(st.binary(max_size=48))


@settings(max_examples=300)
@given(data=st.binary(max_size=200), encoding=ENCODINGS)
def test_random_bytes_to_parse_chain(data: bytes, encoding: int) -> None:
    check_chain(data, encoding)
    check_chain(b"RFH " + data, encoding)


@settings(max_examples=300)
@given(data=rfh2_like())
def test_rfh2_shaped_bytes_to_parse_chain(data: bytes) -> None:
    check_chain(data, C.MQENC_NORMAL)


@settings(max_examples=300)
@given(
    headers=st.lists(
        st.builds(
            RFH2,
            Encoding=SAFE_ENCODINGS,
            Format=st.just(C.MQFMT_RF_HEADER_2),
            NameValueCCSID=st.sampled_from([1208, 1200]),
            folders=st.lists(
                st.sampled_from(
                    [
                        "<a/>",
                        "<mcd><Msd>jms_text</Msd></mcd>",
                        "<usr><p dt='i4'>1</p></usr>",
                        "<x>\u00e9\U0001f600</x>",
                    ]
                ),
                max_size=3,
            ),
        ),
        min_size=1,
        max_size=3,
    ),
    encoding=SAFE_ENCODINGS,
    position=st.integers(0, 10_000),
    replacement=st.binary(min_size=0, max_size=4),
    truncate=st.booleans(),
)
def test_mutated_chains(
    headers: list[RFH2], encoding: int, position: int, replacement: bytes, truncate: bool
) -> None:
    headers[-1].Format = C.MQFMT_STRING
    data = build_chain(headers, b"body", encoding)
    chain = parse_chain(data, encoding, 1208, C.MQFMT_RF_HEADER_2)
    assert chain.headers == headers and chain.body == b"body"
    at = position % len(data)
    mutated = data[:at] if truncate else data[:at] + replacement + data[at + len(replacement) :]
    check_chain(mutated, encoding)


@settings(max_examples=300)
@given(data=st.binary(max_size=800), encoding=SAFE_ENCODINGS, offset=st.integers(0, 8))
def test_random_bytes_to_fixed_structures(data: bytes, encoding: int, offset: int) -> None:
    prefixes = [b"", b"MD  ", b"DLH \x00\x00\x00\x01", b"TM  ", b"TMC    2"]
    decoders: list[Callable[[bytes], object]] = [
        lambda buf: MQMD.unpack(buf, encoding, offset),
        lambda buf: MQMD.unpack_any(buf, offset),
        lambda buf: parse_dlh(buf, encoding, offset),
        lambda buf: MQDLH.unpack(buf, encoding, offset),
        lambda buf: parse_tm(buf, encoding, offset),
        lambda buf: MQTM.unpack(buf, encoding, offset),
        lambda buf: parse_tmc2(buf, offset),
        lambda buf: MQTMC2.unpack(buf, encoding, offset),
        lambda buf: RFH2.unpack(buf, encoding, offset),
    ]
    for prefix in prefixes:
        for decode in decoders:
            try:
                decode(prefix + data)
            except MQFormatError as err:
                assert err.offset >= offset


JMS_BITS = [
    *XML_BITS[:-2],
    b"mcd",
    b"jms",
    b"Tms",
    b"dt='r8'",
    b"x",
    b"1",
    b"<usr><a",
    b"<jms><Pri>",
]


@settings(max_examples=300)
@given(
    pieces=st.lists(st.sampled_from(JMS_BITS), max_size=16),
    text=st.text(max_size=40),
)
def test_random_folder_text_to_parse_jms_folders(pieces: list[bytes], text: str) -> None:
    for folders in ([b"".join(pieces).decode("utf-8", "replace")], [text], [text, "<usr/>"]):
        try:
            parse_jms_folders(folders)
        except MQFormatError as err:
            assert err.reason == C.MQRC_JMS_FORMAT_ERROR


def test_huge_struclength_and_deep_nesting_do_not_hang() -> None:
    deep = b"<a>" * 5000 + b"</a>" * 5000
    data = (
        struct.pack(">4s4i8s2i", b"RFH ", 2, 36 + 4 + len(deep), 273, 1208, b"MQSTR   ", 0, 1208)
        + struct.pack(">i", len(deep))
        + deep
    )
    chain = parse_chain(data, 273, 1208, "MQHRF2")
    assert len(chain.headers[0].folders[0]) == len(deep)
    try:
        parse_jms_folders(["<usr>" + "<a>" * 5000 + "</a>" * 5000 + "</usr>"])
    except MQFormatError as err:
        assert err.field == "usr.a"
