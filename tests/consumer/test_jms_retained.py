"""Retained publications through the JMS API, as IBM MQ classes for JMS show them: a
publisher sets the property JMS_IBM_Retain to 1 (RETAIN_PUBLICATION) to publish with
MQPMO_RETAIN, and a subscriber reads JMS_IBM_Retain = 1 on a copy of a retained
publication (mqps.Ret, MQIsRetained), which a new subscription is sent first."""

from __future__ import annotations

from typing import Any

import pytest

import mqjms
from mqjms.mq import jms

WAIT = 5.0


@pytest.mark.requires("retained")
def test_a_new_subscriber_gets_the_retained_publication_marked(env: Any) -> None:
    session = env.connect().session()
    producer = session.producer(session.topic("jr/price"))
    producer.send("1.07", properties={"JMS_IBM_Retain": 1})
    producer.send("1.08", properties={"JMS_IBM_Retain": jms.RETAIN_PUBLICATION, "venue": "x"})
    producer.send("1.09")  # published, not retained: the retained one stays 1.08
    late = session.consumer(session.topic("jr/#"))
    message = late.receive(timeout=WAIT)
    assert message is not None and message.body == "1.08"
    assert message.properties == {"venue": "x", "JMS_IBM_Retain": 1}
    assert message.jms_destination == "topic://jr/price"
    assert late.receive(timeout=0.5) is None
    producer.send("1.10")  # a live publication carries no JMS_IBM_Retain
    live = late.receive(timeout=WAIT)
    assert live is not None and live.body == "1.10" and "JMS_IBM_Retain" not in live.properties


@pytest.mark.requires("pubsub")
def test_a_retained_publication_is_delivered_live_without_the_mark(env: Any) -> None:
    # over STOMP (no retained publications) it is published as any other
    session = env.connect().session()
    early = session.consumer(session.topic("jr/live"))
    session.producer(session.topic("jr/live")).send("now", properties={"JMS_IBM_Retain": 1})
    message = early.receive(timeout=WAIT)
    assert message is not None and message.body == "now"
    assert message.properties == {}  # the property asks for MQPMO_RETAIN: no RFH2 property


@pytest.mark.requires("retained")
def test_a_transacted_retained_publication_is_kept_at_commit(env: Any) -> None:
    connection = env.connect()
    session = connection.session(transacted=True)
    producer = session.producer(session.topic("jr/tx"))
    producer.send("rolled back", properties={"JMS_IBM_Retain": 1})
    session.rollback()
    other = connection.session()
    assert other.consumer(other.topic("jr/tx")).receive(timeout=0.5) is None
    producer.send("committed", properties={"JMS_IBM_Retain": 1})
    session.commit()
    message = other.consumer(other.topic("jr/tx")).receive(timeout=WAIT)
    assert message is not None and message.body == "committed"
    assert message.properties["JMS_IBM_Retain"] == 1


@pytest.mark.requires("retained")
@pytest.mark.parametrize("value", [2, "1", True, 1.0])
def test_jms_ibm_retain_takes_1_or_0(env: Any, value: object) -> None:
    session = env.connect().session()
    producer = session.producer(session.topic("jr/bad"))
    with pytest.raises((TypeError, ValueError), match="JMS_IBM_Retain"):
        producer.send("x", properties={"JMS_IBM_Retain": value})
    producer.send("not retained", properties={"JMS_IBM_Retain": 0})
    assert session.consumer(session.topic("jr/bad")).receive(timeout=0.5) is None


def test_other_jms_prefixed_names_stay_reserved() -> None:
    with pytest.raises(ValueError, match="reserved"):
        mqjms.TextMessage("x", properties={"JMS_IBM_Other": 1})
