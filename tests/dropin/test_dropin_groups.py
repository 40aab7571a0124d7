"""Message groups in logical order (MQPMO_LOGICAL_ORDER, MQGMO_LOGICAL_ORDER): the queue
manager gives a group's messages one GroupId and MsgSeqNumber 1, 2, 3... as they are put;
a get in logical order returns a group's messages one after another, with GroupStatus
MQGS_MSG_IN_GROUP and MQGS_LAST_MSG_IN_GROUP. Before, the put kept the program's zero
GroupId and MsgSeqNumber 1 for every message, and GroupStatus was always ' '."""

from __future__ import annotations

import threading
from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.2"


def _put_group(mq: ModuleType, queue: object, parts: list[bytes]) -> bytes:
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    group_id = b""
    for i, part in enumerate(parts, 1):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
        md.MsgFlags = mq.CMQC.MQMF_MSG_IN_GROUP
        if i == len(parts):
            md.MsgFlags |= mq.CMQC.MQMF_LAST_MSG_IN_GROUP
        queue.put(part, md, pmo)  # type: ignore[attr-defined]
        assert md.MsgSeqNumber == i
        group_id = group_id or md.GroupId
        assert md.GroupId == group_id and group_id.strip(b"\0")
    return group_id


def _get_logical(mq: ModuleType, queue: object) -> tuple[bytes, bytes, int, int]:
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, Options=mq.CMQC.MQGMO_LOGICAL_ORDER)
    data = queue.get(None, md, gmo)  # type: ignore[attr-defined]
    return data, md.GroupId, md.MsgSeqNumber, gmo.GroupStatus


@pytest.mark.embedded_only("ActiveMQ hands a selector's matches over in an order of its own")
def test_a_group_put_in_logical_order_is_numbered_and_got_in_order(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    options = mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT
    first, second = mq.Queue(qmgr, Q, options), mq.Queue(qmgr, Q, options)
    # two groups whose messages interleave on the queue
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    for i in range(3):
        for queue, name in ((first, b"a"), (second, b"b")):
            md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
            md.MsgFlags = mq.CMQC.MQMF_MSG_IN_GROUP | (
                mq.CMQC.MQMF_LAST_MSG_IN_GROUP if i == 2 else 0
            )
            queue.put(name + str(i).encode(), md, pmo)
            assert md.MsgSeqNumber == i + 1
    got = [_get_logical(mq, first) for _ in range(6)]
    assert [data for data, *_ in got] == [b"a0", b"a1", b"a2", b"b0", b"b1", b"b2"]
    assert [seq for _, _, seq, _ in got] == [1, 2, 3, 1, 2, 3]
    in_group, last = mq.CMQC.MQGS_MSG_IN_GROUP, mq.CMQC.MQGS_LAST_MSG_IN_GROUP
    assert [status for *_, status in got] == [in_group, in_group, last] * 2
    assert got[0][1] == got[2][1] != got[3][1]


def test_a_message_outside_the_group_before_its_end_is_2241(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    md.MsgFlags = mq.CMQC.MQMF_MSG_IN_GROUP
    queue.put(b"part 1", md, pmo)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"not in the group", mq.MD(Version=mq.CMQC.MQMD_VERSION_2), pmo)
    assert caught.value.reason == mq.CMQC.MQRC_INCOMPLETE_GROUP
    _put_group(mq, mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT), [b"x", b"y"])  # another handle


