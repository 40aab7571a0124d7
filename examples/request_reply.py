"""Request/reply where the reply keeps the request's remaining expiry (seed 000 note 7).

A requester sends a request with a time to live and waits on a reply queue; a responder
receives it and replies with ``time_to_live=mqjms.remaining_time_to_live(request)``, so a
reply nobody will read any more expires when the request would have.

    python examples/request_reply.py            # runs both sides on ./.mqjms

Either side may be a Java JMS application on ActiveMQ (``--url stomp://...``): the reply's
JMSCorrelationID is the request's JMSMessageID both ways (docs/java-interop.md).
"""

from __future__ import annotations

import argparse
import threading

import mqjms
from mqjms.transport.embedded import queue_manager

REQUESTS = "PRICES.REQUEST"
REPLIES = "PRICES.REPLY"


def respond(factory: mqjms.ConnectionFactory, stop: threading.Event) -> None:
    """Answer each request; the reply copies the remaining expiry and the correlation."""
    with factory.connect() as connection, connection.session(transacted=True) as session:
        consumer = session.consumer(REQUESTS)
        producer = session.producer()
        while not stop.is_set():
            request = consumer.receive(timeout=0.2)
            if request is None:
                continue
            producer.send(
                f"price of {request.body}: 42.00",
                queue=request.jms_reply_to or REPLIES,  # a queue:// (or topic://) URI
                correlation_id=request.jms_message_id,
                time_to_live=mqjms.remaining_time_to_live(request),
                delivery_mode=request.jms_delivery_mode,  # a temporary reply queue: 2048
            )
            session.commit()


def request(factory: mqjms.ConnectionFactory, item: str, ttl_ms: int) -> mqjms.Message | None:
    with factory.connect() as connection, connection.session() as session:
        sent = session.producer(REQUESTS).send(item, reply_to=REPLIES, time_to_live=ttl_ms)
        replies = session.consumer(REPLIES)
        while True:
            reply = replies.receive(timeout=ttl_ms / 1000)
            if reply is None or reply.jms_correlation_id == sent.jms_message_id:
                return reply


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="embedded:///")
    parser.add_argument("--item", default="widget")
    parser.add_argument("--ttl", type=int, default=30_000, help="request time to live, ms")
    args = parser.parse_args(argv)

    if args.url.startswith("embedded:"):
        qm = queue_manager(args.url)
        for name in (REQUESTS, REPLIES):
            qm.define_queue("QLOCAL", name, replace=True)
    factory = mqjms.ConnectionFactory(args.url)
    stop = threading.Event()
    responder = threading.Thread(target=respond, args=(factory, stop), daemon=True)
    responder.start()
    try:
        reply = request(factory, args.item, args.ttl)
    finally:
        stop.set()
        responder.join(timeout=5)
    if reply is None:
        print("no reply within the request's time to live")
        return 1
    print(f"reply: {reply.body!r} (expires in {reply.md.Expiry if reply.md else -1} tenths)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
