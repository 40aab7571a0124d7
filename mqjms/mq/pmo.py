"""MQPMO, the put-message options: syncpoint, context, new ids, message handles.

Versions 1-3, 128/160/184 bytes on 64-bit: version 2 adds the put-message-record
pointers, version 3 OriginalMsgHandle and NewMsgHandle (MQINT64s), Action and PubLevel.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, int64, layouts, ptr
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQPMO_STRUC_ID = "PMO "
MQPMO_CURRENT_VERSION = 3
MQPMO_NONE = 0
MQACTP_NEW = 0
MQHM_NONE = 0

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("Options", INT),
    spec("Timeout", INT),
    spec("Context", INT),
    spec("KnownDestCount", INT),
    spec("UnknownDestCount", INT),
    spec("InvalidDestCount", INT),
    spec("ResolvedQName", CHAR, 48),
    spec("ResolvedQMgrName", CHAR, 48),
)
_V2 = (
    spec("RecsPresent", INT),
    spec("PutMsgRecFields", INT),
    spec("PutMsgRecOffset", INT),
    spec("ResponseRecOffset", INT),
    ptr("PutMsgRecPtr"),
    ptr("ResponseRecPtr"),
)
_V3 = (
    int64("OriginalMsgHandle"),
    int64("NewMsgHandle"),
    spec("Action", INT),
    spec("PubLevel", INT),
)


@dataclass(slots=True, eq=True)
class MQPMO(ControlBlock):
    """The put-message options; defaults are IBM's initial values (MQPMO_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQPMO"
    STRUC_ID: ClassVar[str] = MQPMO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "PMO"
    Version: int = 1
    Options: int = MQPMO_NONE
    Timeout: int = -1
    Context: int = 0
    KnownDestCount: int = 0
    UnknownDestCount: int = 0
    InvalidDestCount: int = 0
    ResolvedQName: str = ""
    ResolvedQMgrName: str = ""
    RecsPresent: int = 0
    PutMsgRecFields: int = 0
    PutMsgRecOffset: int = 0
    ResponseRecOffset: int = 0
    PutMsgRecPtr: int = 0
    ResponseRecPtr: int = 0
    OriginalMsgHandle: int = MQHM_NONE
    NewMsgHandle: int = MQHM_NONE
    Action: int = MQACTP_NEW
    PubLevel: int = 9

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_PMO_ERROR
