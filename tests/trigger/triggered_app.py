"""The worker the trigger tests start through a trigger monitor (``mqjms run
tests/trigger/triggered_app.py:app``): it serves ``$TRIGGERED_QUEUE`` and appends what it
does to ``$TRIGGERED_RECORD``, one line per event: ``start PID``, ``msg PID BODY``,
``stop PID``. The URL comes from ``MQJMS_URL``, which the trigger monitor sets."""

from __future__ import annotations

import os
import threading

import mqjms

QUEUE = os.environ.get("TRIGGERED_QUEUE", "E2E.Q")
RECORD = os.environ.get("TRIGGERED_RECORD", "")
CONCURRENCY = int(os.environ.get("TRIGGERED_CONCURRENCY", "2"))

app = mqjms.Worker(shutdown_timeout=10.0)
app.get_wait = 0.2
_lock = threading.Lock()


def record(line: str) -> None:
    if not RECORD:
        return
    with _lock, open(RECORD, "a", encoding="utf-8") as out:
        out.write(line + "\n")


@app.on_start
def started() -> None:
    record(f"start {os.getpid()}")


@app.on_stop
def stopped() -> None:
    record(f"stop {os.getpid()}")


@app.listener(QUEUE, concurrency=CONCURRENCY)
def handle(msg: mqjms.Message) -> None:
    body = msg.body.decode() if isinstance(msg.body, bytes) else str(msg.body)
    record(f"msg {os.getpid()} {body}")
