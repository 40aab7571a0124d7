"""How a message's MQMD is stored: deflated against the default MQMD, without the MsgId and
CorrelId the row's own columns hold.

A packed MQMD is 364 bytes, most of them the defaults (blanks, zeros); stored as is it made
a queued message take three times the bytes of its body's bare row. Deflate with the
default MQMD as its dictionary leaves about 80 bytes, for a few microseconds per put and
one per get. A stored MQMD is recognised by its first byte: ``M`` (the StrucId ``MD  ``)
for one stored whole, as mqjms before schema 3 stored them, ``z`` for a deflated one.

Both ways are remembered for the last few MQMDs (:data:`REMEMBERED`): the messages of one
application differ mostly in their ids, which are not deflated, and in PutTime, which
moves every hundredth of a second, so most puts deflate the very MQMD the put before did,
and a get mostly inflates what a put of this process deflated. zlib took 7% of the
instructions of a round trip (put, get), most of them to set a compressor up; a lookup
costs a hash of the bytes. The answers are the same: both ways are pure functions.
"""

from __future__ import annotations

import zlib

from mqjms.mq.md import MQMD

_TEMPLATE = MQMD().pack()
_DEFLATED = b"z"
_IDS = slice(48, 96)  # MsgId (24 bytes) then CorrelId (24 bytes), in every MQMD version
MSG_ID = slice(48, 72)
CORREL_ID = slice(72, 96)
_NO_IDS = bytes(48)
_GROUP_ID = slice(324, 348)  # MQMD version 2 (a version 1 MQMD has none: b"")
_WBITS = -10  # raw deflate, a window of 1 KiB: the dictionary and one MQMD fit in it


# a compressor primed with the dictionary, copied for each MQMD: cheaper than priming one
_PRIMED = zlib.compressobj(1, zlib.DEFLATED, _WBITS, 2, zlib.Z_DEFAULT_STRATEGY, _TEMPLATE)


#: How many MQMDs each way :func:`pack` and :func:`unpack` remember (then they start afresh).
REMEMBERED = 256
_deflated: dict[bytes, bytes] = {}  # an MQMD without its ids -> what the md column stores
_inflated: dict[bytes, bytes] = {}  # and back


def pack(md_bytes: bytes) -> bytes:
    """What the ``md`` column stores for a packed MQMD (with anything appended to it)."""
    blanked = md_bytes[:48] + _NO_IDS + md_bytes[96:]
    stored = _deflated.get(blanked)
    if stored is None:
        deflate = _PRIMED.copy()
        stored = _DEFLATED + deflate.compress(blanked) + deflate.flush()
        _remember(blanked, stored)
    return stored


def group_id(stored: bytes) -> bytes:
    """The GroupId of a stored MQMD (SQL: ``mq_group_id(md)``, which every connection of
    :func:`.store.connect_db` has): a get by GroupId compares it, groups being too rare for
    an index."""
    if stored[:1] != _DEFLATED:
        return stored[_GROUP_ID]
    inflated = _inflated.get(stored)  # a scan by GroupId reads many rows: it fills nothing
    return (inflated if inflated is not None else _decompressed(stored))[_GROUP_ID]


def unpack(stored: bytes, msg_id: bytes, correl_id: bytes) -> bytes:
    """The packed MQMD :func:`pack` stored, with the ids of the row's columns put back."""
    if stored[:1] != _DEFLATED:
        return stored  # stored whole: it has its ids
    inflated = _inflate(stored)
    if len(msg_id) != 24 or len(correl_id) != 24:  # a row an older mqjms stored unpadded
        msg_id, correl_id = msg_id[:24].ljust(24, b"\0"), correl_id[:24].ljust(24, b"\0")
    return inflated[:48] + msg_id + correl_id + inflated[96:]


def _inflate(stored: bytes) -> bytes:
    inflated = _inflated.get(stored)
    if inflated is None:
        inflated = _decompressed(stored)
        _make_room()
        _inflated[stored] = inflated  # not the other way: pack deflates what it stores
    return inflated


def _decompressed(stored: bytes) -> bytes:
    return zlib.decompressobj(_WBITS, _TEMPLATE).decompress(stored[1:])


def _remember(blanked: bytes, stored: bytes) -> None:
    """Keep both ways of one MQMD :func:`pack` deflated (a get mostly reads what a put of
    this process wrote)."""
    _make_room()
    _deflated[blanked] = stored
    _inflated[stored] = blanked


def _make_room() -> None:
    if len(_deflated) >= REMEMBERED or len(_inflated) >= REMEMBERED:
        _deflated.clear()  # each dict operation holds the GIL: threads may share them
        _inflated.clear()
