"""``mqjms demo``: orders through a listener service, with poison messages moved aside.

It defines ORDERS.IN (BOTHRESH 3, BOQNAME ORDERS.BACKOUT), sends a stream of orders of
which some can never be processed, runs the listener of ``examples/orders_service.py``
over them with a live progress line, and ends with a summary checked against the queue
depths. ORDERS.BACKOUT is kept small on purpose (MAXDEPTH 25): once it is full, poison
messages fall back to the dead-letter queue with MQRC_Q_FULL in their MQDLH, as seed 002
says.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from dataclasses import dataclass
from typing import TextIO

from mqjms.jms import ConnectionFactory, Message
from mqjms.listeners import Worker
from mqjms.transport.embedded import queue_manager
from mqjms.transport.url import redact

INPUT = "ORDERS.IN"
BACKOUT = "ORDERS.BACKOUT"
BACKOUT_DEPTH = 25
SKUS = ("TEA-GREEN", "TEA-BLACK", "COFFEE-ARABICA", "COFFEE-ROBUSTA", "COCOA")


class InvalidOrder(ValueError):
    """An order no retry will fix."""


def process_order(msg: Message) -> None:
    """The demo's business logic: the same rules as examples/orders_service.py."""
    order = json.loads(msg.body)
    if not isinstance(order, dict) or order.get("sku") not in SKUS:
        raise InvalidOrder(f"unknown product in order {order!r}")
    if int(order.get("quantity", 0)) <= 0:
        raise InvalidOrder(f"order {order.get('id')} has quantity {order.get('quantity')}")


def make_orders(count: int, poison_every: int, seed: int = 7) -> list[str]:
    """Order bodies; every ``poison_every``-th one cannot be processed."""
    rng = random.Random(seed)
    bodies = []
    for n in range(count):
        order: dict[str, object] = {
            "id": n + 1,
            "sku": rng.choice(SKUS),
            "quantity": rng.randint(1, 20),
        }
        if poison_every and n % poison_every == poison_every - 1:
            kind = n // poison_every % 3
            if kind == 0:
                order["quantity"] = -order["quantity"]  # type: ignore[operator]
            elif kind == 1:
                order["sku"] = "UNOBTAINIUM"
            else:
                bodies.append(f'{{"id": {n + 1}, "sku": ')  # not even JSON
                continue
        bodies.append(json.dumps(order))
    return bodies


@dataclass
class Summary:
    sent: int
    processed: int
    moved: int
    dead_lettered: int
    elapsed: float
    depths: dict[str, int]

    @property
    def consistent(self) -> bool:
        """The counts agree with the queue depths, and every order is accounted for."""
        return (
            self.depths[INPUT] == 0
            and self.depths[BACKOUT] == self.moved
            and self.depths["DLQ+"] == self.dead_lettered
            and self.processed + self.moved + self.dead_lettered == self.sent
        )


def _cleared_line(cleared: dict[str, int]) -> str:
    """Says which messages the demo deleted, so that none goes unnoticed: the queues'
    names are the README's, which a user may have used for real orders."""
    parts = [f"{n} on {queue}" for queue, n in cleared.items() if n]
    if not parts:
        return ""
    return f"(deleted the messages already there: {', '.join(parts)})\n"


