"""Issue 5, "Done when": a trigger monitor running, 1,000 messages put to a triggered queue
with no worker running; a worker is started, drains the queue, exits after its idle
timeout; a second burst starts it again; no message is left behind and at most one worker
per FIRST event ran."""

from __future__ import annotations

import itertools
import shlex
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.trigger import TriggerMonitor

HERE = Path(__file__).resolve().parent
QUEUE = "E2E.Q"
INITQ = "E2E.INITQ"
PROCESS = "E2E.PROC"
BURST = 1000
IDLE_TIMEOUT = 2.0


def wait_for(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def burst(qm: QueueManager, prefix: str) -> None:
    conn = qm.connect("e2e-producer")
    try:
        for i in range(BURST):
            conn.put(QUEUE, MQMD(Format=C.MQFMT_STRING), f"{prefix}-{i:04d}".encode())
    finally:
        conn.disconnect()


def test_triggered_worker_scales_from_zero(
    qm: QueueManager, embedded_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "record.txt"
    monkeypatch.setenv("TRIGGERED_QUEUE", QUEUE)
    monkeypatch.setenv("TRIGGERED_RECORD", str(record))
    monkeypatch.setenv("TRIGGERED_CONCURRENCY", "2")
    app_spec = shlex.quote(f"{HERE / 'triggered_app.py'}:app")
    qm.mqsc(
        f"""
        DEFINE QLOCAL({INITQ})
        DEFINE PROCESS({PROCESS}) APPLTYPE(UNIX) APPLICID('mqjms run {app_spec}') +
               ENVRDATA('--idle-timeout {IDLE_TIMEOUT}')
        DEFINE QLOCAL({QUEUE}) TRIGGER TRIGTYPE(FIRST) INITQ({INITQ}) PROCESS({PROCESS})
        """
    )
    assert qm.display_queues(QUEUE, "QLOCAL", ["TRIGGER"])[0]["TRIGGER"] is True

    monitor = TriggerMonitor(embedded_url, INITQ, poll_interval=0.2, stop_timeout=20.0)
    monitor.start()
    try:
        # Burst 1: no worker runs; the first put is the FIRST trigger event.
        assert monitor.history == []
        burst(qm, "b1")
        wait_for(
            lambda: (
                qm.queue_depth(QUEUE) == 0 and monitor.stats.exited >= 1 and not monitor.running()
            ),
            timeout=90,
            what="the first worker to drain the queue and exit when idle",
        )
        first_runs = monitor.history
        assert len(first_runs) >= 1

        # Burst 2: the worker has gone; the queue is empty again, so FIRST triggers again.
        burst(qm, "b2")
        wait_for(
            lambda: (
                qm.queue_depth(QUEUE) == 0
                and len(monitor.history) > len(first_runs)
                and not monitor.running()
            ),
            timeout=90,
            what="a second worker to drain the queue and exit when idle",
        )
    finally:
        monitor.stop(timeout=60)

    # No message is left behind, none processed twice.
    assert qm.queue_depth(QUEUE) == 0
    bodies = [
        line.split(" ", 2)[2] for line in record.read_text().splitlines() if line.startswith("msg ")
    ]
    expected = {f"b{n}-{i:04d}" for n in (1, 2) for i in range(BURST)}
    assert set(bodies) == expected
    assert len(bodies) == len(expected)

    # Workers: each started by the monitor for one trigger message, each ended by its idle
    # timeout (status 0), never two at once.
    runs = monitor.history
    assert all(r.queue == QUEUE and r.status == 0 for r in runs), runs
    for earlier, later in itertools.pairwise(runs):
        assert earlier.ended is not None and earlier.ended <= later.started
    stats = monitor.stats.snapshot()
    assert stats["started"] == len(runs) >= 2
    assert stats["started"] <= stats["received"] - stats["duplicates"]  # one per event at most
    assert stats["not_started"] == stats["invalid"] == 0
    starts = [
        line.split()[1] for line in record.read_text().splitlines() if line.startswith("start ")
    ]
    assert sorted(int(pid) for pid in starts) == sorted(r.pid for r in runs)
    # The second burst was served by a worker started after the first one had exited.
    first_end = first_runs[-1].ended
    assert first_end is not None
    assert any(r.started >= first_end for r in runs[len(first_runs) :])
