"""mqjms beside Java JMS applications on ActiveMQ: a real Java JMS client (ActiveMQ's own,
over OpenWire; tests/java/JmsClient.java) on one side, mqjms over STOMP on the other.

What maps and what cannot is written in docs/java-interop.md; each test names the item
of issue 13 it checks.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

import mqjms
from examples import request_reply
from mqjms.mq import C
from mqjms.transport import connect
from tests.stomp.activemq_support import RawStomp, StompBroker
from tests.stomp.java_support import JavaClient

IN = C.MQOO_INPUT_SHARED


@pytest.fixture
def amq(activemq_url: str) -> Iterator[StompBroker]:
    """Not strict: a queue exists when it is used, as on a broker (Java sees no config)."""
    broker = StompBroker(activemq_url, strict=False)
    try:
        yield broker
    finally:
        broker.close()


def receive(amq: StompBroker, queue: str, timeout: float = 10) -> mqjms.Message:
    with mqjms.ConnectionFactory(amq.url).connect() as conn, conn.session() as session:
        message = session.consumer(queue).receive(timeout=timeout)
    assert message is not None, f"nothing on {queue}"
    return message


def send(amq: StompBroker, queue: str, body: object, **options: object) -> mqjms.Message:
    with mqjms.ConnectionFactory(amq.url).connect() as conn, conn.session() as session:
        return session.producer(queue).send(body, **options)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- item 1


def test_a_java_requester_gets_the_reply_of_the_mqjms_example_responder(
    java: JavaClient, amq: StompBroker
) -> None:
    # issue 13 item 1: the reply's JMSCorrelationID is the Java request's JMSMessageID
    factory = mqjms.ConnectionFactory(amq.url)
    stop = threading.Event()
    responder = threading.Thread(target=request_reply.respond, args=(factory, stop), daemon=True)
    responder.start()
    try:
        out = java.run(
            "request",
            java.queue(request_reply.REQUESTS),
            java.queue(request_reply.REPLIES),
            "widget",
            "20000",
        )
    finally:
        stop.set()
        responder.join(timeout=10)
    reply = out["reply"]
    assert reply is not None, "the Java requester's selector found no reply"
    assert reply["text"] == "price of widget: 42.00"
    assert reply["JMSCorrelationID"] == out["request_id"]
    assert len(out["request_id"]) > 24  # longer than a CorrelId: carried whole


def test_the_mqjms_example_requester_gets_the_reply_of_a_java_responder(
    java: JavaClient, amq: StompBroker
) -> None:
    # issue 13 item 1: a Java responder copies the broker's id of the mqjms request
    responder = java.start("respond", java.queue(request_reply.REQUESTS), "20000")
    try:
        reply = request_reply.request(mqjms.ConnectionFactory(amq.url), "tea", 20_000)
        request = JavaClient.result(responder)
    finally:
        responder.kill()
    assert reply is not None, "no reply matched the request's JMSMessageID"
    assert reply.body == "re: tea"
    assert request["text"] == "tea"
    # the MQ view: the reply's CorrelId is the request's MsgId, as on IBM MQ
    assert reply.md is not None and reply.jms_correlation_id == "ID:" + reply.md.CorrelId.hex()


def test_an_mqi_get_matching_the_request_msg_id_finds_the_java_reply(
    java: JavaClient, amq: StompBroker
) -> None:
    # issue 13 item 1: MQGET by CorrelId = the request's MsgId (the MQ pattern) works too
    conn = connect(amq.url)
    try:
        responder = java.start("respond", java.queue("RR.REQ"), "20000")
        try:
            put = conn.put("RR.REQ", mqjms.mq.MQMD(ReplyToQ="RR.REPLY", Format="MQSTR"), b"q")
            JavaClient.result(responder)
        finally:
            responder.kill()
        send(amq, "RR.REPLY", "someone else's reply", correlation_id="other")
        got = conn.get(conn.open("RR.REPLY", IN), wait=10, correl_id=put.MsgId)
    finally:
        conn.disconnect()
    assert got is not None
    md, data = got
    assert md.CorrelId == put.MsgId and data.endswith(b"re: q")


# --------------------------------------------------------------------------- items 2, 6


def test_java_correlation_ids_map_and_object_messages_arrive_whole(
    java: JavaClient, amq: StompBroker
) -> None:
    queue = java.queue("FROM.JAVA")
    long_id = "ID:order-2026-11-23-customer-4711-line-0003"  # longer than a CorrelId
    java.run("send", queue, "text=plain", f"correlation={long_id}")  # item 2: no properties
    java.run("send", queue, "text=short", "correlation=abc")
    java.run("send", queue, "map=count:int:42,sku:string:123,ok:boolean:true,price:double:2.5")
    java.run("send", queue, "object=serialized")
    java.run("send", queue, "text=")  # an empty TextMessage is not a map
    with mqjms.ConnectionFactory(amq.url).connect() as conn, conn.session() as session:
        consumer = session.consumer("FROM.JAVA")
        got = [consumer.receive(timeout=10) for _ in range(5)]
    plain, short, mapped, obj, empty = got
    assert isinstance(plain, mqjms.TextMessage) and plain.body == "plain"
    assert plain.jms_correlation_id == long_id  # item 2: whole, not ID:<hex of 24 bytes>
    assert short is not None and short.jms_correlation_id == "abc"
    # item 6: a MapMessage with each value's Java type (the string "123" stays a string)
    assert isinstance(mapped, mqjms.MapMessage)
    assert mapped.body == {"count": 42, "sku": "123", "ok": True, "price": 2.5}
    # item 6: an ObjectMessage this broker cannot deserialise: a clear error, not ""
    assert isinstance(obj, mqjms.ObjectMessage)
    with pytest.raises(mqjms.MessageFormatException, match="serialized Java object"):
        _ = obj.body
    assert isinstance(empty, mqjms.TextMessage) and empty.body == ""


def test_a_java_map_message_backed_out_keeps_its_entries(
    java: JavaClient, amq: StompBroker
) -> None:
    # item 6: the copy that carries the raised BackoutCount keeps the map
    java.run("send", java.queue("MAP.BO"), "map=a:int:1,b:string:x")
    factory = mqjms.ConnectionFactory(amq.url)
    with factory.connect() as conn, conn.session(transacted=True) as session:
        first = session.consumer("MAP.BO").receive(timeout=10)
        session.rollback()
        again = session.consumer("MAP.BO").receive(timeout=10)
        session.commit()
    assert isinstance(first, mqjms.MapMessage) and isinstance(again, mqjms.MapMessage)
    assert again.body == {"a": 1, "b": "x"} and again.delivery_count == 2
    assert again.jms_message_id == first.jms_message_id  # one message, as on MQ


# --------------------------------------------------------------------------- item 3


def test_failure_details_of_a_moved_message_are_java_properties(
    java: JavaClient, amq: StompBroker
) -> None:
    amq.define_queue("ORDERS.IN", BOTHRESH=2, BOQNAME="ORDERS.BACKOUT")
    amq.define_queue("ORDERS.BACKOUT")
    send(amq, "ORDERS.IN", "not json")
    app = mqjms.Worker(amq.url)

    @app.listener("ORDERS.IN")
    def handle(message: mqjms.Message) -> None:
        raise ValueError("cannot parse the order")

    app.start()
    try:
        deadline = time.monotonic() + 30
        while app.stats.moved < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        app.stop()
    moved = java.run("receive", java.queue("ORDERS.BACKOUT"), "10000")
    assert moved["text"] == "not json"
    props = moved["properties"]
    assert props["mqjms_failure_exception"] == ["String", "builtins.ValueError"]
    assert props["mqjms_failure_message"] == ["String", "cannot parse the order"]
    assert props["mqjms_failure_queue"] == ["String", "ORDERS.IN"]
    assert props["mqjms_failure_listener"][1].endswith("handle")
    assert "mqjms_failure_time" in props
    # where it came from, as ActiveMQ's own dead-letter moves say it
    assert props["original-destination"] == ["String", amq.destination("ORDERS.IN")]


# --------------------------------------------------------------------------- item 4


def test_a_message_java_forwards_with_a_changed_property_is_read_as_forwarded(
    java: JavaClient, amq: StompBroker
) -> None:
    sent = send(amq, "FWD.IN", "order 7", properties={"colour": "red", "size": 3})
    forwarded = java.run(
        "forward", java.queue("FWD.IN"), java.queue("FWD.OUT"), "colour", "blue", "10000"
    )
    message = receive(amq, "FWD.OUT")
    assert message.properties["colour"] == "blue"  # the frame's, not the copied chain's
    assert message.properties["size"] == "3"  # a STOMP header is a string (item 7)
    assert message.jms_message_id == forwarded["JMSMessageID"] != sent.jms_message_id
    assert "mqjms_msg_id" not in message.properties  # mqjms's headers are never properties


def test_a_message_mqjms_sent_reads_back_exactly(amq: StompBroker) -> None:
    # item 4: the digest matches, so the chain (typed properties, MsgId) is used
    sent = send(amq, "SELF.Q", "x", properties={"count": 3, "ok": True, "ratio": 0.5})
    message = receive(amq, "SELF.Q")
    assert message.properties == {"count": 3, "ok": True, "ratio": 0.5}
    assert message.jms_message_id == sent.jms_message_id


# --------------------------------------------------------------------------- item 5


def test_text_outside_the_bmp_crosses_both_ways(java: JavaClient, amq: StompBroker) -> None:
    text = "tea \U0001f375 for \u00e9mile \u2615"
    java.run("send", java.queue("EMOJI.IN"), f"text={text}", "priority=7")
    message = receive(amq, "EMOJI.IN")
    assert isinstance(message, mqjms.TextMessage)
    assert message.body == text and message.jms_priority == 7
    send(amq, "EMOJI.OUT", text)
    got = java.run("receive", java.queue("EMOJI.OUT"), "10000")
    assert got["class"] == "TextMessage" and "body_error" not in got
    assert got["text"] == text
    # (a property value outside the BMP does not survive ActiveMQ's OpenWire property
    # marshalling even between two Java clients: docs/java-interop.md)


def test_a_stomp_text_that_is_not_utf8_is_bytes_with_its_headers(amq: StompBroker) -> None:
    # item 5: a fallback never hands the application mqjms's RFH2 or default headers
    raw = RawStomp(amq.base_url)
    try:
        raw.send(amq.destination("LATIN.IN"), b"caf\xe9", priority="8", colour="red")
    finally:
        raw.close()
    message = receive(amq, "LATIN.IN")
    assert isinstance(message, mqjms.BytesMessage)
    assert message.body == b"caf\xe9"
    assert message.jms_priority == 8 and message.properties == {"colour": "red"}


# --------------------------------------------------------------------------- item 7


def test_typed_properties_match_java_selectors_by_activemqs_conversion(
    java: JavaClient, amq: StompBroker
) -> None:
    send(amq, "SEL.Q", "match me", properties={"intProp": 42, "flag": True, "f": 1.5})
    assert java.run("receive", java.queue("SEL.Q"), "1000", "intProp > 40") == {"none": True}
    got = java.run(
        "receive",
        java.queue("SEL.Q"),
        "10000",
        "convert_string_expressions:intProp > 40 AND flag = TRUE AND f < 2.0",
    )
    assert got["text"] == "match me"
    assert got["properties"]["intProp"] == ["String", "42"]  # STOMP carries strings


def test_a_bytes_property_reaches_java_as_hex_and_mqjms_as_bytes(
    java: JavaClient, amq: StompBroker
) -> None:
    # item 7: never dropped; typed for mqjms (the chain), hex text for everyone else
    send(amq, "BYTES.Q", "x", properties={"token": b"\x01\xab"})
    send(amq, "BYTES.Q", "y", properties={"token": b"\x01\xab"})
    got = java.run("receive", java.queue("BYTES.Q"), "10000")
    assert got["properties"]["token"] == ["String", "01AB"]
    assert receive(amq, "BYTES.Q").properties["token"] == b"\x01\xab"


def test_a_default_put_tells_no_consumer_the_os_user_or_the_program(
    java: JavaClient, amq: StompBroker
) -> None:
    # item 7: only what a reader needs
    send(amq, "LEAK.Q", "hello")
    got = java.run("receive", java.queue("LEAK.Q"), "10000")
    names = set(got["properties"])
    context = {"UserIdentifier", "PutApplType", "PutDate", "PutTime", "AccountingToken"}
    assert not {f"mqjms_md_{name}" for name in context} & names
    assert got["properties"].get("mqjms_md_PutApplName") == ["String", "mqjms"]
    mqjms_headers = {name for name in names if name.startswith("mqjms_md_")}
    # the queue manager's name in ReplyToQMgr is no secret: MQPUT fills a blank one
    assert len(mqjms_headers - {"mqjms_md_ReplyToQMgr"}) <= 4, mqjms_headers
