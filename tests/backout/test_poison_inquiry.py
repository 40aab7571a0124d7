"""When and how BOTHRESH and BOQNAME are inquired (seed 002).

A :class:`SpyConnection` (tests/support/mqenv.py) wraps every transport connection the
JMS layer makes and records the MQOPEN options and MQINQ calls, so these tests see the
calls themselves, not only the AttributeCache's counter.
"""

from __future__ import annotations

from typing import Any

import pytest

import mqjms
from mqjms.mq import C, MQError

IN, BOQ = "INQ.IN", "INQ.BACKOUT"
INPUT_OPTIONS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INPUT_SHARED | C.MQOO_INPUT_EXCLUSIVE | C.MQOO_BROWSE


def _drain(consumer: mqjms.MessageConsumer) -> list[Any]:
    out = []
    while (message := consumer.receive_no_wait()) is not None:
        out.append(message)
    return out


def test_nothing_inquired_while_every_backout_count_is_zero(env: Any, spy: Any) -> None:
    # seed 002: the attributes are queried the first time a message with BackoutCount
    # greater than zero is detected -- not before.
    env.define_queue(IN, BOTHRESH=3, BOQNAME=BOQ)
    env.define_queue(BOQ)
    for i in range(5):
        env.send(IN, f"m{i}")
    factory = env.factory()
    connection = env.connect(factory)
    session = connection.session()
    assert len(_drain(session.consumer(IN))) == 5
    assert spy.inquiries == []
    assert spy.qmgr_inquiries == []
    assert spy.inquiry_opens() == []
    assert factory.poison.cache.inquiries == 0


