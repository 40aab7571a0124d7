"""A fault the sink tests inject: partition 1 of a chosen micro-batch fails (or kills
the driver) once partition 0 of that batch has committed its messages into the sink.

That is the moment a replay would put partition 0's messages twice without the commit
markers: its unit of work is committed, the batch is not.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mqjms.mq import constants as C
from mqjms.transport import connect


def depth(url: str, queue: str) -> int:
    conn = connect(url, "mqjms-tests")
    try:
        return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])
    finally:
        conn.disconnect()


def gate(
    url: str, out_queue: str, batch: int, wait_for: int, flag: Path, kill: int | None = None
) -> Callable[[Any], Any]:
    """The body of a UDF that passes its value through, except once: in ``batch``,
    partition 1 waits until ``out_queue`` holds ``wait_for`` messages, then raises (or
    kills the process group ``kill``, the driver's and its JVM's: a kill -9 mid-batch;
    Python workers run in groups of their own)."""

    def through(value: Any) -> Any:
        from pyspark import TaskContext

        context = TaskContext.get()
        if (
            context is None
            or context.partitionId() != 1
            or context.getLocalProperty("streaming.sql.batchId") != str(batch)
            or flag.exists()
        ):
            return value
        deadline = time.monotonic() + 120
        while depth(url, out_queue) < wait_for and time.monotonic() < deadline:
            time.sleep(0.05)
        flag.touch()
        if kill is not None:
            os.killpg(kill, signal.SIGKILL)
        raise RuntimeError("injected: the executor was lost")

    return through