@pytest.mark.embedded_only("ActiveMQ hands a selector's matches over in an order of its own")
@pytest.mark.parametrize("first_by", ["put", "put1"])
def test_without_logical_order_a_group_given_no_group_id_gets_a_new_one(
    mq: ModuleType, env: MQEnv, qmgr, first_by: str
) -> None:
    # MQMD GroupId: "If MQPMO_LOGICAL_ORDER is not specified, the application must request
    # the queue manager to generate the group identifier, by setting GroupId to MQGI_NONE
    # on the first MQPUT or MQPUT1 call"; the one returned is used for the rest. Before,
    # every such group kept the zero GroupId, so the groups of two senders were one.
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    group_ids = []
    for sender in (b"a", b"b"):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_MSG_IN_GROUP)
        if first_by == "put1":
            qmgr.put1(Q, sender + b"1", md)
        else:
            queue.put(sender + b"1", md)
        assert md.GroupId != mq.CMQC.MQGI_NONE and md.GroupId.startswith(b"AMQ ")
        group_ids.append(md.GroupId)
        last = mq.MD(
            Version=mq.CMQC.MQMD_VERSION_2,
            GroupId=md.GroupId,
            MsgSeqNumber=2,
            MsgFlags=mq.CMQC.MQMF_LAST_MSG_IN_GROUP,
        )
        queue.put(sender + b"2", last)
        assert last.GroupId == md.GroupId  # given: kept
    assert group_ids[0] != group_ids[1]
    reader = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    got = [_get_logical(mq, reader) for _ in range(4)]
    assert [(data, group) for data, group, *_ in got] == [
        (b"a1", group_ids[0]),
        (b"a2", group_ids[0]),
        (b"b1", group_ids[1]),
        (b"b2", group_ids[1]),
    ]
    # a message in no group keeps MQGI_NONE
    plain = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    queue.put(b"alone", plain)
    assert plain.GroupId == mq.CMQC.MQGI_NONE


def _put_numbered(
    mq: ModuleType, queue: object, group: bytes, numbers: list[int], last: int
) -> None:
    """Messages of ``group`` numbered by the program (no MQPMO_LOGICAL_ORDER)."""
    for seq in numbers:
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, GroupId=group.ljust(24, b"\0"))
        md.MsgSeqNumber = seq
        md.MsgFlags = mq.CMQC.MQMF_LAST_MSG_IN_GROUP if seq == last else mq.CMQC.MQMF_MSG_IN_GROUP
        queue.put(group + b"%d" % seq, md, mq.PMO())  # type: ignore[attr-defined]


def _get_all_available(mq: ModuleType, queue: object, *more: int, wait_ms: int = 0) -> bytes | None:
    options = mq.CMQC.MQGMO_ALL_MSGS_AVAILABLE
    for option in more:
        options |= option
    if wait_ms:
        options |= mq.CMQC.MQGMO_WAIT
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, Options=options, WaitInterval=wait_ms)
    gmo.MatchOptions = mq.CMQC.MQMO_NONE
    try:
        return queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), gmo)  # type: ignore[attr-defined,no-any-return]
    except mq.MQMIError as exc:
        assert exc.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
        return None


