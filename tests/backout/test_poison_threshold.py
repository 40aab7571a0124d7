"""BackoutCount against BOTHRESH on synchronous receive (seed 002).

Each test names the rule of seed 002 ("Handling poison messages in IBM MQ classes for
JMS") it checks.
"""

from __future__ import annotations

from typing import Any

import pytest

import mqjms
from mqjms.mq import C

IN, BOQ = "APP.IN", "APP.BACKOUT"


def _receive(consumer: mqjms.MessageConsumer, how: str) -> Any:
    """One synchronous receive by each of the methods seed 002 lists."""
    if how == "receive":
        return consumer.receive(timeout=0.5)
    if how == "receive_no_wait":
        return consumer.receive_no_wait()
    if how == "receive_none":  # receive() waiting without limit: only used with a message
        return consumer.receive(None)
    if how == "receive_body":
        return consumer.receive_body(str, timeout=0.5)
    if how == "receive_body_no_wait":  # JMSConsumer.receiveBodyNoWait
        return consumer.receive_body_no_wait(str)
    raise AssertionError(how)


@pytest.mark.parametrize("bothresh", [1, 3])
@pytest.mark.parametrize(
    "how", ["receive", "receive_no_wait", "receive_body", "receive_body_no_wait"]
)
def test_delivered_below_bothresh_moved_to_boqname_at_bothresh(
    env: Any, bothresh: int, how: str
) -> None:
    # seed 002: BackoutCount < BOTHRESH -> delivered to the application;
    # seed 002: BackoutCount >= BOTHRESH -> poison, moved to the queue named by BOQNAME.
    env.define_queue(IN, BOTHRESH=bothresh, BOQNAME=BOQ)
    env.define_queue(BOQ)
    sent = env.send(IN, "poison")
    connection = env.connect()
    session = connection.session(transacted=True)
    consumer = session.consumer(IN)
    seen_counts = []
    for attempt in range(bothresh):
        message = consumer.receive(timeout=1.0)
        assert message is not None, f"attempt {attempt}: not delivered"
        assert message.jms_message_id == sent.jms_message_id
        assert message.md.BackoutCount == attempt
        assert message.md.BackoutCount < bothresh
        assert message.delivery_count == attempt + 1
        seen_counts.append(message.md.BackoutCount)
        session.rollback()  # the queue manager raises BackoutCount by one
    # BackoutCount is now BOTHRESH: the next receive moves the message and never returns it.
    got = _receive(consumer, how)
    assert got is None
    session.commit()
    assert seen_counts == list(range(bothresh))
    assert env.depth(IN) == 0
    assert env.depth(BOQ) == 1
    md, _ = env.browse_one(BOQ)
    assert md.MsgId == sent.md.MsgId
    assert md.BackoutCount == 0


