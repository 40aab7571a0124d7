"""The JMS API for topics (issue 10): session.topic, consumer(topic), durable_consumer,
shared_consumer, shared_durable_consumer, unsubscribe, producer(topic).send and the
client id, on every transport that declares ``pubsub``."""

from __future__ import annotations

from typing import Any

import pytest

import mqjms

pytestmark = pytest.mark.requires("pubsub")

WAIT = 5.0


def _bodies(consumer: mqjms.MessageConsumer, first_wait: float = WAIT) -> list[Any]:
    out = []
    while (message := consumer.receive(timeout=first_wait if not out else 0.5)) is not None:
        out.append(message.body)
    return out


def test_a_topic_consumer_receives_what_is_published_after_it_subscribed(env: Any) -> None:
    session = env.connect().session()
    topic = session.topic("jt/prices/eu")
    assert topic.uri == "topic://jt/prices/eu"
    everything = session.consumer(session.topic("jt/prices/#"))
    exact = session.consumer("topic://jt/prices/eu")  # a topic URI names a topic too
    sent = session.producer(topic).send("EUR 1.08", properties={"venue": "x"})
    assert sent.jms_destination == "topic://jt/prices/eu"
    message = everything.receive(timeout=WAIT)
    assert message is not None and message.body == "EUR 1.08"
    assert message.jms_destination == "topic://jt/prices/eu"
    assert message.properties["venue"] == "x"
    assert _bodies(exact) == ["EUR 1.08"]


def test_a_topic_uri_keeps_its_multi_level_wildcard(env: Any) -> None:
    # '#' is a wildcard in a topic URI, not a URL fragment: topic://jt/uri/# subscribed to
    # jt/uri/ and silently missed every publication
    assert mqjms.Topic.parse("topic://jt/uri/#").name == "jt/uri/#"
    assert mqjms.Topic.parse("topic://#?targetClient=1") == mqjms.Topic("#", 1)
    session = env.connect().session()
    consumer = session.consumer("topic://jt/uri/#")
    session.producer(session.topic("jt/uri/eu/fx")).send("deep")
    assert _bodies(consumer) == ["deep"]


def test_a_publication_keeps_the_correlation_id_it_was_sent_with(env: Any) -> None:
    # each subscription's copy carries the subscription's CorrelId in its MQMD; the
    # JMSCorrelationID set by the publisher (a request's JMSMessageID here) comes from
    # jms.Cid, as IBM MQ classes for JMS read it
    session = env.connect().session()
    consumer = session.consumer(session.topic("jt/cid"))
    request = session.producer(session.topic("jt/cid")).send("request")
    session.producer(session.topic("jt/cid")).send("reply", correlation_id=request.jms_message_id)
    received = [consumer.receive(timeout=WAIT) for _ in range(2)]
    assert [m.body for m in received if m is not None] == ["request", "reply"]
    assert received[1] is not None and received[1].jms_correlation_id == request.jms_message_id


def test_sends_to_a_topic_are_part_of_a_transacted_session(env: Any) -> None:
    connection = env.connect()
    consumer = connection.session().consumer(mqjms.Topic("jt/tx"))
    session = connection.session(transacted=True)
    producer = session.producer(session.topic("jt/tx"))
    producer.send("rolled back")
    session.rollback()
    producer.send("committed")
    assert consumer.receive(timeout=0.5) is None
    session.commit()
    assert _bodies(consumer) == ["committed"]


def test_an_unshared_durable_subscription_needs_a_client_id(env: Any) -> None:
    session = env.connect().session()
    with pytest.raises(mqjms.IllegalStateException, match="client id"):
        session.durable_consumer(session.topic("jt/d"), "jt-needs-id")


def test_a_client_id_set_on_the_connection_before_its_first_session(env: Any) -> None:
    connection = env.connect()
    connection.client_id = "jt-conn"  # JMS Connection.setClientID
    session = connection.session()
    consumer = session.durable_consumer(session.topic("jt/conn-id"), "jt-by-conn")
    session.producer(session.topic("jt/conn-id")).send("held for jt-conn")
    assert _bodies(consumer) == ["held for jt-conn"]
    with pytest.raises(mqjms.IllegalStateException, match="before the first session"):
        connection.client_id = "too-late"
    consumer.close()
    session.unsubscribe("jt-by-conn")