@pytest.mark.requires("browse_at_once")
def test_all_msgs_available_skips_an_incomplete_group(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # IBM MQ, MQGMO_ALL_MSGS_AVAILABLE: "Messages in a group become available for retrieval
    # only when all messages in the group are available"; with MQGMO_LOGICAL_ORDER it
    # "has an effect only when there is no current group"
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_numbered(mq, queue, b"B", [1, 2], last=3)  # incomplete: 3 is missing
    _put_numbered(mq, queue, b"A", [2, 1, 3], last=3)  # complete, out of order
    queue.put(b"alone")  # in no group: always available
    logical = mq.CMQC.MQGMO_LOGICAL_ORDER
    got = [_get_all_available(mq, queue, logical) for _ in range(5)]
    assert got == [b"A1", b"A2", b"A3", b"alone", None]  # A begun with MsgSeqNumber 1
    _put_numbered(mq, queue, b"B", [3], last=3)  # now complete
    assert [_get_all_available(mq, queue, logical) for _ in range(4)] == [b"B1", b"B2", b"B3", None]
    queue.close()


@pytest.mark.requires("browse_at_once")
def test_all_msgs_available_without_logical_order_and_a_wait(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    options = mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT | mq.CMQC.MQOO_INQUIRE
    queue = mq.Queue(qmgr, Q, options)
    _put_numbered(mq, queue, b"C", [1], last=2)
    assert _get_all_available(mq, queue) is None  # the queue's depth is 1 all the same
    assert queue.inquire(mq.CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    other = mq.connect("QM1")
    finisher = threading.Timer(
        0.3, lambda: _put_numbered(mq, mq.Queue(other, Q, mq.CMQC.MQOO_OUTPUT), b"C", [2], 2)
    )
    finisher.start()
    try:  # a waiting get takes the group's first message once the group is complete
        assert _get_all_available(mq, queue, wait_ms=5000) == b"C1"
    finally:
        finisher.join()
        other.disconnect()
    # without MQGMO_LOGICAL_ORDER the option always counts: the rest of the group is
    # incomplete now that C1 is gone, so it is got without the option (as IBM says)
    assert _get_all_available(mq, queue) is None
    gmo = mq.GMO(Options=mq.CMQC.MQGMO_NO_WAIT)
    assert queue.get(None, mq.MD(), gmo) == b"C2"
    queue.close()


@pytest.mark.requires("browse_at_once")
def test_all_msgs_available_takes_the_message_it_chose_by_all_its_ids(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # a MsgId a program set need not be unique: a message in no group that shares it with
    # a message of an incomplete group ahead of it is the one got, not the group's
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    key = b"ORDER-42".ljust(24, b"\0")
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, GroupId=b"G".ljust(24, b"\0"), MsgId=key)
    md.MsgFlags = mq.CMQC.MQMF_MSG_IN_GROUP  # 1 of 2: incomplete
    queue.put(b"G1", md, mq.PMO())
    queue.put(b"plain", mq.MD(MsgId=key), mq.PMO())
    assert _get_all_available(mq, queue) == b"plain"
    assert _get_all_available(mq, queue) is None
    queue.close()


def test_without_a_browse_at_once_all_msgs_available_gets_as_before(
    mq: ModuleType, env: MQEnv, qmgr, broker
) -> None:
    # over STOMP a browser's snapshot lags: the option is ignored (docs/pymqi.md)
    if "browse_at_once" in broker.features:
        pytest.skip("this transport looks for complete groups")
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_numbered(mq, queue, b"I", [1], last=2)
    assert _get_all_available(mq, queue, wait_ms=2000) == b"I1"
    queue.close()


# IBM's MQBACK usage notes: for messages put or got in logical order in a unit of work,
# "the group and segment information that the queue manager retains for the queue handle
# is restored to the value that it had previously" when the unit of work is backed out.


@pytest.mark.embedded_only("the group's messages in queue order")
def test_mqback_restores_the_group_a_logical_order_put_was_numbering(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER | mq.CMQC.MQPMO_SYNCPOINT)
    for part in (b"first try 1", b"first try 2"):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
        md.MsgFlags = mq.CMQC.MQMF_MSG_IN_GROUP
        queue.put(part, md, pmo)
    qmgr.backout()  # the group is gone: the next put in logical order begins a new one
    assert _put_group(mq, queue, [b"again 1", b"again 2", b"again 3"])  # numbered 1, 2, 3
    qmgr.commit()
    got = [md.MsgSeqNumber for md, _ in env.browse(Q)]
    assert got == [1, 2, 3]


@pytest.mark.embedded_only("priority order on the embedded queue manager")
def test_mqback_restores_the_group_a_logical_order_get_was_in(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_group(mq, queue, [b"a1", b"a2", b"a3"])
    assert [_get_logical(mq, queue)[0] for _ in range(2)] == [b"a1", b"a2"]  # no syncpoint
    urgent = mq.MD(Priority=9)
    queue.put(b"urgent, in no group", urgent)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    gmo = mq.GMO(
        Version=mq.CMQC.MQGMO_VERSION_2,
        Options=mq.CMQC.MQGMO_LOGICAL_ORDER | mq.CMQC.MQGMO_SYNCPOINT,
    )
    assert queue.get(None, md, gmo) == b"a3"  # the group goes on: its last message
    qmgr.backout()
    # back inside the group: its last message comes next, before the higher priority one
    assert _get_logical(mq, queue)[0] == b"a3"
    assert _get_logical(mq, queue)[0] == b"urgent, in no group"