def run_demo(
    url: str,
    *,
    orders: int = 1000,
    poison_every: int = 25,
    concurrency: int = 4,
    out: TextIO = sys.stdout,
    timeout: float = 120.0,
) -> Summary:
    """Run the demo on ``url`` (an embedded queue manager) and return its summary."""
    qm = queue_manager(url)
    qm.define_queue(
        "QLOCAL",
        INPUT,
        {
            "BOTHRESH": 3,
            "BOQNAME": BACKOUT,
            "MAXDEPTH": max(5000, orders),
            "DEFPSIST": "YES",
            "DESCR": "mqjms demo: orders in",
        },
        replace=True,
    )
    qm.define_queue(
        "QLOCAL",
        BACKOUT,
        {"MAXDEPTH": BACKOUT_DEPTH, "DESCR": "mqjms demo: orders that failed 3 times"},
        replace=True,
    )
    cleared = {queue: qm.clear_queue(queue) for queue in (INPUT, BACKOUT)}
    deadq = str(qm.display_qmgr(["DEADQ"])["DEADQ"])
    dlq_before = qm.queue_depth(deadq)

    out.write(
        f"mqjms demo on {redact(url)}: {orders} orders, 1 in {poison_every} poison, "
        f"{concurrency} consumers\n"
    )
    out.write(_cleared_line(cleared))
    factory = ConnectionFactory(url)
    with factory.connect() as connection, connection.session(transacted=True) as session:
        producer = session.producer(INPUT)
        for n, body in enumerate(make_orders(orders, poison_every)):
            producer.send(body)
            if n % 200 == 199:
                session.commit()
        session.commit()

    app = Worker(url, appl_name="mqjms-demo", shutdown_timeout=10)
    app.listener(INPUT, concurrency=concurrency)(process_order)
    start = time.monotonic()
    done = threading.Event()
    progress = _Progress(out, orders)

    def handled() -> int:
        s = app.stats
        return s.committed + s.moved + s.dead_lettered + s.discarded

    with app:
        while handled() < orders and time.monotonic() - start < timeout:
            progress.show(app.stats.snapshot(), time.monotonic() - start)
            done.wait(0.2)
    elapsed = time.monotonic() - start
    stats = app.stats.snapshot()
    progress.show(stats, elapsed, final=True)
    depths = {
        INPUT: qm.queue_depth(INPUT),
        BACKOUT: qm.queue_depth(BACKOUT),
        "DLQ+": qm.queue_depth(deadq) - dlq_before,
    }
    summary = Summary(
        orders, stats["committed"], stats["moved"], stats["dead_lettered"], elapsed, depths
    )
    _print_summary(out, summary, deadq, url)
    return summary


class _Progress:
    def __init__(self, out: TextIO, total: int) -> None:
        self.out = out
        self.total = total
        self.live = out.isatty()
        self.last = 0.0

    def show(self, s: dict[str, int], elapsed: float, final: bool = False) -> None:
        line = (
            f"  processed {s['committed']:>5}/{self.total}   backed out {s['backed_out']:>4}"
            f"   to {BACKOUT} {s['moved']:>3}   dead-lettered {s['dead_lettered']:>3}"
            f"   {elapsed:5.1f}s"
        )
        if self.live:
            self.out.write("\r" + line + ("\n" if final else ""))
            self.out.flush()
        elif final or elapsed - self.last >= 2.0:
            self.out.write(line + "\n")
            self.last = elapsed


def _print_summary(out: TextIO, s: Summary, deadq: str, url: str) -> None:
    flag = "" if url == "embedded:///" else f" --url {redact(url)}"
    check = "matches the queue depths" if s.consistent else "DOES NOT match the queue depths"
    out.write(
        f"\nSummary ({check}):\n"
        f"  processed            {s.processed:>6}\n"
        f"  moved to {BACKOUT:<12}{s.moved:>6}   (CURDEPTH {s.depths[BACKOUT]})\n"
        f"  dead-lettered        {s.dead_lettered:>6}   ({deadq} grew by {s.depths['DLQ+']})\n"
        f"  left on {INPUT:<13}{s.depths[INPUT]:>6}\n"
        f"  elapsed              {s.elapsed:>6.1f}s\n\n"
        "Poison messages were rolled back 3 times (BOTHRESH), then moved with why they "
        f"failed;\nonce {BACKOUT} was full (MAXDEPTH {BACKOUT_DEPTH}) they went to the "
        "dead-letter queue.\nInspect them:\n"
        f"  mqjms browse {BACKOUT}{flag} --json --count 1\n"
        f"  mqjms browse {deadq}{flag} --json --count 1\n"
        f"  echo 'DISPLAY QLOCAL(ORDERS.*) CURDEPTH BOTHRESH BOQNAME' | mqjms mqsc{flag}\n"
    )
