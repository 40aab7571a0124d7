"""A topic as JMSReplyTo over STOMP: the MQMD has no field for it, so it travels in the
RFH2's jms.Rto and, for other STOMP and JMS clients of the broker, as ``reply-to:/topic/``;
read back, it is the JMSReplyTo again and never the MQMD's ReplyToQ."""

from __future__ import annotations

from mqjms.jms.message import Queue, from_mq, make_message, to_mq
from mqjms.transport.stomp.mapping import from_frame, to_frame


def test_a_topic_reply_to_is_a_topic_destination_and_no_reply_to_queue() -> None:
    message = make_message("request", None)
    message.jms_reply_to = "topic://prices/replies"
    headers, body = to_frame(*to_mq(message, Queue("PRICES.REQUEST")))
    assert headers["reply-to"] == "/topic/prices.replies"  # what a Java client's reads
    md, data = from_frame(headers, body)
    assert md.ReplyToQ.strip() == ""
    assert from_mq(md, data).jms_reply_to == "topic://prices/replies"


def test_a_queue_reply_to_is_unchanged() -> None:
    message = make_message("request", None)
    message.jms_reply_to = "PRICES.REPLY"
    headers, body = to_frame(*to_mq(message, Queue("PRICES.REQUEST")))
    assert headers["reply-to"] == "/queue/PRICES.REPLY"
    md, _ = from_frame(headers, body)
    assert md.ReplyToQ.strip() == "PRICES.REPLY"
