"""Synchronous receive: the poison requeue is inside the unit of work active at the get
(seed 002, "Processing poison messages for synchronous applications")."""

from __future__ import annotations

from typing import Any

import pytest

import mqjms
from mqjms.jms import from_mq
from mqjms.mq import C

IN, BOQ = "UOW.IN", "UOW.BACKOUT"


def _poison_on_input(env: Any, bothresh: int = 2, **attrs: Any) -> mqjms.Message:
    env.define_queue(IN, BOTHRESH=bothresh, BOQNAME=BOQ, MSGDLVSQ="FIFO", **attrs)
    env.define_queue(BOQ)
    sent = env.send(IN, "poison")
    env.back_out(IN, bothresh)
    return sent


def test_transacted_move_is_committed_only_by_commit(env: Any) -> None:
    # seed 002: in a transacted session "the moving of the message to the backout queue
    # is not committed until the transaction is committed".
    sent = _poison_on_input(env)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    # the move is in the unit of work: nobody else can get the message, on either queue
    assert env.get_raw(BOQ) is None
    assert env.get_raw(IN) is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(BOQ) == 1
    md, _ = env.browse_one(BOQ)
    assert md.MsgId == sent.md.MsgId


def test_transacted_rollback_leaves_the_message_on_the_input_queue(env: Any) -> None:
    # seed 002: the requeue is part of the unit of work active at the get, so rolling the
    # transaction back undoes the move: the message is back on the input queue (with
    # BackoutCount + 1, as for any backed-out get) and the backout queue is empty.
    sent = _poison_on_input(env, bothresh=2)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    assert consumer.receive_no_wait() is None
    session.rollback()
    assert env.depth(BOQ) == 0
    assert env.depth(IN) == 1
    md, _ = env.browse_one(IN)
    assert md.MsgId == sent.md.MsgId
    assert md.BackoutCount == 3
    # still poison: the next receive moves it again, and this time it is committed
    assert consumer.receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(BOQ) == 1


def test_transacted_rollback_undoes_the_move_and_the_other_gets_together(env: Any) -> None:
    # seed 002: one unit of work -- the poison move and the application's other gets are
    # committed or rolled back together.
    _poison_on_input(env)
    env.send(IN, "good")
    session = env.connect().session(transacted=True)
    consumer = session.consumer(IN)
    message = consumer.receive(timeout=1.0)
    assert message is not None and message.body == "good"
    session.rollback()
    assert env.depth(BOQ) == 0
    assert sorted(from_mq(md, data).body for md, data in env.browse(IN)) == ["good", "poison"]
    message = consumer.receive(timeout=1.0)
    assert message is not None and message.body == "good"
    assert message.delivery_count == 2
    # On IBM MQ the poison message comes back first and is moved by the receive above; a
    # STOMP broker re-sends both to the back of the queue, so "good" may come first: the
    # next receive then meets the poison message and moves it in this unit of work.
    assert consumer.receive(timeout=0.5) is None
    session.commit()
    assert env.depth(IN) == 0
    assert env.depth(BOQ) == 1


def test_closing_a_transacted_session_rolls_the_move_back(env: Any) -> None:
    # seed 002: the move belongs to the application's transaction; closing the session
    # without commit rolls that transaction back (JMS), and with it the move.
    _poison_on_input(env)
    connection = env.connect()
    session = connection.session(transacted=True)
    assert session.consumer(IN).receive_no_wait() is None
    session.close()
    assert env.depth(BOQ) == 0
    assert env.depth(IN) == 1


def test_auto_acknowledge_move_is_committed_by_the_receive(env: Any) -> None:
    # seed 002 (non-transacted): the receive's own unit of work completes the move.
    sent = _poison_on_input(env)
    session = env.connect().session()
    assert session.consumer(IN).receive(timeout=0.2) is None
    got = env.get_raw(BOQ)
    assert got is not None and got[0].MsgId == sent.md.MsgId
    assert env.depth(IN) == 0


def test_client_acknowledge_move_stays_with_unacknowledged_messages(env: Any) -> None:
    # seed 002: the requeue is within the unit of work active at the get; in a
    # CLIENT_ACKNOWLEDGE session holding unacknowledged messages that unit of work ends
    # with acknowledge() (mq-reference §7.1: "transacted/CLIENT_ACKNOWLEDGE session: the
    # requeue happens in the application's current unit of work").
    env.define_queue(IN, BOTHRESH=2, BOQNAME=BOQ)
    env.define_queue(BOQ)
    env.send(IN, "good")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(IN)
    message = consumer.receive(timeout=1.0)
    assert message is not None and message.body == "good"  # not acknowledged yet
    sent = env.send(IN, "poison")
    env.back_out(IN, 2)  # "good" is held by the session: this backs out "poison"
    assert consumer.receive_no_wait() is None  # moved, in the session's unit of work
    assert env.get_raw(BOQ) is None
    message.acknowledge()
    assert env.depth(IN) == 0
    got = env.get_raw(BOQ)
    assert got is not None and got[0].MsgId == sent.md.MsgId


