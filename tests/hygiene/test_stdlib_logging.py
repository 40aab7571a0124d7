"""Logging through the standard library when the application wants it (issue 13 item 11):
``mqjms.logs.configure_stdlib`` (structlog's stdlib integration), JSON or console, levels
by environment variable, per logger. Each test runs a fresh interpreter (logging and
structlog are configured process-wide)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# argv: URL MODE. A service whose logging is the standard library's.
STDLIB_APP = textwrap.dedent(
    """
    import logging
    import sys
    import threading

    import mqjms
    from mqjms.transport import embedded

    url, mode = sys.argv[1], sys.argv[2]
    if mode == "stdlib":
        mqjms.logs.configure_stdlib(fmt="json")  # a JSON handler on the root logger
    elif mode == "own-handler":  # the application's handler, mqjms's formatter
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(mqjms.logs.formatter("console"))
        logging.basicConfig(handlers=[handler], level=logging.INFO)
        mqjms.logs.configure_stdlib()
    logging.getLogger("app").warning("the application's own record")
    embedded.queue_manager(url).define_queue("QLOCAL", "APP.IN", {})
    with mqjms.ConnectionFactory(url).connect() as conn, conn.session() as session:
        session.producer("APP.IN").send("hello")
    done = threading.Event()
    app = mqjms.Worker(url, shutdown_timeout=10)
    app.get_wait = 0.1
    app.listener("APP.IN")(lambda msg: done.set())
    with app:
        assert done.wait(30)
    """
)


def run_app(tmp_path: Path, mode: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MQJMS_LOG_")}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    environment.update(env)
    script = tmp_path / "stdlib_app.py"
    script.write_text(STDLIB_APP)
    return subprocess.run(
        [sys.executable, str(script), f"embedded://{tmp_path / 'qm'}", mode],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
        cwd=tmp_path,
    )


def test_configure_stdlib_sends_every_event_through_logging_as_json(tmp_path: Path) -> None:
    done = run_app(tmp_path, "stdlib")
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in done.stderr.splitlines()]
    by_event = {record["event"]: record for record in records}
    started = by_event["worker.started"]
    assert started["logger"] == "mqjms.listeners" and started["level"] == "info"
    assert started["consumers"] == 1  # the key-value context stays structured
    assert by_event["the application's own record"]["logger"] == "app"  # plain logging too
    assert by_event["qmgr.created"]["logger"].startswith("mqjms.")


def test_levels_per_logger_from_the_environment(tmp_path: Path) -> None:
    done = run_app(tmp_path, "stdlib", MQJMS_LOG_LEVEL="WARNING,mqjms.listeners=INFO")
    assert done.returncode == 0, done.stderr
    events = {json.loads(line)["event"] for line in done.stderr.splitlines()}
    assert {"worker.started", "listener.started", "worker.stopped"} <= events
    assert not any(event.startswith("qmgr.") for event in events)  # mqjms.qmgr: WARNING


def test_the_applications_handler_renders_mqjms_events(tmp_path: Path) -> None:
    done = run_app(tmp_path, "own-handler")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # the application's handler writes to stdout
    lines = done.stdout.splitlines()
    assert any("worker.started" in line and "[mqjms.listeners]" in line for line in lines)
    assert any("the application's own record" in line for line in lines)


def test_per_logger_levels_without_configuring_anything(tmp_path: Path) -> None:
    # the library default (quiet below WARNING) takes per-logger levels too
    done = run_app(tmp_path, "none", MQJMS_LOG_LEVEL="mqjms.listeners=INFO")
    assert done.returncode == 0, done.stderr
    assert "worker.started" in done.stderr
    assert "qmgr.created" not in done.stderr
