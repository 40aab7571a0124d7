"""Sessions: acknowledgement modes, transactions, close, and misuse (issue 3 item 1)."""

from __future__ import annotations

from typing import Any

import pytest

import mqjms

Q = "SES.Q"


def _send(env: Any, *bodies: str) -> list[mqjms.Message]:
    return [env.send(Q, body) for body in bodies]


# --------------------------------------------------------------------------- ack modes
@pytest.mark.parametrize("ack_mode", [mqjms.AUTO_ACKNOWLEDGE, mqjms.DUPS_OK_ACKNOWLEDGE])
def test_auto_and_dups_ok_acknowledge_on_receive(env: Any, ack_mode: int) -> None:
    # JMS: AUTO_ACKNOWLEDGE (and DUPS_OK) -- the message is gone once receive returns
    env.define_queue(Q)
    _send(env, "one")
    connection = env.connect()
    session = connection.session(transacted=False, ack_mode=ack_mode)
    message = session.consumer(Q).receive(timeout=1.0)
    assert message is not None
    assert env.depth(Q) == 0
    session.close()  # nothing left to roll back
    assert env.depth(Q) == 0
    assert env.get_raw(Q) is None


def test_session_transacted_as_the_ack_mode_makes_a_transacted_session(env: Any) -> None:
    # JMS 2.0 createSession(Session.SESSION_TRANSACTED); it raised ValueError
    env.define_queue(Q)
    _send(env, "one")
    session = env.connect().session(ack_mode=mqjms.SESSION_TRANSACTED)
    assert session.transacted
    assert session.consumer(Q).receive(timeout=1.0) is not None
    session.rollback()
    assert env.depth(Q) == 1


def test_client_acknowledge_commits_every_received_message(env: Any) -> None:
    # JMS: CLIENT_ACKNOWLEDGE -- message.acknowledge() acknowledges every message the
    # session received so far; until then the messages are held.
    env.define_queue(Q)
    _send(env, "one", "two")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(Q)
    first = consumer.receive(timeout=1.0)
    second = consumer.receive(timeout=1.0)
    assert first is not None and second is not None
    assert env.get_raw(Q) is None  # held by the session, invisible to others
    # got in a unit of work: out of IBM MQ's CURDEPTH; a broker's queue size keeps them
    assert env.depth(Q) == (2 if env.url.startswith("stomp") else 0)
    session.recover()  # back on the queue: counted again
    first, second = consumer.receive(timeout=1.0), consumer.receive(timeout=1.0)
    assert first is not None and second is not None and first.jms_redelivered
    first.acknowledge()  # acknowledges both
    assert env.depth(Q) == 0 and env.get_raw(Q) is None


def test_client_acknowledge_recover_redelivers(env: Any) -> None:
    # JMS: Session.recover() redelivers unacknowledged messages, marked redelivered
    # (delivery_count = BackoutCount + 1).
    env.define_queue(Q)
    [sent] = _send(env, "one")
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(Q)
    message = consumer.receive(timeout=1.0)
    assert message is not None and message.delivery_count == 1
    session.recover()
    again = consumer.receive(timeout=1.0)
    assert again is not None
    assert again.jms_message_id == sent.jms_message_id
    assert again.jms_redelivered is True
    assert again.delivery_count == 2
    again.acknowledge()
    assert env.depth(Q) == 0


def test_client_acknowledge_close_without_acknowledge_redelivers(env: Any) -> None:
    env.define_queue(Q)
    [sent] = _send(env, "one")
    connection = env.connect()
    session = connection.session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    assert session.consumer(Q).receive(timeout=1.0) is not None
    session.close()
    other = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    again = other.consumer(Q).receive(timeout=1.0)
    assert again is not None
    assert again.jms_message_id == sent.jms_message_id
    assert again.delivery_count == 2


def test_acknowledge_in_auto_mode_is_harmless(env: Any) -> None:
    env.define_queue(Q)
    _send(env, "one")
    message = env.connect().session().consumer(Q).receive(timeout=1.0)
    assert message is not None
    message.acknowledge()
    assert env.depth(Q) == 0


# --------------------------------------------------------------------------- transactions
def test_transacted_sends_are_invisible_until_commit(env: Any) -> None:
    # JMS: in a transacted session sends are part of the transaction
    env.define_queue(Q)
    session = env.connect().session(transacted=True)
    producer = session.producer(Q)
    producer.send("a")
    producer.send("b")
    assert env.get_raw(Q) is None
    session.commit()
    bodies = [m.body for m in _drain(env)]
    assert bodies == ["a", "b"]


def test_transacted_sends_vanish_on_rollback(env: Any) -> None:
    env.define_queue(Q)
    session = env.connect().session(transacted=True)
    session.producer(Q).send("a")
    session.rollback()
    assert env.depth(Q) == 0
    session.producer(Q).send("b")
    session.commit()
    assert [m.body for m in _drain(env)] == ["b"]