def test_a_durable_subscription_outlives_its_consumer_until_unsubscribed(env: Any) -> None:
    factory = env.factory(client_id="jt-svc")
    session = env.connect(factory).session()
    topic = session.topic("jt/durable")
    consumer = session.durable_consumer(topic, "jt-keeper")
    consumer.close()
    session.producer(topic).send("while away")
    other = env.connect(factory).session()
    again = other.durable_consumer(topic, "jt-keeper")
    assert _bodies(again) == ["while away"]
    with pytest.raises(mqjms.IllegalStateException) as active:
        other.unsubscribe("jt-keeper")  # a consumer is active on it
    # not "exists as an unshared subscription", nor mq://'s 2298 for a shared one
    assert "has an active consumer" in str(active.value)
    again.close()
    other.unsubscribe("jt-keeper")
    with pytest.raises(mqjms.InvalidDestinationException):
        other.unsubscribe("jt-keeper")
    # unsubscribed: what is published now waits for nobody
    session.producer(topic).send("gone")
    fresh = other.durable_consumer(topic, "jt-keeper")
    assert fresh.receive(timeout=0.5) is None
    fresh.close()
    other.unsubscribe("jt-keeper")


def test_one_consumer_at_a_time_on_an_unshared_durable_subscription(env: Any) -> None:
    factory = env.factory(client_id="jt-one")
    first = env.connect(factory).session()
    holder = first.durable_consumer(first.topic("jt/one"), "jt-one")
    second = env.connect(factory).session()
    with pytest.raises(mqjms.IllegalStateException):
        second.durable_consumer(second.topic("jt/one"), "jt-one")
    holder.close()
    second.unsubscribe("jt-one")


def test_a_durable_subscription_resumed_on_another_topic_is_replaced(env: Any) -> None:
    # JMS 2.0: a durable subscription with the same name but another topic is deleted and
    # created anew
    factory = env.factory(client_id="jt-move")
    session = env.connect(factory).session()
    session.durable_consumer(session.topic("jt/old"), "jt-moving").close()
    session.producer(session.topic("jt/old")).send("old")
    moved = session.durable_consumer(session.topic("jt/new"), "jt-moving")
    assert moved.subscription.topic_string == "jt/new"
    assert moved.receive(timeout=0.5) is None  # the old subscription's messages went with it
    session.producer(session.topic("jt/new")).send("new")
    assert _bodies(moved) == ["new"]
    moved.close()
    session.unsubscribe("jt-moving")


@pytest.mark.requires("shared_subscriptions")
def test_a_refused_move_to_another_topic_leaves_no_consumer_behind(env: Any) -> None:
    # the refusal (another consumer holds it) let go of nothing: the subscription it had
    # resumed stayed held, so unsubscribe and a later move failed with no consumer open
    factory = env.factory(client_id="jt-held")
    session = env.connect(factory).session()
    holder = session.shared_durable_consumer(session.topic("jt/held"), "jt-held")
    with pytest.raises(mqjms.IllegalStateException):
        session.shared_durable_consumer(session.topic("jt/elsewhere"), "jt-held")
    holder.close()
    moved = session.shared_durable_consumer(session.topic("jt/elsewhere"), "jt-held")
    assert moved.subscription.topic_string == "jt/elsewhere"
    moved.close()
    session.unsubscribe("jt-held")


@pytest.mark.requires("shared_subscriptions")
def test_unsubscribe_of_a_shared_non_durable_subscription_is_refused(env: Any) -> None:
    # JMS 2.0: unsubscribe deletes a durable subscription; a non-durable one by that name
    # is InvalidDestinationException, and it goes on delivering
    session = env.connect().session()
    topic = session.topic("jt/nd-unsub")
    consumer = session.shared_consumer(topic, "jt-nd-unsub")
    with pytest.raises(mqjms.InvalidDestinationException):
        session.unsubscribe("jt-nd-unsub")
    session.producer(topic).send("still here")
    assert _bodies(consumer) == ["still here"]


