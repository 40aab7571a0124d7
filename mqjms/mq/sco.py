"""MQSCO, the TLS configuration options MQCNO points at: key repository, certificate label.

Versions 1-7, 536/544/560/568/632/648/672 bytes on 64-bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts, longs, ptr
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQSCO_STRUC_ID = "SCO "
MQSCO_CURRENT_VERSION = 7
MQ_SUITE_NONE = 1

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("KeyRepository", CHAR, 256),
    spec("CryptoHardware", CHAR, 256),
    spec("AuthInfoRecCount", INT),
    spec("AuthInfoRecOffset", INT),
    ptr("AuthInfoRecPtr"),
)
_V2 = (spec("KeyResetCount", INT), spec("FipsRequired", INT))
_V3 = (longs("EncryptionPolicySuiteB", 4),)
_V4 = (spec("CertificateValPolicy", INT),)
_V5 = (spec("CertificateLabel", CHAR, 64),)
_V6 = (
    ptr("KeyRepoPasswordPtr"),
    spec("KeyRepoPasswordOffset", INT),
    spec("KeyRepoPasswordLength", INT),
)
_V7 = (
    spec("HTTPSCertValidation", INT),
    spec("HTTPSCertRevocation", INT),
    ptr("HTTPSKeyStorePtr"),
    spec("HTTPSKeyStoreOffset", INT),
    spec("HTTPSKeyStoreLength", INT),
)


@dataclass(slots=True, eq=True)
class MQSCO(ControlBlock):
    """The TLS options; defaults are IBM's initial values (MQSCO_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQSCO"
    STRUC_ID: ClassVar[str] = MQSCO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3, _V4, _V5, _V6, _V7)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "SCO"
    Version: int = 1
    KeyRepository: str = ""
    CryptoHardware: str = ""
    AuthInfoRecCount: int = 0
    AuthInfoRecOffset: int = 0
    AuthInfoRecPtr: int = 0
    KeyResetCount: int = 0
    FipsRequired: int = 0
    EncryptionPolicySuiteB: tuple[int, ...] = (MQ_SUITE_NONE, 0, 0, 0)
    CertificateValPolicy: int = 0
    CertificateLabel: str = ""
    KeyRepoPasswordPtr: int = 0
    KeyRepoPasswordOffset: int = 0
    KeyRepoPasswordLength: int = 0
    HTTPSCertValidation: int = 0
    HTTPSCertRevocation: int = 0
    HTTPSKeyStorePtr: int = 0
    HTTPSKeyStoreOffset: int = 0
    HTTPSKeyStoreLength: int = 0

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_SCO_ERROR
