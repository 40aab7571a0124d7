"""No phantom backouts: a message a subscription held unseen keeps its BackoutCount.

A prefetch-1 subscription may hold the next message when it ends. ActiveMQ takes such a
message back marked ``redelivered:true``, which the transport counts as a backout (a
crashed consumer looks the same). Every path that ends a subscription must give it back
with its count unchanged, and the proof must come from *another process* (this one
remembers what it returned, so reading here would hide the bug).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from activemq_support import StompBroker

from mqjms.transport.stomp import subscriptions

REPO = Path(__file__).resolve().parents[2]

READ_ALL = textwrap.dedent(
    """
    import json, sys
    from mqjms.mq import C
    from mqjms.transport import connect
    conn = connect(sys.argv[1])
    for queue in sys.argv[2:]:
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        while (got := conn.get(handle, wait=1.0)) is not None:
            md, data = got
            print(json.dumps([queue, data[-2:].decode(), md.BackoutCount]), flush=True)
    conn.disconnect()
    """
)

RECEIVE_ONE = textwrap.dedent(
    """
    import sys, time
    import mqjms
    url, how = sys.argv[1], sys.argv[2]
    with mqjms.ConnectionFactory(url).connect() as connection:
        session = connection.session(transacted=True)
        consumer = session.consumer("CRON.IN")
        message = consumer.receive(timeout=10)
        assert message is not None
        session.commit()
        if how == "close":
            consumer.close()  # MQCLOSE while the subscription holds the next message
        elif how == "idle":
            time.sleep(0.5)  # the idle handle gives its message back, then MQDISC
        print(message.body, flush=True)
    """
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=120, env=env
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result


def _read_all(url: str, *queues: str) -> list[tuple[str, str, int]]:
    out = _run("-c", READ_ALL, url, *queues).stdout.splitlines()
    return [tuple(json.loads(line)) for line in out]  # type: ignore[misc]


def _put(url: str, queue: str, count: int) -> None:
    from mqjms.mq import MQMD
    from mqjms.transport import connect

    conn = connect(url)
    try:
        for number in range(count):
            conn.put(queue, MQMD(CorrelId=b"BATCH-1".ljust(24, b"\0")), f"m{number}".encode())
    finally:
        conn.disconnect()


def test_a_cron_consumer_run_bothresh_times_moves_nothing(amq: StompBroker) -> None:
    # seed 002: only a backout raises BackoutCount, and only BackoutCount >= BOTHRESH
    # moves a message. A consumer that receives one message, commits and ends (closing
    # the consumer, or idling first) has backed nothing out, however often it runs.
    url = amq.child_url(bothresh=2, boqname="CRON.BO")
    _put(url, "CRON.IN", 5)
    runs = ["close", "idle", "close", "idle"]
    got = [_run("-c", RECEIVE_ONE, url, how).stdout.strip() for how in runs]
    assert len(set(got)) == len(runs)
    left = _read_all(url, "CRON.IN", "CRON.BO")
    assert [(queue, count) for queue, _, count in left] == [("CRON.IN", 0)]


def test_mqjms_get_leaves_the_next_message_uncounted(amq: StompBroker) -> None:
    # seed 002: BackoutCount counts backouts. `mqjms get` (plain, then matching a
    # CorrelId: a subscription of its own) commits one message each time and exits.
    url = amq.child_url()
    _put(url, "GET.IN", 3)
    correl = b"BATCH-1".ljust(24, b"\0").hex()
    _run("-m", "mqjms", "get", "--url", url, "GET.IN")
    _run("-m", "mqjms", "get", "--url", url, "--correl-id", correl, "GET.IN")
    assert [count for _, _, count in _read_all(url, "GET.IN")] == [0]


COMPETITOR = textwrap.dedent(
    """
    import sys
    from mqjms.mq import C
    from mqjms.transport import connect
    conn = connect(sys.argv[1])
    handle = conn.open("RACE.IN", C.MQOO_INPUT_SHARED)
    got = conn.get(handle, wait=30, syncpoint=True)
    conn.commit()
    print(got[1].decode(), got[0].BackoutCount, flush=True)
    conn.disconnect()
    """
)


def test_a_waiting_consumer_elsewhere_does_not_count_a_closed_consumers_message(
    amq: StompBroker, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The message a closing consumer held goes back while another process waits for
    # one: that process must not see it as redelivered (seed 002: no backout happened).
    # The idle release would give it back before the other process is up: keep it away.
    monkeypatch.setattr(subscriptions, "IDLE_RELEASE", 120.0)
    url = amq.child_url()
    _put(url, "RACE.IN", 2)
    from mqjms.mq import C
    from mqjms.transport import connect

    conn = connect(url)
    try:
        handle = conn.open("RACE.IN", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
        assert conn.get(handle, wait=10, syncpoint=True) is not None
        conn.commit()  # the subscription now holds m1 unseen
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        }
        waiting = subprocess.Popen(
            [sys.executable, "-c", COMPETITOR, url], stdout=subprocess.PIPE, text=True, env=env
        )
        try:
            for _ in range(600):  # until the other process waits on the queue too
                if conn.inquire(handle, [C.MQIA_OPEN_INPUT_COUNT])[C.MQIA_OPEN_INPUT_COUNT] >= 2:
                    break
                time.sleep(0.05)
            conn.close(handle)
            out, _ = waiting.communicate(timeout=60)
        finally:
            if waiting.poll() is None:
                waiting.kill()
    finally:
        conn.disconnect()
    assert out.split() == ["m1", "0"]
