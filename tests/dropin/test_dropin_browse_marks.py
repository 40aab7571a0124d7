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
