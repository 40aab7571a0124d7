"""MQGMO_LOCK and MQGMO_UNLOCK through the drop-in (pymqi and ibmmq flavours), and seed 000
note 6 as an MQI program meets it."""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import pytest

from mqjms.mq import C
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def gmo(mq: ModuleType, options: int) -> Any:
    return mq.GMO(Options=options)


def browse_lock(mq: ModuleType, qmgr: object) -> Any:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_BROWSE | mq.CMQC.MQOO_INPUT_SHARED)
    first = gmo(mq, mq.CMQC.MQGMO_BROWSE_FIRST | mq.CMQC.MQGMO_LOCK)
    return queue, queue.get(None, mq.MD(), first)


@pytest.mark.requires("lock")
def test_lock_browse_get_under_cursor(mq: ModuleType, env: MQEnv, qmgr) -> None:
    for body in (b"a", b"b"):
        env.put_raw(Q, body)
    queue, body = browse_lock(mq, qmgr)
    assert body == b"a"
    assert [data for _, data in env.browse(Q)] == [b"b"]  # invisible to other handles
    taken = queue.get(None, mq.MD(), gmo(mq, mq.CMQC.MQGMO_MSG_UNDER_CURSOR))
    assert taken == b"a"
    assert [data for _, data in env.browse(Q)] == [b"b"]


@pytest.mark.requires("lock")
def test_unlock_and_2209_when_nothing_is_locked(mq: ModuleType, env: MQEnv, qmgr) -> None:
    env.put_raw(Q, b"m")
    queue, _ = browse_lock(mq, qmgr)
    assert queue.get(None, mq.MD(), gmo(mq, mq.CMQC.MQGMO_UNLOCK)) == b""
    assert [data for _, data in env.browse(Q)] == [b"m"]
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(None, mq.MD(), gmo(mq, mq.CMQC.MQGMO_UNLOCK))
    assert (failure.value.comp, failure.value.reason) == (C.MQCC_WARNING, 2209)


@pytest.mark.requires("lock")
def test_lock_without_a_browse_and_unlock_with_other_options_are_2046(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    env.put_raw(Q, b"m")
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_BROWSE | mq.CMQC.MQOO_INPUT_SHARED)
    for options in (mq.CMQC.MQGMO_LOCK, mq.CMQC.MQGMO_UNLOCK | mq.CMQC.MQGMO_BROWSE_FIRST):
        with pytest.raises(mq.MQMIError) as failure:
            queue.get(None, mq.MD(), gmo(mq, options))
        assert failure.value.reason == 2046
    assert [data for _, data in env.browse(Q)] == [b"m"]


@pytest.mark.requires("lock", "lazy_expiry")
def test_a_locked_message_that_expires_is_2034(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # seed 000 note 6: the nearly-expired message locked by MQGMO_LOCK is discarded before
    # the MQGMO_MSG_UNDER_CURSOR get; that get returns MQRC_NO_MSG_UNDER_CURSOR
    env.put_raw(Q, b"nearly expired", Expiry=2)  # 0.2 s
    queue, body = browse_lock(mq, qmgr)
    assert body == b"nearly expired"
    time.sleep(0.3)
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(None, mq.MD(), gmo(mq, mq.CMQC.MQGMO_MSG_UNDER_CURSOR))
    assert (failure.value.comp, failure.value.reason) == (C.MQCC_FAILED, 2034)
    assert env.depth(Q) == 0


def test_lock_where_the_transport_cannot_is_2046(mq: ModuleType, env: MQEnv, qmgr) -> None:
    env.put_raw(Q, b"m")
    if "lock" in env.broker.features:
        pytest.skip("this transport locks messages")
    with pytest.raises(mq.MQMIError) as failure:
        browse_lock(mq, qmgr)
    assert failure.value.reason == 2046
