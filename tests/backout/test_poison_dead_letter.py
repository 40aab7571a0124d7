"""When the backout queue cannot take a poison message: report options, the dead-letter
queue with an MQDLH, and what happens when the dead-letter queue fails too (seed 002)."""

from __future__ import annotations

from typing import Any

import pytest

from mqjms.mq import MQMD, C, parse_dlh, parse_xqh

IN, BOQ, DLQ = "DL.IN", "DL.BACKOUT", "DL.DEAD"
BOTHRESH = 2
BODY = b"caf\xe9 poison body"  # latin-1 (CCSID 819) text


def _put_poison(env: Any, report: int = C.MQRO_NONE, body: bytes = BODY) -> tuple[MQMD, bytes]:
    """A plain MQ message (no RFH2) put with CCSID 819 / Encoding 546, then backed out to
    BackoutCount == BOTHRESH. Returns the MQMD and bytes as the queue holds them."""
    env.put_raw(
        IN,
        body,
        Format=C.MQFMT_STRING,
        CodedCharSetId=819,
        Encoding=546,
        Report=report,
        CorrelId=b"CORREL-1".ljust(24, b"\0"),
        Persistence=C.MQPER_PERSISTENT,
    )
    env.back_out(IN, BOTHRESH)
    md, data = env.browse_one(IN)
    assert md.BackoutCount == BOTHRESH
    return md, data


def _setup(env: Any, *, boqname: str = "", dlq: str | None = DLQ, **in_attrs: Any) -> None:
    env.define_queue(IN, BOTHRESH=BOTHRESH, BOQNAME=boqname, **in_attrs)
    env.define_queue(DLQ)
    if dlq is not None:
        env.alter_qmgr(DEADQ=dlq)


def _check_dead_lettered(
    env: Any, original: MQMD, data: bytes, reason: int, dest_queue: str = IN
) -> None:
    """seed 002 + mq-reference §3: the message is on the DLQ behind an MQDLH."""
    md, raw = env.browse_one(DLQ)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    dlh, rest = parse_dlh(raw, md.Encoding)
    assert dlh.Reason == reason
    assert dlh.DestQName.strip() == dest_queue
    assert dlh.DestQMgrName.strip() == env.qmgr_name
    assert dlh.Encoding == original.Encoding
    assert dlh.CodedCharSetId == original.CodedCharSetId
    assert dlh.Format.strip() == original.Format.strip()
    assert rest == data  # the original bytes follow the DLH unchanged
    assert md.MsgId == original.MsgId
    assert md.CorrelId == original.CorrelId
    assert md.BackoutCount == 0
    assert md.Report == original.Report
    assert md.Persistence == original.Persistence


# --------------------------------------------------------------------------- BOQNAME blank
@pytest.mark.parametrize(
    "report", [C.MQRO_NONE, C.MQRO_DEAD_LETTER_Q], ids=["no-option", "MQRO_DEAD_LETTER_Q"]
)
def test_blank_boqname_dead_letters_with_mqdlh(env: Any, report: int) -> None:
    # seed 002: BOTHRESH > 0 and BOQNAME not set: MQRO_DEAD_LETTER_Q, or neither
    # MQRO_DISCARD_MSG nor MQRO_DEAD_LETTER_Q -> put to the queue manager's DLQ.
    # The DLH: Reason MQRC_BACKOUT_THRESHOLD_REACHED (2362), DestQName/DestQMgrName,
    # the original Encoding/CodedCharSetId/Format; the MQMD Format MQDEAD.
    _setup(env)
    original, data = _put_poison(env, report)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    _check_dead_lettered(env, original, data, C.MQRC_BACKOUT_THRESHOLD_REACHED)


def test_blank_boqname_with_mqro_discard_msg_discards(env: Any) -> None:
    # seed 002: BOTHRESH > 0, BOQNAME not set, report option MQRO_DISCARD_MSG -> discarded.
    _setup(env)
    _put_poison(env, C.MQRO_DISCARD_MSG | C.MQRO_PASS_MSG_ID)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0


