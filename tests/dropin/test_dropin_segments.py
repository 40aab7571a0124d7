"""Segmented messages (MQMF_SEGMENT, MQMF_LAST_SEGMENT) and MQGMO_COMPLETE_MSG.

A logical message put in segments is numbered by the queue manager under
MQPMO_LOGICAL_ORDER (one GroupId, one MsgSeqNumber, each segment's Offset where the one
before ended), or by the program without it (MQGI_NONE asks for a new GroupId); a get
returns the segments one by one with the MQGMO's SegmentStatus (MQSS_SEGMENT,
MQSS_LAST_SEGMENT), in order under MQGMO_LOGICAL_ORDER; MQGMO_COMPLETE_MSG returns the
logical message whole, with its first segment's MQMD and Offset 0, and only once every
segment is on the queue. Before, every segment put failed with 2298."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.2"
ORDER = "ActiveMQ hands a selector's matches over in an order of its own, and browses late"


def _put_segments(
    mq: ModuleType, queue: object, parts: list[bytes], *, extra_flags: int = 0
) -> list[object]:
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    mds = []
    for i, part in enumerate(parts, 1):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, Format=mq.CMQC.MQFMT_STRING)
        last = i == len(parts)
        md.MsgFlags = (mq.CMQC.MQMF_LAST_SEGMENT if last else mq.CMQC.MQMF_SEGMENT) | extra_flags
        queue.put(part, md, pmo)  # type: ignore[attr-defined]
        mds.append(md)
    return mds


def _whole_gmo(mq: ModuleType, *options: int, wait: int = 0) -> object:
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, MatchOptions=mq.CMQC.MQMO_NONE)
    gmo.Options = mq.CMQC.MQGMO_COMPLETE_MSG | sum(options)
    if wait:
        gmo.Options |= mq.CMQC.MQGMO_WAIT
        gmo.WaitInterval = wait
    return gmo


@pytest.mark.embedded_only(ORDER)
def test_segments_put_in_logical_order_are_numbered_and_got_in_order(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    options = mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT
    first, second = mq.Queue(qmgr, Q, options), mq.Queue(qmgr, Q, options)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    put: dict[bytes, list[object]] = {b"a": [], b"b": []}
    for i in range(3):  # two segmented messages whose segments interleave on the queue
        for queue, name in ((first, b"a"), (second, b"b")):
            md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
            md.MsgFlags = mq.CMQC.MQMF_LAST_SEGMENT if i == 2 else mq.CMQC.MQMF_SEGMENT
            queue.put(name * (i + 1), md, pmo)
            put[name].append(md)
            assert md.MsgFlags == (mq.CMQC.MQMF_LAST_SEGMENT if i == 2 else mq.CMQC.MQMF_SEGMENT)
    for mds in put.values():
        assert [md.Offset for md in mds] == [0, 1, 3]  # where the segment before ended
        assert {md.MsgSeqNumber for md in mds} == {1}
        assert len({md.GroupId for md in mds}) == 1 and mds[0].GroupId != mq.CMQC.MQGI_NONE
    assert put[b"a"][0].GroupId != put[b"b"][0].GroupId
    got = []
    for _ in range(6):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
        gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, Options=mq.CMQC.MQGMO_LOGICAL_ORDER)
        data = first.get(None, md, gmo)
        got.append((data, md.Offset, gmo.SegmentStatus, md.MsgFlags & mq.CMQC.MQMF_LAST_SEGMENT))
    segment, last = mq.CMQC.MQSS_SEGMENT, mq.CMQC.MQSS_LAST_SEGMENT
    assert got == [
        (b"a", 0, segment, 0),
        (b"aa", 1, segment, 0),
        (b"aaa", 3, last, mq.CMQC.MQMF_LAST_SEGMENT),
        (b"b", 0, segment, 0),
        (b"bb", 1, segment, 0),
        (b"bbb", 3, last, mq.CMQC.MQMF_LAST_SEGMENT),
    ]


@pytest.mark.embedded_only(ORDER)
def test_complete_msg_gets_a_segmented_message_whole_once_every_segment_is_there(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    writer = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT)
    writer.put(b"late: ", md, pmo)  # its last segment comes later
    queue.put(b"plain")
    mds = _put_segments(mq, queue, [b"one ", b"two ", b"three"])
    got = []
    for _ in range(2):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
        gmo = _whole_gmo(mq)
        got.append((queue.get(None, md, gmo), md.MsgId, md.Offset, gmo.SegmentStatus))
    assert got == [
        (b"plain", got[0][1], 0, mq.CMQC.MQSS_NOT_A_SEGMENT),
        (b"one two three", mds[0].MsgId, 0, mq.CMQC.MQSS_LAST_SEGMENT),  # the first's MQMD
    ]
    with pytest.raises(mq.MQMIError) as caught:  # an incomplete message is not got
        queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq, wait=200))
    assert caught.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
    assert env.depth(Q) == 1
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_LAST_SEGMENT)
    writer.put(b"here", md, pmo)
    whole = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    assert queue.get(None, whole, _whole_gmo(mq, wait=1000)) == b"late: here"
    assert env.depth(Q) == 0


@pytest.mark.embedded_only(ORDER)
def test_without_logical_order_the_program_numbers_the_segments(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    first = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT)
    queue.put(b"0123", first)  # MQGI_NONE: the queue manager gives a new GroupId
    assert first.GroupId != mq.CMQC.MQGI_NONE and first.Offset == 0
    last = mq.MD(
        Version=mq.CMQC.MQMD_VERSION_2,
        GroupId=first.GroupId,
        Offset=4,
        MsgFlags=mq.CMQC.MQMF_LAST_SEGMENT,
    )
    queue.put(b"4567", last)
    assert queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq)) == b"01234567"


@pytest.mark.embedded_only(ORDER)
def test_a_segmented_message_too_long_for_the_buffer_is_2080_and_stays(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"abcd", b"efgh"])
    with pytest.raises(mq.MQMIError) as caught:
        queue.get(6, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq))
    assert caught.value.reason == mq.CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert caught.value.original_length == 8
    assert env.depth(Q) == 2
    with pytest.raises(mq.MQMIError) as caught:
        gmo = _whole_gmo(mq, mq.CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
        queue.get(6, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), gmo)
    assert caught.value.reason == mq.CMQC.MQRC_TRUNCATED_MSG_ACCEPTED
    assert caught.value.message == b"abcdef"
    assert env.depth(Q) == 0


@pytest.mark.embedded_only(ORDER)
def test_a_whole_message_got_under_syncpoint_comes_back_with_a_backout(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd"])
    gmo = _whole_gmo(mq, mq.CMQC.MQGMO_SYNCPOINT)
    assert queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), gmo) == b"abcd"
    qmgr.backout()
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    assert queue.get(None, md, _whole_gmo(mq)) == b"abcd"
    assert md.BackoutCount == 1
    assert env.depth(Q) == 0


@pytest.mark.embedded_only(ORDER)
@pytest.mark.parametrize("whole", [True, False])
def test_a_group_whose_last_message_is_segmented(
    mq: ModuleType, env: MQEnv, qmgr, whole: bool
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    queue.put(b"before")
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    in_group, last_in_group = mq.CMQC.MQMF_MSG_IN_GROUP, mq.CMQC.MQMF_LAST_MSG_IN_GROUP
    flags = [
        in_group,
        last_in_group | mq.CMQC.MQMF_SEGMENT,
        last_in_group | mq.CMQC.MQMF_LAST_SEGMENT,
    ]
    mds = []
    for body, flag in zip([b"first", b"sec", b"ond"], flags, strict=True):
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=flag)
        queue.put(body, md, pmo)
        mds.append(md)
    assert [(md.MsgSeqNumber, md.Offset) for md in mds] == [(1, 0), (2, 0), (2, 3)]
    assert len({md.GroupId for md in mds}) == 1
    queue.put(b"after", mq.MD(Version=mq.CMQC.MQMD_VERSION_2), pmo)  # the group is over
    options = mq.CMQC.MQGMO_LOGICAL_ORDER | (mq.CMQC.MQGMO_COMPLETE_MSG if whole else 0)
    got = []
    while True:
        md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
        gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, Options=options)
        try:
            got.append((queue.get(None, md, gmo), gmo.GroupStatus, gmo.SegmentStatus))
        except mq.MQMIError as e:
            assert e.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
            break
    group, last = mq.CMQC.MQGS_MSG_IN_GROUP, mq.CMQC.MQGS_LAST_MSG_IN_GROUP
    not_in_group, not_a_segment = mq.CMQC.MQGS_NOT_IN_GROUP, mq.CMQC.MQSS_NOT_A_SEGMENT
    middle = (
        [(b"second", last, mq.CMQC.MQSS_LAST_SEGMENT)]
        if whole
        else [(b"sec", last, mq.CMQC.MQSS_SEGMENT), (b"ond", last, mq.CMQC.MQSS_LAST_SEGMENT)]
    )
    assert got == [
        (b"before", not_in_group, not_a_segment),
        (b"first", group, not_a_segment),
        *middle,
        (b"after", not_in_group, not_a_segment),
    ]


def test_segment_rules_incomplete_message_and_zero_length(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    with pytest.raises(mq.MQMIError) as caught:  # a first or middle segment needs data
        queue.put(b"", mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT), pmo)
    assert caught.value.reason == mq.CMQC.MQRC_SEGMENT_LENGTH_ZERO
    queue.put(b"part", mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT), pmo)
    with pytest.raises(mq.MQMIError) as caught:  # not a segment before the last one
        queue.put(b"other", mq.MD(Version=mq.CMQC.MQMD_VERSION_2), pmo)
    assert caught.value.reason == mq.CMQC.MQRC_INCOMPLETE_MSG
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_LAST_SEGMENT)
    queue.put(b"", md, pmo)  # a last segment may be empty
    assert md.Offset == 4
    queue.put(b"other", mq.MD(Version=mq.CMQC.MQMD_VERSION_2), pmo)
    assert env.depth(Q) == 3


@pytest.mark.embedded_only(ORDER)
@pytest.mark.parametrize("syncpoint", [False, True])
def test_the_queue_manager_segments_a_message_too_long_for_its_queue_when_allowed(
    mq: ModuleType, env: MQEnv, qmgr, syncpoint: bool
) -> None:
    # IBM's "Segmentation and reassembly by queue manager": MQMF_SEGMENTATION_ALLOWED on
    # the put, MQGMO_COMPLETE_MSG on the get; the put was 2030 MQRC_MSG_TOO_BIG_FOR_Q
    env.alter_queue(Q, MAXMSGL=16)  # the smallest segment MQ makes
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"x" * 40, mq.MD(Version=mq.CMQC.MQMD_VERSION_2))
    assert caught.value.reason == mq.CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    body = bytes(range(65, 105))  # 40 bytes: three segments of at most 16
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENTATION_ALLOWED)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT if syncpoint else 0)
    queue.put(body, md, pmo)
    if syncpoint:
        qmgr.backout()  # every segment goes
        assert env.depth(Q) == 0
        queue.put(body, md, pmo)
        qmgr.commit()
    assert env.depth(Q) == 3
    browse = mq.Queue(qmgr, Q, mq.CMQC.MQOO_BROWSE)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, Options=mq.CMQC.MQGMO_BROWSE_FIRST)
    seg = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    assert browse.get(None, seg, gmo) == body[:16]
    assert (seg.Offset, gmo.SegmentStatus, gmo.Segmentation) == (
        0,
        mq.CMQC.MQSS_SEGMENT,
        mq.CMQC.MQSEG_ALLOWED,
    )
    whole = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    assert queue.get(None, whole, _whole_gmo(mq)) == body
    assert whole.GroupId == seg.GroupId != mq.CMQC.MQGI_NONE
    assert env.depth(Q) == 0


def test_mqback_puts_the_segment_position_back(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # IBM's MQBACK usage notes: the group and segment information of each handle is
    # restored to what it was before the unit of work
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER | mq.CMQC.MQPMO_SYNCPOINT)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT)
    queue.put(b"backed out", md, pmo)
    qmgr.backout()
    again = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENT)
    queue.put(b"first", again, pmo)
    assert again.Offset == 0 and again.GroupId != md.GroupId  # a new logical message
    last = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_LAST_SEGMENT)
    queue.put(b"!", last, pmo)
    qmgr.commit()
    assert (last.Offset, last.GroupId) == (5, again.GroupId)
    assert env.depth(Q) == 2


@pytest.mark.embedded_only(ORDER)
def test_put1_segments_a_message_too_long_for_its_queue_or_an_alias_base_queue(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    env.alter_queue(Q, MAXMSGL=16)
    alias = env.define_alias("SEG.ALIAS", Q)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENTATION_ALLOWED)
    qmgr.put1(Q, b"0123456789abcdef!", md)
    assert env.depth(Q) == 2
    qmgr.put1(alias, b"through an alias, cut", mq.MD(Version=2, MsgFlags=md.MsgFlags))
    assert env.depth(Q) == 4  # cut by its base queue's MAXMSGL
    env.alter_queue(Q, MAXMSGL=15)  # below the smallest segment: 2030 stands
    with pytest.raises(mq.MQMIError) as caught:
        qmgr.put1(Q, b"0123456789abcdef!", mq.MD(Version=2, MsgFlags=md.MsgFlags))
    assert caught.value.reason == mq.CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    got = [queue.get(None, mq.MD(Version=2), _whole_gmo(mq)) for _ in range(2)]
    assert got == [b"0123456789abcdef!", b"through an alias, cut"]


@pytest.mark.embedded_only(ORDER)
def test_a_message_too_long_for_the_queue_manager_is_segmented_when_allowed(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # 2031 MQRC_MSG_TOO_BIG_FOR_Q_MGR: "...and MQMF_SEGMENTATION_ALLOWED was not specified"
    env.alter_qmgr(MAXMSGL=32768)
    try:
        body = bytes(range(256)) * 160  # 40960 bytes
        with pytest.raises(mq.MQMIError) as caught:
            qmgr.put1(Q, body, mq.MD(Version=2))
        assert caught.value.reason == mq.CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR
        qmgr.put1(Q, body, mq.MD(Version=2, MsgFlags=mq.CMQC.MQMF_SEGMENTATION_ALLOWED))
        assert env.depth(Q) == 2  # 32768 and 8192
        queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
        assert queue.get(None, mq.MD(Version=2), _whole_gmo(mq)) == body
    finally:
        env.alter_qmgr(MAXMSGL=4194304)
