"""``mqjms run module:app --idle-timeout SECONDS`` (issue 5): a triggered worker drains the
queue, stays while messages keep coming, and exits once idle."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import mqjms
from mqjms.cli import main
from mqjms.mq import MQMD, MQTM, C, MQError
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Connection, Handle
from mqjms.trigger import stop_when_idle, tmc2_argument
from tests.trigger.trigger_helpers import put

HERE = Path(__file__).resolve().parent
APP_SPEC = f"{HERE / 'triggered_app.py'}:app"
QUEUE = "RUN.Q"


@pytest.fixture
def served(tqm: QueueManager, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    tqm.define_queue("QLOCAL", QUEUE)
    record = tmp_path / "record.txt"
    monkeypatch.setenv("TRIGGERED_QUEUE", QUEUE)
    monkeypatch.setenv("TRIGGERED_RECORD", str(record))
    return record


def lines(path: Path, kind: str) -> list[str]:
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line.startswith(kind + " ")]


def test_run_drains_and_exits_when_idle(
    tqm: QueueManager, app: QMConnection, served: Path, embedded_url: str
) -> None:
    put(app, QUEUE, n=25)
    started = time.monotonic()
    status = main(["run", APP_SPEC, "--url", embedded_url, "--idle-timeout", "0.5"])
    assert status == 0
    assert time.monotonic() - started >= 0.5
    assert len(lines(served, "msg")) == 25
    assert tqm.queue_depth(QUEUE) == 0
    assert len(lines(served, "start")) == len(lines(served, "stop")) == 1


def test_a_triggered_worker_commits_and_gets_in_one_step_per_message(
    tqm: QueueManager,
    app: QMConnection,
    served: Path,
    embedded_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # issue 8: the --idle-timeout wrapper declares what the connection it wraps can do, so
    # each message's MQCMIT and the next MQGET stay one database transaction (it hid
    # commit_and_get: 0 combined calls, two transactions a message)
    combined: list[Handle] = []  # MQCMIT + MQGET in one transaction
    alone: list[bool] = []  # an MQCMIT of a unit of work, in a transaction of its own
    commit_and_get, commit = QMConnection.commit_and_get, QMConnection.commit

    def counted_commit_and_get(self: QMConnection, handle: Handle) -> tuple[MQMD, bytes] | None:
        combined.append(handle)
        return commit_and_get(self, handle)

    def counted_commit(self: QMConnection) -> None:
        if self.in_unit_of_work:
            alone.append(True)
        commit(self)

    monkeypatch.setattr(QMConnection, "commit_and_get", counted_commit_and_get)
    monkeypatch.setattr(QMConnection, "commit", counted_commit)
    put(app, QUEUE, n=25)
    assert main(["run", APP_SPEC, "--url", embedded_url, "--idle-timeout", "0.5"]) == 0
    assert len(lines(served, "msg")) == 25
    assert len(combined) + len(alone) == 25, (len(combined), len(alone))
    # a consumer's first message may be got in its turn and committed alone (two
    # consumers); every other message is committed together with the next get
    assert len(alone) <= 2


def test_run_stays_while_messages_keep_coming(
    tqm: QueueManager, app: QMConnection, served: Path, embedded_url: str
) -> None:
    # "stay while messages keep coming": a message every 0.3 s for ~2 s keeps a worker with
    # a 3 s idle timeout running
    stop = threading.Event()

    def producer() -> None:
        conn = tqm.connect("producer")
        for _ in range(7):
            put(conn, QUEUE)
            if stop.wait(0.3):
                break
        conn.disconnect()

    feeder = threading.Thread(target=producer)
    feeder.start()
    try:
        status = main(["run", APP_SPEC, "--url", embedded_url, "--idle-timeout", "3.0"])
    finally:
        stop.set()
        feeder.join()
    assert status == 0
    assert len(lines(served, "msg")) == 7  # all of them by one worker run
    assert len(lines(served, "start")) == 1


def test_idle_timeout_waits_for_the_message_in_flight(
    tqm: QueueManager, app: QMConnection, embedded_url: str
) -> None:
    # a listener busy for longer than the idle timeout is not idle: it finishes and commits
    tqm.define_queue("QLOCAL", QUEUE)
    worker = mqjms.Worker(embedded_url, shutdown_timeout=10.0)
    worker.get_wait = 0.1
    done: list[str] = []

    @worker.listener(QUEUE)
    def slow(msg: mqjms.Message) -> None:
        time.sleep(1.5)
        done.append(str(msg.body))

    put(app, QUEUE, n=2)
    watch = stop_when_idle(worker, 0.8)
    result: list[int] = []
    runner = threading.Thread(target=lambda: result.append(worker.run()))
    runner.start()
    runner.join(30)
    assert result == [0]
    assert watch.fired.is_set()
    assert len(done) == 2
    assert worker.stats.snapshot()["committed"] == 2
    assert worker.stats.snapshot()["backed_out"] == 0
    assert tqm.queue_depth(QUEUE) == 0


def test_run_logs_the_trigger_it_was_started_for(
    tqm: QueueManager, served: Path, embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    tmc2 = tmc2_argument(
        MQTM(QName=QUEUE, ProcessName="RUN.PROC", ApplType=C.MQAT_UNIX, ApplId="x"), tqm.name
    )
    assert main(["run", APP_SPEC, tmc2, "--url", embedded_url, "--idle-timeout", "0.2"]) == 0
    err = capsys.readouterr().err
    assert "worker.triggered" in err and "queue=RUN.Q" in err and "process=RUN.PROC" in err
    other = tmc2_argument(MQTM(QName="OTHER.Q", ApplType=C.MQAT_UNIX, ApplId="x"), tqm.name)
    assert main(["run", APP_SPEC, other, "--url", embedded_url, "--idle-timeout", "0.2"]) == 0
    assert "worker.trigger_queue_not_served" in capsys.readouterr().err
    assert main(["run", APP_SPEC, "junk", "--url", embedded_url, "--idle-timeout", "0.2"]) == 0
    assert "worker.trigger_not_understood" in capsys.readouterr().err


def test_an_argument_that_is_no_trigger_message_is_never_logged(
    tqm: QueueManager, served: Path, embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a fault probe: a URL given where the MQTMC2 goes (``mqjms run svc:app stomp://...``)
    # was logged as it was, its password with it
    url = "stomp://app:S3cretPW@broker:61613"
    assert main(["run", APP_SPEC, url, "--url", embedded_url, "--idle-timeout", "0.2"]) == 0
    err = capsys.readouterr().err
    assert "worker.trigger_not_understood" in err and f"argument_length={len(url)}" in err
    assert "S3cretPW" not in err


def test_run_takes_the_trigger_message_after_its_options(
    tqm: QueueManager, served: Path, embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a trigger monitor appends the MQTMC2 to APPLICID, which may end with run's options
    # (APPLICID('mqjms run svc:app --idle-timeout 5')): it was "unrecognized arguments"
    # and the triggered queue was never served
    tmc2 = tmc2_argument(
        MQTM(QName=QUEUE, ProcessName="RUN.PROC", ApplType=C.MQAT_UNIX, ApplId="x"), tqm.name
    )
    assert main(["run", APP_SPEC, "--url", embedded_url, "--idle-timeout", "0.2", tmc2]) == 0
    assert "worker.triggered" in capsys.readouterr().err
    argv = ["run", APP_SPEC, "--idle-timeout", "0.2", tmc2, "more"]
    assert main(argv) == 2  # one trigger message at most, in run's own usage
    err = capsys.readouterr().err
    assert "usage: mqjms run" in err and "unrecognized arguments" in err


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (["run", "no_such_module_xyz:app"], 2),
        (["run", APP_SPEC, "--idle-timeout", "0"], 2),
        (["run", APP_SPEC, "--idle-timeout", "soon"], 2),
    ],
)
def test_run_usage_errors(tqm: QueueManager, argv: list[str], status: int) -> None:
    assert main(argv) == status


def test_idle_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError):
        stop_when_idle(mqjms.Worker(), 0)


def test_an_idle_timeout_stops_a_worker_that_ran_and_stopped_before(
    tqm: QueueManager, embedded_url: str
) -> None:
    # `mqjms run` of the same app again (a test, a loop) uses the Worker its module made,
    # which still said "stopping" from its last run until it started: a watcher that
    # looked first believed the worker was stopping for another reason and gave up, and
    # the run never ended (a CI run hung so)
    tqm.define_queue("QLOCAL", "AGAIN.Q")
    worker = mqjms.Worker(embedded_url)
    worker.listener("AGAIN.Q")(lambda message: None)
    worker.request_stop()  # as its last run left it
    watch = stop_when_idle(worker, 0.2)
    time.sleep(0.1)  # the watcher looks before the worker starts
    runner = threading.Thread(target=worker.run, daemon=True)
    runner.start()
    runner.join(30)
    stuck = runner.is_alive()
    if stuck:
        worker.request_stop()
        runner.join(30)
    watch.cancel()
    assert not stuck and watch.fired.is_set()


def test_an_idle_timeout_counts_only_while_the_queue_is_served(
    tqm: QueueManager, app: QMConnection, embedded_url: str
) -> None:
    # the idle clock ran from the start: a worker that could not connect (a broker down)
    # was "idle", stopped cleanly (exit status 0) and left its queue as it was
    tqm.define_queue("QLOCAL", QUEUE)
    put(app, QUEUE, n=3)
    worker = mqjms.Worker(embedded_url)
    worker.get_wait = 0.1
    done: list[str] = []
    worker.listener(QUEUE)(lambda msg: done.append(str(msg.body)))
    down_until = time.monotonic() + 1.0
    connect = worker.connector

    def broker_down_for_a_second(url: str, appl_name: str | None) -> Connection:
        if time.monotonic() < down_until:
            raise MQError(C.MQCC_FAILED, C.MQRC_HOST_NOT_AVAILABLE, "the broker is down")
        return connect(url, appl_name)

    worker.connector = broker_down_for_a_second
    watch = stop_when_idle(worker, 0.3)
    result: list[int] = []
    runner = threading.Thread(target=lambda: result.append(worker.run()))
    runner.start()
    runner.join(30)
    assert result == [0] and watch.fired.is_set()
    assert len(done) == 3 and tqm.queue_depth(QUEUE) == 0
