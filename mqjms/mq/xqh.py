"""MQXQH: the transmission-queue header in front of a message on a transmission queue.

Format MQXMIT. 428 bytes: StrucId ``XQH ``, Version 1, RemoteQName, RemoteQMgrName and the
message's own descriptor as an MQMD *version 1* (324 bytes), all in the encoding of the
MQMD that precedes it (mq-reference §4.2). Such a message has two Expiry fields, the
outer MQMD's and the embedded one (seeds 000/001/004 note 9); the queue manager reads and
rewrites the embedded one in place (:func:`embedded_expiry`, :func:`with_embedded_expiry`)
without parsing the rest, since a get must not fail on data too short to hold it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.md import MQMD, MQMD_LENGTH_1, MQMD_VERSION_1
from mqjms.mq.structure import CHAR, INT, FieldSpec, MQStructure, byte_order, spec

MQXQH_STRUC_ID = "XQH "
MQXQH_VERSION_1 = 1
MQXQH_LENGTH_1 = 428
MSG_DESC_OFFSET = 104  # where the embedded MQMD version 1 starts
EMBEDDED_EXPIRY_OFFSET = MSG_DESC_OFFSET + 16  # MsgDesc.Expiry (after StrucId, Version,
EMBEDDED_EXPIRY_END = EMBEDDED_EXPIRY_OFFSET + 4  # Report, MsgType)
_V2_FIELDS = ("GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength")


@dataclass(slots=True, eq=True)
class _Prefix(MQStructure):
    """The MQXQH's own fields, before the embedded MQMD."""

    STRUCTURE: ClassVar[str] = "MQXQH"
    STRUC_ID: ClassVar[str] = MQXQH_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", INT),
        spec("RemoteQName", CHAR, 48),
        spec("RemoteQMgrName", CHAR, 48),
    )

    StrucId: str = "XQH"
    Version: int = MQXQH_VERSION_1
    RemoteQName: str = ""
    RemoteQMgrName: str = ""

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_XQH_ERROR


#: The header's own fields, before the embedded MQMD: what pymqi and ibmmq call ``XQH``.
XQHFields = _Prefix


def _embedded_md() -> MQMD:
    return MQMD(Version=MQMD_VERSION_1)


@dataclass(slots=True, eq=True)
class MQXQH:
    """The transmission-queue header. ``MsgDesc`` is the message's MQMD (version 1 on the
    wire: version 2 fields must keep their defaults, since MQ would carry them in an
    MQMDE after the header, which this codec does not write)."""

    StrucId: str = "XQH"
    Version: int = MQXQH_VERSION_1
    RemoteQName: str = ""
    RemoteQMgrName: str = ""
    MsgDesc: MQMD = field(default_factory=_embedded_md)

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        """The 428 bytes, integers in ``encoding``'s byte order."""
        defaults = MQMD()
        changed = [n for n in _V2_FIELDS if getattr(self.MsgDesc, n) != getattr(defaults, n)]
        if changed:
            raise ValueError(
                f"MQXQH.MsgDesc is an MQMD version 1: {', '.join(changed)} would be lost "
                "(MQ carries them in an MQMDE, which mqjms does not write)"
            )
        prefix = _Prefix(self.StrucId, self.Version, self.RemoteQName, self.RemoteQMgrName)
        md = self.MsgDesc.copy(Version=MQMD_VERSION_1)
        return prefix.pack(encoding) + md.pack(encoding)[:MQMD_LENGTH_1]

    @classmethod
    def unpack(cls, buf: bytes | memoryview, encoding: int, offset: int = 0) -> MQXQH:
        """The MQXQH at ``offset``; bad input raises MQFormatError (MQRC_XQH_ERROR)."""
        prefix = _Prefix.unpack(buf, encoding, offset)
        if prefix.Version != MQXQH_VERSION_1:
            raise MQFormatError(
                "MQXQH",
                "Version",
                offset + 4,
                f"expected {MQXQH_VERSION_1}, found {prefix.Version}",
                C.MQRC_XQH_ERROR,
            )
        start = offset + MSG_DESC_OFFSET
        if len(buf) - start < MQMD_LENGTH_1:
            raise MQFormatError(
                "MQXQH",
                "MsgDesc",
                start,
                f"buffer has {max(len(buf) - start, 0)} bytes, the MQMD needs {MQMD_LENGTH_1}",
                C.MQRC_XQH_ERROR,
            )
        # an MQMD version 1 is the first 324 bytes of version 2: the rest are defaults
        v2_tail = MQMD().pack(encoding)[MQMD_LENGTH_1:]
        md = MQMD.unpack(bytes(buf[start : start + MQMD_LENGTH_1]) + v2_tail, encoding)
        return cls(
            prefix.StrucId,
            prefix.Version,
            prefix.RemoteQName,
            prefix.RemoteQMgrName,
            md,
        )


def parse_xqh(data: bytes | memoryview, encoding: int, offset: int = 0) -> tuple[MQXQH, bytes]:
    """The MQXQH at ``offset`` (in the MQMD's ``encoding``) and the bytes after it."""
    return MQXQH.unpack(data, encoding, offset), bytes(data[offset + MQXQH_LENGTH_1 :])


def _int_format(encoding: int) -> str | None:
    try:
        return byte_order(encoding) + "i"
    except ValueError:
        return None


def starts_with_xqh(data: bytes | memoryview) -> bool:
    return bytes(data[:4]) == MQXQH_STRUC_ID.encode("ascii")


def embedded_expiry(data: bytes | memoryview, encoding: int) -> int | None:
    """The Expiry of the MQMD inside the MQXQH that ``data`` begins with, or None when
    ``data`` does not begin with an MQXQH long enough to include it (or ``encoding`` has
    no integer byte order)."""
    fmt = _int_format(encoding)
    if fmt is None or len(data) < EMBEDDED_EXPIRY_END or not starts_with_xqh(data):
        return None
    value: int = struct.unpack_from(fmt, data, EMBEDDED_EXPIRY_OFFSET)[0]
    return value


def with_embedded_expiry(data: bytes, encoding: int, expiry: int) -> bytes:
    """``data`` with the embedded MQMD's Expiry replaced (see :func:`embedded_expiry`);
    ``data`` unchanged when it has no such field."""
    fmt = _int_format(encoding)
    if fmt is None or embedded_expiry(data, encoding) is None:
        return data
    return data[:EMBEDDED_EXPIRY_OFFSET] + struct.pack(fmt, expiry) + data[EMBEDDED_EXPIRY_END:]
