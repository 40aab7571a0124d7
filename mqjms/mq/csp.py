"""MQCSP, the security parameters MQCNO points at: user id and password, or a token.

Versions 1-3, 56/80/104 bytes on 64-bit. The credentials themselves are not in the
structure, only their addresses and lengths, so nothing here ever holds a password.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts, ptr
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQCSP_STRUC_ID = "CSP "
MQCSP_CURRENT_VERSION = 3
MQCSP_AUTH_NONE = 0

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("AuthenticationType", INT),
    spec("Reserved1", BYTE, 4),
    ptr("CSPUserIdPtr"),
    spec("CSPUserIdOffset", INT),
    spec("CSPUserIdLength", INT),
    spec("Reserved2", BYTE, 8),
    ptr("CSPPasswordPtr"),
    spec("CSPPasswordOffset", INT),
    spec("CSPPasswordLength", INT),
)
_V2 = (
    spec("Reserved3", BYTE, 8),
    ptr("InitialKeyPtr"),
    spec("InitialKeyOffset", INT),
    spec("InitialKeyLength", INT),
)
_V3 = (
    spec("Reserved4", BYTE, 8),
    ptr("TokenPtr"),
    spec("TokenOffset", INT),
    spec("TokenLength", INT),
)


@dataclass(slots=True, eq=True)
class MQCSP(ControlBlock):
    """The security parameters; defaults are IBM's initial values (MQCSP_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQCSP"
    STRUC_ID: ClassVar[str] = MQCSP_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CSP"
    Version: int = 1
    AuthenticationType: int = MQCSP_AUTH_NONE
    Reserved1: bytes = b"\x00" * 4
    CSPUserIdPtr: int = 0
    CSPUserIdOffset: int = 0
    CSPUserIdLength: int = 0
    Reserved2: bytes = b"\x00" * 8
    CSPPasswordPtr: int = 0
    CSPPasswordOffset: int = 0
    CSPPasswordLength: int = 0
    Reserved3: bytes = b"\x00" * 8
    InitialKeyPtr: int = 0
    InitialKeyOffset: int = 0
    InitialKeyLength: int = 0
    Reserved4: bytes = b"\x00" * 8
    TokenPtr: int = 0
    TokenOffset: int = 0
    TokenLength: int = 0

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CSP_ERROR
