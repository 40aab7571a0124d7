"""Publish/subscribe through the transport contract (issue 10): open_topic + put publishes,
subscribe (MQSUB) and close_subscription (MQCLOSE of the hsub), on every transport that
declares ``pubsub``. Written against the contract only."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor
from mqjms.transport import Connection

pytestmark = pytest.mark.requires("pubsub")

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE
WAIT = 5.0


def subscribe(
    conn: Connection, topic: str, options: int = MANAGED, **fields: object
) -> Subscription:
    return conn.subscribe(SubscriptionDescriptor(options=options, object_string=topic, **fields))


def publish(conn: Connection, topic: str, *bodies: bytes, syncpoint: bool = False) -> None:
    handle = conn.open_topic(topic, C.MQOO_OUTPUT)
    for body in bodies:
        conn.put(handle, MQMD(Format=C.MQFMT_STRING), body, syncpoint=syncpoint)
    conn.close(handle)


def receive(conn: Connection, sub: Subscription, wait: float = WAIT) -> list[bytes]:
    """What the subscription holds now, waiting ``wait`` for the first."""
    out = []
    while (got := conn.get(sub.handle, wait=wait if not out else 0.5)) is not None:
        out.append(got[1])
    return out


def test_a_publication_reaches_every_matching_subscription_once(
    connections: Callable[..., Connection],
) -> None:
    subscriber, publisher = connections(), connections()
    exact = subscribe(subscriber, "conf/prices/eu")
    below = subscribe(subscriber, "conf/prices/#")
    level = subscribe(subscriber, "conf/+/eu")
    other = subscribe(subscriber, "conf/stock/#")
    publish(publisher, "conf/prices/eu", b"EUR")
    publish(publisher, "conf/prices/us", b"USD")
    assert receive(subscriber, exact) == [b"EUR"]
    assert sorted(receive(subscriber, below)) == [b"EUR", b"USD"]
    assert receive(subscriber, level) == [b"EUR"]
    assert receive(subscriber, other, wait=0.5) == []


def test_a_publication_is_part_of_the_publishers_unit_of_work(
    connections: Callable[..., Connection],
) -> None:
    subscriber, publisher = connections(), connections()
    sub = subscribe(subscriber, "conf/uow")
    publish(publisher, "conf/uow", b"rolled back", syncpoint=True)
    publisher.backout()
    publish(publisher, "conf/uow", b"one", b"two", syncpoint=True)
    assert subscriber.get(sub.handle, wait=0.5) is None  # not before the commit
    publisher.commit()
    assert receive(subscriber, sub) == [b"one", b"two"]


def test_a_durable_subscription_keeps_publications_until_it_is_removed(
    connections: Callable[..., Connection],
) -> None:
    subscriber, publisher = connections(), connections()
    sub = subscribe(subscriber, "conf/durable", DURABLE, sub_name="conf-keeper")
    assert sub.durable and sub.created
    subscriber.close_subscription(sub)
    publish(publisher, "conf/durable", b"while nobody listens")
    again = subscribe(subscriber, "conf/durable", DURABLE, sub_name="conf-keeper")
    assert not again.created and again.topic_string == "conf/durable"
    assert again.handle.resolved_name == sub.handle.resolved_name
    assert receive(subscriber, again) == [b"while nobody listens"]
    subscriber.close_subscription(again, remove=True)
    with pytest.raises(MQError) as failure:
        subscribe(
            subscriber,
            "conf/durable",
            C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED,
            sub_name="conf-keeper",
        )
    assert failure.value.reason == C.MQRC_NO_SUBSCRIPTION


def test_a_non_durable_subscription_ends_when_it_is_closed(
    connections: Callable[..., Connection],
) -> None:
    subscriber, publisher = connections(), connections()
    sub = subscribe(subscriber, "conf/transient")
    publish(publisher, "conf/transient", b"first")
    assert receive(subscriber, sub) == [b"first"]
    subscriber.close_subscription(sub)
    publish(publisher, "conf/transient", b"nobody subscribed")
    later = subscribe(subscriber, "conf/transient")
    publish(publisher, "conf/transient", b"second")
    assert receive(subscriber, later) == [b"second"]


def test_an_unshared_subscription_has_one_subscriber(
    connections: Callable[..., Connection],
) -> None:
    one, two = connections(), connections()
    subscribe(one, "conf/single", DURABLE, sub_name="conf-single")
    with pytest.raises(MQError) as failure:
        subscribe(two, "conf/single", DURABLE, sub_name="conf-single")
    assert failure.value.reason == C.MQRC_SUBSCRIPTION_IN_USE


@pytest.mark.requires("shared_subscriptions")  # IBM MQ's MQSD has none: 2298 there
def test_a_shared_subscription_has_many_subscribers(
    connections: Callable[..., Connection],
) -> None:
    one, two, publisher = connections(), connections(), connections()
    first = subscribe(one, "conf/shared", DURABLE, sub_name="conf-shared", shared=True)
    second = subscribe(two, "conf/shared", DURABLE, sub_name="conf-shared", shared=True)
    assert first.handle.resolved_name == second.handle.resolved_name
    publish(publisher, "conf/shared", b"a", b"b")
    got = receive(one, first) + receive(two, second, wait=1.0)
    assert sorted(got) == [b"a", b"b"]  # each publication to one of them, once
    one.close_subscription(first)
    two.close_subscription(second, remove=True)


def test_a_backout_raises_the_backout_count_on_the_managed_queue(
    connections: Callable[..., Connection],
) -> None:
    # seed 002: BackoutCount of a publication is counted on the subscription's managed queue
    subscriber, publisher = connections(), connections()
    sub = subscribe(subscriber, "conf/backout")
    publish(publisher, "conf/backout", b"again")
    for count in range(3):
        got = subscriber.get(sub.handle, wait=WAIT, syncpoint=True)
        assert got is not None and got[1] == b"again"
        assert got[0].BackoutCount == count
        subscriber.backout()
    got = subscriber.get(sub.handle, wait=WAIT, syncpoint=True)
    assert got is not None and got[0].BackoutCount == 3
    subscriber.commit()
    assert subscriber.get(sub.handle, wait=0.5) is None


def test_the_managed_queue_inherits_bothresh_and_boqname_from_the_topics_model(
    connections: Callable[..., Connection], broker
) -> None:
    # seed 002: the managed queue is created from the model queue of the Topic object
    # (MDURMDL durable, MNDURMDL non-durable) and inherits BOTHRESH and BOQNAME from it
    broker.define_model("CONF.DMODEL", BOTHRESH=3, BOQNAME="CONF.DBO", DEFTYPE="PERMDYN")
    broker.define_model("CONF.NMODEL", BOTHRESH=5, BOQNAME="CONF.NBO")
    broker.define_topic("CONF.T", "conf/models", MDURMDL="CONF.DMODEL", MNDURMDL="CONF.NMODEL")
    conn = connections()
    durable = subscribe(conn, "conf/models/#", DURABLE, sub_name="conf-models")
    transient = subscribe(conn, "conf/models/x")
    wanted = [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME]
    assert conn.inquire(durable.handle.resolved_name, wanted) == {
        C.MQIA_BACKOUT_THRESHOLD: 3,
        C.MQCA_BACKOUT_REQ_Q_NAME: "CONF.DBO",
    }
    assert conn.inquire(transient.handle.resolved_name, wanted) == {
        C.MQIA_BACKOUT_THRESHOLD: 5,
        C.MQCA_BACKOUT_REQ_Q_NAME: "CONF.NBO",
    }
    conn.close_subscription(durable, remove=True)


def test_wildcards_cannot_be_published_to(connections: Callable[..., Connection]) -> None:
    conn = connections()
    with pytest.raises(MQError) as failure:
        conn.open_topic("conf/#", C.MQOO_OUTPUT)
    assert failure.value.reason == C.MQRC_TOPIC_STRING_ERROR