def test_inquired_once_per_queue_after_the_first_backed_out_message(env: Any, spy: Any) -> None:
    # seed 002: queried the first time a message with BackoutCount > 0 is detected, then
    # cached and used whenever a message with BackoutCount > 0 is encountered.
    env.define_queue(IN, BOTHRESH=10, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    for i in range(3):
        env.send(IN, f"m{i}")
    factory = env.factory()
    connection = env.connect(factory)
    session = connection.session(transacted=True)
    consumer = session.consumer(IN)
    assert len(_drain(consumer)) == 3  # BackoutCount 0: nothing inquired
    assert spy.backout_inquiries() == []
    session.rollback()  # every message now has BackoutCount 1
    for _ in range(3):  # three rounds, nine deliveries with BackoutCount > 0
        assert len(_drain(consumer)) == 3
        session.rollback()
    assert spy.backout_inquiries() == [IN]
    assert factory.poison.cache.inquiries == 1
    # a second consumer (another session of the same connection) uses the cached values
    other = connection.session(transacted=True)
    assert len(_drain(other.consumer(IN))) == 3
    other.rollback()
    assert spy.backout_inquiries() == [IN]
    assert factory.poison.cache.inquiries == 1


def test_inquiry_opens_the_queue_for_inquire_only(env: Any, spy: Any) -> None:
    # seed 002: the JMS client opens the local queue with MQOO_INQUIRE and
    # MQOO_FAIL_IF_QUIESCING (inquire authority only, no get authority), inquires
    # BOTHRESH and BOQNAME, and closes it.
    env.define_queue(IN, BOTHRESH=5, BOQNAME=BOQ)
    env.define_queue(BOQ)
    env.send(IN, "x")
    env.back_out(IN, 1)
    factory = env.factory()
    session = env.connect(factory).session()
    assert session.consumer(IN).receive_no_wait() is not None
    opens = spy.inquiry_opens()
    assert len(opens) == 1
    queue, options, resolved = opens[0]
    assert queue == IN and resolved == IN
    assert options == C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
    assert options & INPUT_OPTIONS == 0
    assert options & C.MQOO_OUTPUT == 0
    [(name, selectors, handle_options)] = spy.inquiries
    assert name == IN
    assert set(selectors) == {C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME}
    assert handle_options == C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING
    assert spy.closes.count(IN) >= 1  # opened, inquired, closed


# Depends on the rolled-back message coming back first (not so on a STOMP broker).
@pytest.mark.requires("backout_in_place")
@pytest.mark.requires("alias")
def test_two_aliases_of_one_local_queue_share_one_cache_entry(env: Any, spy: Any) -> None:
    # seed 002: for point-to-point messaging the queue inquired is the underlying local
    # queue (the target of an alias), so consumers of two aliases of one local queue
    # share its cached attributes: one inquiry, on the local queue, opened for inquire.
    env.define_queue(IN, BOTHRESH=4, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    env.define_alias("INQ.ALIAS.A", IN)
    env.define_alias("INQ.ALIAS.B", IN)
    env.send(IN, "a")
    env.send(IN, "b")
    env.back_out(IN, 1)  # "a" has BackoutCount 1
    factory = env.factory()
    connection = env.connect(factory)
    first = connection.session(transacted=True)
    second = connection.session(transacted=True)
    message_a = first.consumer("INQ.ALIAS.A").receive(timeout=1.0)
    assert message_a is not None and message_a.delivery_count == 2
    first.rollback()  # "a": BackoutCount 2
    message_b = second.consumer("INQ.ALIAS.B").receive(timeout=1.0)
    assert message_b is not None and message_b.body == "a" and message_b.delivery_count == 3
    second.commit()
    message_b2 = second.consumer("INQ.ALIAS.B").receive(timeout=1.0)
    assert message_b2 is not None and message_b2.body == "b"
    second.rollback()
    message_a2 = first.consumer("INQ.ALIAS.A").receive(timeout=1.0)
    assert message_a2 is not None and message_a2.delivery_count == 2
    first.commit()
    assert spy.backout_inquiries() == [IN]  # the local queue, never an alias name
    assert factory.poison.cache.inquiries == 1
    [(queue, options, resolved)] = spy.inquiry_opens()
    assert queue == IN and resolved == IN
    assert options == C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING


def test_each_underlying_queue_is_inquired_once(env: Any, spy: Any) -> None:
    # seed 002: attributes are per (underlying) queue: two local queues, two inquiries.
    env.define_queue("INQ.ONE", BOTHRESH=5)
    env.define_queue("INQ.TWO", BOTHRESH=6)
    for queue in ("INQ.ONE", "INQ.TWO"):
        for _ in range(2):
            env.send(queue, "x")
    env.back_out("INQ.ONE", 1)
    env.back_out("INQ.TWO", 1)
    factory = env.factory()
    session = env.connect(factory).session(transacted=True)
    for queue in ("INQ.ONE", "INQ.TWO", "INQ.ONE", "INQ.TWO"):
        assert len(_drain(session.consumer(queue))) >= 0
        session.rollback()
    assert sorted(spy.backout_inquiries()) == ["INQ.ONE", "INQ.TWO"]
    assert factory.poison.cache.inquiries == 2


def test_cached_values_are_used_after_the_queue_is_altered(env: Any, spy: Any) -> None:
    # seed 002: "The values of these attributes are then cached, and used whenever ..."
    env.define_queue(IN, BOTHRESH=0)
    env.define_queue(BOQ)
    env.send(IN, "x")
    env.back_out(IN, 1)
    factory = env.factory()
    session = env.connect(factory).session(transacted=True)
    consumer = session.consumer(IN)
    assert consumer.receive(timeout=1.0) is not None  # BOTHRESH 0 inquired and cached
    session.rollback()
    env.alter_queue(IN, BOTHRESH=1, BOQNAME=BOQ)
    message = consumer.receive(timeout=1.0)  # cached BOTHRESH 0: still delivered
    assert message is not None and message.delivery_count == 3
    session.rollback()
    assert spy.backout_inquiries() == [IN]
    # a new factory (hence a new connection) inquires and sees the new values
    fresh = env.factory()
    fresh_session = env.connect(fresh).session(transacted=True)
    assert fresh_session.consumer(IN).receive_no_wait() is None
    fresh_session.commit()
    assert env.depth(BOQ) == 1
    assert fresh.poison.cache.inquiries == 1


def test_dead_letter_queue_name_not_inquired_when_boqname_works(env: Any, spy: Any) -> None:
    # seed 002: the dead-letter queue only comes into play when the put to BOQNAME fails.
    env.define_queue(IN, BOTHRESH=1, BOQNAME=BOQ)
    env.define_queue(BOQ)
    env.send(IN, "x")
    env.back_out(IN, 1)
    session = env.connect().session()
    assert session.consumer(IN).receive_no_wait() is None
    assert env.depth(BOQ) == 1
    assert spy.qmgr_inquiries == []


def test_a_failed_inquiry_does_not_lose_the_message(env: Any, spy: Any) -> None:
    # DESIGN: nothing is lost -- a message is either on a queue or delivered. When the
    # inquiry fails (e.g. MQRC_NOT_AUTHORIZED: no inquire authority, seed 002), receive
    # raises, and the message must still be on the input queue afterwards.
    env.define_queue(IN, BOTHRESH=3, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    backed_out = env.send(IN, "backed-out")
    env.back_out(IN, 1)
    env.send(IN, "fresh")
    spy.fail_inquire.append(MQError(C.MQCC_FAILED, C.MQRC_NOT_AUTHORIZED, "no inquire"))
    session = env.connect().session()  # AUTO_ACKNOWLEDGE
    consumer = session.consumer(IN)
    with pytest.raises(MQError):
        consumer.receive_no_wait()
    received = set()
    while True:
        try:
            message = consumer.receive_no_wait()
        except MQError:
            continue
        if message is None:
            break
        received.add(message.md.MsgId)
    leftover = {md.MsgId for md, _ in env.browse(IN)}
    assert backed_out.md.MsgId in received | leftover
