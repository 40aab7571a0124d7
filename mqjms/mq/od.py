"""MQOD, the object descriptor MQOPEN and MQPUT1 take: which queue (or topic) to open.

Versions 1-4, 168/208/344/424 bytes on 64-bit. MQOPEN writes back the resolved names
and, for a model queue, the dynamic queue's name into ObjectName.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, charv, layouts, ptr
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQOD_STRUC_ID = "OD  "
MQOD_CURRENT_VERSION = 4
MQOT_Q = 1
MQOT_NONE = 0
MQSID_NONE = b"\x00" * 40

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("ObjectType", INT),
    spec("ObjectName", CHAR, 48),
    spec("ObjectQMgrName", CHAR, 48),
    spec("DynamicQName", CHAR, 48),
    spec("AlternateUserId", CHAR, 12),
)
_V2 = (
    spec("RecsPresent", INT),
    spec("KnownDestCount", INT),
    spec("UnknownDestCount", INT),
    spec("InvalidDestCount", INT),
    spec("ObjectRecOffset", INT),
    spec("ResponseRecOffset", INT),
    ptr("ObjectRecPtr"),
    ptr("ResponseRecPtr"),
)
_V3 = (
    spec("AlternateSecurityId", BYTE, 40),
    spec("ResolvedQName", CHAR, 48),
    spec("ResolvedQMgrName", CHAR, 48),
)
_V4 = (
    *charv("ObjectString"),
    *charv("SelectionString"),
    *charv("ResObjectString"),
    spec("ResolvedType", INT),
)


@dataclass(slots=True, eq=True)
class MQOD(ControlBlock):
    """The object descriptor; defaults are IBM's initial values (MQOD_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQOD"
    STRUC_ID: ClassVar[str] = MQOD_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3, _V4)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "OD"
    Version: int = 1
    ObjectType: int = MQOT_Q
    ObjectName: str = ""
    ObjectQMgrName: str = ""
    DynamicQName: str = "AMQ.*"
    AlternateUserId: str = ""
    RecsPresent: int = 0
    KnownDestCount: int = 0
    UnknownDestCount: int = 0
    InvalidDestCount: int = 0
    ObjectRecOffset: int = 0
    ResponseRecOffset: int = 0
    ObjectRecPtr: int = 0
    ResponseRecPtr: int = 0
    AlternateSecurityId: bytes = MQSID_NONE
    ResolvedQName: str = ""
    ResolvedQMgrName: str = ""
    ObjectStringVSPtr: int = 0
    ObjectStringVSOffset: int = 0
    ObjectStringVSBufSize: int = 0
    ObjectStringVSLength: int = 0
    ObjectStringVSCCSID: int = C.MQCCSI_APPL
    SelectionStringVSPtr: int = 0
    SelectionStringVSOffset: int = 0
    SelectionStringVSBufSize: int = 0
    SelectionStringVSLength: int = 0
    SelectionStringVSCCSID: int = C.MQCCSI_APPL
    ResObjectStringVSPtr: int = 0
    ResObjectStringVSOffset: int = 0
    ResObjectStringVSBufSize: int = 0
    ResObjectStringVSLength: int = 0
    ResObjectStringVSCCSID: int = C.MQCCSI_APPL
    ResolvedType: int = MQOT_NONE

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_OD_ERROR
