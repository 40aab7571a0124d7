#!/usr/bin/env python3
"""Benchmark: browsing a deep queue costs in proportion to its depth (hardening item 12).

    python bench/browse.py [--small N] [--factor F] [--rounds R] [--quick] [--json]

What it measures, in one process, on an embedded queue manager in a fresh temporary
directory: two queues, one ``N`` messages deep (default 10,000) and one ``F`` times as
deep (default 10, so 100,000), loaded once (not timed) with non-persistent messages of
mixed priorities. A run browses a whole queue, MQGET with BROWSE_FIRST then BROWSE_NEXT
until none is left, on a fresh handle. Runs alternate between the two queues round by
round (the disk's fsync time probed before each), so machine noise hits both alike.

The figure is the **ratio** of the time to browse the deep queue to the time to browse
the shallow one, per round (its median, and the spread over the rounds). When each
browse step costs O(log depth) it is about ``F`` (10); when each step walked the queue
from its head (as before keyset browsing) it was about ``F`` squared (100). The target,
below ``1.5 * F``, is information; the exit status is 0 unless the benchmark broke.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    FsyncProbe,
    Report,
    Rounds,
    add_common_args,
    clock,
    finish_args,
    quiet_logging,
    scratch_dir,
)
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Browse

PRIORITIES = (0, 4, 4, 9, 2, 4, 7)  # a priority queue with several priorities in use


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
    with clock() as took:
        handle = conn.open(queue, C.MQOO_BROWSE)
        seen = 0
        option = Browse.FIRST
        while conn.get(handle, browse=option) is not None:
            seen += 1
            option = Browse.NEXT
        conn.close(handle)
    if seen != depth:
        raise RuntimeError(f"browsed {seen} messages of {queue}, expected {depth}")
    return took().seconds


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench/browse.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--small", type=int, help="depth of the shallow queue (default 10000)")
    p.add_argument("--factor", type=int, default=10, help="deep / shallow depth (default 10)")
    p.add_argument("--payload", type=int, default=256, help="body bytes (default 256)")
    add_common_args(p, rounds=5, quick_rounds=3)
    args = p.parse_args(argv)
    if args.small is None:
        args.small = 2000 if args.quick else 10_000
    finish_args(p, args, "small", "factor", "payload")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quiet_logging()
    small, large = args.small, args.small * args.factor
    report = Report("browse", f"browse cost: {large:,} messages against {small:,} (embedded)")
    with scratch_dir(args.dir, "browse") as root, clock() as wall:
        qm = QueueManager(root / "qm")
        probe = FsyncProbe(root)
        try:
            conn = qm.connect("bench-browse")
            for queue, depth in (("SHALLOW", small), ("DEEP", large)):
                qm.define_queue("QLOCAL", queue, {"MAXDEPTH": depth})
                load(conn, queue, depth, args.payload)
            rounds = Rounds.run(
                {
                    "shallow": lambda _: browse_all(conn, "SHALLOW", small),
                    "deep": lambda _: browse_all(conn, "DEEP", large),
                },
                operations=1,
                rounds=args.rounds,
                probe=probe,
                warmup=1,
            )
            conn.disconnect()
        finally:
            probe.close()
            qm.close()
    report.metric(
        "config.depths",
        "depths",
        [small, large],
        note=f"priorities {sorted(set(PRIORITIES))}, {args.payload}-byte bodies, "
        f"{args.rounds} interleaved rounds",
    )
    report.disk(rounds.fsync)
    report.section("time to browse the whole queue")
    for name, depth in (("shallow", small), ("deep", large)):
        seconds = statistics.median(s.seconds for s in rounds.samples[name])
        report.metric(
            f"{name}.seconds",
            f"{depth:,} messages",
            round(seconds, 3),
            "s",
            note=f"median; {seconds / depth * 1e6:.1f} us per browse step",
        )
    report.ratio(
        "ratio",
        "time ratio deep / shallow",
        rounds.time_ratio("deep", "shallow"),
        f"< {1.5 * args.factor:g}",
        f"{args.factor} when each step costs O(log depth); "
        f"{args.factor**2} when it walks from the head",
    )
    report.metric("time_s", "time taken", round(wall().seconds, 1), "s")
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
