"""A separate OS process for the multi-process tests:
``python -m tests.qmgr.qmgr_child MODE URL QUEUE ...`` (the repository on ``PYTHONPATH``).

Protocol: log lines go to stderr; stdout carries only the lines this script prints
(``READY``, ``HELD <body>``, ``DONE <n>``), so the parent can wait for them.

Modes
  consume URL QUEUE OUT   connect, open, print READY, wait for a line on stdin, then get
                          under syncpoint and commit each message until none arrives for
                          0.5 s; write the bodies got (one per line) to OUT; print DONE n.
  hold URL QUEUE          get one message under syncpoint, print HELD <body>, then sleep
                          until killed (the parent sends SIGKILL).
  hold-exclusive URL QUEUE  open QUEUE for exclusive input, print HELD, sleep until killed.
  hold-dynamic URL MODEL  open a temporary dynamic queue from MODEL, print HELD <name>,
                          sleep until killed.
  subscribe URL TOPICSTR  make a non-durable managed subscription to TOPICSTR, print
                          HELD <its managed queue>, sleep until killed.
  put URL QUEUE N         put N persistent and N non-persistent messages, print DONE, and
                          end normally (closing the queue manager).
  put-and-stay URL QUEUE N  the same puts, print DONE, then sleep until killed (a process
                          ending wakes the waiting gets of the others: this one does not).
  abandon URL QUEUE OUT_Q get one message and put one to OUT_Q under syncpoint, print
                          HELD, and leave with os._exit(0): no disconnect, no commit.
  group URL QUEUE N       N threads, each its own connection, get under syncpoint and
                          commit messages until killed, printing ACKED <body> after each
                          commit returns (their commits share fsyncs: group commit).
"""

from __future__ import annotations

import os
import queue as queue_module
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO


def _quiet_logs() -> None:
    import structlog

    structlog.configure(logger_factory=structlog.PrintLoggerFactory(sys.stderr))


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    _quiet_logs()
    from mqjms.mq import MQMD, C
    from mqjms.transport import connect

    mode, url, queue, *rest = argv
    if mode == "hold-unrung":  # an mqjms older than the bells: its commits ring nobody
        from mqjms.qmgr import bells

        bells.ring_others = lambda qmgr_dir: None
        mode = "hold"
    conn = connect(url, f"child-{mode}")
    if mode == "consume":
        out_path = rest[0]
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        say("READY")
        sys.stdin.readline()
        bodies: list[bytes] = []
        while (got := conn.get(handle, wait=0.5, syncpoint=True)) is not None:
            conn.commit()
            bodies.append(got[1])
        with open(out_path, "wb") as out:
            out.write(b"".join(body + b"\n" for body in bodies))
        conn.disconnect()
        say(f"DONE {len(bodies)}")
        return 0
    if mode == "hold":
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        got = conn.get(handle, wait=5, syncpoint=True)
        assert got is not None, "nothing to hold"
        say("HELD " + got[1].decode())
        while True:
            time.sleep(60)
    if mode == "hold-then-drop":  # drop the connection (no MQDISC) on a line of stdin
        import gc

        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        got = conn.get(handle, wait=5, syncpoint=True)
        assert got is not None, "nothing to hold"
        say("HELD " + got[1].decode())
        sys.stdin.readline()
        del conn, handle
        gc.collect()
        say("DROPPED")
        while True:
            time.sleep(60)
    if mode == "hold-exclusive":
        conn.open(queue, C.MQOO_INPUT_EXCLUSIVE)
        say("HELD")
        while True:
            time.sleep(60)
    if mode == "hold-dynamic":
        handle = conn.open(queue, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
        conn.put(handle, MQMD(), b"on a temporary queue")
        say("HELD " + handle.name)
        while True:
            time.sleep(60)
    if mode == "subscribe":
        from mqjms.semantics.pubsub import SubscriptionDescriptor

        options = C.MQSO_CREATE | C.MQSO_MANAGED
        sub = conn.subscribe(SubscriptionDescriptor(options=options, object_string=queue))
        say("HELD " + sub.handle.resolved_name)
        while True:
            time.sleep(60)
    if mode in ("put", "put-and-stay"):
        count = int(rest[0])
        for i in range(count):
            conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), f"persistent {i}".encode())
            conn.put(queue, MQMD(Persistence=C.MQPER_NOT_PERSISTENT), f"transient {i}".encode())
        if mode == "put-and-stay":  # alive: its end wakes nobody
            say("DONE")
            while True:
                time.sleep(60)
        conn.disconnect()
        say("DONE")
        return 0
    if mode == "abandon":
        out_queue = rest[0]
        handle = conn.open(queue, C.MQOO_INPUT_SHARED)
        got = conn.get(handle, wait=5, syncpoint=True)
        assert got is not None, "nothing to get"
        conn.put(out_queue, MQMD(Persistence=C.MQPER_PERSISTENT), b"abandoned put", syncpoint=True)
        say("HELD " + got[1].decode())
        os._exit(0)  # no atexit, no disconnect: the unit of work is left behind
    if mode == "group":
        printing = threading.Lock()

        def consume() -> None:
            mine = connect(url, "child-group")
            handle = mine.open(queue, C.MQOO_INPUT_SHARED)
            while (got := mine.get(handle, wait=5, syncpoint=True)) is not None:
                mine.commit()
                with printing:
                    say("ACKED " + got[1].decode())

        threads = [threading.Thread(target=consume) for _ in range(int(rest[0]))]
        for thread in threads:
            thread.start()
        while True:
            time.sleep(60)
    raise SystemExit(f"unknown mode {mode!r}")


# --------------------------------------------------------------------------- parent side


class Child:
    """A running ``qmgr_child`` process, seen from the test: send lines, wait for lines,
    kill it. Its stderr (logs) goes to ``log_path``."""

    def __init__(self, log_path: Path, *args: str, prefix: Sequence[str] = ()) -> None:
        """``prefix``: a command to run the child under (``unshare --net``)."""
        self.log_path = log_path
        self._log: IO[bytes] = open(log_path, "wb")  # noqa: SIM115 - closed in wait()/kill()
        # ``tests`` is a package of the checkout, not of the installed mqjms: the child
        # finds it (and this checkout's mqjms) through PYTHONPATH.
        repo = str(Path(__file__).resolve().parents[2])
        env = dict(os.environ)
        env["PYTHONPATH"] = repo + os.pathsep + env.get("PYTHONPATH", "")
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "tests.qmgr.qmgr_child", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            env=env,
        )
        self._lines: queue_module.Queue[str | None] = queue_module.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self._lines.put(raw.decode().rstrip("\n"))
        self._lines.put(None)

    def expect(self, prefix: str, timeout: float = 30.0) -> str:
        """The next stdout line, which must start with ``prefix``."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue_module.Empty:
            raise AssertionError(
                f"child gave no {prefix!r} line in {timeout}s; {self.logs()}"
            ) from None
        if line is None or not line.startswith(prefix):
            raise AssertionError(f"child said {line!r}, expected {prefix!r}; {self.logs()}")
        return line[len(prefix) :].strip()

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def kill(self) -> None:
        """SIGKILL this child (by its own pid) and reap it."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        self._log.close()

    def wait(self, timeout: float = 60.0) -> int:
        code = self.proc.wait(timeout)
        self._log.close()
        return code

    def logs(self) -> str:
        self._log.flush()
        return "child stderr: " + self.log_path.read_text(errors="replace")[-2000:]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
