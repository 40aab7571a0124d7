"""Shared helpers for the benchmarks in ``bench/``: timing, rates and ratios, peak memory,
and output as plain text (one metric per line) or one JSON object.

Stdlib only, so a benchmark runs wherever mqjms itself runs.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

MB = 1024 * 1024


# ---------------------------------------------------------------------------- timing
@contextmanager
def stopwatch() -> Iterator[Callable[[], float]]:
    """``with stopwatch() as elapsed: ...``; ``elapsed()`` is the seconds so far (frozen
    once the block ends)."""
    start = time.perf_counter()
    end: float | None = None

    def elapsed() -> float:
        return (end if end is not None else time.perf_counter()) - start

    try:
        yield elapsed
    finally:
        end = time.perf_counter()


def timed(fn: Callable[[], object]) -> float:
    """Seconds one call of ``fn`` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


@dataclass
class Rates:
    """Throughput samples (operations per second) of one contender over several rounds."""

    name: str
    samples: list[float] = field(default_factory=list)

    def add(self, operations: int, seconds: float) -> None:
        self.samples.append(operations / seconds if seconds > 0 else float("inf"))

    @property
    def best(self) -> float:
        return max(self.samples) if self.samples else 0.0

    @property
    def median(self) -> float:
        return statistics.median(self.samples) if self.samples else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "best": round(self.best, 1),
            "median": round(self.median, 1),
            "samples": [round(s, 1) for s in self.samples],
        }


def interleaved(
    contenders: Mapping[str, Callable[[int], float]],
    operations: int,
    rounds: int,
    warmup: int | Mapping[str, int] = 0,
) -> dict[str, Rates]:
    """Run every contender ``rounds`` times, alternating between them so that machine noise
    (other processes, disk cache, CPU frequency) hits each one alike.

    A contender is ``fn(n) -> seconds`` doing ``n`` operations. Round order is reversed
    every other round so that no contender always runs right after the same neighbour.
    ``warmup`` operations (a count for all, or per contender name) run once per contender
    first, untimed.
    """
    results = {name: Rates(name) for name in contenders}
    for name, fn in contenders.items():
        count = warmup.get(name, 0) if isinstance(warmup, Mapping) else warmup
        if count:
            fn(count)
    names = list(contenders)
    for r in range(rounds):
        order = names if r % 2 == 0 else names[::-1]
        for name in order:
            results[name].add(operations, contenders[name](operations))
    return results


def ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else float("nan")


def paired_ratio(numerator: Rates, denominator: Rates) -> float:
    """Median over rounds of numerator/denominator within the same round: robust to slow
    drift of the machine, which the best-of ratio is not."""
    pairs = [ratio(n, d) for n, d in zip(numerator.samples, denominator.samples, strict=True)]
    return statistics.median(pairs) if pairs else float("nan")


def verdict(value: float, target: float) -> str:
    return "PASS" if value >= target else "FAIL"


# ---------------------------------------------------------------------------- memory
def rss_bytes() -> int | None:
    """Current resident set size (Linux /proc); None where it cannot be read."""
    try:
        with open("/proc/self/statm") as f:
            resident_pages = int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return resident_pages * os.sysconf("SC_PAGE_SIZE")


def max_rss_bytes() -> int:
    """The process's peak resident set size so far (getrusage; never goes down)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024


@dataclass
class MemorySample:
    label: str
    heap_bytes: int  # Python allocations traced by tracemalloc (0 when not tracing)
    rss_bytes: int | None


class MemoryMonitor:
    """Peak memory over a block: the Python heap (tracemalloc, which does not see SQLite's
    own allocations such as its page cache) and the resident set size (which does), sampled
    whenever :meth:`sample` is called, plus the ``ru_maxrss`` delta.

    ``ru_maxrss`` is a process-lifetime peak, so its delta is only non-zero when the block
    goes above everything earlier in the process; the sampled RSS delta does not have that
    blind spot but only sees the moments it samples.
    """

    def __init__(self, trace_python_heap: bool = True) -> None:
        self.trace = trace_python_heap
        self.samples: list[MemorySample] = []
        self._started_tracing = False
        self.rss_start: int | None = None
        self.rss_peak: int | None = None
        self.maxrss_start = 0
        self.maxrss_end = 0
        self.heap_peak = 0

    def __enter__(self) -> MemoryMonitor:
        gc.collect()
        if self.trace and not tracemalloc.is_tracing():
            tracemalloc.start()
            self._started_tracing = True
        if self.trace:
            tracemalloc.reset_peak()
        self.maxrss_start = max_rss_bytes()
        self.rss_start = self.rss_peak = rss_bytes()
        return self

    def sample(self, label: str = "") -> MemorySample:
        heap = tracemalloc.get_traced_memory()[0] if tracemalloc.is_tracing() else 0
        rss = rss_bytes()
        if rss is not None and (self.rss_peak is None or rss > self.rss_peak):
            self.rss_peak = rss
        s = MemorySample(label, heap, rss)
        self.samples.append(s)
        return s

    def __exit__(self, *exc: object) -> None:
        self.sample("end")
        if tracemalloc.is_tracing():
            self.heap_peak = tracemalloc.get_traced_memory()[1]
        if self._started_tracing:
            tracemalloc.stop()
        self.maxrss_end = max_rss_bytes()

    @property
    def rss_peak_delta(self) -> int | None:
        if self.rss_start is None or self.rss_peak is None:
            return None
        return self.rss_peak - self.rss_start

    @property
    def maxrss_delta(self) -> int:
        return self.maxrss_end - self.maxrss_start


def mb(n: int | float | None) -> float | None:
    return None if n is None else round(n / MB, 2)


# ---------------------------------------------------------------------------- output
class Report:
    """Metrics collected in order; printed as ``label: value`` lines or one JSON object."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.lines: list[str] = []
        self.data: dict[str, Any] = {}

    def section(self, heading: str) -> None:
        self.lines.append("")
        self.lines.append(f"== {heading}")

    def metric(self, key: str, label: str, value: Any, unit: str = "", note: str = "") -> None:
        """One metric: ``key`` (dotted path) for JSON, ``label`` for the text line."""
        self._put(key, value)
        shown = _fmt(value)
        text = f"{label}: {shown}{' ' + unit if unit else ''}"
        if note:
            text += f"  ({note})"
        self.lines.append(text)

    def data_only(self, key: str, value: Any) -> None:
        self._put(key, value)

    def text(self, line: str) -> None:
        self.lines.append(line)

    def _put(self, key: str, value: Any) -> None:
        node = self.data
        *parents, last = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value

    def render(self, as_json: bool) -> str:
        if as_json:
            return json.dumps(self.data, indent=None, sort_keys=False, default=str)
        return "\n".join([self.title, *self.lines])


def _fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        if value != value:  # NaN
            return "n/a"
        if abs(value) < 10:
            return f"{value:,.3f}"
        return f"{value:,.1f}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, Sequence) and not isinstance(value, str):
        return ", ".join(_fmt(v) for v in value)
    return str(value)
