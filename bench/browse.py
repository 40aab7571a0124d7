#!/usr/bin/env python3
"""Benchmark: browsing a deep queue costs in proportion to its depth (hardening item 12).

    python bench/browse.py [--small N] [--factor F] [--rounds R] [--quick] [--json] [--check]

What it measures, in one process, on an embedded queue manager in a fresh temporary
directory: two queues, one ``N`` messages deep (default 10,000) and one ``F`` times as
deep (default 10, so 100,000), loaded once (not timed) with non-persistent messages of
mixed priorities. A run browses a whole queue, MQGET with BROWSE_FIRST then BROWSE_NEXT
until none is left, on a fresh handle. Runs alternate between the two queues round by
round, so machine noise hits both alike.

The figure is the **ratio** of the time to browse the deep queue to the time to browse
the shallow one, per round (its median, and the spread over the rounds). When each
browse step costs O(log depth) it is about ``F`` (10); when each step walked the queue
from its head (as before keyset browsing) it was about ``F`` squared (100). The verdict
passes below ``1.5 * F``. The exit status is 0 unless ``--check`` is given and it fails.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from bench._common import Report, interleaved, ratio, stopwatch
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Browse

PRIORITIES = (0, 4, 4, 9, 2, 4, 7)  # a priority queue with several priorities in use


def quiet_logging() -> None:
    """Warnings and worse only, on stderr: stdout is the report (and valid JSON)."""
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def load(conn: QMConnection, queue: str, depth: int, payload: int) -> None:
    """Put ``depth`` messages under syncpoint, committed in batches (not timed)."""
    body = b"x" * payload
    for i in range(depth):
        md = MQMD(Priority=PRIORITIES[i % len(PRIORITIES)], Persistence=C.MQPER_NOT_PERSISTENT)
        conn.put(queue, md, body, syncpoint=True)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()


def browse_all(conn: QMConnection, queue: str, depth: int) -> float:
    """Seconds to browse every message of ``queue``, which must hold ``depth``."""
    with stopwatch() as elapsed:
        handle = conn.open(queue, C.MQOO_BROWSE)
        seen = 0
        option = Browse.FIRST
        while conn.get(handle, browse=option) is not None:
            seen += 1
            option = Browse.NEXT
        conn.close(handle)
    if seen != depth:
        raise RuntimeError(f"browsed {seen} messages of {queue}, expected {depth}")
    return elapsed()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--small", type=int, help="depth of the shallow queue (default 10000)")
    p.add_argument("--factor", type=int, default=10, help="deep / shallow depth (default 10)")
    p.add_argument("--rounds", type=int, help="alternating runs per queue (default 5)")
    p.add_argument("--payload", type=int, default=256, help="body bytes (default 256)")
    p.add_argument("--quick", action="store_true", help="shallower queues, fewer rounds")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--check", action="store_true", help="exit 1 when the verdict fails")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory")
    args = p.parse_args(argv)
    if args.small is None:
        args.small = 2000 if args.quick else 10_000
    if args.rounds is None:
        args.rounds = 3 if args.quick else 5
    for name in ("small", "factor", "rounds", "payload"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quiet_logging()
    small, large = args.small, args.small * args.factor
    report = Report(f"mqjms browse: {large:,} messages against {small:,} (embedded, same run)")
    root = Path(tempfile.mkdtemp(prefix="mqjms-bench-browse-", dir=args.dir))
    qm = QueueManager(root / "qm")
    try:
        with stopwatch() as wall:
            conn = qm.connect("bench-browse")
            for queue, depth in (("SHALLOW", small), ("DEEP", large)):
                qm.define_queue("QLOCAL", queue, {"MAXDEPTH": depth})
                load(conn, queue, depth, args.payload)
            report.metric("config.python", "python", sys.version.split()[0])
            report.metric(
                "config.depths",
                "depths",
                [small, large],
                note=f"priorities {sorted(set(PRIORITIES))}, {args.payload}-byte bodies, "
                f"{args.rounds} alternating rounds",
            )
            runs = interleaved(
                {
                    "shallow": lambda _: browse_all(conn, "SHALLOW", small),
                    "deep": lambda _: browse_all(conn, "DEEP", large),
                },
                operations=1,
                rounds=args.rounds,
                warmup=1,
            )
            seconds = {name: [1 / r for r in rates.samples] for name, rates in runs.items()}
            per_round = [
                ratio(d, s) for d, s in zip(seconds["deep"], seconds["shallow"], strict=True)
            ]
            value = statistics.median(per_round)
            report.section("time to browse the whole queue (median of the rounds)")
            for name, depth in (("shallow", small), ("deep", large)):
                median = statistics.median(seconds[name])
                report.metric(
                    f"{name}.seconds",
                    f"{depth:,} messages",
                    round(median, 3),
                    "s",
                    note=f"{median / depth * 1e6:.1f} us per browse step",
                )
            report.metric(
                "ratio",
                "ratio deep / shallow",
                round(value, 2),
                note=f"{args.factor} when each step costs O(log depth); "
                f"{args.factor**2} when it walks from the head",
            )
            report.metric(
                "ratio_spread",
                "spread over the rounds",
                [round(min(per_round), 2), round(max(per_round), 2)],
            )
            passed = value < 1.5 * args.factor
            report.data_only("target", 1.5 * args.factor)
            report.metric(
                "verdict",
                "verdict",
                "PASS" if passed else "FAIL",
                note=f"ratio below {1.5 * args.factor:g}",
            )
            conn.disconnect()
        report.metric("time.total_s", "total time", round(wall(), 2), "s")
    finally:
        qm.close()
        shutil.rmtree(root, ignore_errors=True)
    print(report.render(args.json))
    return 1 if args.check and not passed else 0


if __name__ == "__main__":
    raise SystemExit(main())
