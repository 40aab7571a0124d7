#!/usr/bin/env python3
"""Benchmark: memory stays flat however deep a queue grows (issue 2).

    python bench/memory.py [--messages N] [--batch B] [--quick] [--json]

Messages live in SQLite, not in Python: while ``N`` persistent messages are put (under
syncpoint, MQCMIT every ``B``) and got again, the Python heap (tracemalloc) and the
resident set (which also sees SQLite's page cache) are sampled at every commit. The
figures are their growth from 10% to 100% depth (target: flat, about 0 MB, whatever the
depth), the peaks, and the depth reached and drained (nothing lost).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import Report, clock, quiet_logging, scratch_dir
from bench._queues import MqjmsQueue

MB = 1024 * 1024


def rss() -> int:
    """The resident set size now, in bytes (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def measure(root: Path, count: int, batch: int, payload: bytes) -> dict[str, float]:
    q = MqjmsQueue(root / "qm")
    conn, h, md = q.conn, q.handle, q.persistent
    gc.collect()
    tracemalloc.start()
    heap_at, rss_at = {}, {}
    rss_start = rss_peak = rss()
    try:
        with clock() as fill:
            for i in range(1, count + 1):
                conn.put(h, md, payload, syncpoint=True)
                if i % batch == 0 or i == count:
                    conn.commit()
                    rss_peak = max(rss_peak, rss())
                    if i >= count // 10 and "tenth" not in heap_at:
                        heap_at["tenth"], rss_at["tenth"] = (
                            tracemalloc.get_traced_memory()[0],
                            rss(),
                        )
        depth = q.depth()
        heap_at["full"], rss_at["full"] = tracemalloc.get_traced_memory()[0], rss()
        got = 0
        with clock() as drain:
            while conn.get(h, syncpoint=True) is not None:
                got += 1
                if got % batch == 0:
                    conn.commit()
                    rss_peak = max(rss_peak, rss())
            conn.commit()
        heap_peak = tracemalloc.get_traced_memory()[1]
        left = q.depth()
    finally:
        tracemalloc.stop()
        q.close()
    if depth != count or got != count or left != 0:
        raise RuntimeError(f"put {count}, CURDEPTH {depth}, got {got}, {left} left")
    return {
        "depth_reached": depth,
        "heap_growth_tenth_to_full_mb": (heap_at["full"] - heap_at["tenth"]) / MB,
        "rss_growth_tenth_to_full_mb": (rss_at["full"] - rss_at["tenth"]) / MB,
        "heap_peak_mb": heap_peak / MB,
        "rss_peak_growth_mb": (rss_peak - rss_start) / MB,
        "fill_rate": count / fill().seconds,
        "drain_rate": got / drain().seconds,
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/memory.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, help="messages queued (default 100000; 5000 quick)")
    p.add_argument("--batch", type=int, default=1000, help="messages per MQCMIT (default 1000)")
    p.add_argument("--payload", type=int, default=256, help="message body bytes (default 256)")
    p.add_argument("--quick", action="store_true", help="small counts: seconds, for CI")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory")
    args = p.parse_args(argv)
    if args.messages is None:
        args.messages = 5000 if args.quick else 100_000
    for name in ("messages", "batch", "payload"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    quiet_logging()
    report = Report("memory", f"memory with up to {args.messages:,} persistent messages queued")
    with scratch_dir(args.dir, "memory") as root:
        m = measure(root, args.messages, args.batch, bytes(args.payload))
    report.metric(
        "depth_reached",
        "CURDEPTH reached",
        m["depth_reached"],
        note=f"put under syncpoint, MQCMIT every {args.batch}; all got back",
    )
    report.metric(
        "heap_growth_tenth_to_full_mb",
        "Python heap growth, 10% to 100% depth",
        round(m["heap_growth_tenth_to_full_mb"], 2),
        "MB",
        note="target: about 0",
    )
    report.metric(
        "rss_growth_tenth_to_full_mb",
        "RSS growth, 10% to 100% depth",
        round(m["rss_growth_tenth_to_full_mb"], 2),
        "MB",
        note="SQLite's page cache included; bounded by cache_size",
    )
    report.metric(
        "heap_peak_mb", "peak Python heap (tracemalloc)", round(m["heap_peak_mb"], 2), "MB"
    )
    report.metric(
        "rss_peak_growth_mb",
        "peak RSS growth (sampled at commits)",
        round(m["rss_peak_growth_mb"], 2),
        "MB",
    )
    report.metric(
        "fill_rate",
        "fill",
        round(m["fill_rate"]),
        "msg/s",
        note="with tracemalloc on: information only",
    )
    report.metric("drain_rate", "drain", round(m["drain_rate"]), "msg/s")
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
