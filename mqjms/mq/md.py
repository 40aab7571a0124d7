"""MQMD version 2: the message descriptor, 364 bytes, with IBM's field names and defaults."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, MQStructure, byte_order, spec

MQMD_STRUC_ID = "MD  "
MQMD_VERSION_1 = 1
MQMD_VERSION_2 = 2
MQMD_LENGTH_1 = 324
MQMD_LENGTH_2 = 364


@dataclass(slots=True, eq=True)
class MQMD(MQStructure):
    """The message descriptor. Defaults are IBM's initial values, except Version 2.

    Character fields are ``str`` (blank padding removed); ids are ``bytes``.
    ``Encoding``, ``CodedCharSetId`` and ``Format`` describe the bytes that follow the
    MQMD: the first chained header (RFH2, DLH) or the body.
    """

    STRUCTURE: ClassVar[str] = "MQMD"
    STRUC_ID: ClassVar[str] = MQMD_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", INT),
        spec("Report", INT),
        spec("MsgType", INT),
        spec("Expiry", INT),
        spec("Feedback", INT),
        spec("Encoding", INT),
        spec("CodedCharSetId", INT),
        spec("Format", CHAR, 8),
        spec("Priority", INT),
        spec("Persistence", INT),
        spec("MsgId", BYTE, 24),
        spec("CorrelId", BYTE, 24),
        spec("BackoutCount", INT),
        spec("ReplyToQ", CHAR, 48),
        spec("ReplyToQMgr", CHAR, 48),
        spec("UserIdentifier", CHAR, 12),
        spec("AccountingToken", BYTE, 32),
        spec("ApplIdentityData", CHAR, 32),
        spec("PutApplType", INT),
        spec("PutApplName", CHAR, 28),
        spec("PutDate", CHAR, 8),
        spec("PutTime", CHAR, 8),
        spec("ApplOriginData", CHAR, 4),
        spec("GroupId", BYTE, 24),
        spec("MsgSeqNumber", INT),
        spec("Offset", INT),
        spec("MsgFlags", INT),
        spec("OriginalLength", INT),
    )

    StrucId: str = "MD"
    Version: int = MQMD_VERSION_2
    Report: int = C.MQRO_NONE
    MsgType: int = C.MQMT_DATAGRAM
    Expiry: int = C.MQEI_UNLIMITED
    Feedback: int = C.MQFB_NONE
    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_Q_MGR
    Format: str = C.MQFMT_NONE
    Priority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    Persistence: int = C.MQPER_PERSISTENCE_AS_Q_DEF
    MsgId: bytes = C.MQMI_NONE
    CorrelId: bytes = C.MQCI_NONE
    BackoutCount: int = 0
    ReplyToQ: str = ""
    ReplyToQMgr: str = ""
    UserIdentifier: str = ""
    AccountingToken: bytes = C.MQACT_NONE
    ApplIdentityData: str = ""
    PutApplType: int = C.MQAT_NO_CONTEXT
    PutApplName: str = ""
    PutDate: str = ""
    PutTime: str = ""
    ApplOriginData: str = ""
    GroupId: bytes = C.MQGI_NONE
    MsgSeqNumber: int = 1
    Offset: int = 0
    MsgFlags: int = C.MQMF_NONE
    OriginalLength: int = C.MQOL_UNDEFINED

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_MD_ERROR

    @classmethod
    def unpack_any(cls, buf: bytes | memoryview, offset: int = 0) -> MQMD:
        """Unpack an MQMD whose byte order is not known, telling it from the Version field."""
        little = bytes(buf[offset + 4 : offset + 8]) in (b"\x01\x00\x00\x00", b"\x02\x00\x00\x00")
        encoding = C.MQENC_REVERSED if little else C.MQENC_NORMAL
        return cls.unpack(buf, encoding, offset)


_COUNTS = struct.Struct(byte_order(C.MQENC_NATIVE) + "i")
_EXPIRY_AT = 16
_BACKOUT_AT = 96


def with_counts(packed: bytes, backout: int, expiry: int | None = None) -> bytes:
    """A packed MQMD (native encoding, as :meth:`MQMD.pack` makes it) with BackoutCount,
    and Expiry when given, replaced: what a get returns of a stored MQMD, without
    unpacking all its fields (a Spark task reads thousands at a time)."""
    out = bytearray(packed)
    _COUNTS.pack_into(out, _BACKOUT_AT, backout)
    if expiry is not None:
        _COUNTS.pack_into(out, _EXPIRY_AT, expiry)
    return bytes(out)