@pytest.mark.requires("shared_subscriptions")
def test_shared_consumers_take_turns_and_a_shared_durable_one_outlives_them(env: Any) -> None:
    connection = env.connect()  # a shared subscription needs no client id
    one, two = connection.session(), connection.session()
    topic = one.topic("jt/shared")
    first = one.shared_durable_consumer(topic, "jt-pool")
    second = two.shared_durable_consumer(topic, "jt-pool")
    for i in range(4):
        one.producer(topic).send(f"m{i}")
    got = _bodies(first) + _bodies(second, 1.0)
    assert sorted(got) == ["m0", "m1", "m2", "m3"]
    first.close()
    second.close()
    one.producer(topic).send("kept")
    back = two.shared_durable_consumer(topic, "jt-pool")
    assert _bodies(back) == ["kept"]
    back.close()
    two.unsubscribe("jt-pool")


@pytest.mark.requires("shared_subscriptions")
def test_a_shared_non_durable_subscription_ends_with_its_last_consumer(env: Any) -> None:
    connection = env.connect()
    session = connection.session()
    topic = session.topic("jt/sharednd")
    first = session.shared_consumer(topic, "jt-nd")
    second = connection.session().shared_consumer(topic, "jt-nd")
    first.close()
    session.producer(topic).send("still one consumer")
    assert _bodies(second) == ["still one consumer"]
    second.close()
    session.producer(topic).send("nobody")
    again = session.shared_consumer(topic, "jt-nd")
    assert again.receive(timeout=0.5) is None


def test_a_topic_as_reply_to_is_kept_and_replied_to(env: Any) -> None:
    # JMSReplyTo is any Destination: a topic travels in jms.Rto (the MQMD has no field
    # for it); it was stored as a queue named "topic://..." and the reply failed 2152
    env.define_queue("JT.REQUESTS")
    session = env.connect().session()
    replies = session.consumer(session.topic("jt/replies"))
    session.producer("JT.REQUESTS").send("request", reply_to=mqjms.Topic("jt/replies"))
    request = session.consumer("JT.REQUESTS").receive(timeout=WAIT)
    assert request is not None and request.jms_reply_to == "topic://jt/replies"
    session.producer().send("reply", queue=request.jms_reply_to)
    assert _bodies(replies) == ["reply"]


@pytest.mark.parametrize("topic", ["jt/prices/#", "jt/+/eu"])
def test_publishing_on_a_wildcard_topic_is_an_invalid_destination(env: Any, topic: str) -> None:
    # a wildcard names topics to subscribe to, not one to publish on: the raw 2425 MQError
    # is the InvalidDestinationException its docstring promised
    session = env.connect().session()
    with pytest.raises(mqjms.InvalidDestinationException, match="MQRC_TOPIC_STRING_ERROR"):
        session.producer(session.topic(topic)).send("nowhere")


def test_a_publication_of_a_program_that_is_not_jms_names_its_topic(env: Any) -> None:
    # mq-reference 2.5: "JMSDestination comes from jms.Dst (or mqps.Top)": IBM MQ gives
    # every publication its topic string (MQTopicString); a JMS subscriber's copy of one
    # published without an RFH2 (an MQI program, mqjms publish) had no JMSDestination.
    # A subscriber that is not JMS gets the publication as it was put.
    from mqjms.jms.topic import subscriber
    from mqjms.mq import MQMD, C
    from mqjms.semantics.pubsub import SubscriptionDescriptor

    session = env.connect().session()
    jms_side = session.consumer(session.topic("jt/mq/#"))
    raw = env.raw_connection("mq-side")
    plain = subscriber(raw).subscribe(SubscriptionDescriptor(object_string="jt/mq/#"))
    handle = subscriber(raw).open_topic("jt/mq/fx/eu", C.MQOO_OUTPUT)
    raw.put(handle, MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208), b"EUR 1.08")
    message = jms_side.receive(timeout=WAIT)
    assert message is not None and type(message) is mqjms.TextMessage
    assert (message.body, message.jms_destination) == ("EUR 1.08", "topic://jt/mq/fx/eu")
    got = raw.get(plain.handle, wait=WAIT)
    assert got is not None
    assert (got[0].Format, got[1]) == (C.MQFMT_STRING, b"EUR 1.08")  # no RFH2 added


