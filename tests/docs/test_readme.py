"""README.md runs as written (issue 13 item 8): every ``sh`` and ``python`` block, top to
bottom, in an empty directory, as a newcomer would type them, with the checkout's
``mqjms`` command. A block that cannot run here says so in an HTML comment above it
(``<!-- readme-test: skip (why) -->``); a Python block starting ``# file: NAME`` is a file
to save, not to run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
BLOCK = re.compile(
    r"(?P<skip><!-- readme-test: skip[^>]*-->\n)?^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```",
    re.S | re.M,
)
FILE_LINE = re.compile(r"# file: (?P<name>[\w./-]+)\n")


@dataclass(frozen=True)
class Block:
    line: int
    lang: str
    code: str
    skip: bool


def readme_blocks() -> list[Block]:
    text = README.read_text()
    return [
        Block(text.count("\n", 0, m.start("code")), m["lang"], m["code"], bool(m["skip"]))
        for m in BLOCK.finditer(text)
    ]


def test_every_block_is_run_or_says_why_not() -> None:
    blocks = readme_blocks()
    assert sum(b.lang in ("sh", "python") and not b.skip for b in blocks) >= 8
    for block in blocks:
        assert block.lang, f"README.md line {block.line}: a code block names its language"
        if block.skip:
            assert block.lang in ("sh", "python"), f"line {block.line}: only code is skipped"


def test_the_readme_runs_top_to_bottom(tmp_path: Path) -> None:
    work = tmp_path / "newcomer"
    work.mkdir()
    shims = tmp_path / "bin"
    shims.mkdir()
    command = shims / "mqjms"  # the checkout's mqjms, whatever else is installed
    command.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m mqjms "$@"\n')
    command.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQJMS_")}
    env["PATH"] = f"{shims}{os.pathsep}{os.path.dirname(sys.executable)}{os.pathsep}"
    env["PATH"] += os.environ.get("PATH", "")
    env["PYTHONPATH"] = str(REPO)
    outputs: dict[str, str] = {}
    for block in readme_blocks():
        if block.skip or block.lang not in ("sh", "python"):
            continue
        saved = FILE_LINE.match(block.code)
        if block.lang == "python" and saved:
            (work / saved["name"]).write_text(block.code)
            continue
        argv = (
            [sys.executable, "-c", block.code]
            if block.lang == "python"
            else ["bash", "-e", "-o", "pipefail", "-c", block.code]
        )
        done = subprocess.run(
            argv, cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False
        )
        if done.returncode != 0:
            pytest.fail(
                f"README.md block at line {block.line} ({block.lang}) exited "
                f"{done.returncode}:\n{block.code}\n--- stdout\n{done.stdout}\n"
                f"--- stderr\n{done.stderr}"
            )
        outputs[block.code] = done.stdout + done.stderr
    everything = "\n".join(outputs.values())
    # what the text says happened, happened
    assert "CURDEPTH(2)" in everything  # ORDERS.BACKOUT after the service ran
    assert everything.count("failed with") == 2  # the receive loop read both
    assert "2 passed" not in everything and "1 passed" in everything  # the user's test
    assert "Summary (matches the queue depths)" in everything  # the demo
