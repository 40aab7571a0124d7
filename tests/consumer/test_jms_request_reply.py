"""Request/reply copying the request's remaining expiry to the reply (seed 000/001 note 7)."""

from __future__ import annotations

import time
from typing import Any

import pytest

import mqjms
from mqjms.mq import C, MQError, parse_xqh

REQUESTS, REPLIES = "RR.REQUEST", "RR.REPLY"


def _respond(env: Any) -> tuple[mqjms.Message, mqjms.Message]:
    """The responder: receive a request and reply with its remaining time to live."""
    session = env.connect().session(transacted=True)
    request = session.consumer(REQUESTS).receive(timeout=1.0)
    assert request is not None
    reply = session.producer().send(
        f"answer to {request.body}",
        queue=mqjms.Queue.parse(request.jms_reply_to or REPLIES),
        correlation_id=request.jms_message_id,
        time_to_live=mqjms.remaining_time_to_live(request),
    )
    session.commit()
    return request, reply


@pytest.mark.requires("expiry")
def test_reply_copies_the_remaining_expiry_of_the_request(env: Any) -> None:
    # seed 000/001 note 7: "When a request message with an expiry time greater than zero is
    # retrieved, the application can ... copy the remaining expiry time from the request
    # message to the reply message."
    env.define_queue(REQUESTS)
    env.define_queue(REPLIES)
    sent = env.send(REQUESTS, "price?", time_to_live=60_000, reply_to=REPLIES)
    time.sleep(0.5)  # the request waits on its queue: its remaining expiry goes down
    request, reply = _respond(env)
    assert request.md.Expiry < 600 - 3  # the MQGET returned the remaining expiry
    assert mqjms.remaining_time_to_live(request) == request.md.Expiry * 100
    md, _ = env.browse_one(REPLIES)
    assert 0 < md.Expiry <= request.md.Expiry
    # the reply expires (about) when the request would have, not 60 s after the reply
    assert reply.jms_expiration <= sent.jms_expiration + 200
    assert reply.jms_expiration >= sent.jms_expiration - 1000
    session = env.connect().session()
    received = session.consumer(REPLIES).receive(timeout=1.0)
    assert received is not None
    assert received.jms_correlation_id == sent.jms_message_id
    assert received.md.CorrelId == sent.md.MsgId
    assert received.body == "answer to price?"
    assert received.jms_expiration == reply.jms_expiration


def test_reply_to_a_request_without_expiry_does_not_expire(env: Any) -> None:
    # seed 000/001 note 7: a request with unlimited expiry -> nothing to copy; the reply is
    # unlimited (MQEI_UNLIMITED), time to live 0 in JMS terms.
    env.define_queue(REQUESTS)
    env.define_queue(REPLIES)
    env.send(REQUESTS, "no hurry", reply_to=REPLIES)
    request, reply = _respond(env)
    assert mqjms.remaining_time_to_live(request) == mqjms.DEFAULT_TIME_TO_LIVE == 0
    md, _ = env.browse_one(REPLIES)
    assert md.Expiry == C.MQEI_UNLIMITED
    assert reply.jms_expiration == 0


@pytest.mark.requires("expiry")
def test_reply_to_a_plain_mq_request_copies_the_mqmd_expiry(env: Any) -> None:
    # seed 000/001 note 7 for a request put by a plain MQ application (no RFH2)
    env.define_queue(REQUESTS)
    env.define_queue(REPLIES)
    env.put_raw(
        REQUESTS,
        b"plain?",
        Format=C.MQFMT_STRING,
        Expiry=300,
        ReplyToQ=REPLIES,
        MsgType=C.MQMT_REQUEST,
    )
    time.sleep(0.3)
    session = env.connect().session(transacted=True)
    request = session.consumer(REQUESTS).receive(timeout=1.0)
    assert request is not None
    ttl = mqjms.remaining_time_to_live(request)
    assert 0 < ttl <= 300 * 100 - 200
    session.producer(mqjms.Queue(REPLIES, target_client=mqjms.TARGET_MQ)).send(
        "plain answer", correlation_id=request.jms_message_id, time_to_live=ttl
    )
    session.commit()
    md, data = env.browse_one(REPLIES)
    assert data == b"plain answer"
    assert 0 < md.Expiry <= request.md.Expiry
    assert md.CorrelId == request.md.MsgId


@pytest.mark.embedded_only("transmission queues are the embedded queue manager's")
def test_a_reply_to_another_queue_managers_requester_goes_to_its_transmission_queue(
    env: Any,
) -> None:
    # IBM MQ classes for JMS open queue://QM/Q with ObjectQMgrName QM: the queue manager
    # routes the reply to the transmission queue for QM, behind an MQXQH (seed 000 note 9:
    # both Expiry fields as the reply was sent), never to a local queue of that name
    env.define_queue(REQUESTS)
    env.define_queue(REPLIES)
    env.define_queue("QM_REQUESTER", USAGE="XMITQ")
    env.send(REQUESTS, "price?", time_to_live=60_000, reply_to=f"queue://QM_REQUESTER/{REPLIES}")
    request, reply = _respond(env)
    assert request.jms_reply_to == f"queue://QM_REQUESTER/{REPLIES}"
    assert env.depth(REPLIES) == 0
    got = env.get_raw("QM_REQUESTER")
    assert got is not None
    md, data = got
    header, body = parse_xqh(data, md.Encoding)
    assert (header.RemoteQName, header.RemoteQMgrName) == (REPLIES, "QM_REQUESTER")
    assert header.MsgDesc.MsgId == reply.md.MsgId
    assert 0 < md.Expiry == header.MsgDesc.Expiry <= request.md.Expiry
    assert b"answer to price?" in body


@pytest.mark.embedded_only("transmission queues are the embedded queue manager's")
def test_a_reply_to_a_queue_manager_with_no_route_fails_and_puts_nothing(env: Any) -> None:
    env.define_queue(REQUESTS)
    env.define_queue(REPLIES)
    env.send(REQUESTS, "price?", reply_to=f"queue://QM_NOWHERE/{REPLIES}")
    with pytest.raises(MQError) as caught:
        _respond(env)
    assert caught.value.reason == C.MQRC_UNKNOWN_REMOTE_Q_MGR
    assert "QM_NOWHERE" in caught.value.detail
    assert env.depth(REPLIES) == 0