def test_transacted_receive_and_send_commit_together(env: Any) -> None:
    env.define_queue(Q)
    env.define_queue("SES.OUT")
    _send(env, "in")
    session = env.connect().session(transacted=True)
    message = session.consumer(Q).receive(timeout=1.0)
    assert message is not None
    session.producer("SES.OUT").send(f"processed {message.body}")
    session.rollback()
    assert env.depth(Q) == 1 and env.depth("SES.OUT") == 0
    message = session.consumer(Q).receive(timeout=1.0)
    assert message is not None and message.delivery_count == 2
    session.producer("SES.OUT").send(f"processed {message.body}")
    session.commit()
    assert env.depth(Q) == 0 and env.depth("SES.OUT") == 1


def test_non_transacted_producer_sends_at_once(env: Any) -> None:
    env.define_queue(Q)
    session = env.connect().session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    session.producer(Q).send("now")
    got = env.get_raw(Q)
    assert got is not None


@pytest.mark.parametrize("closing", ["session", "connection", "context-manager"])
def test_close_rolls_back_uncommitted_work(env: Any, closing: str) -> None:
    # JMS: closing a transacted session (or its connection) rolls back the transaction
    env.define_queue(Q)
    env.define_queue("SES.OUT")
    [sent] = _send(env, "in")
    factory = env.factory()
    connection = factory.connect()
    session = connection.session(transacted=True)
    assert session.consumer(Q).receive(timeout=1.0) is not None
    session.producer("SES.OUT").send("uncommitted")
    if closing == "session":
        session.close()
        connection.close()
    elif closing == "connection":
        connection.close()
    else:
        with connection:
            pass
    assert env.depth("SES.OUT") == 0
    md, _ = env.browse_one(Q)
    assert md.MsgId == sent.md.MsgId
    assert md.BackoutCount == 1


def test_sessions_have_separate_units_of_work(env: Any) -> None:
    env.define_queue(Q)
    connection = env.connect()
    first = connection.session(transacted=True)
    second = connection.session(transacted=True)
    first.producer(Q).send("from first")
    second.producer(Q).send("from second")
    first.commit()
    second.rollback()
    assert [m.body for m in _drain(env)] == ["from first"]


# --------------------------------------------------------------------------- misuse
def test_commit_and_rollback_need_a_transacted_session(env: Any) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    with pytest.raises(mqjms.IllegalStateException):
        session.commit()
    with pytest.raises(mqjms.IllegalStateException):
        session.rollback()


def test_recover_needs_a_non_transacted_session(env: Any) -> None:
    session = env.connect().session(transacted=True)
    with pytest.raises(mqjms.IllegalStateException):
        session.recover()


def test_use_after_close_raises_illegal_state(env: Any) -> None:
    env.define_queue(Q)
    _send(env, "one")
    connection = env.connect()
    session = connection.session(ack_mode=mqjms.CLIENT_ACKNOWLEDGE)
    consumer = session.consumer(Q)
    producer = session.producer(Q)
    message = consumer.receive(timeout=1.0)
    assert message is not None
    session.close()
    session.close()  # closing twice is harmless
    for call in (
        lambda: consumer.receive(timeout=0.1),
        consumer.receive_no_wait,
        lambda: consumer.receive_body(str, timeout=0.1),
        lambda: producer.send("x"),
        lambda: session.consumer(Q),
        lambda: session.producer(Q),
        session.recover,
        message.acknowledge,
    ):
        with pytest.raises(mqjms.IllegalStateException):
            call()
    transacted = connection.session(transacted=True)
    transacted.close()
    for call in (transacted.commit, transacted.rollback):
        with pytest.raises(mqjms.IllegalStateException):
            call()
    connection.close()
    with pytest.raises(mqjms.IllegalStateException):
        connection.session()
    assert isinstance(mqjms.IllegalStateException("x"), mqjms.JMSException)


def test_invalid_ack_mode_is_refused(env: Any) -> None:
    connection = env.connect()
    with pytest.raises(ValueError):
        connection.session(transacted=False, ack_mode=7)


@pytest.mark.parametrize(
    "kwargs",
    [{"priority": 10}, {"priority": -1}, {"delivery_mode": 3}, {"time_to_live": -5}],
)
def test_invalid_send_options_are_refused(env: Any, kwargs: dict[str, Any]) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    with pytest.raises(ValueError):
        session.producer(Q).send("x", **kwargs)
    assert env.depth(Q) == 0


def test_producer_without_a_queue_sends_per_call(env: Any) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    producer = session.producer()
    with pytest.raises(ValueError):
        producer.send("nowhere")
    producer.send("somewhere", queue=Q)
    assert env.depth(Q) == 1


def _drain(env: Any) -> list[mqjms.Message]:
    session = env.connect().session()
    consumer = session.consumer(Q)
    out = []
    while (message := consumer.receive_no_wait()) is not None:
        out.append(message)
    session.close()
    return out
