"""Innocent neighbours of a crash loop (hardening item 19).

With concurrency > 1, a message that kills the process takes the messages in flight
beside it through the same backouts: the queue manager backs out every unit of work the
dead process left, each with BackoutCount + 1 (IBM MQ does the same). Without isolation
the good neighbours reach BOTHRESH with the poison message and land on the backout queue.

The Worker's rule (README, "Suspects run alone"): a message with BackoutCount > 0 is
processed alone, while no other consumer of its queue holds a message, unless its last
backout was the worker's own after its listener raised; a worker starts with its queues in
that mode. So after a restart a crash counts only against the suspect.
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
from typing import Any

import pytest

import mqjms
from mqjms.backout import Failure, FailureMemory
from mqjms.listeners.isolation import SuspectGate
from mqjms.mq import C
from tests.listeners.helpers import IN, back_out, wait_for

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


def _overlap_recorder() -> tuple[Any, list[tuple[str, int]], list[Any]]:
    """A listener body that records each delivery and the deliveries that ran beside one
    with BackoutCount > 0; the list of deliveries; the list of overlaps."""
    lock = threading.Lock()
    running: set[tuple[str, int]] = set()
    overlaps: list[Any] = []
    done: list[tuple[str, int]] = []

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

    return handle, done, overlaps


@pytest.mark.requires("backout_in_place")
def test_a_message_backed_out_elsewhere_never_runs_beside_another(mq, make_worker) -> None:
    # The rule behind the crash test, in one process: while a suspect (BackoutCount > 0,
    # the backout not one this worker made after its listener raised: a crash, another
    # process) is being processed no other message of its queue is, and none starts
    # meanwhile.
    bodies = [f"good{i}" for i in range(30)]
    mq.send(IN, *bodies[:6])
    back_out(mq.url, IN, messages=6)  # as if a process died holding them
    mq.send(IN, *bodies[6:])
    app = make_worker()
    handle, done, overlaps = _overlap_recorder()
    app.listener(IN, concurrency=4)(handle)
    with app:
        wait_for(lambda: mq.depth(IN) == 0 and app.stats.committed == len(bodies), 30)
    assert overlaps == []
    assert sorted(body for body, _ in done) == sorted(bodies)
    assert sum(1 for _, count in done if count > 0) == 6  # each suspect, alone, once


def test_a_listener_retry_is_no_suspect(mq, make_worker) -> None:
    # A message backed out because its listener raised here did not crash anything: its
    # retry runs as any message (no turns, no waiting for the others), and still reaches
    # BOTHRESH by its own backouts (seed 002).
    app = make_worker()
    handle, done, _ = _overlap_recorder()
    app.listener(IN, concurrency=4)(handle)
    bodies = [f"flaky{i}" if i % 5 == 2 else f"good{i}" for i in range(30)]
    with app:
        mq.send(IN, *bodies)
        wait_for(lambda: mq.depth(IN) == 0 and app.stats.committed == len(bodies), 30)
    succeeded = [body for body, count in done if not (body.startswith("flaky") and count == 0)]
    assert sorted(succeeded) == sorted(bodies)
    assert sum(1 for _, count in done if count > 0) == 6  # each flaky one, retried once


def test_the_failure_memory_tells_its_own_backouts_from_others() -> None:
    memory = FailureMemory()
    failure = Failure("builtins.ValueError", "no", "handle", IN)
    msg_id = b"m" * 24
    assert not memory.explains(msg_id, 1)  # never failed here: a crash, another process
    memory.remember(msg_id, failure, 0)  # raised at BackoutCount 0, then backed out
    assert memory.explains(msg_id, 1)
    assert not memory.explains(msg_id, 2)  # backed out once more since: not by us
    memory.remember(msg_id, failure)  # count unknown: never explains
    assert not memory.explains(msg_id, 1)
    memory.remember(msg_id, failure, 0, "2026112312000000")
    assert memory.explains(msg_id, 1, "2026112312000000")
    assert not memory.explains(msg_id, 1, "2026112312000001")  # another message, same MsgId
    memory.remember(msg_id, failure, 1)
    memory.forget(msg_id)  # committed: history
    assert not memory.explains(msg_id, 2)


def test_a_suspect_waiting_to_run_alone_is_woken_by_an_empty_turn() -> None:
    # An empty turn (its get found nothing) ends without waking the consumers waiting for
    # a turn, but a suspect waiting to run alone waits for exactly that, with no timeout.
    gate, stopping = SuspectGate(), threading.Event()
    holder, suspect = object(), object()
    in_turn, suspect_waits, ran = threading.Event(), threading.Event(), threading.Event()

    def run_alone() -> None:
        in_turn.wait(10)
        suspect_waits.set()
        with gate.alone(suspect):
            ran.set()

    thread = threading.Thread(target=run_alone, daemon=True)
    thread.start()
    with gate.turn(holder, stopping) as mine:
        assert mine
        in_turn.set()
        suspect_waits.wait(10)
        time.sleep(0.05)  # the suspect is in alone(), waiting for this turn to end
        gate.turn_was_empty()
    thread.join(10)
    assert ran.is_set(), "the suspect was never woken"
