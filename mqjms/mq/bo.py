"""MQBO, the begin options of MQBEGIN (a global unit of work): 12 bytes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts
from mqjms.mq.structure import CHAR, INT, FieldSpec, spec

MQBO_STRUC_ID = "BO  "
MQBO_NONE = 0


@dataclass(slots=True, eq=True)
class MQBO(ControlBlock):
    """The begin options; defaults are IBM's initial values (MQBO_DEFAULT)."""

    STRUCTURE: ClassVar[str] = "MQBO"
    STRUC_ID: ClassVar[str] = MQBO_STRUC_ID
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = layouts(
        (spec("StrucId", CHAR, 4), spec("Version", INT), spec("Options", INT))
    )
    SPECS: ClassVar[tuple[FieldSpec, ...]] = LAYOUTS[-1].specs

    StrucId: str = "BO"
    Version: int = 1
    Options: int = MQBO_NONE

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_BO_ERROR
