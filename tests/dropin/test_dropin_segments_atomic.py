"""A segmented message is got or put all or nothing, as on IBM MQ.

MQGMO_COMPLETE_MSG gets the segments one by one after a browse (:mod:`mqjms.mqi.segments`):
a segment gone meanwhile (another consumer's get) backs out the ones already got, and
outside syncpoint with other work in the program's unit of work a segmented message is
not got (2072); under syncpoint beside other work, a segment gone meanwhile dooms the
unit of work (its MQCMIT backs it out, 2003).
A put the queue manager segments (MQMF_SEGMENTATION_ALLOWED) that fails part-way (2053)
leaves no segment; with other work in the unit of work it is not segmented (2030).
``with connect(...) as qmgr:`` backs the unit of work out when the block raises."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mqjms.mq import constants as C
from mqjms.mqi import segments
from tests.support.mqenv import MQEnv, wait_until

Q = "DEV.QUEUE.2"
OTHER = "DEV.QUEUE.3"
ORDER = "ActiveMQ hands a selector's matches over in an order of its own, and browses late"
REPO = Path(__file__).resolve().parents[2]


def _put_segments(mq: ModuleType, queue: Any, parts: list[bytes]) -> None:
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_LOGICAL_ORDER)
    for i, part in enumerate(parts, 1):
        flag = mq.CMQC.MQMF_LAST_SEGMENT if i == len(parts) else mq.CMQC.MQMF_SEGMENT
        queue.put(part, mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=flag), pmo)


def _whole_gmo(mq: ModuleType, *options: int) -> Any:
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_2, MatchOptions=mq.CMQC.MQMO_NONE)
    gmo.Options = mq.CMQC.MQGMO_COMPLETE_MSG | sum(options)
    return gmo


def _last_segment_taken_meanwhile(monkeypatch: pytest.MonkeyPatch, env: MQEnv) -> None:
    """Another consumer gets a logical message's last segment between the drop-in's
    browse and its gets."""
    real = segments.first_whole

    def racing(conn: Any, queue: Any, **kwargs: Any) -> Any:
        found = real(conn, queue, **kwargs)
        if found is not None and len(found) > 1:
            other = env.raw_connection("other-consumer")
            handle = other.open(Q, C.MQOO_INPUT_AS_Q_DEF)
            assert other.get(handle, wait=0.0, msg_id=found[-1][0].MsgId) is not None
            other.close(handle)
        return found

    monkeypatch.setattr(segments, "first_whole", racing)


@pytest.mark.embedded_only(ORDER)
@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_segment_gone_meanwhile_backs_out_the_segments_got(
    mq: ModuleType, env: MQEnv, qmgr: Any, monkeypatch: pytest.MonkeyPatch, syncpoint: bool
) -> None:
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd", b"ef"])
    _last_segment_taken_meanwhile(monkeypatch, env)
    options = mq.CMQC.MQGMO_SYNCPOINT if syncpoint else mq.CMQC.MQGMO_NO_SYNCPOINT
    with pytest.raises(mq.MQMIError) as caught:
        queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq, options))
    assert caught.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
    qmgr.commit()  # commits nothing of it: the two segments got are back on the queue
    assert [data for _, data in env.browse(Q)] == [b"ab", b"cd"]


@pytest.mark.embedded_only(ORDER)
def test_a_segmented_message_is_not_got_outside_syncpoint_beside_other_work(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    # outside syncpoint its segments are got in a unit of work of their own, which the
    # program's pending work leaves no room for: 2072, nothing taken
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd", b"ef"])
    queue.put(b"plain", mq.MD(Version=mq.CMQC.MQMD_VERSION_2))
    qmgr.put1(OTHER, b"other work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    options = mq.CMQC.MQGMO_NO_SYNCPOINT
    with pytest.raises(mq.MQMIError) as caught:
        queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq, options))
    assert caught.value.reason == mq.CMQC.MQRC_SYNCPOINT_NOT_AVAILABLE
    qmgr.commit()
    assert env.depth(OTHER) == 1
    assert env.depth(Q) == 4  # untouched
    qmgr.put1(OTHER, b"more work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    gmo = _whole_gmo(mq, options)
    gmo.MatchOptions = mq.CMQC.MQMO_MATCH_MSG_ID
    plain = env.browse(Q)[-1][0].MsgId
    # a message that is no segment is one get: got beside other work all the same
    assert queue.get(None, mq.MD(Version=2, MsgId=plain), gmo) == b"plain"
    qmgr.commit()
    assert queue.get(None, mq.MD(Version=2), _whole_gmo(mq)) == b"abcdef"  # once it is empty


@pytest.mark.embedded_only(ORDER)
def test_segmented_messages_are_got_under_syncpoint_beside_other_work(
    mq: ModuleType, env: MQEnv, qmgr: Any
) -> None:
    # a batch: several whole messages, and other work, in one unit of work, as on IBM MQ
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd"])
    _put_segments(mq, queue, [b"ef", b"gh"])
    qmgr.put1(OTHER, b"other work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    options = mq.CMQC.MQGMO_SYNCPOINT
    assert queue.get(None, mq.MD(Version=2), _whole_gmo(mq, options)) == b"abcd"
    assert queue.get(None, mq.MD(Version=2), _whole_gmo(mq, options)) == b"efgh"
    qmgr.backout()
    assert env.depth(Q) == 4 and env.depth(OTHER) == 0  # all of it back
    qmgr.put1(OTHER, b"other work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    assert queue.get(None, mq.MD(Version=2), _whole_gmo(mq, options)) == b"abcd"
    qmgr.commit()
    assert env.depth(Q) == 2 and env.depth(OTHER) == 1


@pytest.mark.embedded_only(ORDER)
def test_a_segment_gone_beside_other_work_dooms_the_unit_of_work(
    mq: ModuleType, env: MQEnv, qmgr: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the segments got cannot be backed out apart from the program's other work: its
    # MQCMIT backs everything out (2003) and nothing is lost or half-taken
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd", b"ef"])
    qmgr.put1(OTHER, b"other work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    _last_segment_taken_meanwhile(monkeypatch, env)
    options = mq.CMQC.MQGMO_SYNCPOINT
    with pytest.raises(mq.MQMIError) as caught:
        queue.get(None, mq.MD(Version=mq.CMQC.MQMD_VERSION_2), _whole_gmo(mq, options))
    assert caught.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
    with pytest.raises(mq.MQMIError) as committed:
        qmgr.commit()
    assert committed.value.reason == mq.CMQC.MQRC_BACKED_OUT
    assert [data for _, data in env.browse(Q)] == [b"ab", b"cd"]
    assert env.depth(OTHER) == 0
    qmgr.put1(OTHER, b"after", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    qmgr.commit()  # the next unit of work commits
    assert env.depth(OTHER) == 1


@pytest.mark.embedded_only(ORDER)
def test_a_process_killed_while_it_gets_a_segmented_message_leaves_it_whole(
    mq: ModuleType, env: MQEnv, qmgr: Any, tmp_path: Path
) -> None:
    # a get without syncpoint, killed (kill -9) once it has got the first segment: the
    # unit of work it was in is backed out, the message whole on the queue again
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF | mq.CMQC.MQOO_OUTPUT)
    _put_segments(mq, queue, [b"ab", b"cd", b"ef"])
    program = tmp_path / "killed.py"
    program.write_text(
        textwrap.dedent(
            f"""
            import os, signal
            import pymqi
            from mqjms.mqi import segments
            real = segments.take
            def dying(conn, queue, found, **kwargs):
                class Dying:
                    def __getattr__(self, name):
                        return getattr(conn, name)
                    def get(self, *args, **kw):
                        got = conn.get(*args, **kw)
                        os.kill(os.getpid(), signal.SIGKILL)
                return real(Dying(), queue, found, **kwargs)
            segments.take = dying
            qmgr = pymqi.connect("QM1")
            gmo = pymqi.GMO(Version=2, MatchOptions=0, Options=pymqi.CMQC.MQGMO_COMPLETE_MSG)
            pymqi.Queue(qmgr, "{Q}").get(None, pymqi.MD(Version=2), gmo)
            """
        )
    )
    child_env = dict(os.environ, MQJMS_URL=env.url)
    child_env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO), child_env.get("PYTHONPATH")])
    )
    child = subprocess.run(
        [sys.executable, "-m", "mqjms.pymqi", str(program)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert child.returncode == -9, child.stderr
    # a get that finds nothing backs out a dead process's unit of work once it has
    # noticed the death (a browse, as MQGMO_COMPLETE_MSG's look, does not)
    assert wait_until(lambda: env.get_raw(OTHER) is None and len(env.browse(Q)) == 3)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2)
    assert queue.get(None, md, _whole_gmo(mq)) == b"abcdef"
    assert env.depth(Q) == 0


@pytest.mark.embedded_only(ORDER)
@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_segmented_put_that_fails_part_way_leaves_nothing(
    mq: ModuleType, env: MQEnv, qmgr: Any, syncpoint: bool
) -> None:
    env.alter_queue(Q, MAXMSGL=16, MAXDEPTH=2)  # 40 bytes are three segments: the third is 2053
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENTATION_ALLOWED)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT if syncpoint else mq.CMQC.MQPMO_NO_SYNCPOINT)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"x" * 40, md, pmo)
    assert caught.value.reason == mq.CMQC.MQRC_Q_FULL
    qmgr.commit()  # commits nothing of it
    assert env.depth(Q) == 0


@pytest.mark.embedded_only(ORDER)
@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_put_is_not_segmented_beside_other_work_in_the_unit_of_work(
    mq: ModuleType, env: MQEnv, qmgr: Any, syncpoint: bool
) -> None:
    env.alter_queue(Q, MAXMSGL=16, MAXDEPTH=2)
    qmgr.put1(OTHER, b"other work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_OUTPUT)
    md = mq.MD(Version=mq.CMQC.MQMD_VERSION_2, MsgFlags=mq.CMQC.MQMF_SEGMENTATION_ALLOWED)
    pmo = mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT if syncpoint else mq.CMQC.MQPMO_NO_SYNCPOINT)
    with pytest.raises(mq.MQMIError) as caught:
        queue.put(b"x" * 40, md, pmo)
    assert caught.value.reason == mq.CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    qmgr.commit()
    assert (env.depth(Q), env.depth(OTHER)) == (0, 1)
    queue.put(b"x" * 20, md, pmo)  # once the unit of work is empty: two segments
    qmgr.commit()
    assert env.depth(Q) == 2


def test_a_with_block_that_raises_backs_out_before_it_disconnects(
    mq: ModuleType, env: MQEnv
) -> None:
    env.put_raw(Q, b"got in the block")
    with pytest.raises(RuntimeError), mq.connect("QM1") as qmgr:
        queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
        gmo = mq.GMO(Options=mq.CMQC.MQGMO_SYNCPOINT)
        assert queue.get(None, mq.MD(), gmo) == b"got in the block"
        qmgr.put1(OTHER, b"put in the block", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
        raise RuntimeError("the program failed")
    assert not qmgr.is_connected
    md, data = env.browse_one(Q)
    assert (data, md.BackoutCount) == (b"got in the block", 1)
    assert env.depth(OTHER) == 0
    with mq.connect("QM1") as qmgr:  # a block that ends well commits
        queue = mq.Queue(qmgr, Q, mq.CMQC.MQOO_INPUT_AS_Q_DEF)
        queue.get(None, mq.MD(), mq.GMO(Options=mq.CMQC.MQGMO_SYNCPOINT))
    assert env.depth(Q) == 0
