#!/usr/bin/env python3
"""Benchmark of a Worker listener against a bare get/commit loop (issue 3, "Done when").

    python bench/listener.py [--messages N] [--rounds R] [--quick] [--json] [--check]

What it measures, in one process, on an embedded queue manager in a fresh temporary
directory, with the same pre-loaded non-persistent messages for both contenders:

* **baseline**: the least a consumer must do on the transport: connect, open the queue,
  then per message MQGET under syncpoint and MQCMIT, until N messages were got.
* **listener**: ``mqjms.Worker`` with one no-op listener (concurrency 1) started on the
  same queue, timed from ``start()`` (which connects and opens) to the N-th commit. The
  listener does all its per-message work: poison check, the JMS view of the message,
  the call, the commit and its log events. Between two messages it commits the first
  and gets the second through ``mqjms.semantics.commit_and_get``, which on the
  embedded queue manager is one database transaction instead of two; the baseline makes
  the two calls separately, as a hand-written loop usually does (it could use the same
  helper). Both do the same MQI work per message: MQGET under syncpoint, then MQCMIT.

Both run twice: on JMS messages (an RFH2 with ``mcd``/``jms``/``usr`` folders, as a JMS
producer writes them; the verdict is on these) and on plain MQ messages (MQSTR, no
RFH2), which isolates the Worker's own cost from the cost of parsing the RFH2 into a
JMS message (``mqjms.consumer.message.from_mq``, timed on its own as well).

The ratio listener / baseline (best of the rounds, which alternate so that machine noise
hits both alike) must be at least 0.85. Then the **latency**: with the worker running,
messages are put one at a time, a little apart, each carrying the time of its put; the
listener records put -> delivery, reported as p50 and p99.

The exit status is 0 unless ``--check`` is given and the ratio misses the target.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
import threading
import time
import timeit
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from bench._common import Rates, Report, interleaved, ratio, stopwatch, verdict
from mqjms.consumer.message import NON_PERSISTENT, Queue, TextMessage, from_mq, to_mq
from mqjms.listeners import Worker
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import connect, embedded

TARGET_RATIO = 0.85
QUEUE = "BENCH.LISTENER"


def quiet_logging() -> None:
    """Warnings and worse only, on stderr: stdout is the report (and valid JSON)."""
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


class Bench:
    def __init__(self, root: Path, payload: int) -> None:
        self.url = f"embedded://{root / 'qm'}"
        self.qm = embedded.queue_manager(self.url)
        self.qm.define_queue("QLOCAL", QUEUE, {"MAXDEPTH": 999_999, "BOTHRESH": 3})
        self.messages = {
            "jms": to_mq(
                TextMessage("x" * payload, {"orderId": 42}),
                Queue(QUEUE),
                delivery_mode=NON_PERSISTENT,
                priority=4,
                time_to_live=0,
            ),
            "plain": (
                MQMD(Format=C.MQFMT_STRING, Persistence=C.MQPER_NOT_PERSISTENT),
                b"x" * payload,
            ),
        }
        self.loader = connect(self.url, "bench-loader")

    def preload(self, n: int, kind: str) -> None:
        """Put n messages under syncpoint, committed in batches (not timed)."""
        conn, (md, data) = self.loader, self.messages[kind]
        for i in range(n):
            conn.put(QUEUE, md, data, syncpoint=True)
            if i % 500 == 499:
                conn.commit()
        conn.commit()
        if self.qm.queue_depth(QUEUE) != n:
            raise RuntimeError(f"{QUEUE} holds {self.qm.queue_depth(QUEUE)}, expected {n}")

    def received(self, kind: str) -> tuple[MQMD, bytes]:
        """One message of ``kind`` as a get returns it (PutDate/PutTime set, and so on)."""
        self.preload(1, kind)
        handle = self.loader.open(QUEUE, C.MQOO_INPUT_AS_Q_DEF)
        try:
            got = self.loader.get(handle)
        finally:
            self.loader.close(handle)
        if got is None:
            raise RuntimeError("the sample message is missing")
        return got

    # ------------------------------------------------------------------ contenders
    def baseline(self, n: int, kind: str) -> float:
        self.preload(n, kind)
        start = time.perf_counter()
        conn = connect(self.url, "bench-baseline")
        handle = conn.open(QUEUE, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING)
        got = 0
        while got < n:
            if conn.get(handle, wait=0.5, syncpoint=True) is None:
                raise RuntimeError(f"baseline: only {got} of {n} messages got")
            conn.commit()
            got += 1
        elapsed = time.perf_counter() - start
        conn.disconnect()
        return elapsed

    def listener(self, n: int, kind: str) -> float:
        self.preload(n, kind)
        app = Worker(self.url, appl_name="bench-listener", shutdown_timeout=10)
        count = [0]
        done = threading.Event()

        @app.listener(QUEUE)
        def noop(msg: object) -> None:
            count[0] += 1
            if count[0] == n:
                done.set()

        start = time.perf_counter()
        app.start()
        if not done.wait(120):
            app.stop()
            raise RuntimeError(f"listener: only {count[0]} of {n} messages delivered")
        while app.stats.committed < n:  # the last commit follows the last call
            time.sleep(0.0002)
        elapsed = time.perf_counter() - start
        app.stop()
        return elapsed

    # ------------------------------------------------------------------ latency
    def latency(self, n: int, gap: float) -> list[float]:
        """put -> delivery in seconds, for n messages put one at a time ``gap`` apart."""
        app = Worker(self.url, appl_name="bench-latency", shutdown_timeout=10)
        samples: list[float] = []
        done = threading.Event()

        @app.listener(QUEUE)
        def record(msg: object) -> None:
            sent = float(getattr(msg, "body", "0") or 0)
            samples.append(time.perf_counter() - sent)
            if len(samples) == n:
                done.set()

        app.start()
        try:
            conn, md = self.loader, MQMD(Format=C.MQFMT_STRING, Persistence=0)
            for _ in range(n):
                conn.put(QUEUE, md, repr(time.perf_counter()).encode())
                time.sleep(gap)
            if not done.wait(60):
                raise RuntimeError(f"latency: only {len(samples)} of {n} delivered")
        finally:
            app.stop()
        return samples

    def close(self) -> None:
        self.loader.disconnect()
        embedded.close_all()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--messages", type=int, help="messages per timed run (default 3000)")
    p.add_argument("--rounds", type=int, help="alternating runs per contender (default 5)")
    p.add_argument("--latency-messages", type=int, help="messages for latency (default 500)")
    p.add_argument("--payload", type=int, default=256, help="body characters (default 256)")
    p.add_argument("--quick", action="store_true", help="fewer messages and rounds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--check", action="store_true", help="exit 1 when the ratio misses 0.85")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory")
    args = p.parse_args(argv)
    if args.messages is None:
        args.messages = 1000 if args.quick else 3000
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    if args.latency_messages is None:
        args.latency_messages = 200 if args.quick else 500
    for name in ("messages", "rounds", "latency_messages", "payload"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quiet_logging()
    report = Report("mqjms listener vs. a bare get/commit loop (embedded transport, same run)")
    root = Path(tempfile.mkdtemp(prefix="mqjms-bench-listener-", dir=args.dir))
    try:
        with stopwatch() as wall:
            bench = Bench(root, args.payload)
            report.metric("config.python", "python", sys.version.split()[0])
            jms_data = bench.messages["jms"][1]
            report.metric(
                "config.messages",
                "messages per run",
                args.messages,
                note=f"non-persistent; JMS {len(jms_data)} bytes, plain "
                f"{args.payload} bytes; best of {args.rounds} alternating runs",
            )
            contenders: dict[str, Callable[[int], float]] = {
                f"{who}_{kind}": (lambda n, f=fn, k=kind: f(n, k))  # type: ignore[misc]
                for kind in ("jms", "plain")
                for who, fn in (("baseline", bench.baseline), ("listener", bench.listener))
            }
            rates = interleaved(
                contenders, args.messages, args.rounds, warmup=min(200, args.messages)
            )
            value = ratio(rates["listener_jms"].best, rates["baseline_jms"].best)
            plain = ratio(rates["listener_plain"].best, rates["baseline_plain"].best)
            report.section("throughput (messages per second, best run)")
            _rate(
                report,
                rates["baseline_jms"],
                "baseline",
                "JMS messages: connect + open + (MQGET syncpoint + MQCMIT) x N",
            )
            _rate(
                report,
                rates["listener_jms"],
                "listener",
                "JMS messages: Worker, one no-op listener, concurrency 1",
            )
            report.metric(
                "ratio",
                "ratio listener / baseline",
                round(value, 3),
                note=f"JMS messages; target >= {TARGET_RATIO}",
            )
            report.metric(
                "ratio_median",
                "ratio of the medians",
                round(ratio(rates["listener_jms"].median, rates["baseline_jms"].median), 3),
            )
            report.data_only("target", TARGET_RATIO)
            report.metric("verdict", "verdict", verdict(value, TARGET_RATIO))
            _rate(report, rates["baseline_plain"], "baseline_plain", "plain MQ messages (MQSTR)")
            _rate(report, rates["listener_plain"], "listener_plain", "plain MQ messages (MQSTR)")
            report.metric(
                "ratio_plain",
                "ratio listener / baseline, plain messages",
                round(plain, 3),
                note="no RFH2 to parse; from_mq still maps the MQMD",
            )
            per_message_us = 1e6 / rates["baseline_jms"].best
            for kind in ("jms", "plain"):
                md, data = bench.received(kind)
                us = timeit.timeit(lambda m=md, d=data: from_mq(m, d), number=2000) / 2000 * 1e6
                report.metric(
                    f"from_mq_us.{kind}",
                    f"from_mq per {kind} message",
                    round(us, 1),
                    "us",
                    note=f"{us / per_message_us:.0%} of a baseline get + commit "
                    f"({per_message_us:.0f} us)",
                )

            gap = 0.002
            samples = bench.latency(args.latency_messages, gap)
            report.section(
                f"latency, put -> delivery ({len(samples)} messages, put {gap * 1000:g} ms apart)"
            )
            ms = [s * 1000 for s in samples]
            report.metric("latency_ms.p50", "p50", round(percentile(ms, 0.50), 3), "ms")
            report.metric("latency_ms.p99", "p99", round(percentile(ms, 0.99), 3), "ms")
            report.metric("latency_ms.mean", "mean", round(statistics.fmean(ms), 3), "ms")
            report.metric("latency_ms.max", "max", round(max(ms), 3), "ms")
            bench.close()
        report.metric("time.total_s", "total time", round(wall(), 2), "s")
    finally:
        embedded.close_all()
        shutil.rmtree(root, ignore_errors=True)
    print(report.render(args.json))
    return 1 if args.check and value < TARGET_RATIO else 0


def _rate(report: Report, rates: Rates, key: str, what: str) -> None:
    report.metric(
        f"rates.{key}",
        key,
        round(rates.best, 1),
        "msg/s",
        note=f"{what}; median {rates.median:,.0f}",
    )
    report.data_only(f"samples.{key}", rates.as_dict())


if __name__ == "__main__":
    sys.exit(main())
