"""The benchmarks' shared machinery (issue 9): ratios are paired within a round and reported
with their spread and the disk's fsync time, targets are information (never PASS/FAIL),
and the exact counters (fsyncs from strace, SQL statements) count what they claim.

No test here measures time: contenders return fixed samples.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from bench import _fsyncs, _sql
from bench._common import Countdown, FsyncProbe, Report, Rounds, Sample, Spread


def fixed(seconds: list[float], calls: list[str], name: str):  # type: ignore[no-untyped-def]
    """A contender that records its calls and returns the next of ``seconds``."""
    it = iter(seconds)

    def run(n: int) -> Sample:
        calls.append(name)
        return Sample(next(it))

    return run


def test_spread_is_the_median_with_min_max_and_quartiles() -> None:
    s = Spread.of([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (s.median, s.low, s.high, s.q1, s.q3) == (3.0, 1.0, 5.0, 2.0, 4.0)
    assert s.values == (5.0, 1.0, 3.0, 2.0, 4.0)  # in round order
    one = Spread.of([7.0])
    assert (one.median, one.low, one.high, one.q1, one.q3) == (7.0,) * 5


def test_rounds_alternate_the_order_and_probe_the_disk_before_each_round(tmp_path: Path) -> None:
    calls: list[str] = []
    probe = FsyncProbe(tmp_path, samples=1)
    try:
        rounds = Rounds.run(
            {"a": fixed([1.0] * 4, calls, "a"), "b": fixed([1.0] * 4, calls, "b")},
            operations=10,
            rounds=3,
            probe=probe,
            warmup=5,
        )
    finally:
        probe.close()
    assert calls == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then a b | b a | a b
    assert len(rounds.fsync) == 3  # one probe per round


def test_slices_take_turns_within_a_round_and_add_up() -> None:
    calls: list[tuple[str, int]] = []

    def contender(name: str):  # type: ignore[no-untyped-def]
        def run(n: int) -> Sample:
            calls.append((name, n))
            return Sample(0.5, cpu=0.25)

        return run

    rounds = Rounds.run(
        {"a": contender("a"), "b": contender("b")},
        operations={"a": 10, "b": 50},
        rounds=1,
        probe=None,
        slices=3,
    )
    # a's 10 operations in slices of 4, 3, 3; b's 50 in 17, 17, 16; turns a b | b a | a b
    assert calls == [("a", 4), ("b", 17), ("b", 17), ("a", 3), ("a", 3), ("b", 16)]
    assert rounds.samples["a"] == [Sample(1.5, cpu=0.75)]
    assert rounds.rates("b") == [50 / 1.5]


def test_ratios_pair_the_contenders_of_the_same_round() -> None:
    # the disk slows down in round 2: both contenders take 10x as long, the ratio holds
    rounds = Rounds.run(
        {
            "base": fixed([1.0, 10.0, 1.0], [], "base"),
            "mine": fixed([2.0, 20.0, 2.0], [], "mine"),
        },
        operations=100,
        rounds=3,
        probe=None,
    )
    assert rounds.rates("base") == [100.0, 10.0, 100.0]
    ratio = rounds.ratio("mine", "base")
    assert ratio.values == (0.5, 0.5, 0.5)
    assert rounds.time_ratio("mine", "base").median == 2.0


def test_a_contender_may_report_its_own_operation_count_and_cpu() -> None:
    def good_only(n: int) -> Sample:
        return Sample(1.0, cpu=0.5, operations=n * 9 // 10)

    rounds = Rounds.run({"x": good_only}, operations=100, rounds=2, probe=None)
    assert rounds.rates("x") == [90.0, 90.0]
    cpu = rounds.cpu_per_operation("x")
    assert cpu is not None and cpu.median == pytest.approx(0.5 / 90)


def test_a_ratio_is_reported_with_its_spread_and_target_but_no_verdict() -> None:
    report = Report("demo", "a demo")
    report.disk([0.0001, 0.003])
    report.ratio("ratios.x", "mine / base", Spread.of([0.5, 0.7, 0.6]), ">= 0.8", "issue 9: 0.6")
    text = report.render(as_json=False)
    line = next(t for t in text.splitlines() if t.startswith("mine / base"))
    assert line == "mine / base: 0.60  (0.50..0.70 over 3 rounds)  target >= 0.8  [issue 9: 0.6]"
    assert "disk: fsync 1.55 ms median, per round 0.10 3.00 ms" in text
    for verdict in ("PASS", "FAIL", "verdict"):
        assert verdict not in text
    data = json.loads(report.render(as_json=True))
    assert data["ratios"]["x"]["target"] == ">= 0.8"
    assert data["ratios"]["x"]["per_round"] == [0.5, 0.7, 0.6]
    assert data["disk"]["fsync_ms"]["per_round"] == [0.1, 3.0]
    assert "verdict" not in json.dumps(data)


def test_fsyncs_are_counted_between_the_marks_across_threads() -> None:
    trace = "\n".join(
        [
            "100 fdatasync(3)                      = 0",  # before any mark: set-up
            f'100 access("{_fsyncs.MARK_DIR}/begin:put", F_OK) = -1 ENOENT',
            "100 fdatasync(4)                      = 0",
            "101 fsync(5 <unfinished ...>",  # another thread, interrupted
            "100 fdatasync(4)                      = 0",
            "101 <... fsync resumed>)              = 0",  # the same call, not a second one
            f'100 faccessat2(AT_FDCWD, "{_fsyncs.MARK_DIR}/end:put", F_OK, 0) = -1 ENOENT',
            "100 fdatasync(4)                      = 0",  # between sections
            f'100 access("{_fsyncs.MARK_DIR}/begin:get", F_OK) = -1 ENOENT',
            f'100 access("{_fsyncs.MARK_DIR}/end:get", F_OK) = -1 ENOENT',
        ]
    )
    assert _fsyncs.parse(trace) == {"put": 3, "get": 0}


def test_sql_statements_count_trigger_programs_apart_but_not_repeated_reads() -> None:
    statements = [
        "BEGIN IMMEDIATE",
        "SELECT value FROM meta WHERE key = 'qmgr_attrs'",
        "SELECT value FROM meta WHERE key = 'qmgr_attrs'",  # read twice: the code's
        "INSERT INTO messages VALUES (1)",
        "INSERT INTO messages VALUES (1)",  # the depth trigger, reported again
        "PRAGMA synchronous=FULL",
        "COMMIT",
    ]
    kinds = _sql.kinds(statements)
    assert kinds == {
        "BEGIN": 1,
        "SELECT": 2,
        "INSERT": 1,
        "TRIGGER": 1,
        "PRAGMA synchronous": 1,
        "COMMIT": 1,
    }
    assert _sql.total(kinds) == 6


class _App:
    """What Countdown reads of a Worker."""

    def __init__(self) -> None:
        self.error: BaseException | None = None
        self.stats = type("Stats", (), {"committed": 0})()


def test_a_countdown_wakes_its_waiter_at_the_last_call_not_at_a_raising_one() -> None:
    def refuse_odd(msg: object) -> None:
        if msg == "odd":
            raise ValueError(msg)

    countdown = Countdown(2, refuse_odd)
    countdown("even")
    with pytest.raises(ValueError):
        countdown("odd")  # a listener that raised did not count
    assert not countdown.reached.is_set()
    countdown.tick()  # a moved message counts (a poison hook)
    assert countdown.reached.is_set()
    app = _App()
    app.stats.committed = 2
    countdown.wait_committed(app, 2, timeout=5)  # returns: reached and committed


def test_a_countdown_stops_waiting_when_the_worker_failed() -> None:
    app = _App()
    app.error = RuntimeError("consumer failed")
    started = time.monotonic()
    Countdown(1).wait_committed(app, 1, timeout=60)  # returns without the call
    assert time.monotonic() - started < 30  # at the first look, not at the timeout


def test_a_countdown_stops_waiting_once_what_it_waits_for_is_done() -> None:
    # a listener called fewer times than counted (a hook not called) must not cost the
    # whole timeout when the Worker's counters already say the run is over
    app = _App()
    app.stats.committed = 1
    started = time.monotonic()
    Countdown(5).wait_committed(app, 1, timeout=60)
    assert time.monotonic() - started < 30
