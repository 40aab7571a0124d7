"""MQDLH: the dead-letter header put in front of a message that could not be delivered.

Its own fields are in the preceding header's encoding (normally the MQMD's); its
Encoding, CodedCharSetId and Format describe the original data that follows it, so
that the message can be restored when it is retried (mq-reference §3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.structure import CHAR, INT, FieldSpec, MQStructure, byte_order, spec

MQDLH_STRUC_ID = "DLH "
MQDLH_VERSION_1 = 1
MQDLH_LENGTH_1 = 172


@dataclass(slots=True, eq=True)
class MQDLH(MQStructure):
    """The dead-letter header, 172 bytes. Defaults are IBM's initial values."""

    STRUCTURE: ClassVar[str] = "MQDLH"
    STRUC_ID: ClassVar[str] = MQDLH_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", INT),
        spec("Reason", INT),
        spec("DestQName", CHAR, 48),
        spec("DestQMgrName", CHAR, 48),
        spec("Encoding", INT),
        spec("CodedCharSetId", INT),
        spec("Format", CHAR, 8),
        spec("PutApplType", INT),
        spec("PutApplName", CHAR, 28),
        spec("PutDate", CHAR, 8),
        spec("PutTime", CHAR, 8),
    )

    StrucId: str = "DLH"
    Version: int = MQDLH_VERSION_1
    Reason: int = C.MQRC_NONE  # an MQRC_* or MQFB_* value: why the message was dead-lettered
    DestQName: str = ""
    DestQMgrName: str = ""
    Encoding: int = 0
    CodedCharSetId: int = C.MQCCSI_UNDEFINED
    Format: str = C.MQFMT_NONE
    PutApplType: int = 0
    PutApplName: str = ""
    PutDate: str = ""
    PutTime: str = ""

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_DLH_ERROR


def parse_dlh(data: bytes | memoryview, encoding: int, offset: int = 0) -> tuple[MQDLH, bytes]:
    """The MQDLH at ``offset`` (in the preceding header's ``encoding``) and the bytes after it."""
    try:
        byte_order(encoding)
    except ValueError as exc:
        raise MQFormatError(
            "MQDLH", "Encoding", offset, f"the preceding header's {exc}", C.MQRC_DLH_ERROR
        ) from None
    dlh = MQDLH.unpack(data, encoding, offset)
    if dlh.Version != MQDLH_VERSION_1:
        raise MQFormatError(
            "MQDLH",
            "Version",
            offset + 4,
            f"expected {MQDLH_VERSION_1}, found {dlh.Version}",
            C.MQRC_DLH_ERROR,
        )
    return dlh, bytes(data[offset + MQDLH_LENGTH_1 :])
