"""IBM MQ's "Rules for validating MQI options": the combinations MQOPEN, MQPUT, MQPUT1,
MQGET and MQCLOSE refuse with MQRC_OPTIONS_ERROR (2046) fail here too, and change nothing."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"

OPEN = [
    ("FAIL_IF_QUIESCING",),  # no access option at all
    ("INPUT_SHARED", "INPUT_EXCLUSIVE"),
    ("INPUT_AS_Q_DEF", "INPUT_SHARED"),
    ("OUTPUT", "BIND_ON_OPEN", "BIND_NOT_FIXED"),
    ("OUTPUT", "READ_AHEAD", "NO_READ_AHEAD"),
    ("OUTPUT", "SAVE_ALL_CONTEXT"),
    ("INPUT_SHARED", "SET_ALL_CONTEXT"),
    ("INPUT_SHARED", "PASS_IDENTITY_CONTEXT"),
    ("INPUT_SHARED", "CO_OP"),
]
PUT = [
    ("SYNCPOINT", "NO_SYNCPOINT"),
    ("NO_CONTEXT", "DEFAULT_CONTEXT"),
    ("SET_ALL_CONTEXT", "PASS_ALL_CONTEXT"),
    ("SYNC_RESPONSE", "ASYNC_RESPONSE"),
    ("ALTERNATE_USER_AUTHORITY",),  # MQPUT1 only
]
GET = [
    ("SYNCPOINT", "NO_SYNCPOINT"),
    ("SYNCPOINT", "SYNCPOINT_IF_PERSISTENT"),
    ("BROWSE_FIRST", "BROWSE_NEXT"),
    ("BROWSE_FIRST", "MSG_UNDER_CURSOR"),
    ("BROWSE_NEXT", "SYNCPOINT"),
    ("BROWSE_FIRST", "SYNCPOINT_IF_PERSISTENT"),
    ("MARK_SKIP_BACKOUT",),  # needs MQGMO_SYNCPOINT
    ("WAIT", "SET_SIGNAL"),
]
CLOSE = [
    ("DELETE", "DELETE_PURGE"),
    ("KEEP_SUB", "REMOVE_SUB"),
]


def _options(mq: ModuleType, prefix: str, names: tuple[str, ...]) -> int:
    value = 0
    for name in names:
        value |= getattr(mq.CMQC, f"{prefix}_{name}")
    return value


def _refused(mq: ModuleType, call: object) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        call()  # type: ignore[operator]
    assert failure.value.reason == mq.CMQC.MQRC_OPTIONS_ERROR


@pytest.mark.parametrize("names", OPEN, ids="|".join)
def test_mqopen(mq: ModuleType, env: MQEnv, qmgr, names: tuple[str, ...]) -> None:
    _refused(mq, lambda: mq.Queue(qmgr, Q, _options(mq, "MQOO", names)))


@pytest.mark.parametrize("names", PUT, ids="|".join)
def test_mqput(mq: ModuleType, env: MQEnv, qmgr, names: tuple[str, ...]) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=_options(mq, "MQPMO", names))
    _refused(mq, lambda: queue.put(b"refused", mq.MD(), pmo))
    assert env.depth(Q) == 0


def test_mqput1_refuses_logical_order(mq: ModuleType, env: MQEnv, qmgr) -> None:
    od = mq.OD(ObjectName=Q)
    logical = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    _refused(mq, lambda: qmgr.put1(od, b"refused", mq.MD(), logical))
    assert env.depth(Q) == 0


@pytest.mark.parametrize("names", GET, ids="|".join)
def test_mqget(mq: ModuleType, env: MQEnv, qmgr, names: tuple[str, ...]) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_SHARED | mq.CMQC.MQOO_BROWSE)
    mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT).put(b"stays")
    gmo = mq.GMO(Options=_options(mq, "MQGMO", names))
    _refused(mq, lambda: queue.get(None, mq.MD(), gmo))
    qmgr.backout()
    assert env.depth(Q) == 1


@pytest.mark.parametrize("names", CLOSE, ids="|".join)
def test_mqclose(mq: ModuleType, env: MQEnv, qmgr, names: tuple[str, ...]) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    _refused(mq, lambda: queue.close(_options(mq, "MQCO", names)))
    queue.put(b"still open")
    queue.close()


@pytest.mark.parametrize("delete", ["MQCO_NONE", "MQCO_DELETE"])
def test_mqclose_refuses_unknown_bits_before_a_delete_option_is_looked_at(
    mq: ModuleType, env: MQEnv, qmgr, delete: str
) -> None:
    # with MQCO_DELETE on a predefined queue this was 2045, as if the options were valid
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    _refused(mq, lambda: queue.close(0x100 | getattr(mq.CMQC, delete)))
    queue.close()


def test_the_combinations_ibm_mq_allows_still_work(mq: ModuleType, env: MQEnv, qmgr) -> None:
    C = mq.CMQC
    queue = mq.Queue(
        qmgr, Q, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT
    )
    queue.put(b"set all", mq.MD(), mq.PMO(Options=C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_SYNCPOINT))
    qmgr.commit()
    qmgr.put1(
        mq.OD(ObjectName=Q), b"put1", mq.MD(), mq.PMO(Options=C.MQPMO_ALTERNATE_USER_AUTHORITY)
    )
    assert queue.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_BROWSE_FIRST)) == b"set all"
    skip = C.MQGMO_SYNCPOINT | C.MQGMO_MARK_SKIP_BACKOUT | C.MQGMO_WAIT
    assert queue.get(None, mq.MD(), mq.GMO(Options=skip, WaitInterval=1000)) == b"set all"
    qmgr.commit()
