#!/usr/bin/env python3
"""Benchmark: good messages keep flowing through a stream with poison in it (issue 9,
target 4).

    python bench/poison.py [--messages N] [--bothresh B] [--rounds R] [--quick] [--json]

A Worker (one listener) consumes ``N`` persistent JMS messages, loaded beforehand (not
timed), from a queue with ``BOTHRESH(B)`` (default 2) and ``BOQNAME`` set, on an embedded
queue manager in a fresh temporary directory. Its listener raises on every poison
message, so each is delivered ``B`` times, backed out each time, then moved to the backout
queue (seed 002). Warnings (a backout with its traceback, a move) are rendered by mqjms's
own log configuration, as a service's would be, into a null sink.

In interleaved rounds (the disk's fsync time probed before each round): a **clean** stream
(all good) and a **10%-poison** stream (every tenth message poison), at concurrency 1 and
4, each timed from ``start()`` until every good message is committed and every poison
message moved. The figure is the good-message throughput of the poison stream over the
clean one's (target >= 0.8; issue 9 measured 0.58, 0.48 with warnings rendered). Beside it
the CPU per good message, poison over clean (the process's, all its threads: a busy
machine stretches wall time far more than CPU). Targets are information; the exit status
is 0 unless the benchmark broke.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _children
from bench._common import (
    Countdown,
    FsyncProbe,
    Report,
    Rounds,
    Sample,
    Spread,
    add_common_args,
    clock,
    finish_args,
    scratch_dir,
)
from mqjms import logs
from mqjms.jms.message import PERSISTENT, Queue, TextMessage, to_mq
from mqjms.listeners import Worker
from mqjms.transport import connect, embedded

QUEUE = "BENCH.POISON"
BACKOUT_QUEUE = "BENCH.POISON.BACKOUT"
POISON_EVERY = 10  # one message in ten
TARGET = ">= 0.8"
CONCURRENCY = (1, 4)


class Poison(Exception):
    """What the listener raises on a poison message."""


def listener(msg: object) -> None:
    if getattr(msg, "body", None) == "poison":
        raise Poison("this message can never be processed")


class Streams:
    def __init__(self, root: Path, bothresh: int, payload: int) -> None:
        self.url = f"embedded://{root / 'qm'}"
        self.qm = embedded.queue_manager(self.url)
        self.qm.define_queue("QLOCAL", BACKOUT_QUEUE, {"MAXDEPTH": 999_999})
        self.qm.define_queue(
            "QLOCAL",
            QUEUE,
            {"MAXDEPTH": 999_999, "BOTHRESH": bothresh, "BOQNAME": BACKOUT_QUEUE},
        )
        self.messages = {
            body: to_mq(
                TextMessage(body.ljust(payload) if body == "good" else body),
                Queue(QUEUE),
                delivery_mode=PERSISTENT,
            )
            for body in ("good", "poison")
        }
        self.loader = connect(self.url, "bench-loader")

    def load(self, n: int, poisoned: bool) -> int:
        """Put n messages (every tenth poison when ``poisoned``); the good ones' count."""
        good = 0
        for i in range(1, n + 1):
            bad = poisoned and i % POISON_EVERY == 0
            md, data = self.messages["poison" if bad else "good"]
            self.loader.put(QUEUE, md, data, syncpoint=True)
            good += not bad
            if i % 500 == 0:
                self.loader.commit()
        self.loader.commit()
        return good

    def run(self, n: int, poisoned: bool, concurrency: int) -> Sample:
        """Good messages per second until all are committed and the poison ones moved."""
        self.qm.clear_queue(BACKOUT_QUEUE)
        good = self.load(n, poisoned)
        countdown = Countdown(n, listener)  # good messages processed, poison ones moved
        app = Worker(
            self.url, appl_name="bench-poison", shutdown_timeout=10, poison_hooks=[countdown.tick]
        )
        app.get_wait = _children.STOP_LATENCY
        app.listener(QUEUE, concurrency=concurrency)(countdown)
        stats = app.stats
        with clock() as took:
            app.start()
            countdown.wait(app, lambda: stats.committed >= good and stats.moved >= n - good)
        app.stop()
        moved = self.qm.queue_depth(BACKOUT_QUEUE)
        if stats.committed != good or moved != n - good or self.qm.queue_depth(QUEUE):
            raise RuntimeError(
                f"{good} good committed? {stats.committed}; {n - good} poison moved? {moved}; "
                f"{self.qm.queue_depth(QUEUE)} left ({app.error!r})"
            )
        sample = took()
        return Sample(sample.seconds, sample.cpu, operations=good)

    def close(self) -> None:
        self.loader.disconnect()
        embedded.close_all()


