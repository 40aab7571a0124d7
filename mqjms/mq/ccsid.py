"""IBM CCSIDs -> Python codecs: the one table every body decode and encode goes through.

The JMS API, ``mqjms get``/``browse`` and ``mqjms put --ccsid`` all look a CCSID up
here, so they agree on which CCSIDs work and what their bytes mean. The table is
explicit: an IBM CCSID number is not a Python ``cp`` name (IBM 1047 is not Python's
cp1140, and IBM 949 is not Python's cp949), so nothing is guessed from the number. A
CCSID not in the table is an MQError naming it: MQRC_SOURCE_CCSID_ERROR (2111) when
decoding, MQRC_TARGET_CCSID_ERROR (2115) when encoding, as MQ reports on conversion.

UTF-16 (1200, 13488, 17584) and UTF-32 (1232) take their byte order from the
Encoding's integer part, as MQ does; 1201/1233 are always big-endian, 1202/1234 little.
Python ships no codec for EBCDIC 1047 or the euro variants 1141-1149: their tables are
built here from Python's cp037, cp273 and cp500 with IBM's differences (checked byte
for byte against the IBM tables in glibc's iconv, tests/mq/test_ccsid.py).
"""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

# PC (DOS) code pages: IBM's CCSID N is Python's cpN (compared byte for byte with iconv)
_PC_CODE_PAGES = "437 720 737 775 850 852 855 856 857 858 860 861 862 863 864 865 866 869 874"
_PC_CODE_PAGES += " 1006 1125"

# CCSID -> Python codec name, where Python's codec is IBM's code page.
_PYTHON_CODECS: Mapping[int, str] = {
    # Unicode with a fixed byte order
    1208: "utf-8",
    1201: "utf-16-be",
    1202: "utf-16-le",
    1233: "utf-32-be",
    1234: "utf-32-le",
    # ASCII and ISO 8859
    367: "ascii",
    819: "latin-1",
    912: "iso8859-2",
    913: "iso8859-3",
    914: "iso8859-4",
    915: "iso8859-5",
    1089: "iso8859-6",
    813: "iso8859-7",
    916: "iso8859-8",
    920: "iso8859-9",
    919: "iso8859-10",
    921: "iso8859-13",
    923: "iso8859-15",
    878: "koi8-r",
    1168: "koi8-u",
    # Windows, and IBM's euro-updated numbers for the same code pages
    **{ccsid: f"cp{ccsid}" for ccsid in range(1250, 1259)},
    **{5346 + n: f"cp{1250 + n}" for n in range(9)},
    # PC (DOS) code pages
    **{int(number): f"cp{number}" for number in _PC_CODE_PAGES.split()},
    # EBCDIC code pages Python ships
    37: "cp037",
    273: "cp273",
    424: "cp424",
    500: "cp500",
    875: "cp875",
    1026: "cp1026",
    1140: "cp1140",
    # CJK
    932: "shift_jis",
    943: "shift_jis",
    954: "euc-jp",
    950: "cp950",
    970: "euc-kr",
    1363: "cp949",
    1386: "gbk",
    5488: "gb18030",
}

# UTF-16 and UTF-32 CCSIDs whose byte order is the Encoding's integer byte order.
_BY_ENCODING: Mapping[int, str] = {1200: "utf-16", 13488: "utf-16", 17584: "utf-16", 1232: "utf-32"}

