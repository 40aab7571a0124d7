"""cProfile's top functions, shared by the profiling tools (``bench/qmgr_profile.py``,
``bench/listener_profile.py``): per unit of work (a round trip, a message), so that runs of
different lengths compare, and printed as one table."""

from __future__ import annotations

import cProfile
import pstats
from pathlib import Path
from typing import Any

from bench._common import Report


def top_functions(prof: cProfile.Profile, n: int, top: int) -> list[dict[str, Any]]:
    """The ``top`` functions by own time, their calls and times divided by ``n``."""
    stats: Any = pstats.Stats(prof)
    rows = sorted(stats.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    return [
        {
            "function": f"{_short(file)}:{line}({func})" if line else func,
            "calls": round(ncalls / n, 2),
            "own_us": round(own / n * 1e6, 1),
            "cum_us": round(cum / n * 1e6, 1),
        }
        for (file, line, func), (_cc, ncalls, own, cum, _by) in rows
    ]


def report_top(report: Report, heading: str, rows: list[dict[str, Any]]) -> None:
    """``rows`` of :func:`top_functions` as text lines under ``heading``."""
    report.text(heading)
    for row in rows:
        report.text(
            f"  {row['own_us']:8.1f} us own {row['cum_us']:8.1f} us cum "
            f"{row['calls']:6g} calls  {row['function']}"
        )


def _short(filename: str) -> str:
    """A source file's path from its package (``mqjms/...``), else its name."""
    parts = Path(filename).parts
    for anchor in ("mqjms", "bench"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor) - 1 :])
    return Path(filename).name
