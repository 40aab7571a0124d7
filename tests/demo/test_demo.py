"""``mqjms demo``: its summary must match the queue depths, and it must run on a fresh dir."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from mqjms.demo import BACKOUT, INPUT, make_orders, run_demo
from mqjms.mq import MQMD
from mqjms.transport.embedded import queue_manager


def test_orders_include_every_kind_of_poison() -> None:
    bodies = make_orders(100, poison_every=10)
    assert len(bodies) == 100
    assert sum('"quantity": -' in b for b in bodies) >= 3
    assert sum("UNOBTAINIUM" in b for b in bodies) >= 3
    assert sum(not b.endswith("}") for b in bodies) >= 3  # not even JSON


def test_summary_matches_the_queue_depths(tmp_path: Path) -> None:
    out = io.StringIO()
    summary = run_demo(f"embedded://{tmp_path}/qm", orders=300, poison_every=10, out=out)
    # seed 002: every poison message ends on the backout queue, or, once that is full
    # (MAXDEPTH 25), on the dead-letter queue; everything else is processed once
    assert summary.consistent, out.getvalue()
    assert summary.processed == 270
    assert summary.moved == summary.depths[BACKOUT] == 25
    assert summary.dead_lettered == summary.depths["DLQ+"] == 5
    assert summary.depths[INPUT] == 0
    assert "matches the queue depths" in out.getvalue()


def test_the_demo_says_which_messages_it_deleted(tmp_path: Path) -> None:
    # its queues are the README's ORDERS.IN and ORDERS.BACKOUT: it cleared a user's
    # orders there without a word (and its --help did not say it would)
    url = f"embedded://{tmp_path}/qm"
    qm = queue_manager(url)
    qm.define_queue("QLOCAL", INPUT)
    conn = qm.connect()
    conn.put(INPUT, MQMD(), b"a real order")
    conn.disconnect()
    out = io.StringIO()
    run_demo(url, orders=20, poison_every=10, out=out)
    assert f"(deleted the messages already there: 1 on {INPUT})" in out.getvalue()


def test_demo_command_on_a_fresh_directory(tmp_path: Path) -> None:
    env = dict(os.environ, MQJMS_URL="")
    env.pop("MQJMS_URL")
    result = subprocess.run(
        [sys.executable, "-m", "mqjms", "demo", "--orders", "200"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Summary (matches the queue depths)" in result.stdout
    assert (tmp_path / ".mqjms" / "qmgr.db").exists()  # the embedded default, ./.mqjms
