"""What happens to a message when it is moved to the backout queue (seed 002), and its
remaining expiry on the backout and dead-letter queues (seed 000/001 note 7)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from mqjms.jms import TextMessage, from_mq
from mqjms.mq import MQMD, C, parse_chain, parse_dlh

IN, BOQ, DLQ = "RW.IN", "RW.BACKOUT", "RW.DEAD"
BOTHRESH = 2
BODY = b"caf\xe9 au lait"  # latin-1 text (CCSID 819)
CONTEXT_FIELDS = (
    "PutApplType",
    "PutApplName",
    "PutDate",
    "PutTime",
    "UserIdentifier",
    "ApplIdentityData",
    "ApplOriginData",
    "AccountingToken",
)
KEPT_FIELDS = (
    "MsgId",
    "CorrelId",
    "Report",
    "MsgType",
    "Feedback",
    "Priority",
    "Persistence",
    "ReplyToQ",
    "ReplyToQMgr",
    "GroupId",
    "MsgSeqNumber",
    "Offset",
    "MsgFlags",
)


def _setup(env: Any) -> None:
    env.define_queue(IN, BOTHRESH=BOTHRESH, BOQNAME=BOQ)
    env.define_queue(BOQ)


def _move_with_jms(env: Any, transacted: bool = True) -> None:
    """BOTHRESH rollbacks in a transacted JMS session, then the receive that moves it."""
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    for attempt in range(BOTHRESH):
        message = consumer.receive(timeout=1.0)
        assert message is not None and message.delivery_count == attempt + 1
        session.rollback()
    if not transacted:
        session.close()
        session = env.connect().session()
        consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    if transacted:
        session.commit()


def _put_plain(env: Any, **fields: Any) -> MQMD:
    md = MQMD(
        Format=C.MQFMT_STRING,
        CodedCharSetId=819,
        Encoding=546,
        CorrelId=b"CORREL-42".ljust(24, b"\0"),
        ReplyToQ="RW.REPLY",
        ReplyToQMgr="",
        Report=C.MQRO_PASS_MSG_ID,
        MsgType=C.MQMT_REQUEST,
        Priority=6,
        Persistence=C.MQPER_PERSISTENT,
    )
    env.put_raw(IN, BODY, md.copy(**fields))
    original, _ = env.browse_one(IN)
    return original


@pytest.mark.parametrize("transacted", [True, False], ids=["transacted", "auto-ack"])
def test_message_without_rfh2_gets_one_and_a_reset_mqmd(env: Any, transacted: bool) -> None:
    # seed 002: "If the poison message does not contain an RFH2 header, the IBM MQ
    # classes for JMS add one and update the following fields in the MQMD: BackoutCount
    # reset to zero; Expiry = remaining expiry; Format MQHRF2; CCSID 1208; Encoding 273.
    # ... the CCSID and Encoding fields from the poison message are copied into the CCSID
    # and Encoding fields of the RFH2 header."
    _setup(env)
    original = _put_plain(env)
    _move_with_jms(env, transacted)
    assert env.depth(IN) == 0
    md, data = env.browse_one(BOQ)
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert md.CodedCharSetId == 1208
    assert md.Encoding == 273
    assert md.BackoutCount == 0
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert len(chain.headers) == 1
    rfh2 = chain.headers[0]
    assert rfh2.StrucId.strip() == "RFH"
    assert rfh2.Version == 2
    assert rfh2.CodedCharSetId == 819
    assert rfh2.Encoding == 546
    assert rfh2.Format.strip() == C.MQFMT_STRING
    assert rfh2.NameValueCCSID == 1208
    assert chain.body == BODY
    # the RFH2 is big-endian, as the MQMD's Encoding 273 says (header chaining is correct)
    assert data[:4] == b"RFH " and data[4:8] == b"\x00\x00\x00\x02"
    assert int.from_bytes(data[12:16], "big") == 546
    assert int.from_bytes(data[16:20], "big") == 819
    # identity and context are those of the original message
    for name in KEPT_FIELDS + CONTEXT_FIELDS:
        assert getattr(md, name) == getattr(original, name), name
    # and a JMS application reading the backout queue sees the same text
    message = from_mq(md, data)
    assert isinstance(message, TextMessage)
    assert message.body == BODY.decode("latin-1")


def test_jms_message_keeps_its_rfh2_folders_and_properties(env: Any) -> None:
    # seed 002: "If the poison message contains an RFH2 header (because it was a JMS
    # message, for example), the IBM MQ classes for JMS change the following fields within
    # the MQMD: BackoutCount reset to zero; Expiry updated" -- nothing else.
    _setup(env)
    properties = {
        "customer": "ACME <&>",
        "count": 3,
        "urgent": True,
        "ratio": 0.25,
        "blob": b"\x00\xff",
        "nothing": None,
    }
    sent = env.send(IN, "jms poison", properties=properties, priority=7, correlation_id="order-77")
    original, original_data = env.browse_one(IN)
    _move_with_jms(env)
    md, data = env.browse_one(BOQ)
    assert data == original_data  # RFH2, folders and body byte for byte
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert md.Encoding == original.Encoding == 273
    assert md.CodedCharSetId == original.CodedCharSetId == 1208
    assert md.BackoutCount == 0
    for name in KEPT_FIELDS + CONTEXT_FIELDS:
        assert getattr(md, name) == getattr(original, name), name
    message = from_mq(md, data)
    assert message.body == "jms poison"
    assert message.properties == properties
    assert message.jms_message_id == sent.jms_message_id
    assert message.jms_correlation_id == "order-77"
    assert message.jms_priority == 7
    assert message.jms_destination == f"queue:///{IN}"
    folders = [
        folder.split(">", 1)[0] + ">"
        for folder in parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    ]
    assert folders == ["<mcd>", "<jms>", "<usr>"]


@pytest.mark.requires("expiry")
def test_moved_message_keeps_the_remaining_expiry_and_it_keeps_decreasing(env: Any) -> None:
    # seed 002: "The Expiry field of the message is updated to reflect the remaining
    # expiry at the time the poison message was received by the JMS application";
    # seed 000/001 note 7: a requeued copy preserves the remaining expiry and continues to
    # decrement it.
    _setup(env)
    before_put = time.time()
    _put_plain(env, Expiry=600)  # 60 s
    after_put = time.time()
    time.sleep(0.5)  # time on the input queue counts
    _move_with_jms(env)
    moved_at = time.time()
    md, _ = env.browse_one(BOQ)
    browsed_at = time.time()
    assert 0 < md.Expiry < 600
    # the expiry left is what remained of the original 60 s, not a fresh 60 s on the BOQ
    assert md.Expiry <= 600 - int((browsed_at - after_put) * 10) + 1
    assert md.Expiry >= 600 - int((browsed_at - before_put) * 10) - 2
    assert md.Expiry <= 600 - 4  # at least the 0.5 s spent on the input queue
    time.sleep(max(0.0, 0.35 - (time.time() - moved_at)))
    later, _ = env.browse_one(BOQ)
    assert 0 < later.Expiry < md.Expiry  # still counting down on the backout queue


@pytest.mark.requires("expiry")
def test_dead_lettered_message_keeps_the_remaining_expiry(env: Any) -> None:
    # seed 000/001 note 7: "the default action for putting messages to a dead-letter queue
    # must be to preserve the remaining expiry time of the message, and to continue to
    # decrement it."
    env.define_queue(IN, BOTHRESH=BOTHRESH)  # BOQNAME blank: dead-lettered
    env.define_queue(DLQ)
    env.alter_qmgr(DEADQ=DLQ)
    _put_plain(env, Expiry=600)
    time.sleep(0.5)
    _move_with_jms(env)
    md, data = env.browse_one(DLQ)
    assert md.Format == C.MQFMT_DEAD_LETTER_HEADER
    assert 0 < md.Expiry <= 600 - 4
    first = md.Expiry
    time.sleep(0.35)
    later, _ = env.browse_one(DLQ)
    assert 0 < later.Expiry < first
    _dlh, rest = parse_dlh(data, md.Encoding)
    assert rest == BODY


def test_unlimited_expiry_stays_unlimited(env: Any) -> None:
    # seed 002: Expiry = the remaining expiry -- for MQEI_UNLIMITED, still unlimited.
    _setup(env)
    _put_plain(env)
    _move_with_jms(env)
    md, _ = env.browse_one(BOQ)
    assert md.Expiry == C.MQEI_UNLIMITED


def test_bytes_message_without_rfh2_keeps_format_none(env: Any) -> None:
    # seed 002: the original Format is carried into the added RFH2 (header chaining),
    # here MQFMT_NONE with a big-endian encoding and an EBCDIC CCSID.
    _setup(env)
    raw = bytes(range(256))
    env.put_raw(IN, raw, Format=C.MQFMT_NONE, CodedCharSetId=500, Encoding=785)
    _move_with_jms(env)
    md, data = env.browse_one(BOQ)
    assert (md.Format, md.CodedCharSetId, md.Encoding) == (C.MQFMT_RF_HEADER_2, 1208, 273)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    header = chain.headers[0]
    assert (header.Format.strip(), header.CodedCharSetId, header.Encoding) == ("", 500, 785)
    assert chain.body == raw


def test_message_with_a_malformed_rfh2_is_moved_as_it_is(env: Any) -> None:
    # seed 002: a message that claims an RFH2 keeps its bytes; only BackoutCount (and
    # Expiry) change in the MQMD. Nothing is lost even when the RFH2 does not parse.
    _setup(env)
    garbage = b"RFH \x00\x00\x00\x02 this is not a valid header"
    env.put_raw(IN, garbage, Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    original, _ = env.browse_one(IN)
    _move_with_jms(env)
    md, data = env.browse_one(BOQ)
    assert data == garbage
    assert (md.Format, md.Encoding, md.CodedCharSetId) == (C.MQFMT_RF_HEADER_2, 273, 1208)
    assert md.BackoutCount == 0
    assert md.MsgId == original.MsgId


@pytest.mark.requires("alias")
def test_boqname_may_name_an_alias_queue(env: Any) -> None:
    # seed 002: the message is put to "the queue specified by the BOQNAME attribute"
    # -- MQPUT resolves an alias like any other put.
    env.define_queue(IN, BOTHRESH=BOTHRESH, BOQNAME="RW.BACKOUT.ALIAS")
    env.define_queue(BOQ)
    env.define_alias("RW.BACKOUT.ALIAS", BOQ)
    _put_plain(env)
    _move_with_jms(env)
    md, data = env.browse_one(BOQ)
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).body == BODY


@pytest.mark.requires("fifo")
def test_message_from_a_fifo_queue_keeps_its_priority_when_moved(env: Any) -> None:
    # seed 002 lists every MQMD field the move changes; Priority is not among them. On a
    # MSGDLVSQ(FIFO) queue the message is ordered at DEFPRTY (seed 003 item 14), but its
    # MQMD keeps the Priority it was put with, so the moved message keeps it too.
    env.define_queue(IN, BOTHRESH=BOTHRESH, BOQNAME=BOQ, MSGDLVSQ="FIFO", DEFPRTY=2)
    env.define_queue(BOQ)
    original = _put_plain(env, Priority=7)
    assert original.Priority == 7
    _move_with_jms(env)
    md, _ = env.browse_one(BOQ)
    assert md.Priority == 7
