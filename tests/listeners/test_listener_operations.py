"""Operating a Worker (issue 13 items 10, 12, 13): one line for a listener queue that is
not defined, ``worker.started`` only once connected, one traceback per poison message,
per-listener stats, Prometheus metrics and health checks over HTTP or a file."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import mqjms
from mqjms.listeners.exporter import HealthFile, OperationsServer
from mqjms.listeners.health import Health
from mqjms.mq import C, MQError
from mqjms.testing import TestQueueManager
from tests.listeners.helpers import BOQ, IN, named, wait_for

OPERATIONS = "operations are transport-independent: the Worker's own numbers"


def fetch(server: OperationsServer, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def metric(text: str, name: str, **labels: str) -> float:
    """The value of one sample in Prometheus text."""
    wanted = ",".join(f'{key}="{value}"' for key, value in labels.items())
    prefix = f"{name}{{{wanted}}} " if labels else f"{name} "
    for line in text.splitlines():
        if line.startswith(prefix):
            return float(line[len(prefix) :])
    raise AssertionError(f"no sample {prefix!r} in:\n{text}")


@pytest.mark.embedded_only(OPERATIONS)
def test_per_listener_counters_histograms_and_depth_as_metrics(
    mq: TestQueueManager, make_worker: Callable[..., mqjms.Worker]
) -> None:
    mq.define_queue("APP.OTHER", BOTHRESH=1, BOQNAME=BOQ)
    for n in range(3):
        mq.put(IN, f"good {n}")
    mq.put(IN, "bad")
    mq.put("APP.OTHER", "left alone")
    app = make_worker()

    @app.listener(IN)
    def orders(msg: mqjms.Message) -> None:
        if msg.body == "bad":
            raise ValueError("bad order")

    @app.listener("APP.OTHER")
    def other(msg: mqjms.Message) -> None:
        raise RuntimeError("always")

    server = OperationsServer(app, 0, "127.0.0.1")
    server.start()
    try:
        assert fetch(server, "/readyz")[0] == 503  # not started: not consuming
        summary = mq.run_until_idle(app, timeout=30)
        text = fetch(server, "/metrics")[1]
    finally:
        server.stop()
    name, other_name = (lst.name for lst in app.listeners)
    labels = {"listener": name, "queue": IN}
    stats = app.stats.listeners[name]
    # the same numbers through Worker.stats and the metrics
    # 3 good; the bad one failed at BackoutCount 0, 1, 2 and was moved by the third
    # failure (the backout that would bring it to BOTHRESH 3), got no 4th time
    assert (stats.received, stats.committed, stats.failed, stats.moved) == (6, 3, 3, 1)
    assert stats.backed_out == 3 and summary.moved == 2
    assert metric(text, "mqjms_messages_received_total", **labels) == 6
    assert metric(text, "mqjms_messages_processed_total", **labels) == 3
    assert metric(text, "mqjms_messages_failed_total", **labels) == 3
    assert metric(text, "mqjms_messages_backed_out_total", **labels) == 3
    assert metric(text, "mqjms_messages_moved_total", **labels) == 1
    assert metric(text, "mqjms_messages_dead_lettered_total", **labels) == 0
    assert metric(text, "mqjms_processing_seconds_count", **labels) == stats.processing.count == 6
    assert metric(text, "mqjms_processing_seconds_bucket", le="+Inf", **labels) == 6
    assert metric(text, "mqjms_messages_in_flight", **labels) == 0
    other_labels = {"listener": other_name, "queue": "APP.OTHER"}
    assert metric(text, "mqjms_messages_failed_total", **other_labels) >= 1
    # a worker that has stopped inquires depth all the same (its own connection)
    assert app.queue_depths() == {IN: 0, "APP.OTHER": 0}
    assert mq.depth(BOQ) == 2


@pytest.mark.embedded_only(OPERATIONS)
def test_depth_gauge_and_readiness_while_running(
    mq: TestQueueManager, make_worker: Callable[..., mqjms.Worker]
) -> None:
    mq.define_queue("APP.UNREAD")
    mq.put("APP.UNREAD", "one")
    mq.put("APP.UNREAD", "two")
    app = make_worker()
    app.listener(IN)(lambda msg: None)
    server = OperationsServer(app, 0, "127.0.0.1")
    server.start()
    app.start()
    try:
        wait_for(lambda: app.health().ready, what="ready")
        status, body = fetch(server, "/readyz")
        assert status == 200 and json.loads(body)["connected"] == 1
        assert fetch(server, "/healthz")[0] == 200
        text = fetch(server, "/metrics")[1]
        assert metric(text, "mqjms_queue_depth", queue=IN) == 0
        assert metric(text, "mqjms_worker_ready") == 1
        assert app.queue_depths() == {IN: 0}  # only the listeners' queues
    finally:
        app.stop()
        assert fetch(server, "/readyz")[0] == 503
        assert fetch(server, "/healthz")[0] == 503
        server.stop()


@pytest.mark.embedded_only(OPERATIONS)
def test_started_is_logged_once_connected_and_readiness_follows(
    mq: TestQueueManager,
    make_worker: Callable[..., mqjms.Worker],
    events: list[dict[str, Any]],
    tmp_path: Path,
) -> None:
    # issue 13 item 10: worker.started is not logged while nothing is connected
    app = make_worker()
    app.listener(IN)(lambda msg: None)
    failing = {"left": 3}
    connect = app.connector

    def flaky(url: str, appl: str | None) -> Any:
        if failing["left"] > 0:
            failing["left"] -= 1
            raise MQError(C.MQCC_FAILED, C.MQRC_Q_MGR_NOT_AVAILABLE, "not yet")
        return connect(url, appl)

    app.connector = flaky
    health_file = HealthFile(app, tmp_path / "ready", interval=0.05)
    health_file.start()
    app.start()
    try:
        if failing["left"] > 0:  # still retrying: live, not ready, not started
            assert not named(events, "worker.started")
        wait_for(lambda: bool(named(events, "worker.started")), what="worker.started")
        assert app.health().ready
        wait_for((tmp_path / "ready").exists, what="the health file")
        assert json.loads((tmp_path / "ready").read_text())["ready"] is True
    finally:
        app.stop()
        health_file.stop()
    order = [e["event"] for e in events if e["event"] in ("worker.connecting", "worker.started")]
    assert order == ["worker.connecting"] * 3 + ["worker.started"]
    assert not (tmp_path / "ready").exists()  # removed once the worker stopped


def test_the_health_file_is_private_and_never_written_through_a_planted_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # in a shared directory another user may plant links: the temporary file's name is
    # random and made exclusively, so the file a link points at is never overwritten
    class Ready:
        def health(self) -> Any:
            return Health.of(
                running=True, stopping=False, alive=1, connected=1, consumers=1, error=None
            )

    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (tmp_path / ".ready.tmp").symlink_to(victim)  # the name a fixed-name writer would use
    (tmp_path / "ready").symlink_to(victim)
    old_umask = os.umask(0)
    try:
        assert HealthFile(Ready(), tmp_path / "ready").update()  # type: ignore[arg-type]
    finally:
        os.umask(old_umask)
    assert victim.read_text() == "precious\n"
    written = tmp_path / "ready"
    assert not written.is_symlink() and json.loads(written.read_text())["ready"] is True
    assert written.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ready.tmp", "ready", "victim"]


def test_a_health_file_that_cannot_be_written_is_logged_once_not_every_look(
    tmp_path: Path, events: list[dict[str, Any]]
) -> None:
    # a --health-file in a directory that does not exist: one warning, then the retries
    # every interval are quiet (it logged every 0.25 s); a write that works again says so
    class Ready:
        def health(self) -> Any:
            return Health.of(
                running=True, stopping=False, alive=1, connected=1, consumers=1, error=None
            )

    missing = tmp_path / "not-yet"
    health_file = HealthFile(Ready(), missing / "ready", interval=0.02)  # type: ignore[arg-type]
    health_file.start()
    try:
        time.sleep(0.3)
        missing.mkdir()
        wait_for((missing / "ready").exists, what="the health file")
    finally:
        health_file.stop()
    names = [e["event"] for e in events]
    assert names.count("worker.health_file_failed") == 1
    assert names.count("worker.health_file_written") == 1
    # it named the temporary file (".ready.x8f2k1q"), not the directory to create
    [failed] = [e for e in events if e["event"] == "worker.health_file_failed"]
    assert failed["error"] == (
        f"cannot write {missing / 'ready'}: the directory {missing} does not exist "
        "(create it; each write tries again)"
    )


def test_a_health_file_that_can_never_be_written_is_refused_at_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # --health-file naming a directory ran the worker, then failed its stop (exit 1,
    # "Is a directory"): now the start says so, before any message is got
    from mqjms.cli import main

    app_file = tmp_path / "svc.py"
    app_file.write_text("import mqjms\napp = mqjms.Worker()\napp.listener('Q')(print)\n")
    url = f"embedded://{tmp_path / 'qm'}"
    assert main(["run", f"{app_file}:app", "--url", url, "--health-file", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"--health-file {tmp_path} is a directory: name a file in it" in err
    with pytest.raises(ValueError, match="is a directory"):
        HealthFile(mqjms.Worker(url), tmp_path)


@pytest.mark.embedded_only("the definition to make is MQSC for the embedded queue manager")
def test_a_listener_queue_that_is_not_defined_is_one_line(
    mq: TestQueueManager, make_worker: Callable[..., mqjms.Worker], events: list[dict[str, Any]]
) -> None:
    app = make_worker()
    app.listener("NOT.DEFINED")(lambda msg: None)
    assert app.run() == 1
    problems = [e for e in events if e["log_level"] in ("error", "critical", "warning")]
    assert [e["event"] for e in problems] == ["worker.start_failed"]
    [failure] = problems
    assert failure["reason"] == "MQRC_UNKNOWN_OBJECT_NAME"
    assert "'NOT.DEFINED'" in failure["error"] and mq.url in failure["error"]
    assert 'DEFINE QLOCAL(NOT.DEFINED)" | mqjms mqsc --url' in failure["error"]
    assert "exc_info" not in failure and "exception" not in failure
    assert not named(events, "worker.started") and not named(events, "worker.stopping")


def test_one_traceback_per_poison_message_at_the_move(
    mq: TestQueueManager, make_worker: Callable[..., mqjms.Worker], events: list[dict[str, Any]]
) -> None:
    mq.put(IN, "poison")
    app = make_worker()

    @app.listener(IN)
    def fails(msg: mqjms.Message) -> None:
        raise KeyError("no such order")

    mq.run_until_idle(app, timeout=30)
    attempts = named(events, "message.backed_out")
    assert len(attempts) == 3  # BackoutCount 0, 1, 2
    for attempt in attempts:  # one line each: what failed, no traceback
        assert attempt["exception_type"] == "builtins.KeyError"
        assert "exc_info" not in attempt and "exception" not in attempt
    [moved] = named(events, "poison.moved")
    assert moved["destination"] == BOQ
    assert "Traceback (most recent call last)" in moved["exception"]
    assert 'raise KeyError("no such order")' in moved["exception"]


def test_the_health_file_goes_as_soon_as_the_worker_is_not_ready(tmp_path: Path) -> None:
    # deployment.md: removed "when it is not ready"; it stayed until the next rewrite,
    # up to its interval after a stop began, while a supervisor still read it as ready
    class Switch:
        ready = True

        def health(self) -> Any:
            return Health.of(
                running=True,
                stopping=not self.ready,
                alive=1,
                connected=1,
                consumers=1,
                error=None,
            )

    worker = Switch()
    health_file = HealthFile(worker, tmp_path / "ready", interval=60.0)  # type: ignore[arg-type]
    health_file.start()
    try:
        wait_for((tmp_path / "ready").exists, what="the health file")
        worker.ready = False
        wait_for(lambda: not (tmp_path / "ready").exists(), what="the health file gone")
    finally:
        health_file.stop()
