"""Text bodies as ActiveMQ keeps them: Java's modified UTF-8 (CESU-8), not UTF-8.

ActiveMQ stores a TextMessage's text the way Java serialises strings: a character
outside the Basic Multilingual Plane (an emoji) is a surrogate pair, each half written as
three bytes (CESU-8), and U+0000 is ``C0 80``. Over STOMP the broker passes those bytes
through unchanged in both directions, so a Java text with an emoji arrives as bytes that
are not UTF-8, and UTF-8 sent by a STOMP client makes Java's ``getText()`` throw. The
transport therefore encodes text bodies as CESU-8 when it sends and decodes them when it
receives; text without such characters is the same in both encodings and passes as it is.
"""

from __future__ import annotations

import re

# A UTF-8 sequence of four bytes: a character outside the BMP.
_ASTRAL = re.compile(rb"[\xf0-\xf4][\x80-\xbf]{3}")
# A surrogate (ED A0-BF xx) or a modified-UTF-8 NUL (C0 80): CESU-8 only.
_CESU_ONLY = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]|\xc0\x80")


def _surrogates(match: re.Match[bytes]) -> bytes:
    code = ord(match.group().decode("utf-8")) - 0x10000
    high, low = 0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)
    return chr(high).encode("utf-8", "surrogatepass") + chr(low).encode("utf-8", "surrogatepass")


def encode(utf8: bytes) -> bytes:
    """UTF-8 text as CESU-8 (unchanged when it has no character outside the BMP)."""
    if not any(byte >= 0xF0 for byte in utf8):
        return utf8
    return _ASTRAL.sub(_surrogates, utf8)


def decode(raw: bytes) -> bytes:
    """CESU-8 (or UTF-8) text as UTF-8. ValueError when it is neither."""
    try:
        raw.decode("utf-8")
        return raw
    except UnicodeDecodeError:
        if not _CESU_ONLY.search(raw):
            raise ValueError("not UTF-8 or CESU-8 text") from None
    try:
        text = raw.replace(b"\xc0\x80", b"\x00").decode("utf-8", "surrogatepass")
        # pair the surrogates up again; a lone one is not text
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le").encode("utf-8")
    except UnicodeError:
        raise ValueError("not UTF-8 or CESU-8 text: an unpaired surrogate") from None
