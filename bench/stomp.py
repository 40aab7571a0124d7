#!/usr/bin/env python3
"""Benchmark: a Worker listener on ActiveMQ against a bare stomp.py consume loop (issue 4).

    python bench/stomp.py [--messages N] [--rounds R] [--url stomp://...] [--quick] [--json]

Both contenders consume the same number of identical persistent JMS messages (an RFH2
with mcd/jms/usr folders, 256-byte text body, as mqjms's JMS producer writes them) from
their own queue on the same broker, in interleaved rounds (the disk's fsync time probed
before each round: the broker's journal syncs too):

* **bare**: stomp.py alone, the least a transactional STOMP consumer must do: one
  subscription with ``ack:client-individual`` and ``activemq.prefetchSize:1``, TCP_NODELAY,
  and per message BEGIN, ACK in the transaction, COMMIT with a receipt.
* **listener**: ``mqjms.Worker`` with one no-op listener (concurrency 1) on the STOMP
  transport, timed from ``start()`` to the N-th commit: poison check, the JMS view of the
  message (RFH2 parsed), the call, the commit, BackoutCount bookkeeping.

The figure is the ratio listener / bare per round (median and spread); the target,
>= 0.85, is information. Without ``--url`` the broker is started with scripts/activemq
(and stopped after; ``MQJMS_STOMP_PORT`` chooses its port). The exit status is 0 unless
the benchmark broke.
"""

from __future__ import annotations

import argparse
import queue
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

_HERE = Path(__file__).resolve().parent
# This file is named like the stomp.py package: never let it shadow the real one.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]
if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(_HERE.parent))

import stomp  # type: ignore[import-untyped]  # noqa: E402

from bench._common import (  # noqa: E402
    Countdown,
    FsyncProbe,
    Report,
    Rounds,
    add_common_args,
    clock,
    finish_args,
    quiet_logging,
    scratch_dir,
)
from mqjms.jms.message import Queue, TextMessage, to_mq  # noqa: E402
from mqjms.listeners import Worker  # noqa: E402
from mqjms.transport import connect  # noqa: E402
from mqjms.transport.stomp.mapping import to_frame  # noqa: E402

TARGET_RATIO = ">= 0.85"
REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "activemq"


