"""MQCB and MQCTL (asynchronous consume): MQOP_SUSPEND pauses delivery to every consumer
of the connection until MQOP_RESUME, and while delivery is started (not suspended) an
MQGET from outside the callbacks is 2500 MQRC_HCONN_ASYNC_ACTIVE (IBM's MQCTL). Before,
SUSPEND and RESUME were accepted and did nothing."""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.2"


def _wait_for(condition: Any, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_suspend_pauses_delivery_and_resume_goes_on(mq: ModuleType, env: MQEnv, qmgr) -> None:
    got: list[bytes] = []

    def callback(**kwargs: Any) -> None:
        if kwargs["cbc"].CallType == mq.CMQC.MQCBCT_MSG_REMOVED:
            got.append(kwargs["msg"])

    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    cbd = mq.CBD()
    cbd.CallbackFunction = callback
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_WAIT, WaitInterval=5000)
    queue.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd, md=mq.MD(), gmo=gmo)
    other = mq.Queue(qmgr, "DEV.QUEUE.3", mq.CMQC.MQOO_INPUT_AS_Q_DEF)  # opened before START
    qmgr.ctl(mq.CMQC.MQOP_START, mq.CTLO())
    try:
        env.put_raw(Q, b"first")
        assert _wait_for(lambda: got == [b"first"])
        with pytest.raises(mq.MQMIError) as caught:
            other.get(None, mq.MD(), mq.GMO())
        assert caught.value.reason == mq.CMQC.MQRC_HCONN_ASYNC_ACTIVE
        qmgr.ctl(mq.CMQC.MQOP_SUSPEND, mq.CTLO())
        env.put_raw(Q, b"while suspended")
        time.sleep(1.0)
        assert got == [b"first"] and env.depth(Q) == 1
        with pytest.raises(mq.MQMIError) as caught:  # suspended: the program may get again
            other.get(None, mq.MD(), mq.GMO())
        assert caught.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
        qmgr.ctl(mq.CMQC.MQOP_RESUME, mq.CTLO())
        assert _wait_for(lambda: got == [b"first", b"while suspended"])
    finally:
        qmgr.ctl(mq.CMQC.MQOP_STOP, mq.CTLO())


def _start_wait_failing(mq: ModuleType, qmgr: Any, queue: Any, callback: Any) -> Any:
    """Register ``callback`` on ``queue`` and MQCTL MQOP_START_WAIT: the MQMIError it ends
    with (pytest's ExceptionInfo)."""
    cbd = mq.CBD()
    cbd.CallbackFunction = callback
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_WAIT, WaitInterval=500)
    queue.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd, md=mq.MD(), gmo=gmo)
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.ctl(mq.CMQC.MQOP_START_WAIT, mq.CTLO())
    return caught


def test_start_wait_returns_2521_when_a_callback_suspends(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # MQOP_START_WAIT delivers in the calling thread: suspended, nothing there could
    # resume it, and it waited for ever; IBM MQ returns MQRC_CONNECTION_SUSPENDED
    got: list[bytes] = []

    def callback(**kwargs: Any) -> None:
        if kwargs["cbc"].CallType == mq.CMQC.MQCBCT_MSG_REMOVED:
            got.append(kwargs["msg"])
            kwargs["queue_manager"].ctl(mq.CMQC.MQOP_SUSPEND, mq.CTLO())

    env.put_raw(Q, b"one")
    env.put_raw(Q, b"two")
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    caught = _start_wait_failing(mq, qmgr, queue, callback)
    assert (caught.value.comp, caught.value.reason) == (1, mq.CMQC.MQRC_CONNECTION_SUSPENDED)
    assert got == [b"one"] and env.depth(Q) == 1


def test_start_wait_returns_2521_when_its_last_consumer_deregisters(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM's 2521: "all consumers have been either unregistered or suspended"; it waited
    # for ever with no consumer left
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)

    def callback(**kwargs: Any) -> None:
        if kwargs["cbc"].CallType == mq.CMQC.MQCBCT_MSG_REMOVED:
            kwargs["queue"].cb(operation=mq.CMQC.MQOP_DEREGISTER)

    env.put_raw(Q, b"one")
    caught = _start_wait_failing(mq, qmgr, queue, callback)
    assert caught.value.reason == mq.CMQC.MQRC_CONNECTION_SUSPENDED


def test_the_mqcbd_options_ask_for_register_start_stop_and_deregister_calls(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM MQ, MQCBD Options: MQCBDO_REGISTER_CALL, START_CALL, STOP_CALL and
    # DEREGISTER_CALL each have the function called with that CallType (no message)
    calls: list[int] = []

    def callback(**kwargs: Any) -> None:
        calls.append(kwargs["cbc"].CallType)

    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    cbd = mq.CBD()
    cbd.CallbackFunction = callback
    cbd.Options = (
        mq.CMQC.MQCBDO_REGISTER_CALL
        | mq.CMQC.MQCBDO_START_CALL
        | mq.CMQC.MQCBDO_STOP_CALL
        | mq.CMQC.MQCBDO_DEREGISTER_CALL
    )
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_WAIT, WaitInterval=5000)
    queue.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd, md=mq.MD(), gmo=gmo)
    assert calls == [mq.CMQC.MQCBCT_REGISTER_CALL]
    qmgr.ctl(mq.CMQC.MQOP_START, mq.CTLO())
    env.put_raw(Q, b"one")
    assert _wait_for(lambda: mq.CMQC.MQCBCT_MSG_REMOVED in calls)
    qmgr.ctl(mq.CMQC.MQOP_STOP, mq.CTLO())
    assert _wait_for(lambda: mq.CMQC.MQCBCT_STOP_CALL in calls)
    queue.cb(operation=mq.CMQC.MQOP_DEREGISTER, cbd=cbd)
    assert calls == [
        mq.CMQC.MQCBCT_REGISTER_CALL,
        mq.CMQC.MQCBCT_START_CALL,
        mq.CMQC.MQCBCT_MSG_REMOVED,
        mq.CMQC.MQCBCT_STOP_CALL,
        mq.CMQC.MQCBCT_DEREGISTER_CALL,
    ]
    if mq.__name__.endswith("ibmmq"):
        with pytest.raises(TypeError, match="md must be an instance of MD"):
            queue.cb(operation=mq.CMQC.MQOP_REGISTER, cbd=cbd, md={})
