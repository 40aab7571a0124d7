"""MQSD and MQSRO: what MQSUB subscribes to, and how MQSUBRQ asks for retained publications.

MQSD is 344 bytes on 64-bit (four MQCHARVs, each 8-aligned); MQSRO 16 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, charv, layouts
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQSD_STRUC_ID = "SD  "
MQSRO_STRUC_ID = "SRO "
MQSO_NON_DURABLE = 0
MQSRO_FAIL_IF_QUIESCING = 0x00002000
MQSID_NONE = b"\x00" * 40

_SD = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("Options", INT),
    spec("ObjectName", CHAR, 48),
    spec("AlternateUserId", CHAR, 12),
    spec("AlternateSecurityId", BYTE, 40),
    spec("SubExpiry", INT),
    *charv("ObjectString"),
    *charv("SubName"),
    *charv("SubUserData"),
    spec("SubCorrelId", BYTE, 24),
    spec("PubPriority", INT),
    spec("PubAccountingToken", BYTE, 32),
    spec("PubApplIdentityData", CHAR, 32),
    *charv("SelectionString"),
    spec("SubLevel", INT),
    *charv("ResObjectString"),
)


@dataclass(slots=True, eq=True)
class MQSD(ControlBlock):
    """The subscription descriptor; defaults are IBM's initial values (MQSD_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQSD"
    STRUC_ID: ClassVar[str] = MQSD_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_SD)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "SD"
    Version: int = 1
    Options: int = MQSO_NON_DURABLE
    ObjectName: str = ""
    AlternateUserId: str = ""
    AlternateSecurityId: bytes = MQSID_NONE
    SubExpiry: int = C.MQEI_UNLIMITED
    ObjectStringVSPtr: int = 0
    ObjectStringVSOffset: int = 0
    ObjectStringVSBufSize: int = 0
    ObjectStringVSLength: int = 0
    ObjectStringVSCCSID: int = C.MQCCSI_APPL
    SubNameVSPtr: int = 0
    SubNameVSOffset: int = 0
    SubNameVSBufSize: int = 0
    SubNameVSLength: int = 0
    SubNameVSCCSID: int = C.MQCCSI_APPL
    SubUserDataVSPtr: int = 0
    SubUserDataVSOffset: int = 0
    SubUserDataVSBufSize: int = 0
    SubUserDataVSLength: int = 0
    SubUserDataVSCCSID: int = C.MQCCSI_APPL
    SubCorrelId: bytes = C.MQCI_NONE
    PubPriority: int = C.MQPRI_PRIORITY_AS_Q_DEF
    PubAccountingToken: bytes = C.MQACT_NONE
    PubApplIdentityData: str = ""
    SelectionStringVSPtr: int = 0
    SelectionStringVSOffset: int = 0
    SelectionStringVSBufSize: int = 0
    SelectionStringVSLength: int = 0
    SelectionStringVSCCSID: int = C.MQCCSI_APPL
    SubLevel: int = 1
    ResObjectStringVSPtr: int = 0
    ResObjectStringVSOffset: int = 0
    ResObjectStringVSBufSize: int = 0
    ResObjectStringVSLength: int = 0
    ResObjectStringVSCCSID: int = C.MQCCSI_APPL

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_SD_ERROR


@dataclass(slots=True, eq=True)
class MQSRO(ControlBlock):
    """The subscription request options of MQSUBRQ."""

    STRUCTURE: ClassVar[str] = "MQSRO"
    STRUC_ID: ClassVar[str] = MQSRO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        (spec("StrucId", CHAR, 4), spec("Version", INT), spec("Options", INT), spec("NumPubs", INT))
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "SRO"
    Version: int = 1
    Options: int = MQSRO_FAIL_IF_QUIESCING
    NumPubs: int = 0

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_SRO_ERROR
