"""Message groups in logical order (MQPMO_LOGICAL_ORDER, MQGMO_LOGICAL_ORDER): the queue
manager gives a group's messages one GroupId and MsgSeqNumber 1, 2, 3... as they are put;
a get in logical order returns a group's messages one after another, with GroupStatus
MQGS_MSG_IN_GROUP and MQGS_LAST_MSG_IN_GROUP. Before, the put kept the program's zero
GroupId and MsgSeqNumber 1 for every message, and GroupStatus was always ' '."""

from __future__ import annotations

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


@pytest.mark.parametrize("logical", [True, False])
def test_segments_are_refused_rather_than_put_whole(
    mq: ModuleType, env: MQEnv, qmgr, logical: bool
) -> None:
    # a segment put without logical order was taken and lost its MQMF_SEGMENT flag
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    md.MsgFlags = mq.CMQC.MQMF_SEGMENT
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER if logical else 0)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"a segment", md, pmo)
    assert caught.value.reason == mq.CMQC.MQRC_FUNCTION_NOT_SUPPORTED
    assert env.depth(Q) == 0


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
