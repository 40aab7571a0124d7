#!/usr/bin/env python3
"""Benchmark of the embedded queue manager against bare SQLite (issue 2, last "Done when").

    python bench/qmgr.py [--messages N] [--quick] [--json] [--check] [--profile]

What it measures, all in one process, on files under a fresh temporary directory:

* **baseline**: the least a durable queue must do in SQLite with the queue manager's own
  durability settings (WAL, ``synchronous=FULL``, the same page and cache sizes, read
  back from a queue manager connection and compared): per message one ``INSERT``
  transaction (the put) and one ``SELECT`` + ``DELETE`` transaction (the get and commit).
* **persistent**: per message MQPUT (``MQPER_PERSISTENT``, no syncpoint), MQGET under
  syncpoint, MQCMIT on a ``DEFPSIST(YES)`` queue, reported as a rate and as a ratio to the
  baseline (target: at least 0.5).
* **non-persistent**: MQPUT + MQGET without syncpoint, and MQPUT + MQGET + MQCMIT under
  syncpoint, with their ratios to the same baseline. Also the persistent round trip with
  ``Persistence = MQPER_PERSISTENCE_AS_Q_DEF`` (resolved to persistent by ``DEFPSIST``),
  which must cost the same as the explicit one.
* **memory**: the peak Python heap (tracemalloc) and resident-set growth while 100,000
  persistent messages are put (under syncpoint, committed in batches) and drained again,
  with the CURDEPTH reached. Messages live in SQLite, so memory should stay flat.

Contenders alternate round by round (best of ``--rounds``) so machine noise hits them
alike. The exit status is 0 unless ``--check`` is given and the ratio misses the target.
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import pstats
import shutil
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import structlog

from bench._common import (
    MemoryMonitor,
    Rates,
    Report,
    interleaved,
    mb,
    paired_ratio,
    ratio,
    stopwatch,
    verdict,
)
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Handle

TARGET_RATIO = 0.5
QUEUE = "BENCH.Q"
OPEN_OPTIONS = C.MQOO_OUTPUT | C.MQOO_INPUT_AS_Q_DEF
# The settings that decide what a commit costs; the baseline copies the queue manager's.
SETTINGS = (
    "journal_mode",
    "synchronous",
    "page_size",
    "cache_size",
    "wal_autocheckpoint",
    "mmap_size",
    "temp_store",
    "locking_mode",
)
APPLY_ORDER = (
    "page_size",
    "journal_mode",
    "cache_size",
    "wal_autocheckpoint",
    "mmap_size",
    "temp_store",
    "locking_mode",
)


def quiet_logging() -> None:
    """mqjms logs queue manager start and queue definitions at INFO; keep stdout for the
    report (and valid JSON): warnings and worse go to stderr."""
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
    )


def read_settings(db: sqlite3.Connection) -> dict[str, Any]:
    return {name: db.execute(f"PRAGMA {name}").fetchone()[0] for name in SETTINGS}


# ---------------------------------------------------------------------------- contenders
class SqliteQueue:
    """The baseline: a bare SQLite queue table with the queue manager's durability."""

    def __init__(self, path: Path, settings: Mapping[str, Any]) -> None:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        for name in APPLY_ORDER:
            db.execute(f"PRAGMA {name}={settings[name]}")
        db.execute("PRAGMA synchronous=FULL")  # what the queue manager uses for a durable write
        db.execute("CREATE TABLE queue (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
        self.db = db

    def round_trips(self, n: int, payload: bytes) -> float:
        db = self.db
        start = time.perf_counter()
        for _ in range(n):
            db.execute("BEGIN IMMEDIATE")  # the put
            db.execute("INSERT INTO queue (data) VALUES (?)", (payload,))
            db.execute("COMMIT")
            db.execute("BEGIN IMMEDIATE")  # the get and its commit
            row = db.execute("SELECT id, data FROM queue ORDER BY id LIMIT 1").fetchone()
            if row is None:
                raise RuntimeError("baseline: the message just put is missing")
            db.execute("DELETE FROM queue WHERE id = ?", (row[0],))
            db.execute("COMMIT")
        return time.perf_counter() - start

    def close(self) -> None:
        self.db.close()


class MqjmsQueue:
    """One connection to an embedded queue manager, with ``BENCH.Q`` open for put and get."""

    def __init__(self, path: Path, maxdepth: int = 5000) -> None:
        self.qm = QueueManager(path)
        self.qm.define_queue("QLOCAL", QUEUE, {"DEFPSIST": "YES", "MAXDEPTH": maxdepth})
        self.conn: QMConnection = self.qm.connect("mqjms-bench")
        self.handle: Handle = self.conn.open(QUEUE, OPEN_OPTIONS)
        self.persistent = MQMD(Persistence=C.MQPER_PERSISTENT)
        self.as_q_def = MQMD(Persistence=C.MQPER_PERSISTENCE_AS_Q_DEF)
        self.non_persistent = MQMD(Persistence=C.MQPER_NOT_PERSISTENT)

    def _loop(self, n: int, payload: bytes, md: MQMD, put_sp: bool, get_sp: bool) -> float:
        """n x (put, [commit,] get, [commit]): a put under syncpoint is only visible to a
        get once committed, so each syncpoint call gets its own MQCMIT."""
        conn, h = self.conn, self.handle
        start = time.perf_counter()
        for _ in range(n):
            conn.put(h, md, payload, syncpoint=put_sp)
            if put_sp:
                conn.commit()
            if conn.get(h, syncpoint=get_sp) is None:
                raise RuntimeError("mqjms: the message just put is missing")
            if get_sp:
                conn.commit()
        return time.perf_counter() - start

    def persistent_rt(self, n: int, payload: bytes) -> float:
        """put persistent (no syncpoint), get under syncpoint, commit."""
        return self._loop(n, payload, self.persistent, put_sp=False, get_sp=True)

    def as_q_def_rt(self, n: int, payload: bytes) -> float:
        """The same with Persistence left as the queue's default, DEFPSIST(YES)."""
        return self._loop(n, payload, self.as_q_def, put_sp=False, get_sp=True)

    def non_persistent_rt(self, n: int, payload: bytes) -> float:
        """put non-persistent, get, both without syncpoint."""
        return self._loop(n, payload, self.non_persistent, put_sp=False, get_sp=False)

    def non_persistent_sp_rt(self, n: int, payload: bytes) -> float:
        """put non-persistent under syncpoint, commit; get under syncpoint, commit."""
        return self._loop(n, payload, self.non_persistent, put_sp=True, get_sp=True)

    def depth(self) -> int:
        return self.qm.queue_depth(QUEUE)

    def close(self) -> None:
        self.conn.disconnect()
        self.qm.close()


# ---------------------------------------------------------------------------- memory
def memory_phase(path: Path, count: int, batch: int, payload: bytes) -> dict[str, Any]:
    """Put ``count`` persistent messages under syncpoint (MQCMIT every ``batch``), then get
    them all the same way, sampling memory at every commit."""
    q = MqjmsQueue(path, maxdepth=max(count, 1))
    conn, h, md = q.conn, q.handle, q.persistent
    marks: dict[str, tuple[int, int | None]] = {}
    tenth = max(count // 10, 1)
    try:
        with MemoryMonitor() as mon, stopwatch() as total:
            with stopwatch() as fill:
                for i in range(1, count + 1):
                    conn.put(h, md, payload, syncpoint=True)
                    if i % batch == 0 or i == count:
                        conn.commit()
                        s = mon.sample()
                        if i >= tenth and "tenth" not in marks:
                            marks["tenth"] = (s.heap_bytes, s.rss_bytes)
            depth = q.depth()
            s = mon.sample("full")
            marks["full"] = (s.heap_bytes, s.rss_bytes)
            got = 0
            with stopwatch() as drain:
                while conn.get(h, syncpoint=True) is not None:
                    got += 1
                    if got % batch == 0:
                        conn.commit()
                        mon.sample()
                conn.commit()
            s = mon.sample("empty")
            marks["empty"] = (s.heap_bytes, s.rss_bytes)
            depth_after = q.depth()
    finally:
        q.close()
    heap_tenth, rss_tenth = marks.get("tenth", marks["full"])
    heap_full, rss_full = marks["full"]
    return {
        "messages": count,
        "batch": batch,
        "curdepth_reached": depth,
        "messages_got": got,
        "curdepth_after_drain": depth_after,
        "python_heap_peak_mb": mb(mon.heap_peak),
        "python_heap_growth_tenth_to_full_mb": mb(heap_full - heap_tenth),
        "rss_peak_growth_mb": mb(mon.rss_peak_delta),
        "rss_growth_tenth_to_full_mb": (
            mb(rss_full - rss_tenth) if rss_full is not None and rss_tenth is not None else None
        ),
        "ru_maxrss_growth_mb": mb(mon.maxrss_delta),
        "fill_s": round(fill(), 2),
        "drain_s": round(drain(), 2),
        "total_s": round(total(), 2),
        "fill_rate": round(count / fill(), 1) if fill() else None,
        "drain_rate": round(got / drain(), 1) if drain() else None,
    }


# ---------------------------------------------------------------------------- profile
@contextmanager
def sql_trace(db: sqlite3.Connection) -> Iterator[list[str]]:
    """The SQL statements run on ``db`` in the block. SQLite also reports each trigger
    program as a repeat of the statement that fired it: see :func:`collapse`."""
    statements: list[str] = []
    db.set_trace_callback(statements.append)
    try:
        yield statements
    finally:
        db.set_trace_callback(None)


def collapse(statements: list[str]) -> list[str]:
    """Statements as run, with trigger programs (back-to-back repeats) marked ``-- TRIGGER``."""
    out: list[str] = []
    for s in statements:
        out.append(
            "-- TRIGGER"
            if out and (s == out[-1] or out[-1] == "-- TRIGGER") and s == _last_real(out)
            else s
        )
    return out


def _last_real(out: list[str]) -> str | None:
    for s in reversed(out):
        if s != "-- TRIGGER":
            return s
    return None


def _kind(statement: str) -> str:
    s = statement.lstrip()
    if s.startswith("--"):
        return "TRIGGER"
    word = s.split(None, 1)[0].upper() if s else "?"
    if word == "PRAGMA":
        return "PRAGMA " + s.split(None, 1)[1].split("=")[0].split("(")[0].strip().lower()
    return word


def wal_frames_per_round_trip(path: Path, run: Callable[[int], object], n: int = 20) -> float:
    """WAL frames (pages) one round trip appends: checkpoint+truncate from another
    connection, run ``n`` round trips, read the WAL's frame count."""
    other = sqlite3.connect(path, isolation_level=None, timeout=30.0)
    try:
        other.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        run(n)
        frames = int(other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])
    finally:
        other.close()
    return frames / n


def profile_phase(
    root: Path, settings: Mapping[str, Any], n: int, payload: bytes, top: int = 12
) -> dict[str, Any]:
    """Where a persistent round trip spends its time: SQL statements per MQI call,
    WAL frames per round trip (vs. the baseline), and cProfile's top functions."""
    q = MqjmsQueue(root / "profile-qm")
    base = SqliteQueue(root / "profile-baseline.db", settings)
    try:
        q.persistent_rt(50, payload)
        db: sqlite3.Connection | None = getattr(q.conn, "_db", None)
        conn, h, md = q.conn, q.handle, q.persistent
        calls: dict[str, Callable[[], object]] = {
            "put": lambda: conn.put(h, md, payload),
            "get": lambda: conn.get(h, syncpoint=True),
            "commit": conn.commit,
        }
        micros: dict[str, float] = dict.fromkeys(calls, 0.0)
        for _ in range(n):
            for call, fn in calls.items():
                t0 = time.perf_counter()
                fn()
                micros[call] += time.perf_counter() - t0
        us_per_call = {call: round(total / n * 1e6, 1) for call, total in micros.items()}
        per_call: dict[str, dict[str, float]] = {}
        if db is not None:
            rounds = 10
            counts: dict[str, Counter[str]] = {call: Counter() for call in calls}
            for _ in range(rounds):
                for call, fn in calls.items():
                    with sql_trace(db) as stmts:
                        fn()
                    counts[call].update(_kind(s) for s in collapse(stmts))
            for call, c in counts.items():
                per_call[call] = {k: v / rounds for k, v in sorted(c.items())}
                per_call[call]["total"] = sum(v for k, v in c.items() if k != "TRIGGER") / rounds
        frames = {
            "baseline": wal_frames_per_round_trip(
                root / "profile-baseline.db", lambda k: base.round_trips(k, payload)
            ),
            "mqjms_persistent": wal_frames_per_round_trip(
                root / "profile-qm" / "qmgr.db", lambda k: q.persistent_rt(k, payload)
            ),
        }
        prof = cProfile.Profile()
        prof.enable()
        q.persistent_rt(n, payload)
        prof.disable()
        stats = pstats.Stats(prof)
        rows = []
        for (filename, line, func), (_cc, ncalls, tottime, cumtime, _callers) in sorted(
            stats.stats.items(),
            key=lambda kv: kv[1][2],
            reverse=True,  # type: ignore[attr-defined]
        )[:top]:
            where = f"{_short(filename)}:{line}({func})" if line else func
            rows.append(
                {
                    "function": where,
                    "calls_per_round_trip": round(ncalls / n, 2),
                    "tottime_us_per_round_trip": round(tottime / n * 1e6, 1),
                    "cumtime_us_per_round_trip": round(cumtime / n * 1e6, 1),
                }
            )
    finally:
        q.close()
        base.close()
    return {
        "us_per_call": us_per_call,
        "sql_per_call": per_call,
        "wal_frames_per_round_trip": frames,
        "top": rows,
    }


def _short(filename: str) -> str:
    parts = Path(filename).parts
    for anchor in ("mqjms", "bench"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor) - 1 :])
    return Path(filename).name


