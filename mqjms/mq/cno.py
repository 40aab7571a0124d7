"""MQCNO, the connect options of MQCONNX: client channel, TLS, credentials, CCDT URL.

Versions 1-8, 12/24/152/168/200/224/256/272 bytes on 64-bit. Its pointers address the
MQCD (ClientConnPtr), MQSCO (SSLConfigPtr), MQCSP (SecurityParmsPtr), a CCDT URL and
an MQBNO; each has an Offset twin for callers that place the structure after the MQCNO.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts, ptr
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQCNO_STRUC_ID = "CNO "
MQCNO_CURRENT_VERSION = 8
MQCNO_NONE = 0
MQCT_NONE = b"\x00" * 128
MQCONNID_NONE = b"\x00" * 24

_V1 = (spec("StrucId", CHAR, 4), spec("Version", INT), spec("Options", INT))
_V2 = (spec("ClientConnOffset", INT), ptr("ClientConnPtr"))
_V3 = (spec("ConnTag", BYTE, 128),)
_V4 = (ptr("SSLConfigPtr"), spec("SSLConfigOffset", INT))
_V5 = (spec("ConnectionId", BYTE, 24), spec("SecurityParmsOffset", INT), ptr("SecurityParmsPtr"))
_V6 = (
    ptr("CCDTUrlPtr"),
    spec("CCDTUrlOffset", INT),
    spec("CCDTUrlLength", INT),
    spec("Reserved", BYTE, 8),
)
_V7 = (spec("ApplName", CHAR, 28), spec("Reserved2", BYTE, 4))
_V8 = (ptr("BalanceParmsPtr"), spec("BalanceParmsOffset", INT), spec("Reserved3", BYTE, 4))


@dataclass(slots=True, eq=True)
class MQCNO(ControlBlock):
    """The connect options; defaults are IBM's initial values (MQCNO_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQCNO"
    STRUC_ID: ClassVar[str] = MQCNO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CNO"
    Version: int = 1
    Options: int = MQCNO_NONE
    ClientConnOffset: int = 0
    ClientConnPtr: int = 0
    ConnTag: bytes = MQCT_NONE
    SSLConfigPtr: int = 0
    SSLConfigOffset: int = 0
    ConnectionId: bytes = MQCONNID_NONE
    SecurityParmsOffset: int = 0
    SecurityParmsPtr: int = 0
    CCDTUrlPtr: int = 0
    CCDTUrlOffset: int = 0
    CCDTUrlLength: int = 0
    Reserved: bytes = b"\x00" * 8
    ApplName: str = ""
    Reserved2: bytes = b"\x00" * 4
    BalanceParmsPtr: int = 0
    BalanceParmsOffset: int = 0
    Reserved3: bytes = b"\x00" * 4

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CNO_ERROR
