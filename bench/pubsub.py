#!/usr/bin/env python3
"""Benchmark: publish/subscribe on the embedded queue manager (issue 10).

    python bench/pubsub.py [--messages N] [--subscribers K] [--rounds R] [--quick] [--json]

**Fan-out**, in interleaved rounds (the disk's fsync time probed before each round), on an
embedded queue manager in a fresh temporary directory; each contender delivers ``N``
persistent messages to ``K`` (default 10) destinations, one unit of work per message:

* **publish**: MQPUT of one publication under syncpoint to a topic with K non-durable
  subscriptions (their managed queues made from SYSTEM.NDURABLE.MODEL.QUEUE), MQCMIT;
* **put_k**: K MQPUTs of the message under syncpoint, one to each of K local queues, MQCMIT.

Target: publish / put_k >= 0.8 (a publication is K copies in one call).

**Subscriber throughput**: a Worker with one no-op listener consuming ``N`` messages
waiting for it (loaded beforehand, not timed; timed from ``start()`` to the N-th commit):

* **topic_listener**: ``@app.listener(topic=..., subscription=...)``, the durable
  subscription's managed queue holding N publications;
* **queue_listener**: ``@app.listener(queue)``, the queue holding N messages.

Target: topic_listener / queue_listener >= 0.9. Targets are information; the exit status
is 0 unless the benchmark broke.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _children
from bench._common import (
    Countdown,
    FsyncProbe,
    Report,
    Rounds,
    add_common_args,
    clock,
    finish_args,
    quiet_logging,
    scratch_dir,
)
from mqjms.jms.topic import Topic, open_subscription
from mqjms.listeners import Worker
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics.pubsub import SubscriptionDescriptor
from mqjms.transport import connect, embedded

TOPIC = "bench/fanout"
LISTENED = "bench/listened"
QUEUE = "BENCH.LISTENED"
TARGET_FANOUT = ">= 0.8"
TARGET_SUBSCRIBER = ">= 0.9"
DEEP = {"MAXDEPTH": 999_999_999}


class PubSub:
    """The queue manager, the K subscriptions and K queues, and the contenders."""

    def __init__(self, root: Path, subscribers: int, payload: int) -> None:
        self.url = f"embedded://{root / 'qm'}"
        self.qm = embedded.queue_manager(self.url)
        self.qm.alter_queue("SYSTEM.NDURABLE.MODEL.QUEUE", DEEP)
        self.qm.alter_queue("SYSTEM.DURABLE.MODEL.QUEUE", DEEP)
        self.queues = [f"BENCH.Q{i}" for i in range(subscribers)]
        for name in (*self.queues, QUEUE):
            self.qm.define_queue("QLOCAL", name, DEEP)
        self.holder = connect(self.url, "bench-subscriber")  # holds the K subscriptions
        options = C.MQSO_CREATE | C.MQSO_MANAGED
        self.subscriptions = [
            self.holder.subscribe(SubscriptionDescriptor(options=options, object_string=TOPIC))
            for _ in range(subscribers)
        ]
        self.md = MQMD(Format=C.MQFMT_STRING, Persistence=C.MQPER_PERSISTENT)
        self.data = b"x" * payload
        self.producer = connect(self.url, "bench-producer")
        self.topic = self.producer.open_topic(TOPIC, C.MQOO_OUTPUT)
        self.handles = [self.producer.open(q, C.MQOO_OUTPUT) for q in self.queues]

    # ------------------------------------------------------------------ fan-out
    def publish(self, n: int) -> float:
        conn = self.producer
        with clock() as took:
            for _ in range(n):
                conn.put(self.topic, self.md, self.data, syncpoint=True)
                conn.commit()
        return took().seconds

    def put_k(self, n: int) -> float:
        conn = self.producer
        with clock() as took:
            for _ in range(n):
                for handle in self.handles:
                    conn.put(handle, self.md, self.data, syncpoint=True)
                conn.commit()
        return took().seconds

    def delivered(self) -> tuple[int, int]:
        """Messages on the first managed queue and the first local queue."""
        return (
            self.qm.queue_depth(self.subscriptions[0].handle.resolved_name),
            self.qm.queue_depth(self.queues[0]),
        )

    # ------------------------------------------------------------------ subscribers
    def _listen(self, app: Worker, countdown: Countdown, n: int) -> float:
        app.get_wait = _children.STOP_LATENCY
        with clock() as took:
            app.start()
            countdown.wait_committed(app, n)
        app.stop()
        if app.stats.committed != n:
            raise RuntimeError(f"{app!r}: {app.stats.committed} of {n} committed ({app.error!r})")
        return took().seconds

    def topic_listener(self, n: int) -> float:
        app = Worker(self.url, appl_name="bench-topic", client_id="bench", shutdown_timeout=10)
        countdown = Countdown(n)
        app.listener(topic=LISTENED, subscription="listened")(countdown)
        conn = connect(self.url, "bench-loader")
        made = open_subscription(
            conn, Topic(LISTENED), name="listened", client_id="bench", durable=True, listener=True
        )
        conn.close_subscription(made)  # type: ignore[attr-defined]
        topic = conn.open_topic(LISTENED, C.MQOO_OUTPUT)  # type: ignore[attr-defined]
        _load(conn, lambda: conn.put(topic, self.md, self.data, syncpoint=True), n)
        conn.disconnect()
        return self._listen(app, countdown, n)

    def queue_listener(self, n: int) -> float:
        app = Worker(self.url, appl_name="bench-queue", shutdown_timeout=10)
        countdown = Countdown(n)
        app.listener(QUEUE)(countdown)
        conn = connect(self.url, "bench-loader")
        _load(conn, lambda: conn.put(QUEUE, self.md, self.data, syncpoint=True), n)
        conn.disconnect()
        return self._listen(app, countdown, n)

    def close(self) -> None:
        self.producer.disconnect()
        self.holder.disconnect()
        embedded.close_all()


def _load(conn: object, put: Callable[[], object], n: int) -> None:
    for i in range(1, n + 1):
        put()
        if i % 500 == 0:
            conn.commit()  # type: ignore[attr-defined]
    conn.commit()  # type: ignore[attr-defined]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/pubsub.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, help="messages per contender and round")
    p.add_argument("--subscribers", type=int, default=10, help="subscriptions / queues (10)")
    p.add_argument("--payload", type=int, default=256, help="message bytes (256)")
    add_common_args(p, rounds=5, quick_rounds=3)
    args = p.parse_args(argv)
    if args.messages is None:
        args.messages = 200 if args.quick else 1000
    finish_args(p, args, "messages", "subscribers", "payload")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quiet_logging()
    report = Report(
        "pubsub",
        "publish/subscribe vs. queues (embedded, same run): fan-out, subscriber throughput",
    )
    with scratch_dir(args.dir, "pubsub") as root:
        bench = PubSub(root, args.subscribers, args.payload)
        probe = FsyncProbe(root)
        try:
            fanout = Rounds.run(
                {"publish": bench.publish, "put_k": bench.put_k},
                args.messages,
                args.rounds,
                probe,
                warmup=min(50, args.messages),
            )
            copies = bench.delivered()
            listeners = Rounds.run(
                {"topic_listener": bench.topic_listener, "queue_listener": bench.queue_listener},
                args.messages,
                args.rounds,
                probe,
            )
        finally:
            probe.close()
            bench.close()
    report.metric(
        "config.messages",
        "messages per run",
        args.messages,
        note=f"persistent, {args.payload} bytes; {args.subscribers} subscriptions / queues; "
        f"{args.rounds} interleaved rounds",
    )
    report.disk(fanout.fsync + listeners.fsync)
    report.section("fan-out: one message to K destinations per unit of work")
    for name in ("publish", "put_k"):
        report.rate(f"rates.{name}", name, fanout.rate(name), unit="msg/s")
    report.ratio(
        "ratios.fanout",
        "publish / put_k",
        fanout.ratio("publish", "put_k"),
        TARGET_FANOUT,
        f"one publication to {args.subscribers} subscriptions vs {args.subscribers} puts",
    )
    report.metric(
        "delivered",
        "messages on the first managed queue / local queue",
        list(copies),
        note="each contender reached every destination",
    )
    report.section("subscriber throughput: a Worker draining N waiting messages")
    for name in ("topic_listener", "queue_listener"):
        report.rate(f"rates.{name}", name, listeners.rate(name), unit="msg/s")
    report.ratio(
        "ratios.subscriber",
        "topic listener / queue listener",
        listeners.ratio("topic_listener", "queue_listener"),
        TARGET_SUBSCRIBER,
        "a durable subscription's managed queue vs a local queue",
    )
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
