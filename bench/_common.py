"""Shared by the benchmarks in ``bench/``: rounds that alternate the contenders with a probe
of the disk between them, ratios with their spread, and the report (text or JSON).

Why this shape: the disk of a shared machine switches between about 0.1 ms and 2-3 ms per
fsync within seconds, so a rate means little on its own and a pass/fail verdict flips from
run to run. Every figure is therefore a ratio of two contenders measured in the same round
of interleaved rounds, reported as the median and the spread of the per-round ratios, with
the disk's fsync time measured between the rounds beside it, so that a reader sees when the
disk changed. Targets are printed as information: a benchmark's exit status is 0 unless the
benchmark itself broke. It needs nothing that mqjms does not, so a benchmark runs wherever
mqjms runs.
"""

from __future__ import annotations

import argparse
import datetime
import json
import logging
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------- environment
def quiet_logging() -> None:
    """Warnings and worse only, on stderr: stdout is the report (and valid JSON)."""
    import structlog

    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a child process: this checkout's ``mqjms`` and ``bench`` first
    (an editable install may point at another checkout)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


@contextmanager
def scratch_dir(parent: Path | None, prefix: str) -> Iterator[Path]:
    """A fresh temporary directory for a benchmark's files, removed afterwards."""
    root = Path(tempfile.mkdtemp(prefix=f"mqjms-bench-{prefix}-", dir=parent))
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def add_common_args(p: argparse.ArgumentParser, rounds: int, quick_rounds: int) -> None:
    p.add_argument(
        "--rounds",
        type=int,
        help=f"interleaved rounds (default {rounds}; {quick_rounds} with --quick)",
    )
    p.add_argument("--quick", action="store_true", help="small counts: seconds, for CI")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--dir", type=Path, help="parent of the temporary directory (default $TMPDIR)")
    p.set_defaults(_rounds=(rounds, quick_rounds))


def finish_args(p: argparse.ArgumentParser, args: argparse.Namespace, *positive: str) -> None:
    """Fill in ``--rounds`` and refuse counts below 1."""
    if args.rounds is None:
        args.rounds = args._rounds[1] if args.quick else args._rounds[0]
    for name in ("rounds", *positive):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")


# ---------------------------------------------------------------------------- the disk
class FsyncProbe:
    """How long the disk takes to make 4 KiB durable now: ``samples`` page writes, each
    followed by ``fdatasync``, on a file beside the benchmark's databases (SQLite's commit
    in WAL mode is one such write and sync). Cheap enough to run between every round."""

    PAGE = b"\x5a" * 4096
    SLOTS = 16

    def __init__(self, directory: Path, samples: int = 5) -> None:
        self.samples = samples
        self.path = directory / "fsync-probe.bin"
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        os.pwrite(self._fd, self.PAGE * self.SLOTS, 0)
        os.fsync(self._fd)
        self._slot = 0

    def measure(self) -> float:
        """The median seconds of one write + fdatasync."""
        times = []
        for _ in range(self.samples):
            self._slot = (self._slot + 1) % self.SLOTS
            start = time.perf_counter()
            os.pwrite(self._fd, self.PAGE, self._slot * len(self.PAGE))
            os.fdatasync(self._fd)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    def close(self) -> None:
        os.close(self._fd)


# ---------------------------------------------------------------------------- statistics
@dataclass(frozen=True)
class Spread:
    """A median with its spread: min..max and the interquartile range."""

    median: float
    low: float
    high: float
    q1: float
    q3: float
    values: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float]) -> Spread:
        if not values:
            raise ValueError("no values")
        vs = tuple(values)
        if len(vs) > 1:
            q1, _, q3 = statistics.quantiles(vs, n=4, method="inclusive")
        else:
            q1 = q3 = vs[0]
        return cls(statistics.median(vs), min(vs), max(vs), q1, q3, vs)

    def as_dict(self, digits: int = 3) -> dict[str, Any]:
        r = _rounder(digits)
        return {
            "median": r(self.median),
            "min": r(self.low),
            "max": r(self.high),
            "q1": r(self.q1),
            "q3": r(self.q3),
            "per_round": [r(v) for v in self.values],
        }

    def text(self, digits: int = 2, unit: str = "") -> str:
        f = f"{{:.{digits}f}}"
        u = f" {unit}" if unit else ""
        spread = f"{f.format(self.low)}..{f.format(self.high)}"
        if len(self.values) >= 4:
            spread += f", IQR {f.format(self.q1)}..{f.format(self.q3)}"
        return f"{f.format(self.median)}{u}  ({spread} over {len(self.values)} rounds)"


def _rounder(digits: int) -> Callable[[float], float]:
    return lambda v: round(v, digits) if v == v else v  # NaN stays NaN


def percentile(values: Sequence[float], q: float) -> float:
    """The value at quantile ``q`` (0..1), nearest rank."""
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


