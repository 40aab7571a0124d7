"""Child processes of the benchmarks that measure across processes, driven over stdin and
stdout so that the parent decides when the timed part starts (their imports and start-up
are not timed).

    python bench/_children.py drain URL QUEUE CONCURRENCY
        a Worker with a no-op listener, started (imported, connected, its gets waiting)
        before it prints ``ready``, so that what the parent times is the draining only;
        stops on ``stop`` and prints how many messages it committed.
    python bench/_children.py produce URL QUEUE COUNT SEED
        puts COUNT non-persistent messages one at a time, a random 1-9 ms apart, each
        carrying the CLOCK_MONOTONIC time of its put (system-wide on Linux, so the
        listener in another process can subtract it); prints ``done``.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import child_env, quiet_logging

#: Worker.get_wait in the benchmarks: how soon an idle consumer sees a stop. It only
#: matters once the queue is empty, after the timed part.
STOP_LATENCY = 0.1


def now() -> float:
    """The clock both sides of a cross-process latency read."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def _expect(line: str) -> None:
    got = sys.stdin.readline().strip()
    if got != line:
        raise SystemExit(f"expected {line!r} on stdin, got {got!r}")


def drain(url: str, queue: str, concurrency: int) -> None:
    from mqjms.listeners import Worker

    app = Worker(url, appl_name="bench-drain", shutdown_timeout=10)
    app.get_wait = STOP_LATENCY

    @app.listener(queue, concurrency=concurrency)
    def noop(msg: object) -> None:
        pass

    app.start()
    print("ready", flush=True)
    try:
        _expect("stop")
    finally:  # also when the parent is gone (end of input): never leave consumers running
        app.stop()
    print(app.stats.committed, flush=True)


def produce(url: str, queue: str, count: int, seed: int) -> None:
    from mqjms.mq import constants as C
    from mqjms.mq.md import MQMD
    from mqjms.transport import connect

    conn = connect(url, "bench-producer")
    handle = conn.open(queue, C.MQOO_OUTPUT)
    md = MQMD(Format=C.MQFMT_STRING, Persistence=C.MQPER_NOT_PERSISTENT)
    gaps = random.Random(seed)
    print("ready", flush=True)
    _expect("go")
    for _ in range(count):
        time.sleep(gaps.uniform(0.001, 0.009))
        conn.put(handle, md, repr(now()).encode())
    conn.disconnect()
    print("done", flush=True)


def spawn(count: int, role: str, *args: object) -> list[subprocess.Popen[str]]:
    """Start ``count`` children in ``role`` (in parallel); all have said ``ready`` when this
    returns."""
    children = [
        subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), role, *map(str, args)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )
        for _ in range(count)
    ]
    for child in children:
        expect(child, "ready")
    return children


def tell(children: Sequence[subprocess.Popen[str]], line: str) -> None:
    for child in children:
        assert child.stdin is not None
        child.stdin.write(line + "\n")
        child.stdin.flush()


def finish(children: Sequence[subprocess.Popen[str]], timeout: float = 30.0) -> None:
    """End of input for each child, then its exit (killed when it does not come); raises
    when one did not exit with status 0."""
    failed = []
    for child in children:
        if child.stdin is not None and not child.stdin.closed:
            child.stdin.close()
        try:
            status = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            child.kill()
            status = child.wait()
        if child.stdout is not None:
            child.stdout.close()
        if status != 0:
            failed.append(status)
    if failed:
        raise RuntimeError(f"{len(failed)} child process(es) failed: exit status {failed}")


def expect(child: subprocess.Popen[str], line: str | None = None) -> str:
    """The child's next line (which must be ``line`` when given)."""
    assert child.stdout is not None
    got = child.stdout.readline().strip()
    if line is not None and got != line:
        child.kill()
        raise RuntimeError(
            f"child {child.args[2:]} said {got!r}, expected {line!r} (exit status {child.wait()})"
        )
    return got


def main(argv: list[str]) -> None:
    quiet_logging()
    role, *rest = argv
    if role == "drain":
        drain(rest[0], rest[1], int(rest[2]))
    elif role == "produce":
        produce(rest[0], rest[1], int(rest[2]), int(rest[3]))
    else:
        raise SystemExit(f"unknown role {role!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
