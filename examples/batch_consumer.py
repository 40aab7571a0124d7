"""A synchronous batch consumer: receive in a transacted session, commit every N messages.

Run it against the embedded queue manager (the default, ./.mqjms) after putting some
messages:

    mqjms mqsc <<< "DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT)"
    mqjms mqsc <<< "DEFINE QLOCAL(ORDERS.BACKOUT)"
    mqjms put ORDERS.IN --body '{"order": 1}'
    mqjms put ORDERS.IN --body 'not an order'
    python examples/batch_consumer.py --queue ORDERS.IN

A batch that fails is rolled back as a whole: each of its messages' BackoutCount goes up
by one. So that a good message is not made poison by a bad neighbour, the messages of a
failed batch are then retried one per unit of work: only the bad one fails again, and
when its BackoutCount reaches BOTHRESH the next receive moves it to ORDERS.BACKOUT
(seed 002: inside the unit of work active at the receive, so the move is done by the
next commit: ``poison.move_pending``, then ``poison.moved``). The consumer commits before
it stops, so a move made by its last receive is not rolled back.
"""

from __future__ import annotations

import argparse
import json

import mqjms


def process(order: dict[str, object]) -> None:
    """Your business logic. Raising rolls back the whole batch."""
    if "order" not in order:
        raise ValueError(f"not an order: {order}")


def receive_batch(consumer: mqjms.MessageConsumer, size: int, idle: float) -> list[mqjms.Message]:
    """Up to ``size`` messages: waits ``idle`` seconds for the first, briefly for others."""
    batch: list[mqjms.Message] = []
    while len(batch) < size:
        message = consumer.receive(timeout=idle if not batch else 0.1)
        if message is None:
            break
        batch.append(message)
    return batch


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", default=None, help="transport URL (default: $MQJMS_URL or ./.mqjms)"
    )
    parser.add_argument("--queue", default="ORDERS.IN")
    parser.add_argument("--batch", type=int, default=50, help="messages per unit of work")
    parser.add_argument("--idle", type=float, default=2.0, help="stop after this many idle seconds")
    args = parser.parse_args(argv)

    processed = 0
    one_by_one = 0  # after a failed batch: its messages get a unit of work each
    factory = mqjms.ConnectionFactory(args.url)
    with factory.connect() as connection, connection.session(transacted=True) as session:
        consumer = session.consumer(args.queue)
        while True:
            batch = receive_batch(consumer, 1 if one_by_one else args.batch, args.idle)
            if not batch:
                session.commit()  # completes a poison move the last receive made
                break
            try:
                for message in batch:
                    process(json.loads(message.body))
            except Exception as exc:
                print(f"batch of {len(batch)} failed ({exc}); rolling back")
                session.rollback()
                if len(batch) > 1:  # retry them one by one: only the bad one fails again
                    one_by_one = len(batch)
                continue
            session.commit()
            processed += len(batch)
            one_by_one = max(0, one_by_one - len(batch))
            print(f"committed {len(batch)} (total {processed})")
    print(f"done: {processed} messages processed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
