"""Publish/subscribe on ActiveMQ, where the STOMP transport has its own mapping: topic
names, the models' BOTHRESH/BOQNAME from the URL and the TOML file (seed 002), other STOMP
clients publishing and subscribing, and the durable subscription on the broker itself.
The behaviour every transport shares is tested in tests/conformance/test_contract_pubsub.py."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics.pubsub import SubscriptionDescriptor
from mqjms.transport import connect
from mqjms.transport.stomp.pubsub import topic_destination
from tests.stomp.activemq_support import RawStomp, StompBroker

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE
WANTED = [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME]


def sd(topic: str, options: int = MANAGED, **fields: object) -> SubscriptionDescriptor:
    return SubscriptionDescriptor(options=options, object_string=topic, **fields)


def test_topic_strings_map_to_activemq_destinations() -> None:
    assert topic_destination("prices/eu", "P.") == "/topic/P.prices.eu"
    assert topic_destination("prices/#") == "/topic/prices.>"
    assert topic_destination("+/eu") == "/topic/*.eu"
    for bad in ("a.b/c", "a//b", "a/#/b", "", "a/*"):
        with pytest.raises(MQError) as failure:
            topic_destination(bad)
        assert failure.value.reason == C.MQRC_TOPIC_STRING_ERROR, bad


def test_the_default_models_take_bothresh_and_boqname_from_the_url(
    amq: StompBroker, stomp_conns
) -> None:
    # seed 002: the managed queue inherits BOTHRESH and BOQNAME from the model queue,
    # MDURMDL (SYSTEM.DURABLE.MODEL.QUEUE) for durable, MNDURMDL for non-durable ones
    url = amq.child_url(
        **{"mdurmdl.bothresh": 3, "mdurmdl.boqname": "D.BO", "mndurmdl.bothresh": 5}
    )
    conn = connect(url)
    stomp_conns.append(conn)
    durable = conn.subscribe(sd("url/models", DURABLE, sub_name="url-models"))
    transient = conn.subscribe(sd("url/models"))
    assert durable.handle.resolved_name.startswith("SYSTEM.MANAGED.DURABLE.")
    assert transient.handle.resolved_name.startswith("SYSTEM.MANAGED.NDURABLE.")
    assert conn.inquire(durable.handle.resolved_name, WANTED) == {
        C.MQIA_BACKOUT_THRESHOLD: 3,
        C.MQCA_BACKOUT_REQ_Q_NAME: "D.BO",
    }
    assert conn.inquire(transient.handle.resolved_name, WANTED) == {
        C.MQIA_BACKOUT_THRESHOLD: 5,
        C.MQCA_BACKOUT_REQ_Q_NAME: "",
    }
    conn.close_subscription(durable, remove=True)


def test_topics_and_models_from_the_toml_file(
    tmp_path: Path, amq: StompBroker, stomp_conns
) -> None:
    config = tmp_path / "stomp.toml"
    config.write_text(
        textwrap.dedent(
            """
            [queues."ORDERS.MODEL"]
            type = "QMODEL"
            BOTHRESH = 2
            BOQNAME = "ORDERS.SUB.BACKOUT"
            [topics."ORDERS"]
            TOPICSTR = "orders"
            MNDURMDL = "ORDERS.MODEL"
            DEFPSIST = "YES"
            [topics."ORDERS.CLOSED"]
            TOPICSTR = "orders/closed"
            PUB = "DISABLED"
            """
        )
    )
    conn = connect(f"{amq.base_url}?config={config}&prefix={amq.prefix}")
    stomp_conns.append(conn)
    sub = conn.subscribe(sd("eu/#", object_name="ORDERS"))
    assert sub.topic_string == "orders/eu/#"
    assert conn.inquire(sub.handle.resolved_name, WANTED) == {
        C.MQIA_BACKOUT_THRESHOLD: 2,
        C.MQCA_BACKOUT_REQ_Q_NAME: "ORDERS.SUB.BACKOUT",
    }
    topic = conn.open_topic("orders/eu/fr", C.MQOO_OUTPUT)
    conn.put(topic, MQMD(Format=C.MQFMT_STRING), b"as the topic's DEFPSIST")
    got = conn.get(sub.handle, wait=5.0)
    assert got is not None and got[0].Persistence == C.MQPER_PERSISTENT
    closed = conn.open_topic("orders/closed", C.MQOO_OUTPUT)
    with pytest.raises(MQError) as failure:
        conn.put(closed, MQMD(), b"x")
    assert failure.value.reason == C.MQRC_PUT_INHIBITED


def test_other_stomp_clients_publish_and_subscribe_on_the_same_topics(
    sconnect, amq: StompBroker
) -> None:
    conn = sconnect()
    sub = conn.subscribe(sd("raw/news"))
    raw = RawStomp(amq.base_url)
    try:
        raw.send(
            f"/topic/{amq.prefix}raw.news", b"from a plain client", **{"content-type": "text/plain"}
        )
        got = conn.get(sub.handle, wait=5.0)
        assert got is not None and got[1].endswith(b"from a plain client")
        raw.conn.subscribe(f"/topic/{amq.prefix}raw.news", "plain", ack="auto")
        time.sleep(0.3)
        topic = conn.open_topic("raw/news", C.MQOO_OUTPUT)
        conn.put(topic, MQMD(Format=C.MQFMT_STRING), b"from mqjms")
        headers, body = raw.frames.get(timeout=5.0)
        assert body == b"from mqjms" and "mqjms_msg_id" in headers
    finally:
        raw.close()


def test_a_durable_subscription_is_the_brokers_and_keeps_messages_while_closed(
    sconnect, amq: StompBroker
) -> None:
    # the broker's own durable subscription (client-id + activemq.subscriptionName) holds
    # what is published while no subscriber runs; the next one moves it to the managed queue
    conn, publisher = sconnect(), sconnect()
    sub = conn.subscribe(sd("amq/durable", DURABLE, sub_name="amq-durable"))
    conn.close_subscription(sub)
    topic = publisher.open_topic("amq/durable", C.MQOO_OUTPUT)
    for i in range(3):
        publisher.put(topic, MQMD(Persistence=C.MQPER_PERSISTENT), f"m{i}".encode())
    again = conn.subscribe(sd("amq/durable", DURABLE, sub_name="amq-durable"))
    assert not again.created
    assert conn.inquire(again.handle.resolved_name, [C.MQIA_CURRENT_Q_DEPTH]) == {
        C.MQIA_CURRENT_Q_DEPTH: 3
    }
    bodies = [conn.get(again.handle, wait=5.0) for _ in range(3)]
    assert sorted(g[1] for g in bodies if g is not None) == [b"m0", b"m1", b"m2"]
    mds = [g[0] for g in bodies if g is not None]
    assert len({md.MsgId for md in mds}) == 3
    conn.close_subscription(again, remove=True)
    with pytest.raises(MQError) as failure:
        conn.subscribe(
            sd(
                "amq/durable",
                C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED,
                sub_name="amq-durable",
            )
        )
    assert failure.value.reason == C.MQRC_NO_SUBSCRIPTION