# ---------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="bench/qmgr.py",
        description="Embedded queue manager vs. bare SQLite with the same durability.",
    )
    p.add_argument("--messages", type=int, help="round trips per timed run (default 2000)")
    p.add_argument(
        "--rounds",
        type=int,
        help="timed runs per contender, alternating (default 3; 5 with --quick)",
    )
    p.add_argument(
        "--warmup",
        type=int,
        help="untimed round trips per contender (default: 600 for the baseline, "
        "200 for mqjms; enough for each WAL to reach its 1,000-frame "
        "checkpoint, so that no contender is timed while its -wal file grows)",
    )
    p.add_argument(
        "--memory-messages", type=int, help="messages queued for the memory phase (default 100000)"
    )
    p.add_argument(
        "--batch",
        type=int,
        default=1000,
        help="messages per MQCMIT while filling and draining (default 1000)",
    )
    p.add_argument("--payload", type=int, default=256, help="message body bytes (default 256)")
    p.add_argument(
        "--quick",
        action="store_true",
        help="small counts for a CI smoke run (250 x 5 rounds, 5,000 queued)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--check",
        action="store_true",
        help=f"exit 1 when the persistent ratio is below {TARGET_RATIO}",
    )
    p.add_argument(
        "--profile",
        action="store_true",
        help="also report SQL statements, WAL frames and cProfile per round trip",
    )
    p.add_argument("--dir", type=Path, help="parent of the temporary directory (default: $TMPDIR)")
    args = p.parse_args(argv)
    quick = args.quick
    if args.messages is None:
        args.messages = 250 if quick else 2000
    if args.rounds is None:
        args.rounds = 5 if quick else 3
    if args.memory_messages is None:
        args.memory_messages = 5_000 if quick else 100_000
    for name in ("messages", "rounds", "batch", "payload"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    if (args.warmup is not None and args.warmup < 0) or args.memory_messages < 0:
        p.error("--warmup and --memory-messages must not be negative")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    quiet_logging()
    payload = bytes(i % 251 for i in range(args.payload))
    report = Report("mqjms embedded queue manager vs. bare SQLite (same process, same durability)")
    root = Path(tempfile.mkdtemp(prefix="mqjms-bench-", dir=args.dir))
    try:
        with stopwatch() as wall:
            mq = MqjmsQueue(root / "qm")
            probe = mq.qm.open_db()
            try:
                mq_settings = read_settings(probe)
            finally:
                probe.close()
            base = SqliteQueue(root / "baseline.db", mq_settings)
            base_settings = read_settings(base.db)
            # the queue manager's durable write runs at synchronous=FULL (2)
            same = {**mq_settings, "synchronous": 2} == base_settings

            report.metric("config.sqlite", "sqlite", sqlite3.sqlite_version)
            report.metric("config.python", "python", sys.version.split()[0])
            report.metric("config.dir", "directory", str(root))
            report.metric("config.payload_bytes", "payload", args.payload, "bytes")
            report.metric(
                "config.messages",
                "round trips per run",
                args.messages,
                note=f"best of {args.rounds} alternating runs after warm-up",
            )
            report.metric(
                "config.baseline_settings", "baseline settings", _settings_text(base_settings)
            )
            report.metric(
                "config.qmgr_settings",
                "queue manager settings",
                _settings_text(mq_settings),
                note="synchronous FULL for durable writes, NORMAL for others",
            )
            report.metric("config.same_durability", "same durability settings", same)

            contenders: dict[str, Callable[[int], float]] = {
                "baseline": lambda n: base.round_trips(n, payload),
                "persistent": lambda n: mq.persistent_rt(n, payload),
                "persistent_as_q_def": lambda n: mq.as_q_def_rt(n, payload),
                "non_persistent": lambda n: mq.non_persistent_rt(n, payload),
                "non_persistent_syncpoint": lambda n: mq.non_persistent_sp_rt(n, payload),
            }
            with stopwatch() as rate_time:
                warmup = (
                    {name: 600 if name == "baseline" else 200 for name in contenders}
                    if args.warmup is None
                    else args.warmup
                )
                rates = interleaved(contenders, args.messages, args.rounds, warmup)
            if mq.depth() != 0:
                raise RuntimeError(f"{QUEUE} should be empty, CURDEPTH({mq.depth()})")
            mq.close()
            base.close()

            b = rates["baseline"].best
            p_ratio = ratio(rates["persistent"].best, b)
            report.section("round trips (messages per second, best run)")
            _rate(
                report, rates["baseline"], "baseline", "bare SQLite: INSERT txn + SELECT/DELETE txn"
            )
            _rate(
                report,
                rates["persistent"],
                "persistent",
                "put persistent, get under syncpoint, commit",
            )
            report.metric(
                "ratios.persistent",
                "persistent / baseline",
                round(p_ratio, 3),
                note=f"target >= {TARGET_RATIO}: {verdict(p_ratio, TARGET_RATIO)}",
            )
            report.data_only("target", TARGET_RATIO)
            report.data_only("verdict", verdict(p_ratio, TARGET_RATIO))
            report.metric(
                "ratios.persistent_paired",
                "persistent / baseline (median per round)",
                round(paired_ratio(rates["persistent"], rates["baseline"]), 3),
            )
            _rate(
                report,
                rates["persistent_as_q_def"],
                "persistent_as_q_def",
                "the same, Persistence AS_Q_DEF on DEFPSIST(YES)",
            )
            report.metric(
                "ratios.persistent_as_q_def",
                "persistent (as q def) / baseline",
                round(ratio(rates["persistent_as_q_def"].best, b), 3),
            )
            skew = ratio(rates["persistent_as_q_def"].best, rates["persistent"].best)
            if skew > 1.15:
                report.text(
                    f"  note: AS_Q_DEF resolves to persistent here, yet runs {skew:.2f} x "
                    "faster than MQPER_PERSISTENT: its put is probably not made durable "
                    "(fsync) although the message is persistent"
                )
                report.data_only("warnings.as_q_def_not_durable", round(skew, 2))
            _rate(
                report,
                rates["non_persistent"],
                "non_persistent",
                "put non-persistent, get, no syncpoint",
            )
            report.metric(
                "ratios.non_persistent",
                "non-persistent / baseline",
                round(ratio(rates["non_persistent"].best, b), 3),
            )
            _rate(
                report,
                rates["non_persistent_syncpoint"],
                "non_persistent_syncpoint",
                "put non-persistent + commit, get + commit, under syncpoint",
            )
            report.metric(
                "ratios.non_persistent_syncpoint",
                "non-persistent syncpoint / baseline",
                round(ratio(rates["non_persistent_syncpoint"].best, b), 3),
            )
            report.metric("time.round_trips_s", "round-trip phase took", round(rate_time(), 2), "s")

            if args.memory_messages:
                report.section(f"memory with {args.memory_messages:,} persistent messages queued")
                m = memory_phase(root / "memory-qm", args.memory_messages, args.batch, payload)
                report.data_only("memory", m)
                report.metric(
                    "memory.curdepth_reached",
                    "CURDEPTH reached",
                    m["curdepth_reached"],
                    note=f"put under syncpoint, MQCMIT every {args.batch}",
                )
                report.metric(
                    "memory.python_heap_peak_mb",
                    "peak Python heap (tracemalloc)",
                    m["python_heap_peak_mb"],
                    "MB",
                )
                report.metric(
                    "memory.python_heap_growth_tenth_to_full_mb",
                    "Python heap growth, 10% to 100% depth",
                    m["python_heap_growth_tenth_to_full_mb"],
                    "MB",
                )
                report.metric(
                    "memory.rss_peak_growth_mb",
                    "peak RSS growth (sampled)",
                    m["rss_peak_growth_mb"],
                    "MB",
                    note="includes SQLite's page cache",
                )
                report.metric(
                    "memory.rss_growth_tenth_to_full_mb",
                    "RSS growth, 10% to 100% depth",
                    m["rss_growth_tenth_to_full_mb"],
                    "MB",
                )
                report.metric(
                    "memory.ru_maxrss_growth_mb", "ru_maxrss growth", m["ru_maxrss_growth_mb"], "MB"
                )
                report.metric(
                    "memory.drained",
                    "messages got back",
                    m["messages_got"],
                    note=f"CURDEPTH after drain {m['curdepth_after_drain']}",
                )
                report.metric(
                    "memory.fill_rate",
                    "fill rate",
                    m["fill_rate"],
                    "msg/s",
                    note=f"{m['fill_s']} s, with tracemalloc on",
                )
                report.metric(
                    "memory.drain_rate",
                    "drain rate",
                    m["drain_rate"],
                    "msg/s",
                    note=f"{m['drain_s']} s, with tracemalloc on",
                )

            if args.profile:
                report.section("profile of the persistent round trip")
                prof = profile_phase(root, mq_settings, args.messages, payload)
                report.data_only("profile", prof)
                for call, us in prof["us_per_call"].items():
                    report.text(f"time per {call}: {us:.0f} us")
                for call, kinds in prof["sql_per_call"].items():
                    detail = ", ".join(f"{k} {v:g}" for k, v in kinds.items() if k != "total")
                    report.text(f"SQL statements per {call}: {kinds['total']:g}  ({detail})")
                for who, frames in prof["wal_frames_per_round_trip"].items():
                    report.text(f"WAL frames per round trip, {who}: {frames:.1f}")
                report.text("top functions by own time (per round trip, under cProfile):")
                for row in prof["top"]:
                    report.text(
                        f"  {row['tottime_us_per_round_trip']:8.1f} us own "
                        f"{row['cumtime_us_per_round_trip']:8.1f} us cum "
                        f"{row['calls_per_round_trip']:6g} calls  {row['function']}"
                    )

        report.section("total")
        report.metric("time.total_s", "time taken", round(wall(), 2), "s")
        report.metric(
            "verdict_line",
            "result",
            f"{verdict(p_ratio, TARGET_RATIO)}: persistent round trips at "
            f"{p_ratio:.2f} x bare SQLite (target {TARGET_RATIO})",
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(report.render(args.json))
    return 1 if args.check and p_ratio < TARGET_RATIO else 0


def _rate(report: Report, rates: Rates, key: str, note: str) -> None:
    report.data_only(f"rates.{key}", rates.as_dict())
    report.metric(
        f"rates.{key}.best",
        key.replace("_", " "),
        round(rates.best, 1),
        "msg/s",
        note=f"{note}; median {rates.median:,.0f}",
    )


def _settings_text(settings: Mapping[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in settings.items())


if __name__ == "__main__":
    sys.exit(main())