# ---------------------------------------------------------------------------- rounds
@dataclass(frozen=True)
class Sample:
    """One timed run: wall seconds, the process's CPU seconds (None when not measured), and
    the operations done (None: the count the round asked for)."""

    seconds: float
    cpu: float | None = None
    operations: int | None = None


@contextmanager
def clock() -> Iterator[Callable[[], Sample]]:
    """``with clock() as took: ...``; ``took()`` is the :class:`Sample` of the block."""
    wall, cpu = time.perf_counter(), time.process_time()
    end: Sample | None = None

    def took() -> Sample:
        if end is not None:
            return end
        return Sample(time.perf_counter() - wall, time.process_time() - cpu)

    try:
        yield took
    finally:
        end = took()


class Countdown:
    """A Worker's listener that counts its calls, so that the thread timing the Worker can
    sleep until the last message instead of polling ``app.stats``: a thread that polled
    every half millisecond took the GIL from the consumers 2,000 times a second and cost
    the Worker up to a fifth of its throughput against a loop that nothing disturbs."""

    def __init__(self, n: int, then: Callable[[object], object] | None = None) -> None:
        self.left = n
        self.then = then  # the listener's own work, before the count
        self.reached = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, msg: object) -> None:
        if self.then is not None:
            self.then(msg)  # a listener that raises has not counted
        self.tick()

    def tick(self, *_: object) -> None:
        """One less to wait for (also a poison hook: a moved message counts)."""
        with self._lock:
            self.left -= 1
            if self.left <= 0:
                self.reached.set()

    def wait_committed(self, app: Any, n: int, timeout: float = 600.0) -> None:
        """Sleep until the count is reached, then wait (briefly polling) for the n-th commit
        that follows the last call within a step; return early if the Worker failed or
        ``timeout`` passed."""
        self.wait(app, lambda: app.stats.committed >= n, timeout)

    def wait(self, app: Any, done: Callable[[], bool], timeout: float = 600.0) -> None:
        deadline = time.monotonic() + timeout
        while not self.reached.wait(0.5):
            if app.error is not None or time.monotonic() > deadline or done():
                return
        while not done() and app.error is None and time.monotonic() < deadline:
            time.sleep(0.0002)


Contender = Callable[[int], "float | Sample"]


def _sum(samples: Sequence[Sample]) -> Sample:
    """One sample of several runs: their seconds, CPU and operations added up."""
    if len(samples) == 1:
        return samples[0]
    cpus = [s.cpu for s in samples]
    ops = [s.operations for s in samples]
    return Sample(
        sum(s.seconds for s in samples),
        None if None in cpus else sum(c for c in cpus if c is not None),
        None if None in ops else sum(o for o in ops if o is not None),
    )


class Rounds:
    """Contenders run in interleaved rounds, with the disk probed before each round.

    A contender is ``fn(n) -> seconds | Sample`` doing ``n`` operations (any set-up it
    needs, such as loading a queue, stays outside its timing). Every round runs each
    contender once; the order is reversed every other round so that no contender always
    follows the same neighbour, and noise (the disk, other processes, CPU frequency) hits
    all alike.
    """

    def __init__(self, names: Sequence[str]) -> None:
        self.samples: dict[str, list[Sample]] = {name: [] for name in names}
        self.requested: dict[str, list[int]] = {name: [] for name in names}
        self.fsync: list[float] = []

    @classmethod
    def run(
        cls,
        contenders: Mapping[str, Contender],
        operations: int | Mapping[str, int],
        rounds: int,
        probe: FsyncProbe | None,
        warmup: int | Mapping[str, int] = 0,
        slices: int = 1,
    ) -> Rounds:
        """``slices`` > 1 interleaves more finely: each contender's operations of a round
        are done in that many slices, the contenders taking turns slice by slice, and the
        slices' samples summed (for contenders with no set-up of their own, so that a disk
        that changes speed within seconds meets all of them in the same state)."""
        result = cls(list(contenders))
        for name, fn in contenders.items():
            count = warmup.get(name, 0) if isinstance(warmup, Mapping) else warmup
            if count:
                fn(count)
        names = list(contenders)
        turn = 0
        for _ in range(rounds):
            if probe is not None:
                result.fsync.append(probe.measure())
            parts: dict[str, list[Sample]] = {name: [] for name in names}
            for s in range(slices):
                for name in names if turn % 2 == 0 else names[::-1]:
                    n = operations[name] if isinstance(operations, Mapping) else operations
                    share = n // slices + (1 if s < n % slices else 0)
                    out = contenders[name](share)
                    parts[name].append(out if isinstance(out, Sample) else Sample(out))
                turn += 1
            for name in names:
                n = operations[name] if isinstance(operations, Mapping) else operations
                result.record(name, _sum(parts[name]), n)
        return result

    def record(self, name: str, sample: Sample, operations: int) -> None:
        """Add one timed run measured by the caller (for contenders that must interleave
        more finely than a run each)."""
        self.samples[name].append(sample)
        self.requested[name].append(operations)

    def rates(self, name: str) -> list[float]:
        """Operations per second, one per round."""
        return [
            (s.operations if s.operations is not None else n) / s.seconds
            for s, n in zip(self.samples[name], self.requested[name], strict=True)
        ]

    def rate(self, name: str) -> Spread:
        return Spread.of(self.rates(name))

    def ratio(self, numerator: str, denominator: str) -> Spread:
        """numerator's rate / denominator's rate, per round."""
        return Spread.of(
            [
                n / d if d else float("nan")
                for n, d in zip(self.rates(numerator), self.rates(denominator), strict=True)
            ]
        )

    def time_ratio(self, numerator: str, denominator: str) -> Spread:
        """numerator's seconds / denominator's seconds, per round (a cost ratio)."""
        return Spread.of(
            [
                n.seconds / d.seconds
                for n, d in zip(self.samples[numerator], self.samples[denominator], strict=True)
            ]
        )

    def cpu_per_operation(self, name: str) -> Spread | None:
        """CPU seconds per operation, one per round (None when not measured)."""
        values = [
            s.cpu / (s.operations if s.operations is not None else n)
            for s, n in zip(self.samples[name], self.requested[name], strict=True)
            if s.cpu is not None
        ]
        return Spread.of(values) if values else None


