"""The crash loop (issue 3, "Done when"): a listener that kills its own process on one
message, under a supervisor that restarts the worker each time it dies.

The queue manager backs out the unit of work a dead process abandoned, with BackoutCount
+ 1 (mqjms/qmgr/manager.py: the next opener of the directory recovers it). So after
BOTHRESH restarts the message is poison, and the worker moves it to the backout queue
(seed 002 async) without delivering it again; every other message is processed once.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from tests.listeners.helpers import wait_for

REPO = Path(__file__).resolve().parents[2]
QUEUE, BACKOUT, BOTHRESH = "CRASH.IN", "CRASH.BACKOUT", 3

APP = textwrap.dedent(
    """
    import os
    import signal

    import mqjms

    app = mqjms.Worker(os.environ["CRASH_URL"], shutdown_timeout=5)
    app.get_wait = 0.1


    @app.listener("CRASH.IN")
    def handle(msg: mqjms.Message) -> None:
        if msg.body == "poison":
            os.kill(os.getpid(), signal.SIGKILL)  # dies inside the unit of work
        with open(os.environ["CRASH_RECORD"], "a") as record:
            record.write(f"{msg.body} {msg.delivery_count}\\n")
            record.flush()
            os.fsync(record.fileno())
    """
)
RUN = "import sys; from mqjms.listeners.runner import run; sys.exit(run(sys.argv[1]))"


@pytest.mark.requires("processes")  # a child process runs the consumer
@pytest.mark.slow
def test_a_message_that_kills_the_worker_ends_on_the_backout_queue(mq, tmp_path: Path) -> None:
    mq.define_queue(QUEUE, BOTHRESH=BOTHRESH, BOQNAME=BACKOUT)
    mq.define_queue(BACKOUT)
    bodies = [f"m{i}" for i in range(10)]
    bodies.insert(3, "poison")
    mq.send(QUEUE, *bodies)  # persistent, so they would survive a queue manager restart too
    app_file = tmp_path / "crashapp.py"
    app_file.write_text(APP)
    record = tmp_path / "processed.txt"
    env = dict(
        os.environ,
        CRASH_URL=mq.url,
        CRASH_RECORD=str(record),
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    )
    logs = tmp_path / "worker.log"

    def drained(record: Path) -> bool:
        """Every good message processed, the poison moved and the input queue empty."""
        done = record.read_text().split()[0::2] if record.exists() else []
        return len(done) == len(bodies) - 1 and mq.depth(BACKOUT) == 1 and mq.depth(QUEUE) == 0

    deaths, deadline = 0, time.monotonic() + 60
    with logs.open("w") as stderr:
        while True:  # the supervisor
            worker = subprocess.Popen(
                [sys.executable, "-c", RUN, f"{app_file}:app"],
                env=env,
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            try:
                while worker.poll() is None and not drained(record):
                    assert time.monotonic() < deadline, logs.read_text()[-3000:]
                    time.sleep(0.05)
            except BaseException:
                worker.kill()
                worker.wait()
                raise
            # Decided once: a depth read a second time can differ while a broker
            # redelivers (the message in flight is not counted), so a worker must not
            # be killed here and then asked to stop gracefully.
            if worker.poll() is None:  # drained: a graceful stop (SIGTERM) ends the run
                worker.send_signal(signal.SIGTERM)
                assert worker.wait(20) == 0, logs.read_text()[-3000:]
                break
            assert worker.returncode == -signal.SIGKILL, logs.read_text()[-3000:]
            deaths += 1
            assert deaths <= BOTHRESH, "the poison message was delivered after BOTHRESH"

    # Each death backed the message out once (BackoutCount 0, 1, 2); at 3 it is poison.
    assert deaths == BOTHRESH
    wait_for(lambda: mq.depth(BACKOUT) == 1)
    [(md, data)] = mq.browse_raw(BACKOUT)
    assert isinstance(md, MQMD) and md.BackoutCount == 0 and md.Format == C.MQFMT_RF_HEADER_2
    assert b"poison" in data
    lines = record.read_text().split()
    processed = lines[0::2]
    assert sorted(processed) == sorted(b for b in bodies if b != "poison")
    assert len(processed) == len(set(processed))  # exactly once
    assert set(lines[1::2]) == {"1"}  # and each on its first delivery
    assert mq.depth(QUEUE) == 0