def test_a_jms_sender_asks_for_the_discard_with_jms_ibm_report_discard_msg(env: Any) -> None:
    # seed 002: "If the message has the report option MQRO_DISCARD_MSG set, the message is
    # discarded" -- a JMS application sets that option as IBM MQ classes for JMS let it:
    # the JMS_IBM_Report_Discard_Msg property, which is the MQMD's Report, no RFH2 property.
    _setup(env)
    sent = env.send(IN, "poison", properties={"JMS_IBM_Report_Discard_Msg": C.MQRO_DISCARD_MSG})
    md, _ = env.browse_one(IN)
    assert md.Report == C.MQRO_DISCARD_MSG and md.MsgId == sent.md.MsgId
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    received = consumer.receive(timeout=1.0)
    assert received is not None and "JMS_IBM_Report_Discard_Msg" not in received.properties
    session.rollback()  # BackoutCount 1 = BOTHRESH - 1
    assert consumer.receive(timeout=1.0) is not None
    session.rollback()  # BackoutCount 2 = BOTHRESH: poison, BOQNAME blank
    assert consumer.receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0  # discarded, not dead-lettered


def test_discard_is_inside_the_transaction(env: Any) -> None:
    # seed 002: the requeue (here: the discard) is within the unit of work active at the
    # get, so a rollback returns the message to the input queue.
    _setup(env)
    original, _ = _put_poison(env, C.MQRO_DISCARD_MSG)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.rollback()
    md, _ = env.browse_one(IN)
    assert md.MsgId == original.MsgId
    assert env.depth(DLQ) == 0


def test_dead_letter_move_is_inside_the_transaction(env: Any) -> None:
    # seed 002: synchronous receive -- the DLQ put is in the application's transaction.
    _setup(env)
    _put_poison(env)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    assert env.get_raw(DLQ) is None  # not committed yet
    session.rollback()
    assert env.depth(DLQ) == 0
    assert env.depth(IN) == 1


def test_blank_boqname_auto_acknowledge_dead_letters_at_once(env: Any) -> None:
    # seed 002: non-transacted session, BOQNAME blank, no discard option -> DLQ.
    _setup(env)
    original, data = _put_poison(env)
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    _check_dead_lettered(env, original, data, C.MQRC_BACKOUT_THRESHOLD_REACHED)


def test_jms_message_dead_lettered_keeps_its_rfh2_behind_the_dlh(env: Any) -> None:
    # seed 002 + mq-reference §3: DLH Encoding/CodedCharSetId/Format describe the
    # original data (here the JMS message's RFH2: MQHRF2, 273, 1208).
    _setup(env)
    sent = env.send(IN, "jms poison", properties={"order": 7})
    env.back_out(IN, BOTHRESH)
    original, data = env.browse_one(IN)
    assert original.Format == C.MQFMT_RF_HEADER_2
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    _check_dead_lettered(env, original, data, C.MQRC_BACKOUT_THRESHOLD_REACHED)
    md, _ = env.browse_one(DLQ)
    assert md.MsgId == sent.md.MsgId


@pytest.mark.requires("alias")
def test_dlh_dest_q_name_is_the_underlying_queue_of_an_alias(env: Any) -> None:
    # seed 002: point-to-point poison handling works on the underlying local queue;
    # the DLH names the queue the message was on.
    _setup(env)
    env.define_alias("DL.ALIAS", IN)
    original, data = _put_poison(env)
    session = env.connect().session()
    assert session.consumer("DL.ALIAS").receive_no_wait() is None
    _check_dead_lettered(env, original, data, C.MQRC_BACKOUT_THRESHOLD_REACHED, dest_queue=IN)


