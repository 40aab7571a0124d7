"""Poison messages of topic subscribers (seed 002, "For publish/subscribe messaging"):
BackoutCount counted on the subscription's managed queue, BOTHRESH and BOQNAME inquired
there (inherited from the topic's MDURMDL or MNDURMDL model queue when the managed queue
was made) and cached, and the synchronous rules for TopicSubscriber.receive(). On every
transport that declares ``pubsub``; the listener rules are in
tests/listeners/test_listener_topics.py."""

from __future__ import annotations

from typing import Any

import pytest

import mqjms
from mqjms.mq import MQMD, C, parse_chain

pytestmark = pytest.mark.requires("pubsub")

DMODEL, NMODEL, BOQ = "PT.DMODEL", "PT.NMODEL", "PT.BACKOUT"
TOPIC = "pt/orders"


def _topic(env: Any, *, durable: int = 2, non_durable: int = 2, boqname: str = BOQ) -> None:
    env.define_model(DMODEL, BOTHRESH=durable, BOQNAME=boqname, DEFTYPE="PERMDYN")
    env.define_model(NMODEL, BOTHRESH=non_durable, BOQNAME=boqname)
    env.define_topic("PT.ORDERS", "pt", MDURMDL=DMODEL, MNDURMDL=NMODEL)
    env.define_queue(BOQ)


def _publish(env: Any, body: str = "poison", **kwargs: Any) -> mqjms.Message:
    connection = env.connect()
    with connection.session() as session:
        return session.producer(session.topic(TOPIC)).send(body, **kwargs)


def _fail(session: mqjms.Session, consumer: mqjms.MessageConsumer, times: int) -> None:
    for count in range(times):
        message = consumer.receive(timeout=5.0)
        assert message is not None, f"delivery {count + 1} did not come"
        assert message.md is not None and message.md.BackoutCount == count
        session.rollback()


def test_a_publication_rolled_back_bothresh_times_moves_to_the_models_boqname(env: Any) -> None:
    # seed 002: for publish/subscribe the JMS client queries the managed queue for
    # BOTHRESH and BOQNAME; the managed queue inherits them from the model queue (MNDURMDL
    # for a non-durable subscription); BackoutCount >= BOTHRESH: moved to BOQNAME
    _topic(env, non_durable=3)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    sent = _publish(env)
    _fail(session, consumer, 3)
    assert consumer.receive(timeout=1.0) is None  # poison: requeued, never delivered
    session.commit()
    md, data = env.browse_one(BOQ)
    moved = mqjms.jms.from_mq(md, data)
    assert moved.body == "poison" and moved.jms_destination == sent.jms_destination
    assert md.BackoutCount == 0
    assert env.depth(consumer.handle.resolved_name) == 0


def test_durable_subscriptions_take_their_settings_from_mdurmdl(env: Any) -> None:
    # seed 002: the model queue used for durable subscriptions is MDURMDL (here
    # BOTHRESH 1), for non-durable ones MNDURMDL (here BOTHRESH 4)
    _topic(env, durable=1, non_durable=4)
    connection = env.connect(env.factory(client_id="pt"))
    session = connection.session(transacted=True)
    durable = session.durable_consumer(session.topic(TOPIC), "pt-durable")
    transient = session.consumer(session.topic(TOPIC))
    _publish(env)
    _fail(session, durable, 1)
    assert durable.receive(timeout=1.0) is None  # BOTHRESH 1: poison after one backout
    session.commit()
    assert env.depth(BOQ) == 1
    # the non-durable subscription has a copy of its own, on a queue of its own
    assert env.depth(transient.handle.resolved_name) == 1
    message = transient.receive(timeout=5.0)
    assert message is not None and message.md is not None and message.md.BackoutCount == 0
    session.rollback()
    message = transient.receive(timeout=5.0)  # BackoutCount 1 < 4 (MNDURMDL): delivered
    assert message is not None and message.md is not None and message.md.BackoutCount == 1
    session.commit()
    durable.close()
    session.unsubscribe("pt-durable")


def test_bothresh_zero_on_the_model_disables_poison_handling(env: Any) -> None:
    # seed 002: BOTHRESH left at 0 disables poison handling: the message is put back to the
    # input queue (here the managed queue), again and again
    _topic(env, non_durable=0)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    _publish(env)
    _fail(session, consumer, 6)
    message = consumer.receive(timeout=5.0)
    assert message is not None and message.md is not None and message.md.BackoutCount == 6
    session.commit()
    assert env.depth(BOQ) == 0


