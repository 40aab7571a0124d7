"""MQMDE, the message descriptor extension: MQMD version 2's fields for a version-1 MQMD.

A message whose MQMD is version 1 (inside an MQXQH, for instance) carries GroupId,
MsgSeqNumber, Offset, MsgFlags and OriginalLength in an MQMDE after it, Format MQHMDE.
72 bytes; only version 2 exists.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, MQStructure, byte_order, spec

MQMDE_STRUC_ID = "MDE "
MQMDE_VERSION_2 = 2
MQMDE_LENGTH_2 = 72
MQMDEF_NONE = 0


@dataclass(slots=True, eq=True)
class MQMDE(MQStructure):
    """The MQMD extension; its Encoding, CodedCharSetId and Format describe what follows."""

    STRUCTURE: ClassVar[str] = "MQMDE"
    STRUC_ID: ClassVar[str] = MQMDE_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", INT),
        spec("StrucLength", INT),
        spec("Encoding", INT),
        spec("CodedCharSetId", INT),
        spec("Format", CHAR, 8),
        spec("Flags", INT),
        spec("GroupId", BYTE, 24),
        spec("MsgSeqNumber", INT),
        spec("Offset", INT),
        spec("MsgFlags", INT),
        spec("OriginalLength", INT),
    )

    StrucId: str = "MDE"
    Version: int = MQMDE_VERSION_2
    StrucLength: int = MQMDE_LENGTH_2
    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_UNDEFINED
    Format: str = C.MQFMT_NONE
    Flags: int = MQMDEF_NONE
    GroupId: bytes = C.MQGI_NONE
    MsgSeqNumber: int = 1
    Offset: int = 0
    MsgFlags: int = C.MQMF_NONE
    OriginalLength: int = C.MQOL_UNDEFINED

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_MDE_ERROR


def parse_mde(data: bytes | memoryview, encoding: int, offset: int = 0) -> tuple[MQMDE, bytes]:
    """The MQMDE at ``offset`` (in the preceding header's ``encoding``) and what follows it.

    StrucLength says where the data starts (IBM allows a longer MQMDE than 72 bytes).
    """
    try:
        byte_order(encoding)
    except ValueError as exc:
        raise MQFormatError(
            "MQMDE", "Encoding", offset, f"the preceding header's {exc}", C.MQRC_MDE_ERROR
        ) from None
    mde = MQMDE.unpack(data, encoding, offset)
    if mde.Version != MQMDE_VERSION_2:
        raise MQFormatError(
            "MQMDE", "Version", offset + 4, f"expected 2, found {mde.Version}", C.MQRC_MDE_ERROR
        )
    if not MQMDE_LENGTH_2 <= mde.StrucLength <= len(data) - offset:
        raise MQFormatError(
            "MQMDE",
            "StrucLength",
            offset + 8,
            f"{mde.StrucLength} is not between {MQMDE_LENGTH_2} and the "
            f"{len(data) - offset} bytes left",
            C.MQRC_MDE_ERROR,
        )
    return mde, bytes(data[offset + mde.StrucLength :])