class Bare:
    """stomp.py with nothing on top: the floor any STOMP consumer pays."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.frames: queue.Queue[dict[str, str]] = queue.Queue()
        self.receipts: queue.Queue[str] = queue.Queue()
        outer = self

        class Listener(stomp.ConnectionListener):  # type: ignore[misc]
            def on_message(self, frame):  # type: ignore[no-untyped-def]
                outer.frames.put(frame.headers)

            def on_receipt(self, frame):  # type: ignore[no-untyped-def]
                outer.receipts.put(frame.headers["receipt-id"])

        self.conn = stomp.Connection12(
            [(parts.hostname or "127.0.0.1", parts.port or 61613)], auto_decode=False
        )
        self.conn.set_listener("bench", Listener())
        self.conn.connect(wait=True)
        self.conn.transport.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def consume(self, destination: str, n: int) -> float:
        sub = uuid.uuid4().hex
        start = time.perf_counter()
        self.conn.subscribe(
            destination, sub, ack="client-individual", headers={"activemq.prefetchSize": "1"}
        )
        for i in range(n):
            headers = self.frames.get(timeout=30)
            tx = f"tx-{i}"
            self.conn.begin(tx)
            self.conn.ack(headers["ack"], transaction=tx)
            self.conn.commit(tx, headers={"receipt": tx})
            self.receipts.get(timeout=30)
        elapsed = time.perf_counter() - start
        self.conn.unsubscribe(sub)
        return elapsed

    def load(self, destination: str, headers: dict[str, str], body: bytes, n: int) -> None:
        """Put ``n`` copies in transactions of 500 (fast, and durable at each COMMIT)."""
        for start in range(0, n, 500):
            tx = f"load-{uuid.uuid4().hex}"
            self.conn.begin(tx)
            for _ in range(min(500, n - start)):
                self.conn.send(destination, body, headers={**headers, "transaction": tx})
            self.conn.commit(tx, headers={"receipt": tx})
            while self.receipts.get(timeout=60) != tx:
                pass

    def close(self) -> None:
        self.conn.disconnect()


def jms_frame(prefix: str) -> tuple[dict[str, str], bytes]:
    """The STOMP frame of one persistent JMS TextMessage as mqjms puts it."""
    message = TextMessage("x" * 256, {"order": 42, "region": "emea"})
    md, data = to_mq(message, Queue("BENCH"))
    md.MsgId = uuid.uuid4().bytes + b"\0" * 8
    md.PutApplName, md.PutDate, md.PutTime = "bench", "20240101", "00000000"
    headers, body = to_frame(md, data, prefix=prefix)
    headers.pop("expires", None)
    return headers, body


def listener_consume(url: str, queue_name: str, n: int) -> float:
    """A Worker with a no-op listener, from ``start()`` to the n-th commit (the bare loop
    too waits for each commit's receipt)."""
    app = Worker(url, shutdown_timeout=5)
    countdown = Countdown(n)
    app.listener(queue_name)(countdown)
    with clock() as took:
        app.start()
        countdown.wait_committed(app, n, timeout=600)
    app.stop()
    if app.stats.committed < n:
        raise RuntimeError(f"the listener committed {app.stats.committed} of {n} ({app.error!r})")
    return took().seconds


def ensure_broker(url: str | None) -> tuple[str, bool]:
    if url:
        return url, False
    if subprocess.run(["bash", str(SCRIPT), "status"], capture_output=True).returncode == 0:
        out = subprocess.run(["bash", str(SCRIPT), "url"], capture_output=True, text=True)
        return out.stdout.strip(), False
    started = subprocess.run(["bash", str(SCRIPT), "start"], capture_output=True, text=True)
    if started.returncode != 0:
        raise SystemExit(f"cannot start ActiveMQ: {started.stderr.strip()}")
    out = subprocess.run(["bash", str(SCRIPT), "url"], capture_output=True, text=True)
    return out.stdout.strip(), True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/stomp.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, help="messages per run (default 2000; 300 quick)")
    parser.add_argument("--url", help="a running broker (default: start one)")
    add_common_args(parser, rounds=5, quick_rounds=3)
    args = parser.parse_args(argv)
    if args.messages is None:
        args.messages = 300 if args.quick else 2000
    finish_args(parser, args, "messages")
    quiet_logging()
    report = Report("stomp", "Worker listener on ActiveMQ vs. a bare stomp.py consume loop")
    base, started = ensure_broker(args.url)
    prefix = f"BENCH{uuid.uuid4().hex[:8]}."
    url = f"{base}{'&' if '?' in base else '?'}prefix={prefix}"
    try:
        connect(url).disconnect()  # fail early with a clear error
        bare = Bare(base)
        headers, body = jms_frame(prefix)
        names = iter(range(10_000))

        def run_bare(n: int) -> float:
            destination = f"/queue/{prefix}BARE.{next(names)}"
            bare.load(destination, headers, body, n)
            return bare.consume(destination, n)

        def run_listener(n: int) -> float:
            name = f"LISTENER.{next(names)}"
            bare.load(f"/queue/{prefix}{name}", headers, body, n)
            return listener_consume(url, name, n)

        with scratch_dir(args.dir, "stomp") as root, clock() as wall:
            probe = FsyncProbe(root)
            try:
                rounds = Rounds.run(
                    {"bare": run_bare, "listener": run_listener},
                    args.messages,
                    args.rounds,
                    probe,
                    warmup=min(200, args.messages),
                )
            finally:
                probe.close()
                bare.close()
    finally:
        if started:
            subprocess.run(["bash", str(SCRIPT), "stop"], capture_output=True)
    report.metric(
        "config.messages",
        "messages per run",
        args.messages,
        note=f"persistent JMS; {args.rounds} interleaved rounds",
    )
    report.disk(rounds.fsync)
    report.section("messages per second")
    report.rate("rates.bare", "bare stomp.py transactional loop", rounds.rate("bare"))
    report.rate("rates.listener", "mqjms Worker listener", rounds.rate("listener"))
    report.section("ratio (per round)")
    report.ratio("ratio", "listener / bare", rounds.ratio("listener", "bare"), TARGET_RATIO)
    report.metric("time_s", "time taken", round(wall().seconds, 1), "s")
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
