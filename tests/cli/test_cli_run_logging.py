"""``mqjms run``'s logging as docs/deployment.md gives it: ``-v``/``-vv`` among the
command's options, and the per-logger levels of ``MQJMS_LOG_LEVEL``."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.cli import main
from mqjms.qmgr import QueueManager

SERVICE = """
import mqjms

app = mqjms.Worker(shutdown_timeout=5)


@app.listener("APP.IN")
def handle(msg: mqjms.Message) -> None:
    pass
"""


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"run_logging_{tmp_path.name}".replace("-", "_")
    (tmp_path / f"{name}.py").write_text(SERVICE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("MQJMS_LOG_LEVEL", raising=False)
    monkeypatch.delenv("MQJMS_LOG_FORMAT", raising=False)
    yield f"{name}:app"
    sys.modules.pop(name, None)


def run_once(spec: str, url: str, qm: QueueManager, *options: str) -> int:
    """``mqjms run`` over one message, until idle."""
    qm.define_queue("QLOCAL", "APP.IN", {}, replace=True)
    assert main(["put", "APP.IN", "--body", "hello", "--url", url]) == 0
    return main(["run", spec, "--url", url, "--idle-timeout", "0.3", *options])


def test_verbose_after_the_command_is_one_of_its_options(
    service: str, embedded_url: str, qm: QueueManager, capsys: pytest.CaptureFixture[str]
) -> None:
    # docs/deployment.md lists -v/-vv among `mqjms run`'s options: `mqjms run svc:app -vv`
    # was refused ("unrecognized arguments: -vv", exit 2)
    assert run_once(service, embedded_url, qm, "-vv") == 0
    err = capsys.readouterr().err
    assert "message.delivered" in err  # a debug line
    assert run_once(service, embedded_url, qm, "-v") == 0
    err = capsys.readouterr().err
    assert "worker.started" in err and "message.delivered" not in err  # info


def test_mqjms_log_level_sets_levels_per_logger_for_a_service(
    service: str,
    embedded_url: str,
    qm: QueueManager,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # docs/deployment.md: MQJMS_LOG_LEVEL=WARNING,mqjms.listeners=DEBUG is a level and
    # levels per logger; `mqjms run` applied the first alone, so mqjms.listeners said nothing
    monkeypatch.setenv("MQJMS_LOG_LEVEL", "WARNING,mqjms.listeners=DEBUG")
    assert run_once(service, embedded_url, qm) == 0
    err = capsys.readouterr().err
    assert "message.delivered" in err and "worker.started" in err  # mqjms.listeners: DEBUG
    assert "worker.idle_timeout" not in err  # mqjms.trigger: WARNING
    monkeypatch.setenv("MQJMS_LOG_LEVEL", "mqjms.listeners=ERROR")
    assert run_once(service, embedded_url, qm) == 0
    err = capsys.readouterr().err
    assert "worker.idle_timeout" in err  # the service's default, INFO
    assert "worker.started" not in err
