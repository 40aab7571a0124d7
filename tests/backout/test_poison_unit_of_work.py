"""Synchronous receive: the poison requeue is inside the unit of work active at the get
(seed 002, "Processing poison messages for synchronous applications")."""

from __future__ import annotations

from typing import Any

import mqjms
from mqjms.consumer import from_mq

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


def test_client_acknowledge_move_completes_with_the_next_acknowledge(env: Any) -> None:
    # seed 002: the requeue is within the unit of work active at the get; in a
    # CLIENT_ACKNOWLEDGE session that unit of work ends with acknowledge()
    # (mq-reference §7.1: "transacted/CLIENT_ACKNOWLEDGE session: the requeue happens in
    # the application's current unit of work").
    sent = _poison_on_input(env)
    env.send(IN, "good")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    message = session.consumer(IN).receive(timeout=1.0)
    assert message is not None and message.body == "good"
    message.acknowledge()
    assert env.depth(IN) == 0
    got = env.get_raw(BOQ)
    assert got is not None and got[0].MsgId == sent.md.MsgId


def test_client_acknowledge_dlq_failure_then_acknowledge_discards(env: Any) -> None:
    # seed 002: the dead-letter put fails and the session is non-transacted -> discarded
    # (here: once the session acknowledges).
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
