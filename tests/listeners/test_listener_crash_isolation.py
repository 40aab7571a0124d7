"""Innocent neighbours of a crash loop (hardening item 19).

With concurrency > 1, a message that kills the process takes the messages in flight
beside it through the same backouts: the queue manager backs out every unit of work the
dead process left, each with BackoutCount + 1 (IBM MQ does the same). Without isolation
the good neighbours reach BOTHRESH with the poison message and land on the backout queue.

The Worker's rule (README, "Crash loops"): a message with BackoutCount > 0 is processed
alone, while no other consumer of its queue holds a message, and a worker starts with
its queues in that mode. So after a restart a crash counts only against the suspect.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import mqjms
from mqjms.mq import C
from tests.listeners.helpers import IN, wait_for

REPO = Path(__file__).resolve().parents[2]
QUEUE, BACKOUT, BOTHRESH, CONCURRENCY = "ISOLATE.IN", "ISOLATE.BACKOUT", 2, 4

APP = textwrap.dedent(
    """
    import os
    import time

    import mqjms

    app = mqjms.Worker(os.environ["CRASH_URL"], shutdown_timeout=5)
    app.get_wait = 0.1


    @app.listener("ISOLATE.IN", concurrency=int(os.environ["CRASH_CONCURRENCY"]))
    def handle(msg: mqjms.Message) -> None:
        if msg.body == "poison":
            time.sleep(0.2)  # the neighbours are got meanwhile: in flight when it dies
            os._exit(3)  # the process dies inside the unit of work
        time.sleep(0.4)  # slower than the poison message: still in flight at its crash
        with open(os.environ["CRASH_RECORD"], "a") as record:
            record.write(f"{msg.body} {msg.delivery_count}\\n")
            record.flush()
            os.fsync(record.fileno())
    """
)
RUN = "import sys; from mqjms.listeners.runner import run; sys.exit(run(sys.argv[1]))"


@pytest.mark.slow
# The rule needs the suspects first after a restart, while the queues are serial. On a STOMP
# broker the copies that carry the raised counts go to the back of the queue, behind fresh
# messages, so the restarted worker is getting concurrently when it meets them and a crash
# counts against the suspects got beside the guilty one (README, "Suspects run alone").
@pytest.mark.requires("processes")  # a child process runs the consumer
@pytest.mark.requires("backout_in_place")
def test_only_the_message_that_kills_the_worker_reaches_the_backout_queue(
    mq, tmp_path: Path
) -> None:
    # seed 002: BackoutCount >= BOTHRESH -> BOQNAME. Only the message that kills the
    # process may get there: neighbours in flight at a crash are backed out too (+1), but
    # after the restart each message with BackoutCount > 0 runs alone, so the next crash
    # counts against the poison message only.
    mq.define_queue(QUEUE, BOTHRESH=BOTHRESH, BOQNAME=BACKOUT)
    mq.define_queue(BACKOUT)
    bodies = [f"m{i:02d}" for i in range(12)]
    bodies.insert(1, "poison")
    mq.send(QUEUE, *bodies)
    app_file = tmp_path / "isolateapp.py"
    app_file.write_text(APP)
    record = tmp_path / "processed.txt"
    env = dict(
        os.environ,
        CRASH_URL=mq.url,
        CRASH_RECORD=str(record),
        CRASH_CONCURRENCY=str(CONCURRENCY),
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    )
    logs = tmp_path / "worker.log"

    deaths, deadline = 0, time.monotonic() + 120
    with logs.open("w") as stderr:
        while True:  # the supervisor: restart the worker until the queue is drained
            worker = subprocess.Popen(
                [sys.executable, "-c", RUN, f"{app_file}:app"],
                env=env,
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=stderr,
            )
            try:
                while worker.poll() is None and mq.depth(QUEUE) > 0:
                    assert time.monotonic() < deadline, logs.read_text()[-3000:]
                    time.sleep(0.05)
            finally:
                if worker.poll() is None and mq.depth(QUEUE) > 0:
                    worker.kill()
            if worker.poll() is None:  # drained: a graceful stop (SIGTERM) ends the run
                worker.send_signal(signal.SIGTERM)
                assert worker.wait(20) == 0, logs.read_text()[-3000:]
                break
            assert worker.returncode == 3, logs.read_text()[-3000:]
            deaths += 1
            assert deaths <= BOTHRESH, "the poison message was delivered after BOTHRESH"

    assert deaths == BOTHRESH  # BackoutCount 0, 1: at 2 it is poison and never delivered
    moved = mq.browse_raw(BACKOUT)  # moved in the unit of work of the get: complete now
    assert [b"poison" in data for _, data in moved] == [True], "neighbours were moved too"
    assert moved[0][0].BackoutCount == 0 and moved[0][0].Format == C.MQFMT_RF_HEADER_2
    processed = record.read_text().split()[0::2]
    assert sorted(set(processed)) == sorted(b for b in bodies if b != "poison")
    assert mq.depth(QUEUE) == 0


def test_a_message_with_a_backout_count_never_runs_beside_another(mq, make_worker) -> None:
    # The rule behind the crash test, in one process: while a suspect (BackoutCount > 0)
    # is being processed no other message of its queue is, and none starts meanwhile.
    app = make_worker()
    lock = threading.Lock()
    running: set[tuple[str, int]] = set()
    overlaps: list[tuple[str, int, list[tuple[str, int]]]] = []
    done: list[tuple[str, int]] = []

    @app.listener(IN, concurrency=4)
    def handle(msg: mqjms.Message) -> None:
        me = (str(msg.body), msg.md.BackoutCount)
        with lock:
            if any(count > 0 for _, count in running | {me}) and running:
                overlaps.append((*me, sorted(running)))
            running.add(me)
        time.sleep(0.02)
        with lock:
            running.discard(me)
            done.append(me)
        if me[0].startswith("flaky") and me[1] == 0:
            raise ValueError("fails once")  # backed out: comes back with BackoutCount 1

    bodies = [f"flaky{i}" if i % 5 == 2 else f"good{i}" for i in range(30)]
    with app:
        mq.send(IN, *bodies)
        wait_for(lambda: mq.depth(IN) == 0 and app.stats.committed == len(bodies), 30)
    assert overlaps == []
    succeeded = [body for body, count in done if not (body.startswith("flaky") and count == 0)]
    assert sorted(succeeded) == sorted(bodies)
    assert sum(1 for _, count in done if count > 0) == 6  # each flaky one, alone, once
