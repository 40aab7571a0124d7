"""Exactly once into an idempotent sink across a kill -9 of the driver during batches."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from spark_support import Queues

HERE = Path(__file__).resolve().parent


def driver(url: str, tmp_path: Path, available_now: bool) -> subprocess.Popen[bytes]:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE.parents[1]), str(HERE)]))
    return subprocess.Popen(
        [
            sys.executable,
            str(HERE / "kill_driver.py"),
            url,
            str(tmp_path / "out"),
            str(tmp_path / "ck"),
            "1" if available_now else "0",
        ],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def committed_batches(tmp_path: Path) -> int:
    commits = tmp_path / "ck" / "commits"
    return len([p for p in commits.iterdir() if p.name.isdigit()]) if commits.exists() else 0


def test_kill_minus_nine_during_batches_loses_and_duplicates_nothing(
    spark: Any, tmp_path: Path
) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN")
    total = 600
    ids = queues.put_text("ORDERS.IN", *(f"order {i}" for i in range(total)))
    kills = 0
    for wanted in (2, 6):  # kill twice, each time after some batches, while others run
        proc = driver(queues.url, tmp_path, available_now=False)
        deadline = time.monotonic() + 240
        while committed_batches(tmp_path) < wanted and time.monotonic() < deadline:
            assert proc.poll() is None, "the driver ended on its own"
            time.sleep(0.05)
        time.sleep(0.15)  # into the next batch
        os.killpg(proc.pid, signal.SIGKILL)  # driver, JVM and Python workers at once
        proc.wait()
        kills += 1
    proc = driver(queues.url, tmp_path, available_now=True)  # the restart drains the rest
    assert proc.wait(timeout=300) == 0
    out = spark.read.parquet(str(tmp_path / "out"))
    assert kills == 2
    assert out.count() == total
    assert {r.msg_id for r in out.select("msg_id").collect()} == {i.hex() for i in ids}
    queues.close()