# --------------------------------------------------------------------------- BOQ put fails
BOQ_FAILURES = {
    # name: (how to break the backout queue, the reason its put fails with)
    "missing": ({"boqname": "DL.NO.SUCH.QUEUE"}, {}, C.MQRC_UNKNOWN_OBJECT_NAME),  # 2085
    "put-disabled": ({"boqname": BOQ}, {"PUT": "DISABLED"}, C.MQRC_PUT_INHIBITED),  # 2051
    "full": ({"boqname": BOQ}, {"MAXDEPTH": 0}, C.MQRC_Q_FULL),  # 2053
    "too-big": ({"boqname": BOQ}, {"MAXMSGL": 16}, C.MQRC_MSG_TOO_BIG_FOR_Q),  # 2030
}


@pytest.mark.parametrize("failure", list(BOQ_FAILURES))
def test_failed_backout_queue_put_dead_letters_with_its_reason(env: Any, failure: str) -> None:
    # seed 002: "If the message cannot be put to the backout queue, then it is either
    # moved to the queue manager's dead letter queue or discarded, depending upon the
    # report options of the message"; the DLH Reason is the failing put's reason.
    setup, boq_attrs, reason = BOQ_FAILURES[failure]
    _setup(env, **setup)
    if setup["boqname"] == BOQ:
        env.define_queue(BOQ, **boq_attrs)
    original, data = _put_poison(env, C.MQRO_NONE)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    if setup["boqname"] == BOQ:
        assert env.depth(BOQ) == 0
    _check_dead_lettered(env, original, data, reason)


@pytest.mark.parametrize("failure", list(BOQ_FAILURES))
def test_failed_backout_queue_put_with_mqro_discard_msg_discards(env: Any, failure: str) -> None:
    # seed 002: backout queue put fails + MQRO_DISCARD_MSG -> the message is discarded.
    setup, boq_attrs, _ = BOQ_FAILURES[failure]
    _setup(env, **setup)
    if setup["boqname"] == BOQ:
        env.define_queue(BOQ, **boq_attrs)
    _put_poison(env, C.MQRO_DISCARD_MSG)
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0


# --------------------------------------------------------------------------- DLQ put fails
DLQ_FAILURES = ["put-disabled", "deadq-blank", "deadq-missing"]


def _break_dlq(env: Any, how: str) -> None:
    if how == "put-disabled":
        env.alter_queue(DLQ, PUT="DISABLED")
    elif how == "deadq-blank":
        env.alter_qmgr(DEADQ="")
    elif how == "deadq-missing":
        env.alter_qmgr(DEADQ="DL.NO.SUCH.DLQ")
    else:
        raise AssertionError(how)


BOQ_STATES = {"boqname-blank": "", "boq-put-fails": "DL.NO.SUCH.QUEUE"}


@pytest.mark.parametrize("boq", list(BOQ_STATES))
@pytest.mark.parametrize("dlq_failure", DLQ_FAILURES)
def test_dlq_fails_transacted_commit_discards(env: Any, dlq_failure: str, boq: str) -> None:
    # seed 002: the put to the dead letter queue fails, transacted session, the
    # transaction is committed -> the message is discarded.
    _setup(env, boqname=BOQ_STATES[boq])
    _put_poison(env)
    _break_dlq(env, dlq_failure)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0


@pytest.mark.parametrize("boq", list(BOQ_STATES))
@pytest.mark.parametrize("dlq_failure", DLQ_FAILURES)
def test_dlq_fails_transacted_rollback_returns_to_input(
    env: Any, dlq_failure: str, boq: str
) -> None:
    # seed 002: the put to the dead letter queue fails, transacted session, the
    # transaction is rolled back -> the message is returned to the input queue.
    _setup(env, boqname=BOQ_STATES[boq])
    original, data = _put_poison(env)
    _break_dlq(env, dlq_failure)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.rollback()
    md, back = env.browse_one(IN)
    assert md.MsgId == original.MsgId
    assert back == data
    assert md.BackoutCount == BOTHRESH + 1
    assert env.depth(DLQ) == 0


