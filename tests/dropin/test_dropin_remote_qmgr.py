"""An MQOD's ObjectQMgrName: blank or this queue manager's name (or the one the program
connected with) is local; any other is 2087 MQRC_UNKNOWN_REMOTE_Q_MGR on MQOPEN and
MQPUT1, since mqjms has no channels to another queue manager. Before, it was ignored, and
a reply meant for a remote requester landed on a local queue of the same name."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.3"


def test_another_queue_manager_is_2087_and_nothing_is_put(mq: ModuleType, env: MQEnv, qmgr) -> None:
    od = mq.OD(ObjectName=Q, ObjectQMgrName="QM_ELSEWHERE")
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.put1(od, b"for elsewhere", mq.MD())
    assert caught.value.reason == mq.CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    with pytest.raises(mq.MQMIError) as caught:
        mq.Queue(qmgr, mq.OD(ObjectName=Q, ObjectQMgrName="QM_ELSEWHERE"), mq.CMQC.MQOO_OUTPUT)
    assert caught.value.reason == mq.CMQC.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert env.depth(Q) == 0


def test_this_queue_manager_by_name_or_blank_is_local(mq: ModuleType, env: MQEnv, qmgr) -> None:
    own = qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME)
    own = (own.decode() if isinstance(own, bytes) else own).strip()
    for name in (own, ""):
        qmgr.put1(mq.OD(ObjectName=Q, ObjectQMgrName=name), b"here", mq.MD())
    assert env.depth(Q) == 2


def test_a_name_routed_to_the_same_url_is_local(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # configure(qmgrs=...) sending two names to one queue manager makes both local
    from mqjms.mqi import routing

    saved = routing.routes()
    hconn_url = saved.url_for("QM1")
    try:
        routing.configure(qmgrs={"QM_ALIAS": hconn_url})
        qmgr.put1(mq.OD(ObjectName=Q, ObjectQMgrName="QM_ALIAS"), b"routed here", mq.MD())
    finally:
        routing.configure(qmgrs=dict(saved.qmgrs))
    assert env.depth(Q) == 1
