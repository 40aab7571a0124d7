"""MQGMO, the get-message options: wait, syncpoint, browse, matching, message handle.

Versions 1-4, 72/80/100/112 bytes on 64-bit. MatchOptions only counts from version 2
(before that MQGET matches MsgId and CorrelId whenever they are not none); MsgHandle,
an MQINT64 after 4 bytes of Reserved2, only from version 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, int64, layouts
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQGMO_STRUC_ID = "GMO "
MQGMO_CURRENT_VERSION = 4
MQMO_MATCH_MSG_ID = 0x00000001
MQMO_MATCH_CORREL_ID = 0x00000002
MQGS_NOT_IN_GROUP = " "
MQSS_NOT_A_SEGMENT = " "
MQSEG_INHIBITED = " "
MQMTOK_NONE = b"\x00" * 16
MQRL_UNDEFINED = -1
MQHM_NONE = 0

_V1 = (
    spec("StrucId", CHAR, 4),
    spec("Version", INT),
    spec("Options", INT),
    spec("WaitInterval", INT),
    spec("Signal1", INT),
    spec("Signal2", INT),
    spec("ResolvedQName", CHAR, 48),
)
_V2 = (
    spec("MatchOptions", INT),
    spec("GroupStatus", CHAR, 1),
    spec("SegmentStatus", CHAR, 1),
    spec("Segmentation", CHAR, 1),
    spec("Reserved1", CHAR, 1),
)
_V3 = (spec("MsgToken", BYTE, 16), spec("ReturnedLength", INT))
_V4 = (spec("Reserved2", INT), int64("MsgHandle"))


@dataclass(slots=True, eq=True)
class MQGMO(ControlBlock):
    """The get-message options; defaults are IBM's initial values (MQGMO_DEFAULT).

    GroupStatus, SegmentStatus and Segmentation are single characters (``" "``, ``"L"``, ...).
    """

    STRUCTURE: ClassVar[str] = "MQGMO"
    STRUC_ID: ClassVar[str] = MQGMO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(_V1, _V2, _V3, _V4)
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "GMO"
    Version: int = 1
    Options: int = C.MQGMO_NO_WAIT
    WaitInterval: int = 0
    Signal1: int = 0
    Signal2: int = 0
    ResolvedQName: str = ""
    MatchOptions: int = MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID
    GroupStatus: str = MQGS_NOT_IN_GROUP
    SegmentStatus: str = MQSS_NOT_A_SEGMENT
    Segmentation: str = MQSEG_INHIBITED
    Reserved1: str = " "
    MsgToken: bytes = MQMTOK_NONE
    ReturnedLength: int = MQRL_UNDEFINED
    Reserved2: int = 0
    MsgHandle: int = MQHM_NONE

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_GMO_ERROR
