#!/usr/bin/env python3
"""Benchmark: what ``import mqjms`` adds to a Python program's start (issue 9, target 5).

    python bench/startup.py [--rounds R] [--quick] [--json]

Four fresh interpreters in interleaved rounds, each timed from spawn to exit:
``python -c pass`` (the bare start), ``python -c "import json"`` (a small stdlib import, for
reference), ``python -c "import mqjms"`` and a typical worker program's imports
(``import mqjms`` and the ``Worker``, ``ConnectionFactory`` and ``TextMessage`` it then
touches: mqjms's names load on first access, so ``import mqjms`` alone says little about
what a program pays). The figures are the milliseconds ``import mqjms`` and the worker's
imports add to the bare start, per round (target <= 60 ms for ``import mqjms``; issue 9
measured 120 ms), with the ratio of the starts. Then ``python -X importtime`` of each of
the two once: how many modules they load and the heaviest imports, which is where to
look. Targets are information; the exit status is 0 unless the benchmark broke.

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
#: What a worker program imports and touches before it connects (the README's example).
WORKER = "import mqjms; mqjms.Worker; mqjms.ConnectionFactory; mqjms.TextMessage"
PROGRAMS = {"bare": "pass", "json": "import json", "mqjms": "import mqjms", "worker": WORKER}
#: Each figure: what program ``key`` adds to program ``base``, its label and target.
ADDED = (
    ("added_ms", "import mqjms - bare start", "mqjms", "bare", TARGET_MS),
    ("added_vs_json_ms", "import mqjms - import json", "mqjms", "json", None),
    ("worker_added_ms", "a worker's imports - bare start", "worker", "bare", None),
)


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


def import_times(code: str, cwd: Path) -> list[tuple[str, int, int]]:
    """``-X importtime`` of ``python -c code``: (module, own us, cumulative us) in load
    order, after the interpreter's own start (``site`` and what it imports)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        env=start_env(cwd),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "self [us]" not in line:
            own, cumulative, name = line[len("import time:") :].split("|")
            rows.append((name.strip(), int(own), int(cumulative)))
    starts = [i for i, (name, _own, _cumulative) in enumerate(rows) if name == "site"]
    return rows[starts[0] + 1 :] if starts else rows


def heaviest(rows: list[tuple[str, int, int]], top: int) -> list[tuple[str, float]]:
    """Where the time goes, in ms: each third-party or stdlib package (its first import,
    whose cumulative time covers its own imports) and each of mqjms's subpackages (the
    sum of its modules' own times: loaded on first access, they are not nested under
    the package's import)."""
    costs: dict[str, int] = {}
    for name, own, cumulative in rows:
        parts = name.split(".")
        if parts[0] == "mqjms":
            package = ".".join(parts[:2])
            costs[package] = costs.get(package, 0) + own
        elif len(parts) == 1:
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
        rows = {name: import_times(PROGRAMS[name], root) for name in ("mqjms", "worker")}

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
    report.section("added to the bare start (per round)")
    for key, label, program, base, target in ADDED:
        added = Spread.of([m - b for m, b in zip(wall[program], wall[base], strict=True)])
        added_cpu = Spread.of([m - b for m, b in zip(cpu[program], cpu[base], strict=True)])
        report.data_only(key, {**added.as_dict(1), "target": target, "cpu": added_cpu.as_dict(1)})
        line = f"{label}: {added.text(1, 'ms')}; CPU {added_cpu.text(1, 'ms')}"
        if target:
            line += f"  target {target} ms  [issue 9: 120 ms]"
        report.text(line)
    for program, label in (("mqjms", "import mqjms"), ("worker", "a worker's imports")):
        report.ratio(
            f"ratios.{program}_vs_bare",
            f"start with {label} / bare start",
            rounds.time_ratio(program, "bare"),
        )
    for program, prefix in (("mqjms", "modules"), ("worker", "worker_modules")):
        report.section(f"python -X importtime -c {PROGRAMS[program]!r} (one run)")
        loaded = rows[program]
        mine = sorted(name for name, _own, _cum in loaded if name.split(".")[0] == "mqjms")
        report.metric(
            f"{prefix}.loaded",
            "modules imported after the interpreter's start",
            len(loaded),
            note=f"{len(mine)} of them mqjms's",
        )
        top = heaviest(loaded, 8)
        report.data_only(f"{prefix}.heaviest_ms", dict(top))
        report.text("heaviest, cumulative: " + ", ".join(f"{n} {ms:.1f} ms" for n, ms in top))
        report.data_only(f"{prefix}.mqjms", mine)
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
