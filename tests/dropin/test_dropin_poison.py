"""Seed 002 in the drop-in's Queue.get, every rule through both flavours and every transport
(issue 14; shared/reference/pymqi.md section 6).

A poison message (BackoutCount >= BOTHRESH > 0) that a destructive get meets is moved to
BOQNAME as IBM MQ classes for JMS move it; the program gets the next message within what
remains of its wait, its MQMD untouched. Which unit of work the move is made in is the
drop-in's hybrid rule: the program's when it holds the program's work, else committed
on its own at once.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.rfh2 import parse_chain
from mqjms.mqi import routing, screening
from tests.support.mqenv import MQEnv

IN = "DEV.QUEUE.1"
BOQ = "DEV.QUEUE.2"
DLQ = "DEV.DEAD.LETTER.QUEUE"


def poison_queue(env: MQEnv, bothresh: int = 2, boqname: str = BOQ) -> None:
    env.alter_queue(IN, BOTHRESH=bothresh, BOQNAME=boqname)


def put_poison(env: MQEnv, body: bytes = b"poison", backouts: int = 2, **md: Any) -> MQMD:
    """A message on IN that has been backed out ``backouts`` times (raw transport: no
    screening). Returns its MQMD as put."""
    put = env.put_raw(IN, body, **md)
    env.back_out(IN, backouts)
    return put


def gmo(mq: ModuleType, options: int = 0, wait_ms: int = 0) -> Any:
    return mq.GMO(Options=options | (mq.CMQC.MQGMO_WAIT if wait_ms else 0), WaitInterval=wait_ms)


def get(mq: ModuleType, queue: Any, options: int = 0, wait_ms: int = 0, md: Any = None) -> Any:
    return queue.get(None, md if md is not None else mq.MD(), gmo(mq, options, wait_ms))


def no_message(mq: ModuleType, queue: Any, options: int = 0, wait_ms: int = 0) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        get(mq, queue, options, wait_ms)
    assert (failure.value.comp, failure.value.reason) == (2, 2033)


def moved(env: MQEnv, queue: str = BOQ) -> list[tuple[MQMD, bytes]]:
    return env.browse(queue)


def body_of(md: MQMD, data: bytes) -> bytes:
    """The data of a message on the backout queue without the RFH2 the move added."""
    return parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).body


# --------------------------------------------------------------------------- the decision


def test_backout_count_zero_is_delivered_without_inquiry(mq, env: MQEnv, qmgr) -> None:
    # seed 002: BOTHRESH is inquired only when a message with BackoutCount > 0 is seen
    poison_queue(env)
    env.put_raw(IN, b"fresh")
    before = screening.handler().cache.inquiries
    queue = mq.Queue(qmgr, IN)
    assert get(mq, queue) == b"fresh"
    assert screening.handler().cache.inquiries == before


def test_below_the_threshold_is_delivered_with_its_backout_count(mq, env: MQEnv, qmgr) -> None:
    # seed 002: BackoutCount < BOTHRESH: delivered (JMSXDeliveryCount = BackoutCount + 1)
    poison_queue(env, bothresh=3)
    put_poison(env, b"twice", backouts=2)
    md = mq.MD()
    assert get(mq, mq.Queue(qmgr, IN), md=md) == b"twice"
    assert md.BackoutCount == 2
    assert moved(env) == []


def test_bothresh_zero_is_transparent(mq, env: MQEnv, qmgr) -> None:
    # seed 002: BOTHRESH 0 disables poison handling
    poison_queue(env, bothresh=0)
    put_poison(env, b"many", backouts=3)
    md = mq.MD()
    assert get(mq, mq.Queue(qmgr, IN), md=md) == b"many"
    assert md.BackoutCount == 3


# --------------------------------------------------------------------------- the route


def test_a_poison_message_is_moved_and_the_get_returns_the_next(mq, env: MQEnv, qmgr) -> None:
    # seed 002: at or above BOTHRESH the message goes to BOQNAME; the get goes on
    poison_queue(env)
    poison = put_poison(env, b"poison", backouts=2, Format=C.MQFMT_STRING)
    env.put_raw(IN, b"good")
    md = mq.MD()
    assert get(mq, mq.Queue(qmgr, IN), md=md) == b"good"
    assert md.BackoutCount == 0
    [(boq_md, boq_data)] = moved(env)
    assert boq_md.MsgId == poison.MsgId
    assert boq_md.BackoutCount == 0  # seed 002: the MQMD is reset
    assert boq_md.Format.strip() == C.MQFMT_RF_HEADER_2.strip()  # an RFH2 is added
    assert body_of(boq_md, boq_data) == b"poison"
    assert env.depth(IN) == 0


@pytest.mark.embedded_only(
    "over STOMP a message too long goes back to the end of the queue and is not got again "
    "by its MsgId within the get (left as it was: docs/pymqi.md)"
)
@pytest.mark.parametrize("syncpoint", [False, True])
def test_a_poison_message_too_long_for_the_buffer_is_moved_not_shown(
    mq, env: MQEnv, qmgr, syncpoint: bool
) -> None:
    # seed 002: a poison message is moved whatever the program's buffer; never returned,
    # even in part (2080 with its first bytes); a good one too long still gets 2080
    poison_queue(env)
    poison = put_poison(env, b"poison body", backouts=2)
    env.put_raw(IN, b"good but long")
    queue = mq.Queue(qmgr, IN)
    options = gmo(mq, mq.CMQC.MQGMO_SYNCPOINT if syncpoint else 0, wait_ms=5000)
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(4, mq.MD(), options)
    assert failure.value.reason == mq.CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert failure.value.message == b"good"
    qmgr.commit()
    [(boq_md, boq_data)] = moved(env)
    assert boq_md.MsgId == poison.MsgId and body_of(boq_md, boq_data) == b"poison body"
    assert env.depth(IN) == 1  # the good message stays


@pytest.mark.embedded_only("as above")
def test_a_poison_message_too_long_that_no_queue_takes_is_never_lost(mq, env: MQEnv, qmgr) -> None:
    # no backout queue, no dead-letter queue: it stays on the input queue, whole, in the
    # drop-in's own unit (backed out once more) and in a program's unit holding work (2080)
    poison_queue(env, boqname="NO.SUCH.QUEUE")
    env.alter_qmgr(DEADQ="")
    put_poison(env, b"poison body")
    queue = mq.Queue(qmgr, IN)
    with pytest.raises(mq.MQMIError) as failure:
        queue.get(4, mq.MD(), gmo(mq, wait_ms=200))
    assert failure.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
    mq.Queue(qmgr, "DEV.QUEUE.3").put(b"work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(mq.MQMIError) as failure:  # holding work: the 2080 stands
        queue.get(4, mq.MD(), gmo(mq, mq.CMQC.MQGMO_SYNCPOINT))
    assert failure.value.reason == mq.CMQC.MQRC_TRUNCATED_MSG_FAILED
    qmgr.backout()
    [(md, data)] = env.browse(IN)
    assert data == b"poison body" and md.BackoutCount == 3


def test_the_callers_md_is_untouched_when_a_poison_message_is_skipped(mq, env: MQEnv, qmgr) -> None:
    poison_queue(env)
    put_poison(env)
    md = mq.MD()
    before = md.get()
    gmo_ = gmo(mq)
    gmo_before = gmo_.get()
    with pytest.raises(mq.MQMIError) as failure:
        mq.Queue(qmgr, IN).get(None, md, gmo_)
    assert failure.value.reason == 2033
    assert md.get() == before
    assert gmo_.get() == gmo_before
    assert len(moved(env)) == 1


def test_the_get_goes_on_within_the_remaining_wait(mq, env: MQEnv, qmgr) -> None:
    poison_queue(env)
    put_poison(env)
    queue = mq.Queue(qmgr, IN)

    def later() -> None:
        env.put_raw(IN, b"arrived later")

    import threading

    timer = threading.Timer(0.3, later)
    timer.start()
    try:
        assert get(mq, queue, wait_ms=10_000) == b"arrived later"
    finally:
        timer.join()
    assert len(moved(env)) == 1


def test_without_boqname_it_is_dead_lettered(mq, env: MQEnv, qmgr) -> None:
    # seed 002: no BOQNAME: the dead-letter queue, with an MQDLH (reason 2362)
    poison_queue(env, boqname="")
    put_poison(env)
    no_message(mq, mq.Queue(qmgr, IN))
    [(dl_md, dl_data)] = env.browse(DLQ)
    assert dl_md.Format.strip() == C.MQFMT_DEAD_LETTER_HEADER.strip()
    from mqjms.mq.dlh import parse_dlh

    dlh, _ = parse_dlh(dl_data, dl_md.Encoding)
    assert dlh.Reason == C.MQRC_BACKOUT_THRESHOLD_REACHED
    assert dlh.DestQName == IN


def test_discard_msg_report_option_discards_it(mq, env: MQEnv, qmgr) -> None:
    # seed 002: no BOQNAME and MQRO_DISCARD_MSG: the message is discarded
    poison_queue(env, boqname="")
    put_poison(env, Report=C.MQRO_DISCARD_MSG)
    no_message(mq, mq.Queue(qmgr, IN))
    assert env.depth(IN) == 0
    assert env.browse(DLQ) == []


def test_a_discarded_message_asking_for_its_data_back_is_returned_in_a_report(
    mq, env: MQEnv, qmgr
) -> None:
    # IBM "Removing messages from the queue in ASF": the message is discarded by its
    # report options and the exception report it asks for goes to its ReplyToQ
    poison_queue(env, boqname="")
    env.define_queue("DROPIN.REPLY")
    report = C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA
    put = put_poison(env, b"return to sender", Report=report, ReplyToQ="DROPIN.REPLY")
    no_message(mq, mq.Queue(qmgr, IN))
    assert env.depth(IN) == 0 and env.browse(DLQ) == []
    [(md, data)] = env.browse("DROPIN.REPLY")
    assert md.MsgType == C.MQMT_REPORT and md.CorrelId == put.MsgId
    assert md.Feedback == C.MQRC_BACKOUT_THRESHOLD_REACHED and data == b"return to sender"


def test_a_matching_get_moves_a_poison_reply(mq, env: MQEnv, qmgr) -> None:
    poison_queue(env)
    correl = b"REPLY-1".ljust(24, b"\0")
    put_poison(env, b"poison reply", CorrelId=correl)
    md = mq.MD()
    md.CorrelId = correl
    with pytest.raises(mq.MQMIError) as failure:
        get(mq, mq.Queue(qmgr, IN), md=md)
    assert failure.value.reason == 2033
    assert [body_of(*m) for m in moved(env)] == [b"poison reply"]


# --------------------------------------------------------------------------- units of work


def test_under_syncpoint_with_an_empty_unit_of_work_the_move_is_committed_at_once(
    mq, env: MQEnv, qmgr
) -> None:
    # the hybrid rule: a program that backs out after every 2033 must not undo the move
    poison_queue(env)
    put_poison(env)
    no_message(mq, mq.Queue(qmgr, IN), mq.CMQC.MQGMO_SYNCPOINT)
    qmgr.backout()
    assert len(moved(env)) == 1
    assert env.depth(IN) == 0


def test_under_syncpoint_a_move_joins_a_unit_of_work_holding_work(mq, env: MQEnv, qmgr) -> None:
    # seed 002 (synchronous receive): the requeue is made in the unit of work active at
    # the get; the program's backout returns the poison message to the input queue
    poison_queue(env)
    put_poison(env, b"poison")
    env.put_raw(IN, b"good")
    queue = mq.Queue(qmgr, IN)
    mq.Queue(qmgr, "DEV.QUEUE.3").put(
        b"the program's own work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT)
    )
    assert get(mq, queue, mq.CMQC.MQGMO_SYNCPOINT) == b"good"
    assert moved(env) == []  # not yet: in the program's unit of work
    qmgr.backout()
    assert moved(env) == []
    [(md, data)] = env.browse(IN)[:1]
    assert data == b"poison" and md.BackoutCount == 3


def test_the_programs_commit_completes_a_move_held_in_its_unit_of_work(
    mq, env: MQEnv, qmgr
) -> None:
    poison_queue(env)
    put_poison(env, b"poison")
    env.put_raw(IN, b"good")
    queue = mq.Queue(qmgr, IN)
    mq.Queue(qmgr, "DEV.QUEUE.3").put(b"work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    assert get(mq, queue, mq.CMQC.MQGMO_SYNCPOINT) == b"good"
    qmgr.commit()
    assert [body_of(*m) for m in moved(env)] == [b"poison"]
    assert env.depth(IN) == 0


def test_without_syncpoint_the_drop_in_moves_it_under_its_own(mq, env: MQEnv, qmgr) -> None:
    # a get without syncpoint never gains a silent syncpoint of the program's
    poison_queue(env)
    put_poison(env)
    env.put_raw(IN, b"good")
    assert get(mq, mq.Queue(qmgr, IN)) == b"good"
    qmgr.backout()  # nothing of the program's to back out: the good message is gone too
    assert env.depth(IN) == 0
    assert len(moved(env)) == 1


def test_without_syncpoint_while_holding_work_the_move_is_outside_it(mq, env: MQEnv, qmgr) -> None:
    poison_queue(env)
    put_poison(env)
    mq.Queue(qmgr, "DEV.QUEUE.3").put(b"work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    no_message(mq, mq.Queue(qmgr, IN))
    qmgr.backout()  # backs out the program's put, not the move
    assert len(moved(env)) == 1
    assert env.depth("DEV.QUEUE.3") == 0


def test_when_no_queue_takes_it_it_stays_on_the_input_queue(mq, env: MQEnv, qmgr) -> None:
    # the drop-in's own unit of work is backed out rather than committed away
    poison_queue(env, boqname="NO.SUCH.QUEUE")
    env.alter_qmgr(DEADQ="")
    put_poison(env, b"stuck")
    no_message(mq, mq.Queue(qmgr, IN), wait_ms=200)
    [(md, data)] = env.browse(IN)
    assert data == b"stuck" and md.BackoutCount == 3  # backed out once more


def test_when_no_queue_takes_it_in_the_programs_work_the_program_gets_it(
    mq, env: MQEnv, qmgr
) -> None:
    # nothing lost: rather than let the program's commit discard it, it is delivered
    poison_queue(env, boqname="NO.SUCH.QUEUE")
    env.alter_qmgr(DEADQ="")
    put_poison(env, b"stuck")
    mq.Queue(qmgr, "DEV.QUEUE.3").put(b"work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    md = mq.MD()
    assert get(mq, mq.Queue(qmgr, IN), mq.CMQC.MQGMO_SYNCPOINT, md=md) == b"stuck"
    assert md.BackoutCount == 2
    qmgr.backout()
    assert env.depth(IN) == 1


# --------------------------------------------------------------------------- switches


def test_poison_false_turns_screening_off(mq, env: MQEnv) -> None:
    routing.configure(poison=False)
    poison_queue(env)
    put_poison(env, b"poison")
    qmgr = mq.connect("QM1")
    try:
        md = mq.MD()
        assert get(mq, mq.Queue(qmgr, IN), md=md) == b"poison"
        assert md.BackoutCount == 2
        assert moved(env) == []
    finally:
        qmgr.disconnect()


def test_strict_jms_mode_keeps_every_move_in_the_programs_unit_of_work(mq, env: MQEnv) -> None:
    # IBM MQ classes for JMS exactly: the requeue is made in the unit of work of the get
    routing.configure(poison="jms")
    poison_queue(env)
    put_poison(env, b"poison")
    qmgr = mq.connect("QM1")
    try:
        no_message(mq, mq.Queue(qmgr, IN), mq.CMQC.MQGMO_SYNCPOINT)
        assert moved(env) == []
        qmgr.backout()
        assert moved(env) == []
        assert env.browse(IN)[0][0].BackoutCount == 3
        no_message(mq, mq.Queue(qmgr, IN), mq.CMQC.MQGMO_SYNCPOINT)
        qmgr.commit()
        assert len(moved(env)) == 1
    finally:
        qmgr.disconnect()


def test_browse_is_never_screened(mq, env: MQEnv, qmgr) -> None:
    poison_queue(env)
    put_poison(env, b"poison")
    queue = mq.Queue(qmgr, IN, mq.CMQC.MQOO_BROWSE | mq.CMQC.MQOO_INPUT_SHARED)
    md = mq.MD()
    assert get(mq, queue, mq.CMQC.MQGMO_BROWSE_FIRST, md=md) == b"poison"
    assert md.BackoutCount == 2
    assert moved(env) == []
    # a destructive get of the message under the cursor is screened
    with pytest.raises(mq.MQMIError) as failure:
        get(mq, queue, mq.CMQC.MQGMO_MSG_UNDER_CURSOR)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR
    assert len(moved(env)) == 1


def test_the_threshold_of_an_aliases_base_queue_applies(mq, env: MQEnv, qmgr) -> None:
    # seed 002: BOTHRESH and BOQNAME are the underlying queue's
    poison_queue(env)
    env.define_alias("DEV.ALIAS.1", IN)
    put_poison(env)
    no_message(mq, mq.Queue(qmgr, "DEV.ALIAS.1"))
    assert len(moved(env)) == 1


def test_on_poison_hooks_see_the_move(mq, env: MQEnv, qmgr) -> None:
    seen: list[Any] = []
    hook = screening.on_poison(seen.append)
    try:
        poison_queue(env)
        put_poison(env)
        no_message(mq, mq.Queue(qmgr, IN))
    finally:
        screening.handler().hooks.remove(hook)
    [event] = seen
    assert event.outcome.value == "moved" and event.destination == BOQ
    assert event.style.value == "mqi"
