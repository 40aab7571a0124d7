#!/usr/bin/env python3
"""Where a persistent round trip (MQPUT, MQGET under syncpoint, MQCMIT) spends its time:
SQL statements per MQI call, time per call, and cProfile's top functions.

    python bench/qmgr_profile.py [--messages N] [--top K] [--json]

A tool for whoever optimises the queue manager, not a benchmark with targets: the SQL
counts are exact on any machine; the times are this run's.
"""

from __future__ import annotations

import argparse
import cProfile
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import _sql
from bench._common import Report, quiet_logging, scratch_dir
from bench._profile import report_top, top_functions
from bench._queues import MqjmsQueue


def profile(root: Path, n: int, payload: bytes, top: int) -> dict[str, Any]:
    q = MqjmsQueue(root / "qm")
    try:
        q.persistent_rt(50, payload)
        conn, h, md = q.conn, q.handle, q.persistent
        calls: dict[str, Callable[[], object]] = {
            "put": lambda: conn.put(h, md, payload),
            "get": lambda: conn.get(h, syncpoint=True),
            "commit": conn.commit,
        }
        seconds = dict.fromkeys(calls, 0.0)
        for _ in range(n):
            for call, fn in calls.items():
                start = time.perf_counter()
                fn()
                seconds[call] += time.perf_counter() - start
        sql: dict[str, dict[str, float]] = {}
        db = _sql.connection_db(conn)
        if db is not None:
            counts: dict[str, Counter[str]] = {call: Counter() for call in calls}
            for _ in range(10):
                for call, fn in calls.items():
                    with _sql.traced(db) as statements:
                        fn()
                    counts[call] += _sql.kinds(statements)
            sql = {
                call: {"total": _sql.total(c) / 10, **{k: v / 10 for k, v in sorted(c.items())}}
                for call, c in counts.items()
            }
        prof = cProfile.Profile()
        prof.enable()
        q.persistent_rt(n, payload)
        prof.disable()
    finally:
        q.close()
    return {
        "us_per_call": {call: round(s / n * 1e6, 1) for call, s in seconds.items()},
        "sql_per_call": sql,
        "top": top_functions(prof, n, top),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/qmgr_profile.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, default=1000, help="round trips (default 1000)")
    p.add_argument("--top", type=int, default=15, help="functions listed (default 15)")
    p.add_argument("--payload", type=int, default=256, help="message body bytes (default 256)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory")
    args = p.parse_args(argv)
    quiet_logging()
    with scratch_dir(args.dir, "profile") as root:
        prof = profile(root, max(args.messages, 1), bytes(args.payload), args.top)
    report = Report("qmgr_profile", "profile of a persistent round trip (put, get, commit)")
    report.data_only("profile", prof)
    for call, us in prof["us_per_call"].items():
        kinds = prof["sql_per_call"].get(call, {})
        detail = ", ".join(f"{k} {v:g}" for k, v in kinds.items() if k != "total")
        report.text(
            f"{call}: {us:.0f} us, {kinds.get('total', float('nan')):g} SQL statements ({detail})"
        )
    report_top(report, "top functions by own time, per round trip (under cProfile):", prof["top"])
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
