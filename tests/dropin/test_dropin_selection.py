"""Selection strings (MQOD and MQSD SelectionString, IBM MQ's message selectors): mqjms
does not select messages on queues, so an MQOPEN that asks for a selection fails with
MQRC_SELECTION_NOT_AVAILABLE (2551, IBM's reason when a selection cannot be evaluated)
rather than hand the program every message (both flavours, every transport); an MQSUB's
selects publications where the transport declares ``subscription_selectors`` (the
embedded queue manager), else it is 2551 too."""

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
    if "subscription_selectors" in env.broker.features:
        pytest.skip("this transport selects publications (see the test below)")
    sd = mq.SD(Options=mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "selection/prices")
    sd.set_vs("SelectionString", "region = 'north'")
    with pytest.raises(mq.MQMIError) as refused:
        mq.Subscription(qmgr, sub_desc=sd)
    assert refused.value.reason == mq.CMQC.MQRC_SELECTION_NOT_AVAILABLE


@pytest.mark.requires("subscription_selectors")
def test_an_mqsub_selection_string_selects_the_publications(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    # IBM MQ: a subscription's SelectionString (a JMS selector over the publication's
    # properties and header fields) lets through only what it selects; 2459 for bad
    # syntax (it was 2551: every selection string was refused)
    sd = mq.SD(Options=mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED)
    sd.set_vs("ObjectString", "selection/prices")
    sd.set_vs("SelectionString", "region = 'north' AND price > 10")
    sub = mq.Subscription(qmgr, sub_desc=sd)
    publisher = mq.Topic(qmgr, topic_string="selection/prices")
    for region, price in (("north", 20), ("south", 30), ("north", 5)):
        handle = mq.MessageHandle(qmgr)
        handle.properties.set("region", region)
        handle.properties.set("price", price, property_type=mq.CMQC.MQTYPE_INT32)
        pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3, OriginalMsgHandle=handle.msg_handle)
        publisher.pub(f"{region} {price}".encode(), mq.MD(), pmo)
    publisher.pub(b"no properties")
    md = mq.MD()
    got = sub.get(None, md, mq.GMO(Options=mq.CMQC.MQGMO_WAIT, WaitInterval=5000))
    assert got.endswith(b"north 20")
    with pytest.raises(mq.MQMIError) as none:
        sub.get(None, mq.MD(), mq.GMO(Options=mq.CMQC.MQGMO_NO_WAIT))
    assert none.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
    sub.close()
    bad = mq.SD(Options=mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED)
    bad.set_vs("ObjectString", "selection/prices")
    bad.set_vs("SelectionString", "region = ")
    with pytest.raises(mq.MQMIError) as refused:
        mq.Subscription(qmgr, sub_desc=bad)
    assert refused.value.reason == mq.CMQC.MQRC_SELECTOR_SYNTAX_ERROR


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
