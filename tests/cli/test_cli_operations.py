"""The ``mqjms`` command for operators (issue 13 items 10, 12, 13): --version, --url help
naming the schemes each command accepts, get/browse --json with properties and JMS
headers, and ``mqjms run --metrics-port/--health-file`` as a real process."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

import mqjms
from mqjms.cli import main
from mqjms.transport.embedded import queue_manager


def help_of(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main([*argv, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mqjms {mqjms.__version__}"


def test_url_help_lists_the_schemes_each_command_accepts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in ("mqsc", "restart", "demo"):  # the embedded queue manager only
        text = help_of(capsys, command)
        assert "transport URL: embedded:///DIR (default" in text, command
        assert "stomp://" not in text and "mq://" not in text, command
    for command in ("put", "get", "browse", "run", "trigger-monitor"):  # any transport
        text = help_of(capsys, command)
        assert "embedded:///DIR or mq://QMGR@HOST(PORT)/CHANNEL or stomp://" in text, command


def test_browse_json_has_properties_and_jms_headers(
    embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    queue_manager(embedded_url).define_queue("QLOCAL", "JSON.Q")
    with mqjms.ConnectionFactory(embedded_url).connect() as conn, conn.session() as session:
        sent = session.producer("JSON.Q").send(
            "hello",
            properties={"count": 3, "ok": True, "token": b"\x01"},
            correlation_id="order-1",
            priority=6,
        )
    assert main(["browse", "--url", embedded_url, "JSON.Q", "--json"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    shown = json.loads(line)
    assert shown["properties"] == {"count": 3, "ok": True, "token": {"base64": "AQ=="}}
    jms = shown["jms"]
    assert jms["JMSMessageID"] == sent.jms_message_id
    assert jms["JMSCorrelationID"] == "order-1"
    assert (jms["JMSPriority"], jms["JMSDeliveryMode"], jms["JMSRedelivered"]) == (6, 2, False)
    assert jms["JMSDestination"] == "queue:///JSON.Q" and jms["JMSXDeliveryCount"] == 1
    assert shown["body"] == "hello"


def test_a_message_whose_jms_view_does_not_parse_is_named_with_its_queue(
    embedded_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # a fault probe: `mqjms get`/`browse` logged message.unparsed with queue=''
    from mqjms.mq import MQMD, C
    from mqjms.transport import connect

    queue_manager(embedded_url).define_queue("QLOCAL", "BAD.RFH2")
    conn = connect(embedded_url)
    conn.put("BAD.RFH2", MQMD(Format=C.MQFMT_RF_HEADER_2), b"RFH \x00\x00\x00\x02garbage")
    conn.disconnect()
    assert main(["browse", "--url", embedded_url, "BAD.RFH2", "--json"]) == 0
    [warning] = [line for line in capsys.readouterr().err.splitlines() if "unparsed" in line]
    assert "queue=BAD.RFH2" in warning


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""


def test_run_serves_metrics_and_health_and_keeps_a_health_file(tmp_path: Path) -> None:
    url = f"embedded://{tmp_path / 'qm'}"
    (tmp_path / "svc.py").write_text(
        textwrap.dedent(
            """
            import mqjms

            app = mqjms.Worker()

            @app.listener("SVC.IN")
            def handle(msg):
                pass
            """
        )
    )
    env = {**os.environ, "MQJMS_URL": url, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run(
        [sys.executable, "-m", "mqjms", "mqsc"],
        input="DEFINE QLOCAL(SVC.IN)\n",
        env=env,
        text=True,
        capture_output=True,
        check=True,
        timeout=60,
    )
    with mqjms.ConnectionFactory(url).connect() as conn, conn.session() as session:
        session.producer("SVC.IN").send("one")
    port, health = free_port(), tmp_path / "ready.json"
    service = subprocess.Popen(
        [
            *(sys.executable, "-m", "mqjms", "run", "svc:app", "--metrics-host", "127.0.0.1"),
            *("--metrics-port", str(port), "--health-file", str(health), "--idle-timeout", "5"),
        ],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while get(base + "/readyz")[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert get(base + "/readyz")[0] == 200
        assert json.loads(get(base + "/healthz")[1])["live"] is True
        while not health.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert json.loads(health.read_text())["ready"] is True
        metrics = get(base + "/metrics")[1]
        assert 'mqjms_messages_processed_total{listener="svc.handle",queue="SVC.IN"} 1.0' in metrics
        assert 'mqjms_queue_depth{queue="SVC.IN"} 0.0' in metrics
        _, err = service.communicate(timeout=60)  # --idle-timeout: exits once idle
    finally:
        service.kill()
    assert service.returncode == 0, err
    assert not health.exists()  # removed at exit
    assert err.count("worker.started") == 1


def _mqjms(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqjms", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_restart_drops_non_persistent_messages_and_keeps_persistent_ones(tmp_path: Path) -> None:
    url = f"embedded://{tmp_path / 'qm'}"
    assert _mqjms("mqsc", "--url", url, stdin="DEFINE QLOCAL(R.Q)\n").returncode == 0
    for flag in ("--persistent", "--non-persistent"):
        assert _mqjms("put", "--url", url, "R.Q", f"--body={flag}", flag).returncode == 0
    done = _mqjms("restart", "--url", url)
    assert done.returncode == 0, done.stderr
    assert "restarted" in done.stdout
    shown = _mqjms("browse", "--url", url, "R.Q", "--json")
    assert [json.loads(line)["body"] for line in shown.stdout.splitlines()] == ["--persistent"]


def test_restart_of_a_directory_without_a_queue_manager_makes_none(tmp_path: Path) -> None:
    # strmqm of a queue manager never created fails (AMQ7048); a mistyped --url must not
    # create an empty queue manager and report it restarted
    missing = tmp_path / "no-such-qm"
    done = _mqjms("restart", "--url", f"embedded://{missing}")
    assert done.returncode != 0 and "restarted" not in done.stdout
    assert "MQRC_Q_MGR_NAME_ERROR (2058)" in done.stderr and str(missing) in done.stderr
    assert "Traceback" not in done.stderr
    assert not missing.exists()
