"""PCF over mq:// to a z/OS queue manager: its MQCFT_XR_MSG and MQCFT_XR_SUMMARY replies to
an MQCFT_COMMAND_XR are bookkeeping, not results (pymqi's and ibmmq's PCFExecute drop
them); only MQCFT_XR_ITEM replies are."""

from __future__ import annotations

from typing import Any

from mqjms.mq import MQMD
from mqjms.mq import constants as C
from mqjms.mq.pcf import MQCFH, MQCFIN, MQCFST, build_pcf
from mqjms.mqi import admin_remote
from mqjms.mqi.constants import CMQCFC


class Replies:
    """A connection whose gets return the command server's replies, in order."""

    def __init__(self, *replies: bytes) -> None:
        self.replies = list(replies)

    def get(self, handle: Any, **options: Any) -> tuple[MQMD, bytes] | None:
        return (MQMD(), self.replies.pop(0)) if self.replies else None


def reply(kind: int, last: bool, *parameters: Any) -> bytes:
    control = CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST
    header = MQCFH(Type=kind, Command=CMQCFC.MQCMD_INQUIRE_Q, Control=control)
    return build_pcf(header, list(parameters))


def test_only_the_items_of_a_z_os_reply_are_results() -> None:
    conn = Replies(
        reply(CMQCFC.MQCFT_XR_MSG, False, MQCFIN(CMQCFC.MQIACF_COMMAND_INFO, 1)),
        reply(CMQCFC.MQCFT_XR_ITEM, False, MQCFST(C.MQCA_Q_NAME, String=b"APP.IN".ljust(48))),
        reply(CMQCFC.MQCFT_XR_SUMMARY, True, MQCFIN(CMQCFC.MQIACF_COMMAND_INFO, 2)),
    )
    results = admin_remote._responses(conn, None, b"\x00" * 24, "INQUIRE_Q", 1.0)  # type: ignore[arg-type]
    assert len(results) == 1
    assert [str(v).strip() for v in results[0].values()] == ["APP.IN"]
