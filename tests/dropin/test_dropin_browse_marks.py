"""Browse marks of a handle: MQGMO_MARK_BROWSE_HANDLE marks what a browse returns,
MQGMO_UNMARKED_BROWSE_MSG steps over the handle's marked messages, so a program that
browses from the first message again sees only the new ones, and
MQGMO_UNMARK_BROWSE_HANDLE takes a mark off. The options were ignored: every browse from
the first message showed every message again."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def _browse_new(mq: ModuleType, queue: object) -> list[bytes]:
    C = mq.CMQC
    marks = C.MQGMO_UNMARKED_BROWSE_MSG | C.MQGMO_MARK_BROWSE_HANDLE
    gmo = mq.GMO(Options=C.MQGMO_BROWSE_FIRST | marks)
    seen = []
    while True:
        try:
            seen.append(queue.get(None, mq.MD(), gmo))
        except mq.MQMIError as e:
            assert e.reason == C.MQRC_NO_MSG_AVAILABLE
            return seen
        gmo.Options = C.MQGMO_BROWSE_NEXT | marks


def test_browsing_unmarked_messages_shows_the_new_ones(mq: ModuleType, env: MQEnv, qmgr) -> None:
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_OUTPUT)
    for body in (b"a", b"b"):
        queue.put(body)
    assert _browse_new(mq, queue) == [b"a", b"b"]
    assert _browse_new(mq, queue) == []
    queue.put(b"c")
    assert _browse_new(mq, queue) == [b"c"]
    # the marks are the handle's: another handle browses them all
    other = mq.Queue(qmgr, Q, C.MQOO_BROWSE)
    assert _browse_new(mq, other) == [b"a", b"b", b"c"]
    # a plain browse sees every message
    gmo = mq.GMO(Options=C.MQGMO_BROWSE_FIRST)
    assert queue.get(None, mq.MD(), gmo) == b"a"
    # unmarked under the cursor: shown again
    gmo = mq.GMO(Options=C.MQGMO_BROWSE_MSG_UNDER_CURSOR | C.MQGMO_UNMARK_BROWSE_HANDLE)
    assert queue.get(None, mq.MD(), gmo) == b"a"
    assert _browse_new(mq, queue) == [b"a"]


@pytest.mark.parametrize(
    ("option", "reason"),
    [
        ("MQGMO_MARK_BROWSE_HANDLE", "MQRC_OPTIONS_ERROR"),  # without a browse
        ("MQGMO_MARK_BROWSE_CO_OP", "MQRC_FUNCTION_NOT_SUPPORTED"),
    ],
)
def test_marks_refused(mq: ModuleType, env: MQEnv, qmgr, option: str, reason: str) -> None:
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_INPUT_AS_Q_DEF | C.MQOO_OUTPUT)
    queue.put(b"a")
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(None, mq.MD(), mq.GMO(Options=getattr(C, option)))
    assert failure.value.reason == getattr(C, reason)


def _requeue(mq: ModuleType, qmgr: object, body: bytes, md: object) -> None:
    """Put a message back with all its context (MsgId, PutDate, PutTime), as a
    backout-requeue tool does."""
    C = mq.CMQC
    mover = mq.Queue(qmgr, Q, C.MQOO_OUTPUT | C.MQOO_SET_ALL_CONTEXT)
    mover.put(body, md, mq.PMO(Options=C.MQPMO_SET_ALL_CONTEXT | C.MQPMO_NO_SYNCPOINT))
    mover.close()


def test_a_message_got_loses_its_mark(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """A mark goes with its message: got by this handle (the dispatcher's
    MQGMO_MSG_UNDER_CURSOR), or by another one, which the next browse from the first
    message that finds nothing unmarked notices. Marks lasted until MQCLOSE: the set grew
    without limit, and a message put back with its context was stepped over forever."""
    C = mq.CMQC
    dispatcher = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    dispatcher.put(b"order-1")
    assert _browse_new(mq, dispatcher) == [b"order-1"]
    md = mq.MD()
    assert dispatcher.get(None, md, mq.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)) == b"order-1"
    _requeue(mq, qmgr, b"order-1", md)
    assert _browse_new(mq, dispatcher) == [b"order-1"]
    # another handle takes it; the dispatcher's scan finds the queue empty
    worker = mq.Queue(qmgr, Q, C.MQOO_INPUT_SHARED)
    md = mq.MD()
    assert worker.get(None, md, mq.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"order-1"
    assert _browse_new(mq, dispatcher) == []
    _requeue(mq, qmgr, b"order-1", md)
    assert _browse_new(mq, dispatcher) == [b"order-1"]


def test_a_marked_message_too_long_is_stepped_over(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """A marked message longer than the buffer is stepped over, not 2080 (the length
    was checked before the mark)."""
    if env.url.startswith("stomp"):
        pytest.skip("STOMP: reading the long message by its id moves the browse cursor")
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_OUTPUT)
    queue.put(b"x" * 10000)
    assert _browse_new(mq, queue) == [b"x" * 10000]
    queue.put(b"small")
    marks = C.MQGMO_UNMARKED_BROWSE_MSG | C.MQGMO_MARK_BROWSE_HANDLE
    gmo = mq.GMO(Options=C.MQGMO_BROWSE_FIRST | marks)
    assert queue.get(100, mq.MD(), gmo) == b"small"
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(100, mq.MD(), mq.GMO(Options=C.MQGMO_BROWSE_FIRST | marks))
    assert failure.value.reason == C.MQRC_NO_MSG_AVAILABLE


def test_a_marked_message_stepped_over_is_not_locked(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """MQGMO_LOCK locks the message returned only: a marked message stepped over stayed
    locked, so no other handle could get it."""
    if "lock" not in env.broker.features:
        pytest.skip("this transport does not lock messages")
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_OUTPUT)
    queue.put(b"a")
    assert _browse_new(mq, queue) == [b"a"]
    with pytest.raises(mq.MQMIError) as failure:
        options = C.MQGMO_BROWSE_FIRST | C.MQGMO_UNMARKED_BROWSE_MSG | C.MQGMO_LOCK
        queue.get(None, mq.MD(), mq.GMO(Options=options))
    assert failure.value.reason == C.MQRC_NO_MSG_AVAILABLE
    other = mq.Queue(qmgr, Q, C.MQOO_INPUT_SHARED)
    assert other.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_NO_SYNCPOINT)) == b"a"


def test_the_cursor_stays_on_the_message_last_browsed(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """An unmarked browse that finds nothing (2033) leaves the cursor on the message
    last returned, as IBM MQ does: it was on a marked message the program never saw,
    which MQGMO_MSG_UNDER_CURSOR then took."""
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INPUT_SHARED)
    queue.put(b"a")
    queue.put(b"b")
    assert _browse_new(mq, queue) == [b"a", b"b"]
    unmark = mq.GMO(Options=C.MQGMO_BROWSE_FIRST | C.MQGMO_UNMARK_BROWSE_HANDLE)
    assert queue.get(None, mq.MD(), unmark) == b"a"
    with pytest.raises(mq.MQMIError) as failure:
        options = C.MQGMO_BROWSE_NEXT | C.MQGMO_UNMARKED_BROWSE_MSG
        queue.get(None, mq.MD(), mq.GMO(Options=options))
    assert failure.value.reason == C.MQRC_NO_MSG_AVAILABLE
    under = mq.GMO(Options=C.MQGMO_BROWSE_MSG_UNDER_CURSOR)
    assert queue.get(None, mq.MD(), under) == b"a"
    assert queue.get(None, mq.MD(), mq.GMO(Options=C.MQGMO_MSG_UNDER_CURSOR)) == b"a"