# ---------------------------------------------------------------------------- output
class Report:
    """Metrics in order; printed as ``label: value`` lines or as one JSON object."""

    def __init__(self, benchmark: str, title: str) -> None:
        self.title = title
        self.lines: list[str] = []
        self.data: dict[str, Any] = {"benchmark": benchmark, "title": title}
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        self.metric("config.date", "date", today)
        self.metric("config.python", "python", sys.version.split()[0])
        self.metric("config.sqlite", "sqlite", sqlite3.sqlite_version)
        self.metric("config.cpus", "CPUs", os.cpu_count() or 0)
        if hasattr(os, "getloadavg"):  # a busy machine stretches every timing
            load = [round(v, 2) for v in os.getloadavg()]
            self.metric(
                "config.load_average", "load average at start", load, note="1, 5 and 15 minutes"
            )

    def section(self, heading: str) -> None:
        self.lines += ["", f"== {heading}"]

    def text(self, line: str) -> None:
        self.lines.append(line)

    def data_only(self, key: str, value: Any) -> None:
        node = self.data
        *parents, last = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[last] = value

    def metric(self, key: str, label: str, value: Any, unit: str = "", note: str = "") -> None:
        """One value: ``key`` (a dotted path) in JSON, ``label`` in the text."""
        self.data_only(key, value)
        line = f"{label}: {_fmt(value)}{' ' + unit if unit else ''}"
        self.lines.append(f"{line}  ({note})" if note else line)

    def rate(
        self, key: str, label: str, spread: Spread, unit: str = "msg/s", note: str = ""
    ) -> None:
        self.data_only(key, {**spread.as_dict(1), "unit": unit})
        line = f"{label}: {spread.text(0, unit)}"
        self.lines.append(f"{line}  {note}" if note else line)

    def ratio(
        self,
        key: str,
        label: str,
        spread: Spread,
        target: str | None = None,
        note: str = "",
        digits: int = 2,
    ) -> None:
        """A ratio with its spread; ``target`` (e.g. ``">= 0.8"``) is printed beside it as
        information, never judged."""
        self.data_only(key, {**spread.as_dict(), "target": target})
        line = f"{label}: {spread.text(digits)}"
        if target:
            line += f"  target {target}"
        self.lines.append(f"{line}  [{note}]" if note else line)

    def disk(self, fsync_seconds: Sequence[float], key: str = "disk") -> None:
        """The disk's fsync time per round, so a reader sees when it changed."""
        if not fsync_seconds:
            return
        ms = Spread.of([s * 1000 for s in fsync_seconds])
        self.data_only(f"{key}.fsync_ms", ms.as_dict(3))
        per_round = " ".join(f"{v:.2f}" for v in ms.values)
        self.lines.append(
            f"disk: fsync {ms.median:.2f} ms median, per round {per_round} ms "
            "(4 KiB write + fdatasync, probed before each round)"
        )

    def render(self, as_json: bool) -> str:
        if as_json:
            return json.dumps(self.data, default=str)
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
    if isinstance(value, Mapping):
        return ", ".join(f"{k} {_fmt(v)}" for k, v in value.items())
    if isinstance(value, Sequence) and not isinstance(value, str):
        return ", ".join(_fmt(v) for v in value)
    return str(value)