def test_receive_never_returns_a_message_at_or_above_bothresh(env: Any) -> None:
    # seed 002: a message whose BackoutCount >= BOTHRESH is not delivered; the next
    # message behind it is.
    env.define_queue(IN, BOTHRESH=2, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    poison = env.send(IN, "poison")
    env.back_out(IN, 5)  # BackoutCount 5 > BOTHRESH 2: still poison (">=")
    good = env.send(IN, "good")
    connection = env.connect()
    session = connection.session(transacted=True)
    consumer = session.consumer(IN)
    message = consumer.receive(timeout=1.0)
    assert message is not None
    assert message.jms_message_id == good.jms_message_id
    assert message.body == "good"
    assert consumer.receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    [(md, _)] = env.browse(BOQ)
    assert md.MsgId == poison.md.MsgId


def test_receive_waiting_without_limit_moves_poison_then_returns_the_next(env: Any) -> None:
    # seed 002 lists receive() without a timeout among the synchronous methods: a poison
    # message is requeued and receive() goes on to the next message.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    env.send(IN, "poison")
    env.back_out(IN, 1)
    env.send(IN, "good")
    connection = env.connect()
    session = connection.session(transacted=False)
    message = _receive(session.consumer(IN), "receive_none")
    assert message is not None and message.body == "good"
    assert env.depth(BOQ) == 1
    assert env.depth(IN) == 0


@pytest.mark.parametrize("ack_mode", [mqjms.AUTO_ACKNOWLEDGE, mqjms.DUPS_OK_ACKNOWLEDGE])
def test_non_transacted_session_moves_poison_at_once(env: Any, ack_mode: int) -> None:
    # seed 002: BackoutCount >= BOTHRESH -> moved to BOQNAME; in a non-transacted session
    # the receive completes the move itself (no commit to wait for).
    env.define_queue(IN, BOTHRESH=3, BOQNAME=BOQ)
    env.define_queue(BOQ)
    sent = env.send(IN, "poison")
    env.back_out(IN, 3)
    connection = env.connect()
    session = connection.session(transacted=False, ack_mode=ack_mode)
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(IN) == 0
    assert env.depth(BOQ) == 1
    got = env.get_raw(BOQ)  # visible to another connection: committed
    assert got is not None and got[0].MsgId == sent.md.MsgId


def test_bothresh_zero_disables_poison_handling(env: Any) -> None:
    # seed 002: BOTHRESH left at its default of 0 -> poison handling is disabled; the
    # message is put back to the input queue again and again.
    env.define_queue(IN, BOQNAME=BOQ)  # BOTHRESH defaults to 0; BOQNAME alone does nothing
    env.define_queue(BOQ)
    sent = env.send(IN, "poison")
    connection = env.connect()
    session = connection.session(transacted=True)
    consumer = session.consumer(IN)
    for attempt in range(10):
        message = consumer.receive(timeout=1.0)
        assert message is not None
        assert message.jms_message_id == sent.jms_message_id
        assert message.delivery_count == attempt + 1
        session.rollback()
    message = consumer.receive(timeout=1.0)
    assert message is not None
    assert message.delivery_count == 11
    assert message.md.BackoutCount == 10
    assert message.jms_redelivered is True
    session.rollback()
    assert env.depth(IN) == 1
    assert env.depth(BOQ) == 0


def test_bothresh_zero_is_the_default(env: Any) -> None:
    # seed 002: "If the BOTHRESH attribute is left at its default value of 0"
    env.define_queue(IN)
    conn = env.raw_connection()
    values = conn.inquire(IN, [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME])
    assert values[C.MQIA_BACKOUT_THRESHOLD] == 0
    assert str(values[C.MQCA_BACKOUT_REQ_Q_NAME]).strip() == ""


def test_bothresh_zero_with_high_backout_count_delivered_non_transacted(env: Any) -> None:
    # seed 002: BOTHRESH 0 -> any BackoutCount is delivered (no threshold to reach).
    env.define_queue(IN)
    env.send(IN, "x")
    env.back_out(IN, 25)
    connection = env.connect()
    session = connection.session()
    message = session.consumer(IN).receive_no_wait()
    assert message is not None
    assert message.delivery_count == 26
    assert env.depth(IN) == 0  # AUTO_ACKNOWLEDGE consumed it


@pytest.mark.requires("alias")
def test_alias_consumer_uses_the_underlying_queue_attributes(env: Any) -> None:
    # seed 002: for point-to-point messaging BOTHRESH/BOQNAME are those of the underlying
    # local queue (important when consuming from an alias queue).
    env.define_queue(IN, BOTHRESH=2, BOQNAME=BOQ)
    env.define_queue(BOQ)
    env.define_alias("APP.ALIAS", IN)
    sent = env.send("APP.ALIAS", "poison")
    connection = env.connect()
    session = connection.session(transacted=True)
    consumer = session.consumer("APP.ALIAS")
    for _ in range(2):
        assert consumer.receive(timeout=1.0) is not None
        session.rollback()
    assert consumer.receive_no_wait() is None
    session.commit()
    assert env.depth(IN) == 0
    md, _ = env.browse_one(BOQ)
    assert md.MsgId == sent.md.MsgId


def test_other_messages_are_unaffected_by_a_poison_message(env: Any) -> None:
    # seed 002: only the message whose BackoutCount reached BOTHRESH is moved.
    env.define_queue(IN, BOTHRESH=2, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    env.send(IN, "poison")
    env.back_out(IN, 2)
    for i in range(3):
        env.send(IN, f"m{i}")
    connection = env.connect()
    session = connection.session()
    consumer = session.consumer(IN)
    bodies = []
    while (message := consumer.receive_no_wait()) is not None:
        bodies.append(message.body)
    assert bodies == ["m0", "m1", "m2"]
    assert [data[-6:] for _, data in env.browse(BOQ)] == [b"poison"]
