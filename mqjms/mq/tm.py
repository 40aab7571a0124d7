"""MQTM, the trigger message, and MQTMC2, its character form handed to started programs.

The queue manager puts an MQTM (Format MQTRIG) on the initiation queue when a trigger
event occurs; a trigger monitor passes the started application either the MQTM or an
MQTMC2, whose integers are character fields and which adds the queue manager's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.structure import CHAR, INT, FieldSpec, MQStructure, byte_order, spec

MQTM_STRUC_ID = "TM  "
MQTM_VERSION_1 = 1
MQTM_LENGTH_1 = 684
MQTMC_STRUC_ID = "TMC "
MQTMC_VERSION_2 = "   2"
MQTMC2_LENGTH_2 = 732
# IBM's reason for a malformed MQTMC2; not (yet) in constants, so reason_name shows MQRC_2191.
MQRC_TMC_ERROR = getattr(C, "MQRC_TMC_ERROR", 2191)


@dataclass(slots=True, eq=True)
class MQTM(MQStructure):
    """The trigger message, 684 bytes: integers in the generating queue manager's encoding."""

    STRUCTURE: ClassVar[str] = "MQTM"
    STRUC_ID: ClassVar[str] = MQTM_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", INT),
        spec("QName", CHAR, 48),
        spec("ProcessName", CHAR, 48),
        spec("TriggerData", CHAR, 64),
        spec("ApplType", INT),
        spec("ApplId", CHAR, 256),
        spec("EnvData", CHAR, 128),
        spec("UserData", CHAR, 128),
    )

    StrucId: str = "TM"
    Version: int = MQTM_VERSION_1
    QName: str = ""
    ProcessName: str = ""
    TriggerData: str = ""
    ApplType: int = 0
    ApplId: str = ""
    EnvData: str = ""
    UserData: str = ""

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_TM_ERROR


def parse_tm(data: bytes | memoryview, encoding: int, offset: int = 0) -> MQTM:
    """The MQTM at ``offset`` in a trigger message, with its StrucId and Version checked."""
    try:
        byte_order(encoding)
    except ValueError as exc:
        raise MQFormatError(
            "MQTM", "Encoding", offset, f"the preceding header's {exc}", C.MQRC_TM_ERROR
        ) from None
    tm = MQTM.unpack(data, encoding, offset)
    if tm.Version != MQTM_VERSION_1:
        raise MQFormatError(
            "MQTM",
            "Version",
            offset + 4,
            f"expected {MQTM_VERSION_1}, found {tm.Version}",
            C.MQRC_TM_ERROR,
        )
    return tm


@dataclass(slots=True, eq=True)
class MQTMC2(MQStructure):
    """The character-format trigger message, 732 bytes; no integers, so no byte order.

    ``Version`` is the 4-character ``'   2'``; ``ApplType`` is always blanks (IBM: "whatever
    the value in the ApplType field in the MQTM").
    """

    STRUCTURE: ClassVar[str] = "MQTMC2"
    STRUC_ID: ClassVar[str] = MQTMC_STRUC_ID
    SPECS: ClassVar[tuple[FieldSpec, ...]] = (
        spec("StrucId", CHAR, 4),
        spec("Version", CHAR, 4),
        spec("QName", CHAR, 48),
        spec("ProcessName", CHAR, 48),
        spec("TriggerData", CHAR, 64),
        spec("ApplType", CHAR, 4),
        spec("ApplId", CHAR, 256),
        spec("EnvData", CHAR, 128),
        spec("UserData", CHAR, 128),
        spec("QMgrName", CHAR, 48),
    )

    StrucId: str = "TMC"
    Version: str = MQTMC_VERSION_2
    QName: str = ""
    ProcessName: str = ""
    TriggerData: str = ""
    ApplType: str = ""
    ApplId: str = ""
    EnvData: str = ""
    UserData: str = ""
    QMgrName: str = ""

    @classmethod
    def format_reason(cls) -> int:
        return MQRC_TMC_ERROR

    @classmethod
    def from_tm(cls, tm: MQTM, qmgr_name: str) -> MQTMC2:
        """What a trigger monitor passes to the program it starts for ``tm``."""
        return cls(
            QName=tm.QName,
            ProcessName=tm.ProcessName,
            TriggerData=tm.TriggerData,
            ApplId=tm.ApplId,
            EnvData=tm.EnvData,
            UserData=tm.UserData,
            QMgrName=qmgr_name,
        )


def parse_tmc2(data: bytes | memoryview, offset: int = 0) -> MQTMC2:
    """The MQTMC2 at ``offset``, with its StrucId and Version checked."""
    tmc = MQTMC2.unpack(data, C.MQENC_NATIVE, offset)
    if tmc.Version != MQTMC_VERSION_2:
        raise MQFormatError(
            "MQTMC2",
            "Version",
            offset + 4,
            f"expected {MQTMC_VERSION_2!r}, found {tmc.Version!r}",
            MQRC_TMC_ERROR,
        )
    return tmc
