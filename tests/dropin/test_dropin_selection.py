"""Selection strings (MQOD and MQSD SelectionString, IBM MQ's message selectors): mqjms
does not select messages, so an MQOPEN or MQSUB that asks for a selection fails with
MQRC_SELECTION_NOT_AVAILABLE (2551, IBM's reason when a selection cannot be evaluated)
rather than hand the program every message (both flavours, every transport)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from tests.support.mqenv import MQEnv

QUEUE = "DEV.QUEUE.1"


def test_an_mqopen_with_a_selection_string_is_refused_and_takes_nothing(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    qmgr.put1(QUEUE, b"blue")
    od = mq.OD(Version=mq.CMQC.MQOD_VERSION_4, ObjectName=QUEUE)
    od.set_vs("SelectionString", "color = 'red'")
    with pytest.raises(mq.MQMIError) as refused:
        mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_SHARED)
    assert refused.value.reason == mq.CMQC.MQRC_SELECTION_NOT_AVAILABLE
    queue = mq.Queue(qmgr, QUEUE, mq.CMQC.MQOO_INPUT_SHARED)  # without one: as before
    assert queue.get(None, mq.MD(), mq.GMO(Options=mq.CMQC.MQGMO_NO_WAIT)) == b"blue"
    queue.close()


@pytest.mark.requires("pubsub")
def test_an_mqsub_with_a_selection_string_is_refused(mq: ModuleType, env: MQEnv, qmgr: Any) -> None:
    sd = mq.SD(Options=mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "selection/prices")
    sd.set_vs("SelectionString", "region = 'north'")
    with pytest.raises(mq.MQMIError) as refused:
        mq.Subscription(qmgr, sub_desc=sd)
    assert refused.value.reason == mq.CMQC.MQRC_SELECTION_NOT_AVAILABLE


def test_a_selection_string_where_none_applies_is_2516(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    # an MQOPEN for output, or MQPUT1: MQRC_SELECTOR_INVALID_FOR_TYPE, as on IBM MQ
    od = mq.OD(Version=mq.CMQC.MQOD_VERSION_4, ObjectName=QUEUE)
    od.set_vs("SelectionString", "color = 'red'")
    with pytest.raises(mq.MQMIError) as refused:
        mq.Queue(qmgr, od, mq.CMQC.MQOO_OUTPUT)
    assert refused.value.reason == mq.CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE
    with pytest.raises(mq.MQMIError) as refused:
        qmgr.put1(od, b"x")
    assert refused.value.reason == mq.CMQC.MQRC_SELECTOR_INVALID_FOR_TYPE
    assert mq.Queue(qmgr, QUEUE, mq.CMQC.MQOO_INQUIRE).inquire(mq.CMQC.MQIA_CURRENT_Q_DEPTH) == 0