# fmt: off
# EBCDIC code pages Python lacks: (Python's code page they differ from, IBM's differences).
_EBCDIC_TABLES: Mapping[int, tuple[str, Mapping[int, str]]] = {
    # 1047, Latin-1 open systems (z/OS UNIX): cp037 with six characters moved
    1047: ("cp037", {0x5F: "^", 0xAD: "[", 0xB0: "¬", 0xBA: "Ý", 0xBB: "¨", 0xBD: "]"}),
    # 1141-1149: the national code pages with the euro sign
    1141: ("cp273", {0x9F: "€", 0xBC: "¯"}),  # Germany, Austria
    1142: ("cp037", {0x47: "}", 0x4A: "#", 0x4F: "!", 0x5A: "€", 0x5B: "Å", 0x5F: "^",
                     0x67: "$", 0x6A: "ø", 0x70: "¦", 0x7B: "Æ", 0x7C: "Ø", 0x80: "@",
                     0x9C: "{", 0x9E: "[", 0x9F: "]", 0xA1: "ü", 0xB0: "¢", 0xBA: "¬",
                     0xBB: "|", 0xC0: "æ", 0xD0: "å", 0xDC: "~"}),  # Denmark, Norway
    1143: ("cp037", {0x43: "{", 0x47: "}", 0x4A: "§", 0x4F: "!", 0x51: "`", 0x5A: "€",
                     0x5B: "Å", 0x5F: "^", 0x63: "#", 0x67: "$", 0x6A: "ö", 0x71: "\\",
                     0x79: "é", 0x7B: "Ä", 0x7C: "Ö", 0x9F: "]", 0xA1: "ü", 0xB0: "¢",
                     0xB5: "[", 0xBA: "¬", 0xBB: "|", 0xC0: "ä", 0xCC: "¦", 0xD0: "å",
                     0xDC: "~", 0xE0: "É", 0xEC: "@"}),  # Finland, Sweden
    1144: ("cp037", {0x44: "{", 0x48: "\\", 0x4A: "°", 0x4F: "!", 0x51: "]", 0x54: "}",
                     0x58: "~", 0x5A: "é", 0x5F: "^", 0x6A: "ò", 0x79: "ù", 0x7B: "£",
                     0x7C: "§", 0x90: "[", 0x9F: "€", 0xA1: "ì", 0xB0: "¢", 0xB1: "#",
                     0xB5: "@", 0xBA: "¬", 0xBB: "|", 0xC0: "à", 0xCD: "¦", 0xD0: "è",
                     0xDD: "`", 0xE0: "ç"}),  # Italy
    1145: ("cp037", {0x49: "¦", 0x4A: "[", 0x5A: "]", 0x69: "#", 0x6A: "ñ", 0x7B: "Ñ",
                     0x9F: "€", 0xA1: "¨", 0xB0: "¢", 0xBA: "^", 0xBB: "!",
                     0xBD: "~"}),  # Spain, Latin America
    1146: ("cp037", {0x4A: "$", 0x5B: "£", 0x9F: "€", 0xA1: "¯", 0xB0: "¢", 0xB1: "[",
                     0xBA: "^", 0xBC: "~"}),  # United Kingdom
    1147: ("cp037", {0x44: "@", 0x48: "\\", 0x4A: "°", 0x4F: "!", 0x51: "{", 0x54: "}",
                     0x5A: "§", 0x5F: "^", 0x6A: "ù", 0x79: "µ", 0x7B: "£", 0x7C: "à",
                     0x90: "[", 0x9F: "€", 0xA0: "`", 0xA1: "¨", 0xB0: "¢", 0xB1: "#",
                     0xB5: "]", 0xBA: "¬", 0xBB: "|", 0xBD: "~", 0xC0: "é", 0xD0: "è",
                     0xDD: "¦", 0xE0: "ç"}),  # France
    1148: ("cp500", {0x9F: "€"}),  # International
    1149: ("cp037", {0x4A: "Þ", 0x4F: "!", 0x5A: "Æ", 0x5F: "Ö", 0x79: "ð", 0x7C: "Ð",
                     0x8C: "`", 0x8E: "{", 0x9C: "}", 0x9E: "]", 0x9F: "€", 0xA1: "ö",
                     0xAC: "@", 0xAE: "[", 0xB0: "¢", 0xBA: "¬", 0xBB: "|", 0xBE: "\\",
                     0xC0: "þ", 0xCC: "~", 0xD0: "æ", 0xE0: "´", 0xEC: "^"}),  # Iceland
}
# fmt: on

SUPPORTED_CCSIDS = frozenset(_PYTHON_CODECS) | frozenset(_BY_ENCODING) | frozenset(_EBCDIC_TABLES)


def decoding_table(ccsid: int) -> str:
    """The 256 characters bytes 0x00-0xFF stand for in a table-built EBCDIC CCSID."""
    base, changes = _EBCDIC_TABLES[ccsid]
    table = list(bytes(range(256)).decode(base))
    for byte, char in changes.items():
        table[byte] = char
    return "".join(table)


@cache
def _table_codec(ccsid: int) -> codecs.CodecInfo:
    decoding = decoding_table(ccsid)
    encoding = codecs.charmap_build(decoding)

    def encode(text: str, errors: str = "strict") -> tuple[bytes, int]:
        return codecs.charmap_encode(text, errors, encoding)

    def decode(data: ReadableBuffer, errors: str = "strict") -> tuple[str, int]:
        return codecs.charmap_decode(data, errors, decoding)

    return codecs.CodecInfo(encode, decode, name=f"ibm{ccsid}")


def _lookup(ccsid: int, encoding: int) -> codecs.CodecInfo | None:
    if ccsid in _BY_ENCODING:
        little = encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_REVERSED
        return codecs.lookup(_BY_ENCODING[ccsid] + ("-le" if little else "-be"))
    if ccsid in _EBCDIC_TABLES:
        return _table_codec(ccsid)
    name = _PYTHON_CODECS.get(ccsid)
    return codecs.lookup(name) if name is not None else None


def _unsupported(ccsid: int, reason: int, what: str) -> MQError:
    return MQError(
        C.MQCC_FAILED,
        reason,
        f"CCSID {ccsid} is not a character set mqjms can convert for {what} "
        "(mqjms.mq.ccsid.SUPPORTED_CCSIDS lists those it can)",
    )


def codec_name(ccsid: int, encoding: int = C.MQENC_NATIVE) -> str | None:
    """The codec's name for messages (``cp037``, ``ibm1047``), None if unsupported."""
    info = _lookup(ccsid, encoding)
    return info.name if info is not None else None


def decode(data: bytes, ccsid: int, encoding: int = C.MQENC_NATIVE) -> str:
    """Text from bytes in ``ccsid``.

    MQError MQRC_SOURCE_CCSID_ERROR for a CCSID not in the table; UnicodeDecodeError
    when the bytes are not valid in it.
    """
    if ccsid == C.CCSID_UTF8:  # most bodies: the codec _lookup would find, without the look
        return str(data, "utf-8")
    info = _lookup(ccsid, encoding)
    if info is None:
        raise _unsupported(ccsid, C.MQRC_SOURCE_CCSID_ERROR, "decoding")
    text, _ = info.decode(data)
    return text


def encode(text: str, ccsid: int, encoding: int = C.MQENC_NATIVE) -> bytes:
    """``text`` as bytes in ``ccsid``.

    MQError MQRC_TARGET_CCSID_ERROR for a CCSID not in the table; UnicodeEncodeError
    when a character has no code point in it.
    """
    info = _lookup(ccsid, encoding)
    if info is None:
        raise _unsupported(ccsid, C.MQRC_TARGET_CCSID_ERROR, "encoding")
    data, _ = info.encode(text)
    return data