@pytest.mark.requires("own_publications")
def test_no_local_leaves_out_what_the_consumers_own_connection_publishes(env: Any) -> None:
    # JMS 2.0 noLocal: "the MessageConsumer will not receive messages published to the
    # topic by its own connection" (any session of it); a durable one: they are not added
    # to the subscription (it was a TypeError: noLocal was not offered)
    connection, other = env.connect(), env.connect()
    connection.client_id = "jt-nolocal"
    consumer_session, publisher_session = connection.session(), connection.session()
    topic = consumer_session.topic("jt/nolocal")
    local = consumer_session.consumer(topic, no_local=True)
    everything = consumer_session.consumer(topic)
    durable = consumer_session.durable_consumer(topic, "jt-nl", no_local=True)
    consumer_session.producer(topic).send("same session")
    publisher_session.producer(topic).send("same connection")
    other.session().producer(topic).send("another connection")
    assert _bodies(local) == ["another connection"]
    assert _bodies(durable) == ["another connection"]
    assert _bodies(everything) == ["same session", "same connection", "another connection"]
    durable.close()
    consumer_session.unsubscribe("jt-nl")


@pytest.mark.requires("subscription_selectors")
def test_a_topic_consumer_with_a_selector_gets_only_what_it_selects(env: Any) -> None:
    # JMS createConsumer(topic, messageSelector) and createDurableConsumer(topic, name,
    # messageSelector, noLocal): properties and header fields, SQL's three-valued logic
    # (it was a TypeError: no selector was taken); a durable subscription resumed with
    # another selector is made anew (JMS 2.0)
    connection = env.connect()
    connection.client_id = "jt-selector"
    session = connection.session()
    topic = session.topic("jt/selector")
    cheap = session.consumer(topic, "price < 10 AND region IN ('eu', 'uk')")
    urgent = session.consumer(topic, selector="JMSPriority > 6 OR urgent = TRUE")
    kept = session.durable_consumer(topic, "jt-sel", "region LIKE 'e_'")
    producer = session.producer(topic)
    producer.send("cheap eu", properties={"price": 5, "region": "eu"})
    producer.send("dear eu", properties={"price": 50, "region": "eu"}, priority=9)
    producer.send("cheap us", properties={"price": 1, "region": "us", "urgent": True})
    producer.send("nothing")
    assert _bodies(cheap) == ["cheap eu"]
    assert _bodies(urgent) == ["dear eu", "cheap us"]
    assert sorted(_bodies(kept)) == ["cheap eu", "dear eu"]  # priority 9 comes first
    assert kept.message_selector == "region LIKE 'e_'" and not kept.no_local
    env.define_queue("JT.SEL.Q")
    queue_consumer = session.consumer("JT.SEL.Q")
    assert queue_consumer.message_selector is None and not queue_consumer.no_local
    queue_consumer.close()
    kept.close()
    producer.send("while away", properties={"region": "us"})
    again = session.durable_consumer(topic, "jt-sel", "region = 'us'")  # made anew
    producer.send("after", properties={"region": "us"})
    assert _bodies(again) == ["after"]
    again.close()
    session.unsubscribe("jt-sel")
    with pytest.raises(mqjms.InvalidSelectorException):
        session.consumer(topic, "price >")
    with pytest.raises(mqjms.InvalidSelectorException):  # too deep: never a RecursionError
        session.consumer(topic, "(" * 5000 + "price > 1" + ")" * 5000)
    with pytest.raises(mqjms.JMSException, match="queues"):
        session.consumer("DEV.QUEUE.1", "price > 1")


@pytest.mark.requires("shared_subscriptions")
def test_a_shared_non_durable_and_a_durable_subscription_of_one_name_are_separate(
    env: Any,
) -> None:
    # JMS 2.0, createSharedConsumer: "There is no restriction on durable subscriptions and
    # shared non-durable subscriptions having the same name and clientId. Such
    # subscriptions would be completely separate." (the second was IllegalStateException)
    connection = env.connect()
    connection.client_id = "jt-apart"
    session = connection.session()
    topic = session.topic("jt/apart")
    shared = session.shared_consumer(topic, "same")
    durable = session.durable_consumer(topic, "same")
    session.producer(topic).send("to both")
    assert _bodies(shared) == ["to both"]
    assert _bodies(durable) == ["to both"]
    shared.close()
    durable.close()
    session.unsubscribe("same")  # the durable one; the shared one ended with its consumer
