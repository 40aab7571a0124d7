"""A temporary dynamic queue holds no persistent message (MQPUT, MQPUT1: reason 2048
MQRC_PERSISTENT_NOT_ALLOWED), whether the MQMD says MQPER_PERSISTENT or takes the
queue's DEFPSIST(YES); non-persistent messages are put as usual."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

pytestmark = pytest.mark.embedded_only("model queues make dynamic queues on the embedded one")


def _tempdyn(mq: ModuleType, env: MQEnv, qmgr, **attrs: object) -> tuple[object, str]:
    model = env.define_model("TD.MODEL", DEFTYPE="TEMPDYN", **attrs)
    od = mq.OD(ObjectName=model, DynamicQName="TD.*")
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    name = od.ObjectName
    return queue, (name.decode() if isinstance(name, bytes) else name).strip()


def test_a_persistent_put_to_a_temporary_dynamic_queue_fails_2048(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue, name = _tempdyn(mq, env, qmgr)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"lost at close", mq.MD(Persistence=mq.CMQC.MQPER_PERSISTENT))
    assert caught.value.reason == mq.CMQC.MQRC_PERSISTENT_NOT_ALLOWED
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.put1(name, b"x", mq.MD(Persistence=mq.CMQC.MQPER_PERSISTENT))
    assert caught.value.reason == mq.CMQC.MQRC_PERSISTENT_NOT_ALLOWED
    assert env.depth(name) == 0
    queue.put(b"kept", mq.MD(Persistence=mq.CMQC.MQPER_NOT_PERSISTENT))
    assert queue.get() == b"kept"


def test_persistence_as_queue_default_yes_fails_too(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue, _ = _tempdyn(mq, env, qmgr, DEFPSIST="YES")
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"as the queue's default")
    assert caught.value.reason == mq.CMQC.MQRC_PERSISTENT_NOT_ALLOWED


def test_mqopen_of_a_model_queue_names_the_queue_and_its_queue_manager(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ, MQOD ObjectQMgrName: for a model queue "the queue manager creates a dynamic
    # queue ... and returns in the ObjectQMgrName field the name of the queue manager on
    # which the queue is created"
    queue, name = _tempdyn(mq, env, qmgr)
    try:
        assert name.startswith("TD.")
    finally:
        queue.close()
    od = mq.OD(ObjectName="TD.MODEL", DynamicQName="TD.*")
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        got = od.ObjectQMgrName
        assert (got.decode() if isinstance(got, bytes) else got).strip() == env.qmgr_name
    finally:
        queue.close()


def test_pymqi_programs_read_a_queues_mqod_and_qmgr_where_pymqi_keeps_them(
    env: MQEnv,
) -> None:
    # pymqi 1.12 has no accessor for the MQOD MQOPEN filled in, so programs read the
    # name-mangled attributes its Queue keeps: Zato names the dynamic queue it opened
    # from a model with ``queue._Queue__qDesc.ObjectName.strip()``; tracing wrappers
    # find the QueueManager in ``_Queue__qMgr``
    import mqjms.pymqi as pymqi

    env.define_model("TD.MODEL", DEFTYPE="TEMPDYN")
    qmgr = pymqi.connect("QM1")
    try:
        lazy = pymqi.Queue(qmgr, "DEV.QUEUE.1")
        assert lazy._Queue__qDesc.ObjectName.strip() == b"DEV.QUEUE.1"
        assert lazy._Queue__qHandle is None and lazy._Queue__openOpts is None
        queue = pymqi.Queue(qmgr, "TD.MODEL", pymqi.CMQC.MQOO_INPUT_SHARED)
        assert queue._Queue__qMgr is qmgr
        assert queue._Queue__openOpts == pymqi.CMQC.MQOO_INPUT_SHARED
        assert queue._Queue__qHandle == queue.get_handle()
        name = queue._Queue__qDesc.ObjectName.strip()
        assert name.startswith(b"AMQ.") and name != b"TD.MODEL"
        qmgr.put1(name, b"reply")
        assert queue.get() == b"reply"
        queue.close()
        assert queue._Queue__qDesc is None and queue._Queue__qHandle is None
    finally:
        qmgr.disconnect()


def test_a_handle_to_a_dynamic_queue_its_creator_deleted_is_2052(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ, MQRC_Q_DELETED (2052): "An Hobj queue handle specified on a call refers to a
    # dynamic queue that has been deleted since the queue was opened". Before, each call
    # on the other connection's handle said 2085, as for a name never defined
    queue, name = _tempdyn(mq, env, qmgr)
    other = mq.connect("QM1")
    try:
        options = mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_INPUT_SHARED | mq.CMQC.MQOO_INQUIRE
        kept = mq.Queue(other, name, options)
        queue.close()  # its creator's close deletes it
        calls = {
            "put": lambda: kept.put(b"x", mq.MD(Persistence=mq.CMQC.MQPER_NOT_PERSISTENT)),
            "get": lambda: kept.get(None, mq.MD(), mq.GMO(Options=mq.CMQC.MQGMO_NO_WAIT)),
            "inquire": lambda: kept.inquire(mq.CMQC.MQIA_CURRENT_Q_DEPTH),
        }
        for call in calls.values():
            with pytest.raises(mq.MQMIError) as caught:
                call()
            assert caught.value.reason == mq.CMQC.MQRC_Q_DELETED
        kept.close()
    finally:
        other.disconnect()
