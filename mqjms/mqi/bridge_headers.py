"""ibmmq's CIH and IIH: the CICS and IMS bridge headers a program puts before its data
(``q.put(cih.pack() + data, MD(Format=CMQC.MQFMT_CICS))``).

The queue managers mqjms runs have no CICS or IMS bridge, so nothing reads them here;
they are real structures all the same (IBM's fields and initial values, ibmmq's names,
``_StrucId``, the same bytes), for programs that build, send and parse them.
"""

from __future__ import annotations

from typing import Any

from mqjms.mqi.constants import CMQC
from mqjms.mqi.structures import MQOpts

_LONG = "i"


class CIH(MQOpts):
    """MQCIH version 2: the CICS bridge header (180 bytes)."""

    def __init__(self, **kw: Any) -> None:
        blank = " "  # ibmmq's initial value of a character field: one blank, NUL-padded
        super().__init__(
            [
                ["_StrucId", CMQC.MQCIH_STRUC_ID, "4s"],
                ["Version", CMQC.MQCIH_VERSION_2, _LONG],
                ["StrucLength", CMQC.MQCIH_LENGTH_2, _LONG],
                ["Encoding", 0, _LONG],
                ["CodedCharSetId", 0, _LONG],
                ["Format", CMQC.MQFMT_NONE, "8s"],
                ["Flags", CMQC.MQCIH_NONE, _LONG],
                ["ReturnCode", CMQC.MQCRC_OK, _LONG],
                ["CompCode", CMQC.MQCC_OK, _LONG],
                ["Reason", CMQC.MQRC_NONE, _LONG],
                ["UOWControl", CMQC.MQCUOWC_ONLY, _LONG],
                ["GetWaitInterval", CMQC.MQCGWI_DEFAULT, _LONG],
                ["LinkType", CMQC.MQCLT_PROGRAM, _LONG],
                ["OutputDataLength", CMQC.MQCODL_AS_INPUT, _LONG],
                ["FacilityKeepTime", 0, _LONG],
                ["ADSDescriptor", CMQC.MQCADSD_NONE, _LONG],
                ["ConversationalTask", CMQC.MQCCT_NO, _LONG],
                ["TaskEndStatus", CMQC.MQCTES_NOSYNC, _LONG],
                ["Facility", CMQC.MQCFAC_NONE, "8s"],
                ["Function", CMQC.MQCFUNC_NONE, "4s"],
                ["AbendCode", blank, "4s"],
                ["Authenticator", blank, "8s"],
                ["_Reserved1", blank, "8s"],
                ["ReplyToFormat", CMQC.MQFMT_NONE, "8s"],
                ["RemoteSysId", blank, "4s"],
                ["RemoteTransId", blank, "4s"],
                ["TransactionId", blank, "4s"],
                ["FacilityLike", blank, "4s"],
                ["AttentionId", blank, "4s"],
                ["StartCode", CMQC.MQCSC_NONE, "4s"],
                ["CancelCode", blank, "4s"],
                ["NextTransactionId", blank, "4s"],
                ["_Reserved2", blank, "8s"],
                ["_Reserved3", blank, "8s"],
                ["CursorPosition", 0, _LONG],
                ["ErrorOffset", 0, _LONG],
                ["InputItem", 0, _LONG],
                ["_Reserved4", 0, _LONG],
            ],
            **kw,
        )


class IIH(MQOpts):
    """MQIIH version 1: the IMS bridge header (84 bytes), before the LLZZ segments."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(
            [
                ["_StrucId", CMQC.MQIIH_STRUC_ID, "4s"],
                ["Version", CMQC.MQIIH_VERSION_1, _LONG],
                ["StrucLength", CMQC.MQIIH_LENGTH_1, _LONG],
                ["Encoding", 0, _LONG],
                ["CodedCharSetId", 0, _LONG],
                ["Format", CMQC.MQFMT_NONE, "8s"],
                ["Flags", CMQC.MQIIH_NONE, _LONG],
                ["LTermOverride", " ", "8s"],
                ["MFSMapName", " ", "8s"],
                ["ReplyToFormat", CMQC.MQFMT_NONE, "8s"],
                ["Authenticator", CMQC.MQIAUT_NONE, "8s"],
                ["TranInstanceId", CMQC.MQITII_NONE, "16s"],
                ["TranState", CMQC.MQITS_NOT_IN_CONVERSATION, "b"],
                ["CommitMode", CMQC.MQICM_COMMIT_THEN_SEND, "b"],
                ["SecurityScope", CMQC.MQISS_CHECK, "b"],
                ["_Reserved", 0, "b"],
            ],
            **kw,
        )
