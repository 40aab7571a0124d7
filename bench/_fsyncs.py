"""Counting fsyncs, the system calls that make a commit durable, with strace.

A benchmark re-runs part of itself in a child process under strace; the child calls
:func:`mark` at the start and end of each section it measures, and :func:`count` returns
how many ``fsync``/``fdatasync`` calls (of any thread) fell inside each section. The count
is exact and does not depend on the disk's speed, so it shows what a change did (two
commits sharing one fsync) where a timing would only hint at it. strace is not a Python
dependency: without it (or where ptrace is not allowed) the counts are None and the
report says why.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench._common import child_env

MARK_DIR = "/mqjms-bench-fsync-mark"  # never exists: the access() call is only a marker
_SYSCALLS = "trace=fsync,fdatasync,access,faccessat,faccessat2"
_MARK = re.compile(r'access(?:at2?)?\((?:AT_FDCWD, )?"' + re.escape(MARK_DIR) + r'/(\w+):(\w+)"')
_SYNC = re.compile(r"\b(?:fsync|fdatasync)\(")


def mark(edge: str, section: str) -> None:
    """``mark("begin", "persistent")`` ... ``mark("end", "persistent")`` in the child."""
    os.access(f"{MARK_DIR}/{edge}:{section}", os.F_OK)


def unavailable() -> str | None:
    """Why fsyncs cannot be counted here, or None when they can."""
    return None if shutil.which("strace") else "strace is not installed"


def count(argv: Sequence[str], timeout: float = 300.0) -> dict[str, int]:
    """Run ``argv`` under ``strace -f``; the fsyncs inside each marked section."""
    with tempfile.TemporaryDirectory(prefix="mqjms-bench-strace-") as tmp:
        out = Path(tmp) / "trace"
        cmd = ["strace", "-f", "-qq", "-e", _SYSCALLS, "-o", str(out), *argv]
        done = subprocess.run(
            cmd, env=child_env(), capture_output=True, text=True, timeout=timeout, check=False
        )
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise RuntimeError(f"strace {argv[1:3]} exited {done.returncode}: {tail}")
        return parse(out.read_text())


def parse(trace: str) -> dict[str, int]:
    """Fsyncs per section of an strace output (sections do not nest)."""
    counts: Counter[str] = Counter()
    section: str | None = None
    for line in trace.splitlines():
        found = _MARK.search(line)
        if found:
            edge, name = found.groups()
            section = name if edge == "begin" else None
            if edge == "begin":
                counts[name] += 0
        elif section is not None and _SYNC.search(line):
            counts[section] += 1
    return dict(counts)
