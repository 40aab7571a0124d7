"""MQSTS, what MQSTAT reports: the outcome of earlier asynchronous puts and reconnections.

Versions 1-2, 224/280 bytes on 64-bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, charv, layouts
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQSTS_STRUC_ID = "STAT"
MQOT_Q = 1

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("CompCode", INT),
    spec("Reason", INT),
    spec("PutSuccessCount", INT),
    spec("PutWarningCount", INT),
    spec("PutFailureCount", INT),
    spec("ObjectType", INT),
    spec("ObjectName", CHAR, 48),
    spec("ObjectQMgrName", CHAR, 48),
    spec("ResolvedObjectName", CHAR, 48),
    spec("ResolvedQMgrName", CHAR, 48),
)
_V2 = (*charv("ObjectString"), *charv("SubName"), spec("OpenOptions", INT), spec("SubOptions", INT))


@dataclass(slots=True, eq=True)
class MQSTS(ControlBlock):
    """The status structure; defaults are IBM's initial values (MQSTS_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQSTS"
    STRUC_ID: ClassVar[str] = MQSTS_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "STAT"
    Version: int = 1
    CompCode: int = C.MQCC_OK
    Reason: int = C.MQRC_NONE
    PutSuccessCount: int = 0
    PutWarningCount: int = 0
    PutFailureCount: int = 0
    ObjectType: int = MQOT_Q
    ObjectName: str = ""
    ObjectQMgrName: str = ""
    ResolvedObjectName: str = ""
    ResolvedQMgrName: str = ""
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
    OpenOptions: int = 0
    SubOptions: int = 0

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_STS_ERROR