@pytest.mark.parametrize("boq", list(BOQ_STATES))
@pytest.mark.parametrize("dlq_failure", DLQ_FAILURES)
def test_dlq_fails_non_transacted_discards(env: Any, dlq_failure: str, boq: str) -> None:
    # seed 002: the put to the dead letter queue fails and the session is
    # non-transacted -> the message is discarded.
    _setup(env, boqname=BOQ_STATES[boq])
    _put_poison(env)
    _break_dlq(env, dlq_failure)
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0
    # ... and the receive does not get stuck on it: the next message is delivered
    env.send(IN, "next")
    message = session.consumer(IN).receive(timeout=1.0)
    assert message is not None and message.body == "next"


@pytest.mark.parametrize(
    "report",
    [C.MQRO_NONE, C.MQRO_DISCARD_MSG, C.MQRO_DEAD_LETTER_Q],
    ids=["no-option", "MQRO_DISCARD_MSG", "MQRO_DEAD_LETTER_Q"],
)
def test_report_options_do_not_matter_when_the_backout_queue_takes_it(
    env: Any, report: int
) -> None:
    # seed 002: the report options decide only "if the message cannot be put to the
    # backout queue" (or BOQNAME is not set); otherwise the message goes to BOQNAME.
    _setup(env, boqname=BOQ)
    env.define_queue(BOQ)
    original, _ = _put_poison(env, report)
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    assert env.depth(DLQ) == 0
    md, _ = env.browse_one(BOQ)
    assert md.MsgId == original.MsgId
    assert md.Report == report


# --------------------------------------------------------------------------- exception reports
# IBM MQ classes for JMS, "Removing messages from the queue in ASF": a poison message that
# is not requeued to the backout queue goes where its disposition options say, and "the
# ConnectionConsumer also generates a report message" to the ReplyToQ when the Report field
# asks for one (MQRO_EXCEPTION*), its Feedback the reason (MQRC 2362 "appears in the
# Feedback field of the report message"); a report that cannot be sent goes to the DLQ.
REPLY = "DL.REPLY"


def _poison_asking_for_a_report(env: Any, report: int) -> tuple[MQMD, bytes]:
    env.define_queue(REPLY)
    env.put_raw(IN, BODY, Format=C.MQFMT_STRING, Report=report, ReplyToQ=REPLY, Persistence=1)
    env.back_out(IN, BOTHRESH)
    return env.browse_one(IN)


def _receive_and_commit(env: Any) -> None:
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.commit()


def test_discarded_with_exception_with_full_data_goes_back_to_its_sender(env: Any) -> None:
    # "If you want to return the original message to the sender, without the original
    # message being placed on the dead-letter queue, the sender must specify
    # MQRO_DISCARD_MSG with MQRO_EXCEPTION_WITH_FULL_DATA"
    _setup(env)
    original, data = _poison_asking_for_a_report(
        env, C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA
    )
    _receive_and_commit(env)
    assert env.depth(IN) == 0 and env.depth(DLQ) == 0
    md, body = env.browse_one(REPLY)
    assert md.MsgType == C.MQMT_REPORT
    assert md.Feedback == C.MQRC_BACKOUT_THRESHOLD_REACHED == 2362
    assert body == data == BODY
    assert md.CorrelId == original.MsgId  # MQRO_COPY_MSG_ID_TO_CORREL_ID, the default
    assert md.MsgId != original.MsgId  # MQRO_NEW_MSG_ID, the default


def test_dead_lettered_with_mqro_exception_reports_without_data(env: Any) -> None:
    _setup(env)
    original, data = _poison_asking_for_a_report(
        env, C.MQRO_EXCEPTION | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID
    )
    _receive_and_commit(env)
    _check_dead_lettered(env, original, data, C.MQRC_BACKOUT_THRESHOLD_REACHED)
    md, body = env.browse_one(REPLY)
    assert md.Feedback == C.MQRC_BACKOUT_THRESHOLD_REACHED and body == b""
    assert md.MsgId == original.MsgId and md.CorrelId == original.CorrelId


def test_the_report_is_in_the_unit_of_work_of_the_requeue(env: Any) -> None:
    _setup(env)
    _poison_asking_for_a_report(env, C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA)
    session = env.connect().session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.rollback()
    assert env.depth(IN) == 1 and env.depth(REPLY) == 0


