"""Programs a trigger monitor started: their process, their output, their exit.

Each program runs in a session of its own, so a Ctrl-C meant for the trigger monitor does
not reach it directly: the monitor decides how its programs stop (SIGTERM, then SIGKILL
after a deadline, to the whole process group). Standard output and standard error are
read by a thread and logged line by line (``trigger.output``); the last lines are kept
for the ``trigger.exited`` event of a program that failed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mqjms.logs import get_logger

from .command import describe, masked

log = get_logger("mqjms.trigger")

TAIL_LINES = 20  # output lines kept for the exit event of a failed program


@dataclass
class ChildRecord:
    """One program the monitor started: what, for which queue, and how it ended."""

    queue: str
    process: str
    argv: tuple[str, ...]
    pid: int
    started: float  # time.time()
    ended: float | None = None
    status: int | None = None  # exit status; -N when ended by signal N

    @property
    def running(self) -> bool:
        return self.status is None


@dataclass
class Child:
    """A running program and the trigger message waiting for its end (see the monitor)."""

    record: ChildRecord
    proc: subprocess.Popen[bytes]
    reader: threading.Thread
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    deferred: Any = None  # a trigger message for the queue that arrived while it ran

    @classmethod
    def start(
        cls,
        argv: Sequence[str],
        *,
        queue: str,
        process: str,
        env: Mapping[str, str],
        cwd: str | None = None,
    ) -> Child:
        """Start ``argv``; raises OSError when the program cannot be started."""
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(env),
            cwd=cwd,
            close_fds=True,
            start_new_session=os.name == "posix",
        )
        record = ChildRecord(queue, process, tuple(argv), proc.pid, time.time())
        child = cls(record, proc, threading.Thread())
        child.reader = threading.Thread(
            target=child._read_output, name=f"mqjms-trigger-output-{proc.pid}", daemon=True
        )
        child.reader.start()
        log.info(
            "trigger.started",
            queue=queue,
            process=process or None,
            pid=proc.pid,
            command=describe(argv),
        )
        return child

    def _read_output(self) -> None:
        stream = self.proc.stdout
        if stream is None:
            return
        argv = self.record.argv
        ctx = {
            "queue": self.record.queue,
            "process": self.record.process or None,
            "pid": self.record.pid,
        }
        for raw in iter(stream.readline, b""):
            line = masked(raw.decode("utf-8", errors="replace").rstrip("\r\n"), argv)
            self.tail.append(line)
            log.info("trigger.output", **ctx, line=line)
        stream.close()

    # ------------------------------------------------------------------ lifecycle
    def poll(self) -> int | None:
        return self.proc.poll()

    def signal(self, signum: int) -> None:
        """Send ``signum`` to the program's process group (the program and what it started)."""
        if self.proc.poll() is not None:
            return
        try:
            if os.name == "posix":
                os.killpg(self.proc.pid, signum)
            else:  # pragma: no cover - Windows
                self.proc.send_signal(signum)
        except ProcessLookupError:
            pass
        except PermissionError:  # the group has a member we may not signal: the leader only
            self.proc.send_signal(signum)

    def terminate(self) -> None:
        self.signal(signal.SIGTERM)

    def kill(self) -> None:
        self.signal(signal.SIGKILL if os.name == "posix" else signal.SIGTERM)

    def finish(self, status: int) -> ChildRecord:
        """Record the exit (the process has ended) and log ``trigger.exited``."""
        self.reader.join(timeout=2.0)
        record = self.record
        record.status = status
        record.ended = time.time()
        fields: dict[str, Any] = {
            "queue": record.queue,
            "process": record.process or None,
            "pid": record.pid,
            "status": status,
            "seconds": round(record.ended - record.started, 3),
        }
        if status < 0:
            try:
                fields["signal"] = signal.Signals(-status).name
            except ValueError:
                fields["signal"] = -status
        if status == 0:
            log.info("trigger.exited", **fields)
        else:
            log.warning("trigger.exited", **fields, last_output=list(self.tail))
        return record
