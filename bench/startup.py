#!/usr/bin/env python3
"""Benchmark: what ``import mqjms`` adds to a Python program's start (issue 9, target 5).

    python bench/startup.py [--rounds R] [--quick] [--json]

Three fresh interpreters in interleaved rounds, each timed from spawn to exit:
``python -c pass`` (the bare start), ``python -c "import json"`` (a small stdlib import, for
reference) and ``python -c "import mqjms"``. The figure is the milliseconds ``import
mqjms`` adds to the bare start, per round (target <= 60 ms; issue 9 measured 120 ms),
with the ratio of the two starts. Then ``python -X importtime -c "import mqjms"`` once:
how many modules it loads and the heaviest imports, which is where to look. Targets are
information; the exit status is 0 unless the benchmark broke.

The interpreters run as an installed package does, with their bytecode cached (pip
compiles it at install): in a cache of their own under the temporary directory, filled by
the warm-up round, whatever ``PYTHONDONTWRITEBYTECODE`` says (with it, each start would
compile every mqjms module from source, and that is what would be measured).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    FsyncProbe,
    Report,
    Rounds,
    Sample,
    Spread,
    add_common_args,
    child_env,
    clock,
    finish_args,
    scratch_dir,
)

TARGET_MS = "<= 60"
PROGRAMS = {"bare": "pass", "json": "import json", "mqjms": "import mqjms"}


def start_env(cwd: Path) -> dict[str, str]:
    """:func:`child_env` with bytecode written to and read from ``cwd/pycache``."""
    env = child_env(PYTHONPYCACHEPREFIX=str(cwd / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def start(code: str, cwd: Path) -> Sample:
    """Seconds from spawning ``python -c code`` to its exit, and the CPU seconds it used
    (which, unlike the wall time, a busy machine hardly stretches)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with clock() as took:
        subprocess.run([sys.executable, "-c", code], env=start_env(cwd), cwd=cwd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return Sample(took().seconds, cpu)


def import_times(cwd: Path) -> list[tuple[str, int]]:
    """``-X importtime`` of ``import mqjms``: (module, cumulative us) in load order."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mqjms"],
        env=start_env(cwd),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            _own, cumulative, name = line[len("import time:") :].split("|")
            rows.append((name.strip(), int(cumulative)))
    return rows


def heaviest(rows: list[tuple[str, int]], top: int) -> list[tuple[str, float]]:
    """Where the time goes, in ms: each third-party or stdlib package (its first import,
    whose cumulative time covers its own imports) and each of mqjms's subpackages."""
    costs: dict[str, int] = {}
    for name, cumulative in rows:
        parts = name.split(".")
        if (parts[0] != "mqjms" and len(parts) == 1) or (parts[0] == "mqjms" and len(parts) == 2):
            costs[name] = max(costs.get(name, 0), cumulative)
    ranked = sorted(costs.items(), key=lambda kv: kv[1], reverse=True)[:top]
    return [(name, us / 1000) for name, us in ranked]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/startup.py", description=__doc__.split("\n\n")[0])
    add_common_args(p, rounds=30, quick_rounds=10)
    args = p.parse_args(argv)
    finish_args(p, args)
    report = Report("startup", "what `import mqjms` adds to a fresh interpreter's start")
    with scratch_dir(args.dir, "startup") as root:
        probe = FsyncProbe(root)
        contenders = {name: (lambda _n, c=code: start(c, root)) for name, code in PROGRAMS.items()}
        rounds = Rounds.run(contenders, 1, args.rounds, probe, warmup=1)
        probe.close()
        rows = import_times(root)

    report.metric("config.python", "interpreter", sys.executable)
    report.disk(rounds.fsync)
    wall = {name: [s.seconds * 1000 for s in rounds.samples[name]] for name in PROGRAMS}
    cpu = {name: [(s.cpu or 0.0) * 1000 for s in rounds.samples[name]] for name in PROGRAMS}
    report.section("start to exit, milliseconds (wall; CPU)")
    for name, code in PROGRAMS.items():
        report.data_only(f"start_ms.{name}", Spread.of(wall[name]).as_dict(1))
        report.data_only(f"cpu_ms.{name}", Spread.of(cpu[name]).as_dict(1))
        report.text(
            f"python -c {code!r}: {Spread.of(wall[name]).text(1, 'ms')}; "
            f"CPU {Spread.of(cpu[name]).median:.1f} ms"
        )
    report.section("added by import mqjms (per round)")
    for key, label, base in (
        ("added_ms", "import mqjms - bare start", "bare"),
        ("added_vs_json_ms", "import mqjms - import json", "json"),
    ):
        added = Spread.of([m - b for m, b in zip(wall["mqjms"], wall[base], strict=True)])
        added_cpu = Spread.of([m - b for m, b in zip(cpu["mqjms"], cpu[base], strict=True)])
        target = TARGET_MS if base == "bare" else None
        report.data_only(key, {**added.as_dict(1), "target": target, "cpu": added_cpu.as_dict(1)})
        line = f"{label}: {added.text(1, 'ms')}; CPU {added_cpu.text(1, 'ms')}"
        if target:
            line += f"  target {target} ms  [issue 9: 120 ms]"
        report.text(line)
    report.ratio(
        "ratios.mqjms_vs_bare",
        "start with import mqjms / bare start",
        rounds.time_ratio("mqjms", "bare"),
    )
    report.section("python -X importtime -c 'import mqjms' (one run)")
    mine = sorted(name for name, _ in rows if name.split(".")[0] == "mqjms")
    report.metric(
        "modules.loaded", "modules imported", len(rows), note=f"{len(mine)} of them mqjms's"
    )
    top = heaviest(rows, 8)
    report.data_only("modules.heaviest_ms", dict(top))
    report.text("heaviest, cumulative: " + ", ".join(f"{n} {ms:.1f} ms" for n, ms in top))
    report.data_only("modules.mqjms", mine)
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
