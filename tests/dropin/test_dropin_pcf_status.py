"""PCF status and statistics commands monitoring programs send (DataDog's ibm_mq check,
Prometheus exporters), answered as IBM MQ 9.4 on Linux answers them: INQUIRE_CHANNEL_STATUS
with no channel (3065), INQUIRE_Q_MGR_STATUS, RESET_Q_STATS, INQUIRE_Q_MGR's identifier,
INQUIRE_Q's selected attributes, and IBM's default SYSTEM.ADMIN queues."""

from __future__ import annotations

import time
from types import ModuleType

import pytest

from mqjms.mq import C
from tests.support.mqenv import MQEnv

pytestmark = pytest.mark.embedded_only("PCF maps onto the embedded queue manager")


def test_channel_status_with_no_channel_is_chl_status_not_found(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # DataDog's channel collector takes 3065 as "no active channels"
    pcf = mq.PCFExecute(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_CHANNEL_STATUS({mq.CMQCFC.MQCACH_CHANNEL_NAME: b"*"})
    assert (failure.value.comp, failure.value.reason) == (
        mq.CMQC.MQCC_FAILED,
        mq.CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND,
    )


@pytest.mark.parametrize(
    ("command", "selector", "reason"),
    [
        ("MQCMD_INQUIRE_LISTENER", "MQCACH_LISTENER_NAME", C.MQRC_UNKNOWN_OBJECT_NAME),
        ("MQCMD_INQUIRE_LISTENER_STATUS", "MQCACH_LISTENER_NAME", 3250),  # LSTR_STATUS_NOT_FOUND
        ("MQCMD_INQUIRE_SERVICE", "MQCA_SERVICE_NAME", C.MQRC_UNKNOWN_OBJECT_NAME),
        ("MQCMD_INQUIRE_SERVICE_STATUS", "MQCA_SERVICE_NAME", 3252),  # SERV_STATUS_NOT_FOUND
    ],
)
def test_listeners_and_services_are_none_as_ibm_mq_answers_it(
    mq: ModuleType, env: MQEnv, qmgr, command: str, selector: str, reason: int
) -> None:
    # exporters ask for listener and service status beside channel status; a name that
    # matches none is 2085 for the object, the status commands' "not found" for status
    pcf = mq.PCFExecute(qmgr)
    name = getattr(mq.CMQCFC, selector, None) or getattr(mq.CMQC, selector)
    with pytest.raises(mq.MQMIError) as failure:
        getattr(pcf, command)({name: b"*"})
    assert (failure.value.comp, failure.value.reason) == (mq.CMQC.MQCC_FAILED, reason)


def test_queue_manager_status_is_running_with_its_connections(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    pcf = mq.PCFExecute(qmgr)
    [status] = pcf.MQCMD_INQUIRE_Q_MGR_STATUS(
        {mq.CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS: [mq.CMQCFC.MQIACF_ALL]}
    )
    name = qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip()
    assert status[mq.CMQC.MQCA_Q_MGR_NAME].strip() == name
    assert status[mq.CMQCFC.MQIACF_Q_MGR_STATUS] == mq.CMQCFC.MQQMSTA_RUNNING
    assert status[mq.CMQCFC.MQIACF_CMD_SERVER_STATUS] == mq.CMQC.MQSVC_STATUS_RUNNING
    before = status[mq.CMQCFC.MQIACF_CONNECTION_COUNT]
    assert before >= 1
    # started by this test's queue manager: today, by its own clock
    assert status[mq.CMQCFC.MQCACF_Q_MGR_START_DATE].strip() == time.strftime("%Y-%m-%d").encode()
    assert len(status[mq.CMQCFC.MQCACF_Q_MGR_START_TIME].strip()) == 8
    other = mq.connect("QM1")
    try:
        [status] = pcf.MQCMD_INQUIRE_Q_MGR_STATUS(
            {mq.CMQCFC.MQIACF_Q_MGR_STATUS_ATTRS: [mq.CMQCFC.MQIACF_CONNECTION_COUNT]}
        )
    finally:
        other.disconnect()
    assert status[mq.CMQCFC.MQIACF_CONNECTION_COUNT] == before + 1
    # asked for one attribute: it, and what is always returned
    assert set(status) == {
        mq.CMQC.MQCA_Q_MGR_NAME,
        mq.CMQCFC.MQIACF_Q_MGR_STATUS,
        mq.CMQCFC.MQIACF_CONNECTION_COUNT,
    }


def test_inquire_q_mgr_answers_the_identifier_mqinq_gives(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    [found] = pcf.MQCMD_INQUIRE_Q_MGR()
    identifier = qmgr.inquire(mq.CMQC.MQCA_Q_MGR_IDENTIFIER)
    assert found[mq.CMQC.MQCA_Q_MGR_IDENTIFIER].strip() == identifier.strip()
    assert identifier.strip().startswith(qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip() + b"_")


def test_selected_queue_attributes_are_all_returned(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    asked = [
        mq.CMQC.MQIA_PROPERTY_CONTROL,
        mq.CMQC.MQIA_MONITORING_Q,
        mq.CMQC.MQIA_STATISTICS_Q,
        mq.CMQC.MQIA_ACCOUNTING_Q,
        mq.CMQC.MQIA_DEFINITION_TYPE,
    ]
    [found] = pcf.MQCMD_INQUIRE_Q(
        {mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1", mq.CMQCFC.MQIACF_Q_ATTRS: asked}
    )
    assert found[mq.CMQC.MQIA_PROPERTY_CONTROL] == qmgr_inquire(
        mq, qmgr, "DEV.QUEUE.1", mq.CMQC.MQIA_PROPERTY_CONTROL
    )
    assert found[mq.CMQC.MQIA_MONITORING_Q] == mq.CMQC.MQMON_Q_MGR
    assert found[mq.CMQC.MQIA_STATISTICS_Q] == mq.CMQC.MQMON_Q_MGR
    assert found[mq.CMQC.MQIA_ACCOUNTING_Q] == mq.CMQC.MQMON_Q_MGR
    assert found[mq.CMQC.MQIA_DEFINITION_TYPE] == mq.CMQC.MQQDT_PREDEFINED
    # every attribute of all is there when each is asked for by name
    [every] = pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1"})
    [each] = pcf.MQCMD_INQUIRE_Q(
        {mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.1", mq.CMQCFC.MQIACF_Q_ATTRS: sorted(every)}
    )
    assert set(each) == set(every)


def qmgr_inquire(mq: ModuleType, qmgr: object, queue: str, selector: int) -> int:
    """What MQINQ answers for ``selector`` on ``queue``."""
    opened = mq.Queue(qmgr, queue, mq.CMQC.MQOO_INQUIRE)
    try:
        return int(opened.inquire(selector))
    finally:
        opened.close()


def reset(mq: ModuleType, qmgr: object, queue: str) -> dict[int, object]:
    [stats] = mq.PCFExecute(qmgr).MQCMD_RESET_Q_STATS({mq.CMQC.MQCA_Q_NAME: queue.encode()})
    return stats


def test_reset_queue_statistics_counts_puts_gets_and_the_high_depth(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    q = "DEV.QUEUE.2"
    reset(mq, qmgr, q)
    queue = mq.Queue(qmgr, q, mq.CMQC.MQOO_INPUT_SHARED | mq.CMQC.MQOO_OUTPUT)
    for body in (b"1", b"2", b"3"):
        queue.put(body)
    sync = mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT)
    queue.put(b"backed out", mq.MD(), sync)  # enqueued, then backed out: still counted
    qmgr.backout()
    queue.get()
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_SYNCPOINT)
    queue.get(None, mq.MD(), gmo)  # dequeued, then backed out: still counted
    qmgr.backout()
    queue.close()
    other = mq.connect("QM1")  # the statistics are the queue manager's, not a connection's
    try:
        stats = reset(mq, other, q)
        assert stats[mq.CMQC.MQCA_Q_NAME].strip() == q.encode()
        assert stats[mq.CMQC.MQIA_MSG_ENQ_COUNT] == 4
        assert stats[mq.CMQC.MQIA_MSG_DEQ_COUNT] == 2
        assert stats[mq.CMQC.MQIA_HIGH_Q_DEPTH] == 4
        assert 0 <= stats[mq.CMQC.MQIA_TIME_SINCE_RESET] < 600
        again = reset(mq, other, q)  # reset: counted afresh, high depth from the depth
    finally:
        other.disconnect()
    assert again[mq.CMQC.MQIA_MSG_ENQ_COUNT] == 0
    assert again[mq.CMQC.MQIA_MSG_DEQ_COUNT] == 0
    assert again[mq.CMQC.MQIA_HIGH_Q_DEPTH] == env.depth(q) == 2


def test_reset_queue_statistics_does_not_count_a_clear_as_gets(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    reset(mq, qmgr, "DEV.QUEUE.3")
    env.put_raw("DEV.QUEUE.3", b"a")
    env.put_raw("DEV.QUEUE.3", b"b")
    mq.PCFExecute(qmgr).MQCMD_CLEAR_Q({mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.3"})
    stats = reset(mq, qmgr, "DEV.QUEUE.3")
    assert (stats[mq.CMQC.MQIA_MSG_ENQ_COUNT], stats[mq.CMQC.MQIA_MSG_DEQ_COUNT]) == (2, 0)


def test_reset_queue_statistics_of_no_such_queue_and_of_an_alias(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    env.define_alias("AN.ALIAS", "DEV.QUEUE.1")
    pcf = mq.PCFExecute(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_RESET_Q_STATS({mq.CMQC.MQCA_Q_NAME: b"NO.SUCH.QUEUE"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_RESET_Q_STATS({mq.CMQC.MQCA_Q_NAME: b"AN.ALIAS"})
    assert failure.value.reason == C.MQRCCF_OBJECT_WRONG_TYPE
    found = pcf.MQCMD_RESET_Q_STATS({mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.*"})
    assert [s[mq.CMQC.MQCA_Q_NAME].strip() for s in found] == [
        b"DEV.QUEUE.1",
        b"DEV.QUEUE.2",
        b"DEV.QUEUE.3",
    ]


@pytest.mark.parametrize(
    "name",
    [
        "SYSTEM.ADMIN.STATISTICS.QUEUE",
        "SYSTEM.ADMIN.ACCOUNTING.QUEUE",
        "SYSTEM.ADMIN.QMGR.EVENT",
        "SYSTEM.ADMIN.PERFM.EVENT",
        "SYSTEM.ADMIN.CHANNEL.EVENT",
        "SYSTEM.ADMIN.CONFIG.EVENT",
        "SYSTEM.ADMIN.COMMAND.EVENT",
        "SYSTEM.ADMIN.LOGGER.EVENT",
        "SYSTEM.ADMIN.PUBSUB.EVENT",
    ],
)
def test_ibm_default_admin_queues_exist_and_are_empty(
    mq: ModuleType, env: MQEnv, qmgr, name: str
) -> None:
    # DataDog's stats collector reads SYSTEM.ADMIN.STATISTICS.QUEUE until 2033
    queue = mq.Queue(qmgr, name)
    with pytest.raises(mq.MQMIError) as failure:
        queue.get()
    assert failure.value.reason == C.MQRC_NO_MSG_AVAILABLE
    queue.close()


def test_inquire_process_answers_the_process_definitions(mq: ModuleType, env: MQEnv, qmgr) -> None:
    env.broker.qm.define_process(
        "ORDERS.PROC", {"APPLTYPE": "UNIX", "APPLICID": "/bin/orders", "USERDATA": "u"}
    )
    pcf = mq.PCFExecute(qmgr)
    [found] = pcf.MQCMD_INQUIRE_PROCESS({mq.CMQC.MQCA_PROCESS_NAME: b"ORDERS.*"})
    assert found[mq.CMQC.MQCA_PROCESS_NAME].strip() == b"ORDERS.PROC"
    assert found[mq.CMQC.MQIA_APPL_TYPE] == mq.CMQC.MQAT_UNIX
    assert found[mq.CMQC.MQCA_APPL_ID].strip() == b"/bin/orders"
    assert found[mq.CMQC.MQCA_USER_DATA].strip() == b"u"
    [only] = pcf.MQCMD_INQUIRE_PROCESS(
        {
            mq.CMQC.MQCA_PROCESS_NAME: b"ORDERS.PROC",
            mq.CMQCFC.MQIACF_PROCESS_ATTRS: [mq.CMQC.MQCA_APPL_ID],
        }
    )
    assert set(only) == {mq.CMQC.MQCA_PROCESS_NAME, mq.CMQC.MQCA_APPL_ID}
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_PROCESS({mq.CMQC.MQCA_PROCESS_NAME: b"NO.SUCH.PROC"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
