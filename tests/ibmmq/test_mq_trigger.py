"""The trigger monitor on mq://: the queue manager writes the trigger message (seed 003),
the monitor gets it through the real library and starts the process definition's program
with the MQTMC2 and the monitor's URL."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest

from mqjms import transport
from mqjms.mq import MQMD, parse_tmc2
from mqjms.trigger import TriggerMonitor
from tests.trigger.trigger_helpers import APPQ, INITQ, PROC, define_triggered

from .brokers import StandInBroker

RECORD_ARGS = Path(__file__).resolve().parent.parent / "trigger" / "record_args.py"


def test_seed_003_the_monitor_starts_the_program_of_a_queue_triggered_on_mq(
    mq: StandInBroker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "args.jsonl"
    monkeypatch.setenv("RECORD_ARGS_FILE", str(record))
    mq.qm.define_queue("QLOCAL", INITQ, {})
    mq.qm.define_process(
        PROC, {"APPLICID": f"{shlex.quote(sys.executable)} {shlex.quote(str(RECORD_ARGS))}"}
    )
    define_triggered(mq.qm)  # TRIGGER TRIGTYPE(FIRST) INITQ(APP.INITQ) PROCESS(APP.PROC)
    monitor = TriggerMonitor(mq.url, INITQ, poll_interval=0.1, stop_timeout=5.0)
    monitor.start()
    try:
        conn = transport.connect(mq.url)
        conn.put(APPQ, MQMD(), b"work")  # first message: a trigger event (seed 003)
        conn.disconnect()
        deadline = time.monotonic() + 20
        while monitor.stats.exited < 1:
            assert time.monotonic() < deadline, "the triggered program did not run"
            time.sleep(0.05)
    finally:
        monitor.stop(timeout=20.0)
    [call] = [json.loads(line) for line in record.read_text().splitlines()]
    tmc = parse_tmc2(call["argv"][0].encode("latin-1"))
    assert (tmc.QName, tmc.ProcessName, tmc.QMgrName) == (APPQ, PROC, "QM1")
    assert call["url"] == mq.url  # the program talks to the same queue manager
