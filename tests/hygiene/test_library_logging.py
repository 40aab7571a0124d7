"""Importing mqjms configures no logging; a library user sees its info events on request.

Hardening item 17: ``mqjms/__init__.py`` used to call ``logs.configure()``, so importing
mqjms configured structlog and every application printed mqjms's INFO events. Each test
runs a fresh interpreter (structlog's configuration is process-wide).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# argv: URL MODE. Uses the embedded queue manager as a library user would: a producer, a
# Worker with a listener (worker.started, listener.started, worker.stopped are INFO).
LIBRARY_USER = textwrap.dedent(
    """
    import sys
    import threading

    import structlog

    import mqjms
    from mqjms.transport import embedded

    url, mode = sys.argv[1], sys.argv[2]
    assert not structlog.is_configured(), "importing mqjms configured structlog"
    if mode == "configure":
        mqjms.logs.configure(level="INFO")
    elif mode == "configure-from-env":
        mqjms.logs.configure()
    elif mode == "app":  # the application's own configuration, made after the import
        structlog.configure(
            processors=[
                structlog.processors.add_log_level,
                lambda _logger, _name, event: {**event, "seen_by": "app"},
                structlog.processors.JSONRenderer(),
            ],
            logger_factory=structlog.PrintLoggerFactory(sys.stdout),
        )
    poison = mode == "poison"
    embedded.queue_manager(url).define_queue(
        "QLOCAL", "APP.IN", {"BOTHRESH": 1, "BOQNAME": "NOT.DEFINED"} if poison else {}
    )
    with mqjms.ConnectionFactory(url).connect() as conn, conn.session() as session:
        session.producer("APP.IN").send(mqjms.TextMessage("hello"))
    done = threading.Event()
    app = mqjms.Worker(url, shutdown_timeout=10)
    app.get_wait = 0.1


    @app.listener("APP.IN")
    def handle(msg: mqjms.Message) -> None:
        done.set()
        if poison:
            raise ValueError("poison")


    with app:
        assert done.wait(30)
        if poison:
            qm = embedded.queue_manager(url)  # the backlog counts a message got, too
            while qm.queue_backlog("APP.IN"):
                done.wait(0.05)
    """
)


def run_library_user(tmp_path: Path, mode: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("MQJMS_LOG_")}
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    environment.update(env)
    script = tmp_path / "library_user.py"
    script.write_text(LIBRARY_USER)
    url = f"embedded://{tmp_path / 'qm'}"
    return subprocess.run(
        [sys.executable, str(script), url, mode],
        capture_output=True,
        text=True,
        timeout=120,
        env=environment,
        cwd=tmp_path,
    )


def test_a_library_user_who_configured_nothing_sees_no_info_events(tmp_path: Path) -> None:
    # hardening item 17: import mqjms prints nothing and configures nothing; INFO is quiet
    done = run_library_user(tmp_path, "quiet")
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")


def test_warnings_still_reach_standard_error_by_default(tmp_path: Path) -> None:
    # hardening item 17: quiet below WARNING, not silent: a poison message that cannot
    # reach its backout queue (seed 002: then the dead-letter queue) is a warning
    done = run_library_user(tmp_path, "poison")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "poison.dead_lettered" in done.stderr
    assert "worker.started" not in done.stderr


def test_configure_shows_the_info_events(tmp_path: Path) -> None:
    # hardening item 17: mqjms.logs.configure(level="INFO") shows them, on stderr
    done = run_library_user(tmp_path, "configure")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    for event in ("listener.started", "worker.started", "worker.stopped"):
        assert event in done.stderr


def test_mqjms_log_level_shows_the_info_events(tmp_path: Path) -> None:
    # hardening item 17: MQJMS_LOG_LEVEL is an explicit request too
    done = run_library_user(tmp_path, "quiet", MQJMS_LOG_LEVEL="INFO", MQJMS_LOG_FORMAT="json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stderr.splitlines()]
    assert {"worker.started", "worker.stopped"} <= {e["event"] for e in events}


def test_bad_logging_settings_are_said_not_ignored_silently(tmp_path: Path) -> None:
    # MQJMS_LOG_LEVEL=ERORR or LOUD gave INFO lines (more than asked for), a format of xml
    # console lines, without a word; WARN (the standard library's name) is WARNING
    done = run_library_user(
        tmp_path, "configure-from-env", MQJMS_LOG_LEVEL="ERORR", MQJMS_LOG_FORMAT="xml"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert "mqjms: MQJMS_LOG_LEVEL='ERORR' is not a log level" in lines[0]
    assert "mqjms: MQJMS_LOG_FORMAT='xml' is not a log format (console, json)" in lines[1]
    assert sum("MQJMS_LOG_" in line for line in lines) == 2  # each said once
    # a library user who configured nothing: the default logger warns the same way, and
    # its warnings still print (it raised ValueError from every mqjms log call)
    library = tmp_path / "library"
    library.mkdir()
    quiet = run_library_user(library, "poison", MQJMS_LOG_FORMAT="text")
    assert quiet.returncode == 0, quiet.stderr
    assert "mqjms: MQJMS_LOG_FORMAT='text' is not a log format" in quiet.stderr
    assert "poison.dead_lettered" in quiet.stderr
    again = tmp_path / "again"
    again.mkdir()
    warn = run_library_user(again, "configure-from-env", MQJMS_LOG_LEVEL="WARN")
    assert (warn.returncode, warn.stderr) == (0, "")  # WARNING: the worker's INFO is quiet


def test_configure_refuses_a_level_or_format_it_does_not_know() -> None:
    import pytest

    from mqjms import logs

    with pytest.raises(ValueError, match="log level 'LOUD' is not one of DEBUG, INFO"):
        logs.configure(level="LOUD", force=True)
    with pytest.raises(ValueError, match="log format 'xml' is not one of console, json"):
        logs.configure(fmt="xml", force=True)


def test_an_application_that_configured_structlog_sees_mqjms_events_through_it(
    tmp_path: Path,
) -> None:
    # hardening item 17: the application keeps its configuration, and mqjms's events
    # (including INFO) go through it, even when it configured structlog after the import
    done = run_library_user(tmp_path, "app")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert {"worker.started", "worker.stopped"} <= {e["event"] for e in events}
    assert all(e["seen_by"] == "app" for e in events)
    assert done.stderr == ""


def test_the_cli_still_logs_info_for_a_service(tmp_path: Path) -> None:
    # hardening item 17: the CLI and `mqjms run` configure logging themselves
    (tmp_path / "service.py").write_text(
        "import mqjms\n\napp = mqjms.Worker()\n\n\n@app.listener('APP.IN')\n"
        "def handle(msg: mqjms.Message) -> None:\n    pass\n"
    )
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    env.pop("MQJMS_LOG_LEVEL", None)
    url = f"embedded://{tmp_path / 'qm'}"

    def mqjms_cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mqjms", *argv],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )

    defined = subprocess.run(
        [sys.executable, "-m", "mqjms", "mqsc", "--url", url],
        input="DEFINE QLOCAL(APP.IN)\n",
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=tmp_path,
    )
    assert defined.returncode == 0, defined.stdout + defined.stderr
    done = mqjms_cli("run", "service:app", "--url", url, "--idle-timeout", "0.5")
    assert done.returncode == 0, done.stderr
    assert "worker.started" in done.stderr and "worker.stopped" in done.stderr


def test_every_mqjms_module_logs_through_mqjms_logs() -> None:
    # hardening item 17: a module with its own structlog.get_logger() would bypass the
    # quiet default (and print INFO to stdout under structlog's built-in defaults)
    package = REPO / "mqjms"
    offenders = [
        str(path.relative_to(REPO))
        for path in sorted(package.rglob("*.py"))
        if path != package / "logs.py" and "structlog.get_logger(" in path.read_text()
    ]
    assert offenders == [], "use mqjms.logs.get_logger(name) in " + ", ".join(offenders)
