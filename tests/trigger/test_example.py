"""examples/triggered works as its README says: the MQSC file defines a FIRST-triggered
queue whose worker the trigger monitor starts on demand."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.qmgr.mqsc import CommandResult
from mqjms.trigger import TriggerMonitor

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "triggered"


def test_triggered_example(
    qm: QueueManager, embedded_url: str, events: list[dict[str, Any]]
) -> None:
    results = qm.mqsc((EXAMPLE / "triggered.mqsc").read_text())
    assert all(isinstance(r, CommandResult) and r.ok for r in results), results
    qm.alter_process("ORDERS.SERVER", {"ENVRDATA": "--idle-timeout 1"})  # a quicker exit
    monitor = TriggerMonitor(
        embedded_url, "ORDERS.INITQ", cwd=str(EXAMPLE), poll_interval=0.2, stop_timeout=10
    )
    with monitor:
        conn = qm.connect("orders-client")
        for n in (1, 2, 3):
            conn.put("ORDERS.IN", MQMD(Format=C.MQFMT_STRING), f'{{"order": {n}}}'.encode())
        conn.put("ORDERS.IN", MQMD(Format=C.MQFMT_STRING), b'{"no": "order"}')
        conn.disconnect()
        deadline = time.monotonic() + 60
        while monitor.stats.exited < 1 and time.monotonic() < deadline:
            time.sleep(0.1)
    assert [r.status for r in monitor.history] == [0]
    # two listener threads print at once: lines may interleave, each text stays whole
    output = "\n".join(e["line"] for e in events if e.get("event") == "trigger.output")
    for n in (1, 2, 3):
        assert f": order {n} shipped" in output, output
    assert qm.queue_depth("ORDERS.IN") == 0
    assert qm.queue_depth("ORDERS.BACKOUT") == 1  # the poison one, after BOTHRESH(3)