def test_client_acknowledge_recover_returns_the_pending_move_with_the_messages(env: Any) -> None:
    # seed 002: the move shares the unit of work of the unacknowledged messages, so a
    # recover returns the poison message to the input queue with them: nothing is lost.
    env.define_queue(IN, BOTHRESH=2, BOQNAME=BOQ)
    env.define_queue(BOQ)
    env.send(IN, "good")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(IN)
    assert consumer.receive(timeout=1.0) is not None
    env.send(IN, "poison")
    env.back_out(IN, 2)
    assert consumer.receive_no_wait() is None
    session.recover()
    assert env.depth(BOQ) == 0
    assert sorted(from_mq(md, data).body for md, data in env.browse(IN)) == ["good", "poison"]


def test_client_acknowledge_move_alone_completes_at_once(env: Any) -> None:
    # seed 002, non-transacted session: the requeue completes; with no unacknowledged
    # message to share a unit of work with, it is committed at once -- closing the session
    # (which never received the message) does not bring it back.
    sent = _poison_on_input(env)
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    assert session.consumer(IN).receive_no_wait() is None
    session.close()
    assert env.depth(IN) == 0
    got = env.get_raw(BOQ)
    assert got is not None and got[0].MsgId == sent.md.MsgId


@pytest.mark.parametrize("ending", ["close", "recover"])
def test_client_acknowledge_discard_when_both_puts_fail_is_committed_at_once(
    env: Any, ending: str
) -> None:
    # seed 002: "If the receiving application has created a non-transacted JMS context or
    # session, the message is discarded." The application never received it, so closing
    # or recovering the session must not put it back on the input queue.
    env.define_queue(IN, BOTHRESH=1, MSGDLVSQ="FIFO")  # BOQNAME blank
    env.alter_qmgr(DEADQ="UOW.NO.SUCH.DLQ")  # and the dead-letter put fails
    env.send(IN, "poison")
    env.back_out(IN, 1)
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    assert session.consumer(IN).receive_no_wait() is None
    if ending == "recover":
        session.recover()
    session.close()
    assert env.depth(IN) == 0


def test_client_acknowledge_report_option_discard_is_committed_at_once(env: Any) -> None:
    # seed 002: BOQNAME blank and MQRO_DISCARD_MSG -> "the message is discarded"; in a
    # CLIENT_ACKNOWLEDGE session with nothing unacknowledged that is final at once.
    env.define_queue(IN, BOTHRESH=1, MSGDLVSQ="FIFO")
    env.put_raw(IN, b"poison", Report=C.MQRO_DISCARD_MSG)
    env.back_out(IN, 1)
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    assert session.consumer(IN).receive_no_wait() is None
    session.close()
    assert env.depth(IN) == 0


def test_client_acknowledge_discard_stays_with_unacknowledged_messages(env: Any) -> None:
    # seed 002 + JMS: with an unacknowledged message in the session, the discard shares
    # its unit of work: a recover returns both to the input queue (not lost), and the
    # acknowledge after the next receive completes both.
    env.define_queue(IN, BOTHRESH=2)  # BOQNAME blank
    env.alter_qmgr(DEADQ="UOW.NO.SUCH.DLQ")
    env.send(IN, "good")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(IN)
    assert consumer.receive(timeout=1.0) is not None
    env.send(IN, "poison")
    env.back_out(IN, 2)
    assert consumer.receive_no_wait() is None
    session.recover()  # "good": BackoutCount 1, still below BOTHRESH
    assert env.depth(IN) == 2
    bodies = []
    while (message := consumer.receive(timeout=0.5)) is not None:
        bodies.append(message.body)
    assert bodies == ["good"]  # the poison message was discarded again, with "good" held
    session.acknowledge()
    assert env.depth(IN) == 0


def test_client_acknowledge_dlq_failure_then_acknowledge_discards(env: Any) -> None:
    # seed 002: the dead-letter put fails and the session is non-transacted -> discarded.
    env.define_queue(IN, BOTHRESH=1, MSGDLVSQ="FIFO")  # BOQNAME blank
    env.alter_qmgr(DEADQ="UOW.NO.SUCH.DLQ")
    env.send(IN, "poison")
    env.back_out(IN, 1)
    env.send(IN, "good")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    message = session.consumer(IN).receive(timeout=1.0)
    assert message is not None and message.body == "good"
    message.acknowledge()
    session.close()
    assert env.depth(IN) == 0