def test_no_report_when_the_backout_queue_takes_the_message(env: Any) -> None:
    # moved to BOQNAME: the message is requeued, not removed, so no exception report
    _setup(env, boqname=BOQ)
    env.define_queue(BOQ)
    _poison_asking_for_a_report(env, C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA)
    _receive_and_commit(env)
    assert env.depth(BOQ) == 1 and env.depth(REPLY) == 0


def test_a_report_its_reply_queue_refuses_is_dead_lettered(env: Any) -> None:
    # "If there is an error while the report message is being sent, the message is sent
    # to the dead-letter queue instead"
    _setup(env)
    _poison_asking_for_a_report(env, C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION_WITH_FULL_DATA)
    env.alter_queue(REPLY, PUT="DISABLED")
    _receive_and_commit(env)
    assert env.depth(IN) == 0 and env.depth(REPLY) == 0
    md, raw = env.browse_one(DLQ)
    dlh, rest = parse_dlh(raw, md.Encoding)
    assert dlh.Reason == C.MQRC_PUT_INHIBITED and dlh.DestQName.strip() == REPLY
    assert rest == BODY  # the report's data: the whole message


def test_the_report_feedback_is_the_reason_the_backout_queue_refused_it(env: Any) -> None:
    # IBM "Reason and feedback codes": 2362 when there is no backout queue; other codes
    # "describe the reason that the requeue failed" (here the BOQNAME put's, 2051)
    _setup(env, boqname=BOQ)
    env.define_queue(BOQ, PUT="DISABLED")
    original, data = _poison_asking_for_a_report(env, C.MQRO_EXCEPTION_WITH_DATA)
    _receive_and_commit(env)
    _check_dead_lettered(env, original, data, C.MQRC_PUT_INHIBITED)
    md, body = env.browse_one(REPLY)
    assert md.Feedback == C.MQRC_PUT_INHIBITED and body == BODY  # under 100 bytes: all


def test_no_report_when_no_queue_took_the_message(env: Any) -> None:
    # the dead-letter queue refuses it too, so its report options could not be followed:
    # IBM's ASF page sends no report then (a committed transaction discards the message,
    # as seed 002's "discarded"; a rolled-back one returns it)
    _setup(env)
    _poison_asking_for_a_report(env, C.MQRO_EXCEPTION_WITH_FULL_DATA)
    env.alter_queue(DLQ, PUT="DISABLED")
    _receive_and_commit(env)
    assert env.depth(IN) == 0 and env.depth(REPLY) == 0 and env.depth(DLQ) == 0


@pytest.mark.embedded_only("a transmission queue for another queue manager")
def test_the_report_goes_to_the_reply_to_queue_manager(env: Any) -> None:
    # "This message is sent to the message's ReplyToQ on the ReplyToQmgr": through the
    # transmission queue named after that queue manager, behind an MQXQH
    _setup(env)
    env.define_queue("QM.SENDER", USAGE="XMITQ")
    env.put_raw(
        IN,
        BODY,
        Format=C.MQFMT_STRING,
        Report=C.MQRO_DISCARD_MSG | C.MQRO_EXCEPTION,
        ReplyToQ="SENDER.REPLIES",
        ReplyToQMgr="QM.SENDER",
        Persistence=1,
    )
    env.back_out(IN, BOTHRESH)
    _receive_and_commit(env)
    md, raw = env.browse_one("QM.SENDER")
    xqh, body = parse_xqh(raw, md.Encoding)
    assert xqh.RemoteQName.strip() == "SENDER.REPLIES"
    assert xqh.RemoteQMgrName.strip() == "QM.SENDER"
    assert xqh.MsgDesc.MsgType == C.MQMT_REPORT and body == b""  # MQRO_EXCEPTION: no data
    assert xqh.MsgDesc.Feedback == C.MQRC_BACKOUT_THRESHOLD_REACHED
