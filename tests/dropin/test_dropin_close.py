"""MQCLOSE's delete options as IBM MQ applies them (MQCLOSE, Options; reason 2045).

MQCO_DELETE and MQCO_DELETE_PURGE delete a permanent dynamic queue (MQCO_DELETE only an
empty one: 2055), and a temporary dynamic queue through the handle whose MQOPEN made it.
On a predefined queue, an alias, the queue manager, or a temporary dynamic queue opened
by another handle they fail with 2045, and nothing is deleted nor closed.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

MODELS = "model queues make dynamic queues on the embedded queue manager"
pytestmark = pytest.mark.embedded_only(MODELS)

Q = "DEV.QUEUE.2"


def _reason(mq: ModuleType, call: object) -> int:
    with pytest.raises(mq.MQMIError) as failure:
        call()  # type: ignore[operator]
    return int(failure.value.reason)


@pytest.mark.parametrize("option", ["MQCO_DELETE", "MQCO_DELETE_PURGE"])
def test_a_predefined_queue_is_never_deleted_by_mqclose(
    mq: ModuleType, env: MQEnv, qmgr, option: str
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    queue.put(b"keep me")
    reason = _reason(mq, lambda: queue.close(getattr(mq.CMQC, option)))
    assert reason == mq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    assert env.depth(Q) == 1  # the queue and its message are still there
    assert queue.get() == b"keep me"  # and the handle is still open
    queue.close()


def test_the_queue_manager_object_is_not_deleted(mq: ModuleType, env: MQEnv, qmgr) -> None:
    od = mq.OD(ObjectType=mq.CMQC.MQOT_Q_MGR)
    obj = mq.Queue(qmgr, od, mq.CMQC.MQOO_INQUIRE)
    reason = _reason(mq, lambda: obj.close(mq.CMQC.MQCO_DELETE))
    assert reason == mq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE


def _dynamic(mq: ModuleType, env: MQEnv, qmgr, deftype: str) -> tuple[object, str]:
    model = env.define_model(f"CLOSE.{deftype}.MODEL", DEFTYPE=deftype)
    od = mq.OD(ObjectName=model, DynamicQName="CLOSE.DYN.*")
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    name = od.ObjectName
    return queue, (name.decode() if isinstance(name, bytes) else name).strip()


def test_mqco_delete_keeps_a_permanent_dynamic_queue_holding_messages(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue, name = _dynamic(mq, env, qmgr, "PERMDYN")
    queue.put(b"pending")
    assert _reason(mq, lambda: queue.close(mq.CMQC.MQCO_DELETE)) == mq.CMQC.MQRC_Q_NOT_EMPTY
    assert env.depth(name) == 1
    queue.close(mq.CMQC.MQCO_DELETE_PURGE)  # the same handle, still open: purged and deleted
    assert name not in env.broker.qm.queue_names(name)  # type: ignore[attr-defined]


def test_a_temporary_dynamic_queue_is_deleted_only_through_its_creator(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    creator, name = _dynamic(mq, env, qmgr, "TEMPDYN")
    other = mq.Queue(qmgr, name, mq.CMQC.MQOO_OUTPUT)
    assert _reason(mq, lambda: other.close(mq.CMQC.MQCO_DELETE)) == (
        mq.CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE
    )
    other.put(b"for the creator")
    other.close()
    creator.close(mq.CMQC.MQCO_DELETE)  # the creator's handle: deleted, messages and all
    assert name not in env.broker.qm.queue_names(name)  # type: ignore[attr-defined]
