#!/usr/bin/env python3
"""Where a Worker's consumer spends its time per message: cProfile's top functions, run
inside the consumer's own thread (cProfile sees only the thread that enables it).

    python bench/listener_profile.py [--messages N] [--kind jms|plain] [--top K] [--json]

A tool for whoever optimises the listener layer, not a benchmark with targets: the same
no-op listener and embedded queue manager as ``bench/listener.py``; the times are this
run's, inflated by the profiler (calls cost more under it than plain code does).
"""

from __future__ import annotations

import argparse
import cProfile
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import Report, quiet_logging, scratch_dir
from bench._profile import report_top, top_functions
from bench.listener import KINDS, Consumers
from mqjms.listeners import thread


def profile(root: Path, n: int, kind: str, top: int) -> dict[str, Any]:
    c = Consumers(root, 256)
    prof = cProfile.Profile()
    serve = thread.ListenerThread._serve

    def profiled(self: thread.ListenerThread) -> None:
        prof.enable()
        try:
            serve(self)
        finally:
            prof.disable()

    try:
        c.worker(min(200, n), kind)  # warm: imports, caches, the first inquiries
        thread.ListenerThread._serve = profiled  # type: ignore[method-assign]
        try:
            seconds = c.worker(n, kind).seconds
        finally:
            thread.ListenerThread._serve = serve  # type: ignore[method-assign]
    finally:
        c.close()
    return {
        "us_per_message_profiled": round(seconds / n * 1e6, 1),
        "top": top_functions(prof, n, top),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="bench/listener_profile.py", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--messages", type=int, default=3000, help="messages (default 3000)")
    p.add_argument("--kind", choices=KINDS, default="jms", help="message kind (default jms)")
    p.add_argument("--top", type=int, default=25, help="functions listed (default 25)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory")
    args = p.parse_args(argv)
    quiet_logging()
    with scratch_dir(args.dir, "listener-profile") as root:
        prof = profile(root, max(args.messages, 1), args.kind, args.top)
    report = Report("listener_profile", f"profile of a Worker's consumer, {args.kind} messages")
    report.data_only("profile", prof)
    report.text(
        f"{prof['us_per_message_profiled']:.0f} us per message under cProfile, from start() "
        "to the last commit"
    )
    report_top(
        report, "top functions by own time, per message (the consumer's thread):", prof["top"]
    )
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
