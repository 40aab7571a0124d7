"""Publish/subscribe on mq://, through the real ibmmq and pymqi Python layers over the
stand-in: what MQSUB is sent, what the queue manager answers in the MQSD and MQOD
(ResObjectString, SelectionString), managed queues, create-or-resume, MQCLOSE of the
hsub, and a pymqi drop-in program publishing and subscribing on IBM MQ."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import mqjms.pymqi as facade
from mqjms import transport
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.mqi import routing
from mqjms.semantics import Capability
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor
from mqjms.transport.ibmmq import MQConnection

from .brokers import StandInBroker
from .stand_in import StandIn

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE
WAIT = 5.0


@pytest.fixture
def conn(mq: StandInBroker) -> Iterator[MQConnection]:
    connection = transport.connect(mq.url)
    assert isinstance(connection, MQConnection)
    try:
        yield connection
    finally:
        connection.disconnect()


def subscribe(conn: MQConnection, options: int = MANAGED, **fields: object) -> Subscription:
    return conn.subscribe(SubscriptionDescriptor(options=options, **fields))  # type: ignore[arg-type]


def publish(conn: MQConnection, topic_string: str, body: bytes, topic: str = "") -> None:
    handle = conn.open_topic(topic_string, C.MQOO_OUTPUT, topic=topic)
    conn.put(handle, MQMD(Format=C.MQFMT_STRING), body)
    conn.close(handle)


def test_mq_declares_publish_subscribe_with_selectors_and_no_shared_subscriptions(
    conn: MQConnection,
) -> None:
    assert Capability.PUBLISH_SUBSCRIBE in conn.capabilities
    assert Capability.SUBSCRIPTION_SELECTORS in conn.capabilities
    assert Capability.SHARED_SUBSCRIPTIONS not in conn.capabilities
    with pytest.raises(MQError) as refused:
        subscribe(conn, DURABLE, object_string="mq/pool", sub_name="mq-pool", shared=True)
    assert refused.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED


def test_mqsub_asks_for_a_managed_queue_and_learns_its_name(
    conn: MQConnection, stand_in: StandIn
) -> None:
    sub = subscribe(conn, object_string="mq/prices")
    [(topic, options)] = stand_in.subs
    assert topic == "mq/prices"
    assert options & C.MQSO_MANAGED and options & C.MQSO_FAIL_IF_QUIESCING
    assert sub.managed and not sub.durable and sub.created and not sub.shared
    # MQINQ (MQCA_Q_NAME) on the Hobj MQSUB returned: the backout layer inquires by name
    assert sub.handle.resolved_name.startswith("SYSTEM.MANAGED.NDURABLE.")
    publish(conn, "mq/prices", b"EUR")
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None and got[1] == b"EUR"  # no RFH2: the subscriber asked for none
    conn.close_subscription(sub)


def test_a_topic_object_and_a_topic_string_are_joined_by_the_queue_manager(
    mq: StandInBroker, conn: MQConnection
) -> None:
    mq.define_topic("MQ.PRICES", "mq/prices")
    sub = subscribe(conn, object_name="MQ.PRICES", object_string="eu")
    assert sub.topic_string == "mq/prices/eu" and sub.topic_object == "MQ.PRICES"
    handle = conn.open_topic("eu", C.MQOO_OUTPUT, topic="MQ.PRICES")
    assert handle.topic == "mq/prices/eu"  # MQOD ResObjectString
    conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"EUR")
    conn.close(handle)
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None and got[1] == b"EUR"
    conn.close_subscription(sub)


def test_a_subscriber_that_reads_properties_gets_the_topic_string_in_an_rfh2(
    conn: MQConnection,
) -> None:
    sub = subscribe(conn, object_string="mq/props", properties=True)
    publish(conn, "mq/props", b"body")
    got = conn.get(sub.handle, wait=WAIT)
    assert got is not None
    assert got[1].startswith(b"RFH ") and b"mq/props" in got[1] and got[1].endswith(b"body")
    conn.close_subscription(sub)


def test_create_or_resume_says_whether_the_durable_subscription_was_made(
    conn: MQConnection, stand_in: StandIn
) -> None:
    first = subscribe(conn, DURABLE, object_string="mq/kept", sub_name="mq-keeper")
    assert first.created and first.durable
    assert first.handle.resolved_name.startswith("SYSTEM.MANAGED.DURABLE.")
    conn.close_subscription(first)
    publish(conn, "mq/kept", b"while away")
    again = subscribe(conn, DURABLE, object_string="mq/kept", sub_name="mq-keeper")
    assert not again.created and again.handle.resolved_name == first.handle.resolved_name
    got = conn.get(again.handle, wait=WAIT)
    assert got is not None and got[1] == b"while away"
    # MQSO_RESUME first, MQSO_CREATE after its 2428: the MQSD does not say which happened
    wanted = C.MQSO_CREATE | C.MQSO_RESUME
    assert [options & wanted for _, options in stand_in.subs] == [
        C.MQSO_RESUME,
        C.MQSO_CREATE,
        C.MQSO_RESUME,
    ]
    conn.close_subscription(again, remove=True)  # MQCO_REMOVE_SUB
    with pytest.raises(MQError) as gone:
        subscribe(conn, C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED, sub_name="mq-keeper")
    assert gone.value.reason == C.MQRC_NO_SUBSCRIPTION


def test_a_resumed_subscription_answers_the_selector_it_was_made_with(
    conn: MQConnection,
) -> None:
    made = subscribe(
        conn, DURABLE, object_string="mq/sel", sub_name="mq-sel", selection_string="region = 'eu'"
    )
    assert made.selection_string == "region = 'eu'"
    conn.close_subscription(made)
    resumed = subscribe(conn, DURABLE, object_string="mq/sel", sub_name="mq-sel")
    assert resumed.selection_string == "region = 'eu'"  # MQSD SelectionString on return
    conn.close_subscription(resumed, remove=True)


def test_closing_a_non_durable_subscription_deletes_its_managed_queue(
    conn: MQConnection,
) -> None:
    sub = subscribe(conn, object_string="mq/brief")
    name = sub.handle.resolved_name
    conn.close_subscription(sub)  # MQCLOSE of the hsub, then of the managed queue's Hobj
    with pytest.raises(MQError) as gone:
        conn.inquire(name, [C.MQIA_CURRENT_Q_DEPTH])
    assert gone.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(MQError) as closed:
        conn.close_subscription(sub)
    assert closed.value.reason == C.MQRC_HOBJ_ERROR


def test_a_durable_subscription_left_open_at_disconnect_is_resumed_by_the_next(
    mq: StandInBroker,
) -> None:
    first = transport.connect(mq.url)
    assert isinstance(first, MQConnection)
    subscribe(first, DURABLE, object_string="mq/left", sub_name="mq-left")
    first.disconnect()  # MQDISC ends the hsub; the library's object does not MQCLOSE later
    second = transport.connect(mq.url)
    assert isinstance(second, MQConnection)
    again = subscribe(second, DURABLE, object_string="mq/left", sub_name="mq-left")
    assert not again.created
    second.close_subscription(again, remove=True)
    second.disconnect()


def test_a_pymqi_program_on_mq_publishes_and_subscribes(mq: StandInBroker) -> None:
    # the drop-in over mq:// answered 2298: the transport had no publish/subscribe
    facade.configure(url=mq.url)
    try:
        qmgr = facade.connect("QM1")
        sd = facade.SD(Options=MANAGED)
        sd.set_vs("ObjectString", "mq/dropin")
        sub = facade.Subscription(qmgr, sub_desc=sd)
        facade.Topic(qmgr, topic_string="mq/dropin").pub(b"hello")
        gmo = facade.GMO(Options=facade.CMQC.MQGMO_WAIT, WaitInterval=5000)
        assert sub.get(None, facade.MD(), gmo).endswith(b"hello")
        sub.close()
        qmgr.disconnect()
    finally:
        routing.reset()