@contextmanager
def warnings_to_null_sink() -> Iterator[None]:
    """mqjms's own rendering of its events (as ``mqjms run`` configures it, at WARNING;
    no colours, as into a file), written to /dev/null: the rendering is paid, nothing is
    shown."""
    saved = sys.stderr
    with open(os.devnull, "w") as null:
        sys.stderr = null
        try:
            logs.configure(level="WARNING", force=True)
            yield
        finally:
            sys.stderr = saved


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/poison.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, help="messages per run (default 1000; 200 quick)")
    p.add_argument("--bothresh", type=int, default=2, help="the queue's BOTHRESH (default 2)")
    p.add_argument("--payload", type=int, default=256, help="body characters (default 256)")
    add_common_args(p, rounds=7, quick_rounds=5)
    args = p.parse_args(argv)
    if args.messages is None:
        args.messages = 200 if args.quick else 1000
    finish_args(p, args, "messages", "bothresh", "payload")
    report = Report("poison", "good-message throughput: a 10%-poison stream vs. a clean one")
    with scratch_dir(args.dir, "poison") as root, clock() as wall, warnings_to_null_sink():
        streams = Streams(root, args.bothresh, args.payload)
        probe = FsyncProbe(root)
        contenders: dict[str, Callable[[int], Sample]] = {}
        for c in CONCURRENCY:
            contenders[f"clean_c{c}"] = partial(streams.run, poisoned=False, concurrency=c)
            contenders[f"poison_c{c}"] = partial(streams.run, poisoned=True, concurrency=c)
        try:
            rounds = Rounds.run(
                contenders, args.messages, args.rounds, probe, warmup=min(100, args.messages)
            )
        finally:
            probe.close()
            streams.close()

    report.metric(
        "config.messages",
        "messages per run",
        args.messages,
        note=f"persistent JMS; BOTHRESH({args.bothresh}) BOQNAME set; "
        f"{args.rounds} interleaved rounds",
    )
    report.disk(rounds.fsync)
    report.section("good messages per second")
    for name in contenders:
        report.rate(f"rates.{name}", name, rounds.rate(name))
    report.section("ratios (per round)")
    for c in CONCURRENCY:
        report.ratio(
            f"ratios.c{c}",
            f"10% poison / clean, concurrency {c}",
            rounds.ratio(f"poison_c{c}", f"clean_c{c}"),
            TARGET,
            "issue 9: 0.48 with warnings rendered" if c == 1 else "",
        )
    report.section("CPU per good message (this process, all its threads)")
    for c in CONCURRENCY:
        poison_cpu = rounds.cpu_per_operation(f"poison_c{c}")
        clean_cpu = rounds.cpu_per_operation(f"clean_c{c}")
        assert poison_cpu is not None and clean_cpu is not None
        report.ratio(
            f"cpu.c{c}",
            f"10% poison / clean, concurrency {c}",
            Spread.of([p / q for p, q in zip(poison_cpu.values, clean_cpu.values, strict=True)]),
            note=f"{poison_cpu.median * 1e6:.0f} us vs {clean_cpu.median * 1e6:.0f} us; "
            "what a busy machine changes least",
        )
    report.section("total")
    report.metric("time_s", "time taken", round(wall().seconds, 1), "s")
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
