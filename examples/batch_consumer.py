"""A synchronous batch consumer: receive in a transacted session, commit every N messages.

Run it against the embedded queue manager (the default) after putting some messages:

    mqjms mqsc <<< "DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT)"
    mqjms put ORDERS.IN --body '{"order": 1}'
    python examples/batch_consumer.py --queue ORDERS.IN

A batch that fails is rolled back as a whole: each message's BackoutCount goes up by one,
and a message that keeps failing reaches BOTHRESH and is moved to ORDERS.BACKOUT by the
next receive (seed 002: within the unit of work active at the get).
"""

from __future__ import annotations

import argparse
import json

import mqjms


def process(order: dict[str, object]) -> None:
    """Your business logic. Raising rolls back the whole batch."""
    if "order" not in order:
        raise ValueError(f"not an order: {order}")


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
    factory = mqjms.ConnectionFactory(args.url)
    with factory.connect() as connection, connection.session(transacted=True) as session:
        consumer = session.consumer(args.queue)
        while True:
            batch = []
            for _ in range(args.batch):
                message = consumer.receive(timeout=args.idle if not batch else 0.1)
                if message is None:
                    break
                batch.append(message)
            if not batch:
                break
            try:
                for message in batch:
                    process(json.loads(message.body))
            except Exception as exc:
                print(f"batch of {len(batch)} failed ({exc}); rolling back")
                session.rollback()
                continue
            session.commit()
            processed += len(batch)
            print(f"committed {len(batch)} (total {processed})")
    print(f"done: {processed} messages processed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
