"""SIGTERM, SIGINT and SIGHUP (a terminal that hangs up) under ``Worker.run()`` in a real
process: the first stops getting and lets the in-flight message finish and commit; a
second cuts the deadline short. SIGHUP killed the worker outright, in-flight message
backed out with BackoutCount + 1."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.listeners.helpers import IN, wait_for

REPO = Path(__file__).resolve().parents[2]

APP = textwrap.dedent(
    """
    import os
    import sys
    import time

    import mqjms

    app = mqjms.Worker(os.environ["SIG_URL"], shutdown_timeout=float(os.environ["SIG_TIMEOUT"]))
    app.get_wait = 0.1
    marker = os.environ["SIG_MARKER"]


    @app.listener("APP.IN")
    def handle(msg: mqjms.Message) -> None:
        open(marker + ".started", "w").close()
        time.sleep(float(os.environ["SIG_WORK"]))
        open(marker + ".finished", "w").close()


    sys.exit(app.run())
    """
)


def start_worker(
    mq, tmp_path: Path, timeout: float, work: float
) -> tuple[subprocess.Popen[bytes], Path]:
    script = tmp_path / "sigapp.py"
    script.write_text(APP)
    marker = tmp_path / "marker"
    env = dict(
        os.environ,
        SIG_URL=mq.url,
        SIG_TIMEOUT=str(timeout),
        SIG_WORK=str(work),
        SIG_MARKER=str(marker),
        MQJMS_LOG_LEVEL="INFO",  # a library logs INFO on request
        PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    )
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return proc, marker


@pytest.mark.requires("processes")  # a child process runs the consumer
@pytest.mark.parametrize(
    "sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["SIGINT", "SIGTERM", "SIGHUP"]
)
def test_a_signal_lets_the_in_flight_message_finish_and_commit(mq, tmp_path: Path, sig) -> None:
    mq.send(IN, "slow", "next")
    proc, marker = start_worker(mq, tmp_path, timeout=30, work=0.5)
    try:
        wait_for(lambda: Path(f"{marker}.started").exists() or proc.poll() is not None)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err.decode()[-2000:]
    assert Path(f"{marker}.finished").exists()
    # the in-flight message was committed; the next one was never got (no backout added)
    [(md, data)] = mq.browse_raw(IN)
    assert b"next" in data and md.BackoutCount == 0
    assert b"worker.signal" in err and b"shutdown_deadline_exceeded" not in err


@pytest.mark.requires("processes")  # a child process runs the consumer
def test_a_second_signal_cuts_the_deadline_short(mq, tmp_path: Path) -> None:
    mq.send(IN, "stuck")
    proc, marker = start_worker(mq, tmp_path, timeout=60, work=60)
    try:
        wait_for(lambda: Path(f"{marker}.started").exists() or proc.poll() is not None)
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 1, err.decode()[-2000:]  # a message had to be backed out
    assert b"worker.forced_stop" in err and b"worker.shutdown_deadline_exceeded" in err
    wait_for(lambda: mq.browse_raw(IN))
    [(md, _)] = mq.browse_raw(IN)
    assert md.BackoutCount == 1


@pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="no SIGHUP here")
def test_sighup_is_taken_only_from_its_default() -> None:
    # an application's own SIGHUP handler (logs reopened after logrotate's kill -HUP)
    # stays; nohup's SIG_IGN too; only the default (a hang-up kills) becomes a stop
    from mqjms.listeners import signals

    def reopen_logs(signum: int, frame: object) -> None: ...

    saved = signal.getsignal(signal.SIGHUP)
    try:
        for before, taken in (
            (reopen_logs, False),
            (signal.SIG_IGN, False),
            (signal.SIG_DFL, True),
        ):
            signal.signal(signal.SIGHUP, before)
            with signals.handled(lambda signum: None):
                assert (signal.getsignal(signal.SIGHUP) is not before) is taken
            assert signal.getsignal(signal.SIGHUP) is before  # restored
    finally:
        signal.signal(signal.SIGHUP, saved)
