"""One CCSID table for the JMS API and the CLI (hardening issue item 16).

``mqjms put --ccsid 37`` failed ("no codec"), browse showed a CCSID 37 body as base64
while the API decoded it, and 1047 was mapped to cp1140 (the CLI) or to a codec Python
lacks (the API). Now both look CCSIDs up in mqjms.mq.ccsid.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from mqjms.cli.render import message_json
from mqjms.jms.message import TextMessage, from_mq, to_message
from mqjms.mq import MQMD, C, ccsid
from mqjms.mq.errors import MQError

SAMPLE = "Hello, World! [0-9] ^ | ~ {x} @#$ é"


def _holds(text: str, code: int) -> str:
    """The characters of ``text`` the CCSID can hold, in order."""
    out = []
    for char in text:
        try:
            ccsid.encode(char, code)
        except UnicodeEncodeError:
            continue
        out.append(char)
    return "".join(out)


@pytest.mark.parametrize(
    ("code", "text", "data"),
    [
        (37, "HELLO [x]", bytes.fromhex("c8c5d3d3d6 40 ba a7 bb")),
        (500, "HELLO [x]", bytes.fromhex("c8c5d3d3d6 40 4a a7 5a")),
        # 1047 moves [, ], ^ and ¬ relative to 37 (IBM's Latin-1 open-systems page)
        (1047, "[]^¬", bytes.fromhex("ad bd 5f b0")),
        (1140, "€", b"\x9f"),
        (1141, "€{", bytes.fromhex("9f 43")),
        (1146, "€£$", bytes.fromhex("9f 5b 4a")),
        (1147, "€@", bytes.fromhex("9f 44")),
        (1148, "€[", bytes.fromhex("9f 4a")),
        (819, "café", b"caf\xe9"),
        (1208, "café €", "café €".encode()),
        (912, "ł", b"\xb3"),
        (5348, "€", b"\x80"),
        (437, "é", b"\x82"),
        (850, "é", b"\x82"),
    ],
)
def test_known_characters(code: int, text: str, data: bytes) -> None:
    # IBM's code pages (the CDRA tables); 1047 is not cp1140, 37 is not "cp37"
    assert ccsid.encode(text, code) == data
    assert ccsid.decode(data, code) == text


def test_1047_differs_from_1140_and_037() -> None:
    # The CLI mapped 1047 to cp1140, which puts '[' at 0xBA, not 0xAD.
    assert ccsid.decode(b"\xad", 1047) == "["
    assert ccsid.decode(b"\xad", 1140) == ccsid.decode(b"\xad", 37) == "Ý"


@pytest.mark.parametrize(("code", "encoding"), [(1200, 273), (1200, 546), (13488, 546)])
def test_utf16_byte_order_follows_the_encoding(code: int, encoding: int) -> None:
    order = "utf-16-le" if encoding == C.MQENC_REVERSED else "utf-16-be"
    assert ccsid.encode("hé€", code, encoding) == "hé€".encode(order)
    assert ccsid.decode("hé€".encode(order), code, encoding) == "hé€"


def test_fixed_byte_order_unicode_ccsids() -> None:
    assert ccsid.decode("a".encode("utf-16-le"), 1202, C.MQENC_NORMAL) == "a"
    assert ccsid.decode("a".encode("utf-32-be"), 1233, C.MQENC_REVERSED) == "a"


@pytest.mark.parametrize("code", sorted(ccsid.SUPPORTED_CCSIDS))
def test_every_supported_ccsid_round_trips(code: int) -> None:
    text = _holds(SAMPLE, code)
    assert ccsid.decode(ccsid.encode(text, code), code) == text


@pytest.mark.parametrize("code", [1047, *range(1141, 1150)])
def test_table_built_code_pages_are_one_to_one(code: int) -> None:
    table = ccsid.decoding_table(code)
    assert len(table) == 256 and len(set(table)) == 256
    assert ccsid.encode(table, code) == bytes(range(256))


@pytest.mark.skipif(shutil.which("iconv") is None, reason="no iconv to compare with")
@pytest.mark.parametrize("code", [1047, *range(1141, 1150)])
def test_table_built_code_pages_match_ibm_tables_in_iconv(code: int) -> None:
    # glibc's iconv carries IBM's tables: every byte must decode to the same character.
    result = subprocess.run(
        ["iconv", "-f", f"IBM{code}", "-t", "UTF-32BE"],
        input=bytes(range(256)),
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        pytest.skip(f"this iconv has no IBM{code}: {result.stderr.decode(errors='replace')}")
    assert ccsid.decoding_table(code) == result.stdout.decode("utf-32-be")


def test_unsupported_ccsid_is_an_mq_error_naming_it() -> None:
    # MQRC_SOURCE_CCSID_ERROR (2111) converting from it, MQRC_TARGET_CCSID_ERROR (2115)
    # converting to it, as MQ reports data conversion failures.
    with pytest.raises(MQError) as decoding:
        ccsid.decode(b"x", 4242)
    assert decoding.value.reason == C.MQRC_SOURCE_CCSID_ERROR == 2111
    assert "CCSID 4242" in str(decoding.value)
    with pytest.raises(MQError) as encoding:
        ccsid.encode("x", 4242)
    assert encoding.value.reason == C.MQRC_TARGET_CCSID_ERROR == 2115
    assert "CCSID 4242" in str(encoding.value)


@pytest.mark.parametrize("code", sorted(ccsid.SUPPORTED_CCSIDS))
def test_api_and_cli_decode_a_body_alike(code: int) -> None:
    # The JMS API and mqjms get/browse show the same text for an MQSTR body in any CCSID.
    text = _holds(SAMPLE, code)
    md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=code, Encoding=C.MQENC_NATIVE)
    data = ccsid.encode(text, code, md.Encoding)
    message = from_mq(md, data)
    assert isinstance(message, TextMessage)
    assert message.body == text
    assert message_json(md, data)["body"] == text


def test_api_and_cli_both_refuse_an_unsupported_ccsid() -> None:
    # Neither decodes what it cannot: the API delivers the bytes, the CLI shows base64.
    md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=4242, MsgId=b"\x01" * 24)
    with pytest.raises(MQError) as info:
        from_mq(md, b"abc")
    assert info.value.reason == C.MQRC_SOURCE_CCSID_ERROR
    delivered = to_message(md, b"abc", "Q")
    assert delivered.body == b"abc"
    assert message_json(md, b"abc")["body"] == {"base64": "YWJj"}
