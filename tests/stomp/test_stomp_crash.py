"""Crashes on ActiveMQ: the broker killed under a working Worker, and a consumer that
kills itself on a poison message (seed 002: the crash loop must end at BOTHRESH)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import mqjms
from mqjms.mq import MQMD, C, parse_chain
from mqjms.transport import connect
from tests.stomp.activemq_support import StompBroker, kill_activemq, start_activemq

TOTAL = 5000


def _load(url: str, queue: str, bodies: list[bytes]) -> None:
    conn = connect(url, "loader")
    try:
        for start in range(0, len(bodies), 500):
            for body in bodies[start : start + 500]:
                conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), body, syncpoint=True)
            conn.commit()
    finally:
        conn.disconnect()


def _drain_bodies(url: str, queue: str) -> list[tuple[int, bytes]]:
    conn = connect(url, "drainer")
    try:
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        out = []
        while (got := conn.get(handle, wait=0.5)) is not None:
            out.append((got[0].BackoutCount, got[1]))
        return out
    finally:
        conn.disconnect()


@pytest.mark.slow
def test_broker_killed_and_restarted_under_a_worker_loses_nothing(amq: StompBroker) -> None:
    concurrency = 2
    amq.define_queue("RESTART.IN", BOTHRESH=5, BOQNAME="RESTART.BO", DEFPSIST="YES")
    amq.define_queue("RESTART.BO")
    bodies = [f"m{i:05d}".encode() for i in range(TOTAL)]
    _load(amq.url, "RESTART.IN", bodies)

    processed: list[bytes] = []
    lock = threading.Lock()
    app = mqjms.Worker(amq.url, shutdown_timeout=10)

    @app.listener("RESTART.IN", concurrency=concurrency)
    def work(message: mqjms.Message) -> None:
        with lock:
            processed.append(
                message.body.encode() if isinstance(message.body, str) else message.body
            )

    app.start()
    try:
        deadline = time.monotonic() + 120
        while len(processed) < TOTAL // 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(processed) >= TOTAL // 4, "the worker did not get going"
        kill_activemq()  # SIGKILL: no clean shutdown, units of work in flight
        killed_at = len(processed)
        time.sleep(1.0)
        start_activemq()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with lock:
                if len(set(processed)) >= TOTAL:
                    break
            time.sleep(0.2)
    finally:
        app.stop()
    on_backout_queue = [body for _, body in _drain_bodies(amq.url, "RESTART.BO")]
    left_on_input = _drain_bodies(amq.url, "RESTART.IN")
    unique = set(processed)
    duplicates = len(processed) - len(unique)
    print(
        f"\nbroker restart: {TOTAL} messages, killed after {killed_at} processed; "
        f"processed {len(unique)} unique, {duplicates} duplicate(s), "
        f"{len(on_backout_queue)} on the backout queue, {len(left_on_input)} left on input"
    )
    assert not left_on_input
    assert unique | set(on_backout_queue) == set(bodies)  # none lost
    # Only a unit of work in flight at the kill can be processed twice (its commit was
    # lost with the broker): at most one per consumer thread.
    assert duplicates <= concurrency, f"{duplicates} duplicates"


CRASHER = textwrap.dedent(
    """
    import os, signal, sys
    import mqjms
    factory = mqjms.ConnectionFactory(sys.argv[1])
    with factory.connect() as connection, connection.session(transacted=True) as session:
        consumer = session.consumer("LOOP.IN")
        while (message := consumer.receive(timeout=3)) is not None:
            if message.body == "poison":
                os.kill(os.getpid(), signal.SIGKILL)  # dies mid unit of work
            session.commit()
        session.commit()  # seed 002: a poison message is moved within the unit of work
    """
)


def test_crash_loop_ends_with_the_message_on_the_backout_queue(amq: StompBroker) -> None:
    # seed 002: BackoutCount >= BOTHRESH -> moved to BOQNAME. A consumer that dies while
    # processing a message must count as a backout (redelivered -> count + 1, made
    # durable before the next delivery), or the loop would never end.
    bothresh = 3
    url = amq.child_url(bothresh=bothresh, boqname="LOOP.BO")
    with mqjms.ConnectionFactory(url).connect() as connection, connection.session() as session:
        producer = session.producer("LOOP.IN")
        for body in ("before", "poison", "after"):
            producer.send(body)
    crashes = 0
    for _ in range(bothresh + 3):  # the supervisor: restart the consumer until it ends
        result = subprocess.run(
            [sys.executable, "-c", CRASHER, url],
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ},
        )
        if result.returncode == 0:
            break
        assert result.returncode == -signal.SIGKILL, result.stderr
        crashes += 1
    else:
        pytest.fail("the crash loop did not end")
    assert crashes == bothresh
    moved = _drain_bodies(url, "LOOP.BO")
    assert len(moved) == 1
    backout_count, data = moved[0]
    assert backout_count == 0  # seed 002: reset to zero on the backout queue
    conn = connect(url)
    try:
        assert _drain_bodies(url, "LOOP.IN") == []
        # the JMS message keeps its RFH2 and body
        chain = parse_chain(data, C.MQENC_NORMAL, 1208, C.MQFMT_RF_HEADER_2)
        assert chain.body == b"poison"
    finally:
        conn.disconnect()
