"""PCF status commands answered from what the embedded queue manager really knows.

INQUIRE_Q_MGR_STATUS (monitoring programs' "is it up, how many connections") answers the
name, MQQMSTA_RUNNING, the command server running (the drop-in answers commands), no
channel initiator, no standby instance, the connections now and, for a queue manager started
by this mqjms or a later one, when it started; what it cannot know (installation, log
extents) is left out rather than made up. RESET_Q_STATS reports and resets the per-queue
statistics the queue manager keeps (:mod:`mqjms.qmgr.qstats`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QueueManager

from .admin_params import Params, Response, attributes_asked, text


def _inquire_q_mgr_status(qm: QueueManager, params: Params) -> list[Response]:
    status: Response = {
        CMQC.MQCA_Q_MGR_NAME: qm.name,
        CMQCFC.MQIACF_Q_MGR_STATUS: CMQCFC.MQQMSTA_RUNNING,
        CMQCFC.MQIACF_CMD_SERVER_STATUS: CMQC.MQSVC_STATUS_RUNNING,
        CMQCFC.MQIACF_CHINIT_STATUS: CMQC.MQSVC_STATUS_STOPPED,  # no channels
        CMQCFC.MQIACF_PERMIT_STANDBY: CMQCFC.MQSTDBY_NOT_PERMITTED,
        CMQCFC.MQIACF_CONNECTION_COUNT: qm.connection_count(),
    }
    started = qm.started_at()
    if started is not None:
        at = time.localtime(started)  # as the queue manager's own clock shows it
        status[CMQCFC.MQCACF_Q_MGR_START_DATE] = time.strftime("%Y-%m-%d", at)
        status[CMQCFC.MQCACF_Q_MGR_START_TIME] = time.strftime("%H.%M.%S", at)
    wanted = attributes_asked(params, CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS)
    if wanted is not None:
        keep = {*wanted, CMQC.MQCA_Q_MGR_NAME, CMQCFC.MQIACF_Q_MGR_STATUS}  # always returned
        status = {k: v for k, v in status.items() if k in keep}
    return [status]


def _reset_q_stats(qm: QueueManager, params: Params) -> list[Response]:
    pattern = text(params.get(CMQC.MQCA_Q_NAME, "")) or "*"
    return [
        {
            CMQC.MQCA_Q_NAME: found.queue,
            CMQC.MQIA_QSG_DISP: CMQC.MQQSGD_Q_MGR,
            CMQC.MQIA_HIGH_Q_DEPTH: found.high_depth,
            CMQC.MQIA_MSG_ENQ_COUNT: found.enqueued,
            CMQC.MQIA_MSG_DEQ_COUNT: found.dequeued,
            CMQC.MQIA_TIME_SINCE_RESET: found.seconds_since_reset,
        }
        for found in qm.reset_queue_stats(pattern)
    ]


COMMANDS: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    "MQCMD_INQUIRE_Q_MGR_STATUS": _inquire_q_mgr_status,
    "MQCMD_RESET_Q_STATS": _reset_q_stats,
}

__all__ = ["COMMANDS"]
