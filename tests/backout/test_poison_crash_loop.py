"""A message whose processing kills the process ends up on the backout queue (seed 002,
issue 3): the queue manager backs out the abandoned unit of work with BackoutCount + 1,
so after BOTHRESH crashes the next synchronous receive moves it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

IN, BOQ = "CRASH.IN", "CRASH.BACKOUT"
BOTHRESH = 3
REPO = Path(__file__).resolve().parents[2]

# The worker: receive in a transacted session, report what it got, then die by SIGKILL
# before committing (no cleanup, no MQDISC: the unit of work is abandoned).
WORKER = textwrap.dedent(
    """
    import os, signal, sys
    import mqjms

    url, queue = sys.argv[1], sys.argv[2]
    factory = mqjms.ConnectionFactory(url)
    connection = factory.connect()
    session = connection.session(transacted=True)
    message = session.consumer(queue).receive(timeout=5)
    if message is None:
        print("NONE", flush=True)
        session.commit()
        connection.close()
        sys.exit(0)
    print(f"GOT {message.body} {message.delivery_count}", flush=True)
    if message.body == "poison":
        os.kill(os.getpid(), signal.SIGKILL)
    session.commit()
    connection.close()
    """
)


def _run_worker(env: Any, cwd: Path) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), environment.get("PYTHONPATH", "")) if p
    )
    environment["MQJMS_LOG_LEVEL"] = "WARNING"
    return subprocess.run(
        [sys.executable, "-c", WORKER, env.url, IN],
        capture_output=True,
        text=True,
        timeout=30,
        env=environment,
        cwd=str(cwd),
    )


# The crashed message comes back behind the others on a STOMP broker; the crash loop on
# ActiveMQ is covered by tests/stomp/test_stomp_crash.py, which does not depend on order.
@pytest.mark.requires("processes")  # a child process runs the consumer
@pytest.mark.requires("backout_in_place")
@pytest.mark.requires("backout_count")
def test_crash_loop_ends_on_the_backout_queue_after_bothresh_restarts(
    env: Any, tmp_path: Path
) -> None:
    # seed 002: "Whenever a message is rolled back ... the queue manager automatically
    # increments the value of the BackoutCount" -- including a unit of work abandoned by
    # a process that died; BackoutCount >= BOTHRESH -> moved to BOQNAME.
    env.define_queue(IN, BOTHRESH=BOTHRESH, BOQNAME=BOQ, MSGDLVSQ="FIFO")
    env.define_queue(BOQ)
    poison = env.send(IN, "poison")
    env.send(IN, "good")
    outputs = []
    for attempt in range(1, BOTHRESH + 1):
        result = _run_worker(env, tmp_path)
        assert result.returncode == -signal.SIGKILL, result.stderr[-2000:]
        outputs.append(result.stdout.strip())
        assert result.stdout.strip() == f"GOT poison {attempt}", result.stderr[-2000:]
    # the restart after the BOTHRESH-th crash: the poison message is moved, "good" processed
    result = _run_worker(env, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "GOT good 1"
    assert env.depth(IN) == 0
    md, _ = env.browse_one(BOQ)
    assert md.MsgId == poison.md.MsgId
    assert md.BackoutCount == 0
    assert outputs == [f"GOT poison {n}" for n in range(1, BOTHRESH + 1)]
