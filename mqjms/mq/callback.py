"""MQCBD and MQCTLO: registering a message consumer with MQCB and starting it with MQCTL.

MQCBD is 168 bytes on 64-bit (two pointers, then 4 bytes of tail padding); MQCTLO 24.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts, ptr
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQCBD_STRUC_ID = "CBD "
MQCTLO_STRUC_ID = "CTLO"
MQCBC_STRUC_ID = "CBC "
MQCBT_MESSAGE_CONSUMER = 1
MQCBDO_NONE = 0
MQCBD_FULL_MSG_LENGTH = -1
MQCTLO_NONE = 0


@dataclass(slots=True, eq=True)
class MQCBD(ControlBlock):
    """The callback descriptor; defaults are IBM's initial values (MQCBD_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQCBD"
    STRUC_ID: ClassVar[str] = MQCBD_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        (
            spec("StrucId", CHAR, 4),
            spec("Version", INT),
            spec("CallbackType", INT),
            spec("Options", INT),
            ptr("CallbackArea"),
            ptr("CallbackFunction"),
            spec("CallbackName", CHAR, 128),
            spec("MaxMsgLength", INT),
        )
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CBD"
    Version: int = 1
    CallbackType: int = MQCBT_MESSAGE_CONSUMER
    Options: int = MQCBDO_NONE
    CallbackArea: int = 0
    CallbackFunction: int = 0
    CallbackName: str = ""
    MaxMsgLength: int = MQCBD_FULL_MSG_LENGTH

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CBD_ERROR


@dataclass(slots=True, eq=True)
class MQCTLO(ControlBlock):
    """The control options of MQCTL; defaults are IBM's initial values (MQCTLO_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQCTLO"
    STRUC_ID: ClassVar[str] = MQCTLO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        (
            spec("StrucId", CHAR, 4),
            spec("Version", INT),
            spec("Options", INT),
            spec("Reserved", INT),
            ptr("ConnectionArea"),
        )
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CTLO"
    Version: int = 1
    Options: int = MQCTLO_NONE
    Reserved: int = 0
    ConnectionArea: int = 0

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CTLO_ERROR


@dataclass(slots=True, eq=True)
class MQCBC(ControlBlock):
    """The callback context a consumer function is called with: why (CallType, Reason),
    for which object (Hobj), the areas its registration and MQCTL gave, and how long the
    message is. Defaults are IBM's initial values (MQCBC_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQCBC"
    STRUC_ID: ClassVar[str] = MQCBC_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        (
            spec("StrucId", CHAR, 4),
            spec("Version", INT),
            spec("CallType", INT),
            spec("Hobj", INT),
            ptr("CallbackArea"),
            ptr("ConnectionArea"),
            spec("CompCode", INT),
            spec("Reason", INT),
            spec("State", INT),
            spec("DataLength", INT),
            spec("BufferLength", INT),
            spec("Flags", INT),
        ),
        (spec("ReconnectDelay", INT),),
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "CBC"
    Version: int = 2
    CallType: int = 0
    Hobj: int = 0
    CallbackArea: int = 0
    ConnectionArea: int = 0
    CompCode: int = C.MQCC_OK
    Reason: int = C.MQRC_NONE
    State: int = 0
    DataLength: int = 0
    BufferLength: int = 0
    Flags: int = 0
    ReconnectDelay: int = 0