def test_attributes_are_inquired_on_the_managed_queue_once_and_cached(env: Any, spy: Any) -> None:
    # seed 002: the JMS client opens the managed queue for inquire, inquires BOTHRESH and
    # BOQNAME the first time it sees a message with BackoutCount > 0, closes it, and uses
    # the cached values for every later one
    _topic(env, non_durable=10)
    factory = env.factory()
    session = env.connect(factory).session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    for i in range(3):
        _publish(env, f"m{i}")
    for _ in range(3):
        assert consumer.receive(timeout=5.0) is not None
    assert spy.backout_inquiries() == []  # nothing while every BackoutCount is 0
    session.rollback()
    for _ in range(3):
        for _ in range(3):
            assert consumer.receive(timeout=5.0) is not None
        session.rollback()
    managed = consumer.handle.resolved_name
    assert spy.backout_inquiries() == [managed]
    assert factory.poison.cache.inquiries == 1
    [(queue, options, _resolved)] = spy.inquiry_opens()
    assert queue == managed
    assert options == C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING


def test_the_requeue_is_in_the_unit_of_work_active_at_the_receive(env: Any) -> None:
    # seed 002, synchronous applications (TopicSubscriber.receive() is one of the methods
    # named): the move is part of the unit of work active at the get: a rollback returns
    # the message to the managed queue, a commit completes the move
    _topic(env, non_durable=2)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    _publish(env)
    _fail(session, consumer, 2)
    assert consumer.receive(timeout=1.0) is None
    session.rollback()
    assert env.depth(BOQ) == 0
    assert env.depth(consumer.handle.resolved_name) == 1
    assert consumer.receive(timeout=1.0) is None  # still poison (BackoutCount 3)
    session.commit()
    assert env.depth(BOQ) == 1
    assert env.depth(consumer.handle.resolved_name) == 0


def test_without_a_boqname_the_report_options_decide(env: Any) -> None:
    # seed 002: BOTHRESH > 0 and no BOQNAME: MQRO_DISCARD_MSG discards; otherwise the
    # message goes to the queue manager's dead-letter queue
    _topic(env, non_durable=1, boqname="")
    dlq = env.dead_letter_queue()
    before = env.depth(dlq)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    raw = env.raw_connection()
    topic = raw.open_topic(TOPIC, C.MQOO_OUTPUT)
    raw.put(topic, MQMD(Format=C.MQFMT_STRING, Report=C.MQRO_DISCARD_MSG), b"discard me")
    raw.put(topic, MQMD(Format=C.MQFMT_STRING), b"dead-letter me")
    _fail(session, consumer, 1)  # the first one, then the second one is got
    message = consumer.receive(timeout=5.0)
    assert message is not None and message.md is not None and message.md.BackoutCount == 0
    session.rollback()
    assert consumer.receive(timeout=1.0) is None
    session.commit()
    assert env.depth(dlq) == before + 1
    assert env.depth(consumer.handle.resolved_name) == 0


def test_a_published_mq_message_moved_gets_an_rfh2_and_a_reset_mqmd(env: Any) -> None:
    # seed 002: a poison message without an RFH2 gets one; BackoutCount 0, Format MQHRF2,
    # CCSID 1208, Encoding 273, the original CCSID and Encoding carried in the RFH2
    _topic(env, non_durable=1)
    session = env.connect().session(transacted=True)
    consumer = session.consumer(session.topic(TOPIC))
    raw = env.raw_connection()
    topic = raw.open_topic(TOPIC, C.MQOO_OUTPUT)
    raw.put(topic, MQMD(Format=C.MQFMT_STRING, CodedCharSetId=819), b"plain")
    _fail(session, consumer, 1)
    assert consumer.receive(timeout=1.0) is None
    session.commit()
    md, data = env.browse_one(BOQ)
    assert md.BackoutCount == 0
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert (md.CodedCharSetId, md.Encoding) == (1208, 273)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    [header] = chain.headers
    assert (header.CodedCharSetId, header.Format.strip()) == (819, C.MQFMT_STRING)
    assert chain.body == b"plain"
