"""Connecting to something that is not a working STOMP broker: a deadline, one clear line.

Hardening items 13 and 15: a port that accepts TCP but never answers hung ``mqjms put``
and a Worker for ever; a wrong password was logged with a full traceback, and stomp.py
printed its own lines raw on standard error. The servers here are sockets of the test's
own: one that accepts and never answers, and one that answers CONNECT exactly as
ActiveMQ 5.17 does for a bad login (the frame below was captured from it). The shared
test broker runs without authentication: turning it on would refuse the connections
other tests make with a password (``MQJMS_STOMP_PASSWORD``).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import tenacity
from structlog.testing import capture_logs

import mqjms
from mqjms.mq import C, MQError
from mqjms.transport import connect

REPO = Path(__file__).resolve().parents[2]
SECRET = "s3cret-pw"
# ActiveMQ 5.17.2's answer to CONNECT with login "bob" and a wrong passcode.
REFUSAL = (
    b"ERROR\ncontent-type:text/plain\nmessage:User name [bob] or password is invalid.\n\n"
    b"User name [bob] or password is invalid.\x00\n"
)


def _serve(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A local TCP server calling ``answer`` for each connection; yields its port."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def loop() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            accepted.append(client)
            answer(client)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        server.close()
        for client in accepted:
            client.close()


@pytest.fixture
def silent_port() -> Iterator[int]:
    """Accepts TCP connections and never answers."""
    yield from _serve(lambda client: None)


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """Answers CONNECT with ActiveMQ's bad-login ERROR frame, then closes."""

    def refuse(client: socket.socket) -> None:
        client.settimeout(5)
        data = b""
        while b"\x00" not in data:
            chunk = client.recv(4096)
            if not chunk:
                return
            data += chunk
        client.sendall(REFUSAL)
        client.close()

    yield from _serve(refuse)


def _env() -> dict[str, str]:
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _mqjms(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mqjms", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
    )


def _connect_error(url: str) -> MQError:
    """The MQError connecting to ``url`` raises, failing (not hanging) if none comes."""
    outcome: list[BaseException | None] = []

    def attempt() -> None:
        try:
            connect(url).disconnect()
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(60)
    assert outcome, "connect did not return"
    error = outcome[0]
    assert isinstance(error, MQError), repr(error)
    return error


def _worker_attempts(url: str, attempts: int) -> list[dict[str, Any]]:
    """Run a Worker on ``url`` until it has failed to connect ``attempts`` times; the
    events it logged meanwhile."""
    app = mqjms.Worker(url, reconnect_wait=tenacity.wait_fixed(0.05), shutdown_timeout=5)

    @app.listener("ANY.Q")
    def handle(message: mqjms.Message) -> None:
        pass

    with capture_logs() as events:
        app.start()
        try:
            deadline = time.monotonic() + 60
            while sum(e["event"] == "worker.connecting" for e in events) < attempts:
                assert time.monotonic() < deadline, events
                time.sleep(0.02)
        finally:
            app.stop()
    return list(events)


# --------------------------------------------------------------------------- deadline


def test_connect_to_a_port_that_never_answers_fails_at_the_deadline(silent_port: int) -> None:
    # item 13: without a deadline this waited for ever (stomp.py's wait for CONNECTED).
    error = _connect_error(f"stomp://127.0.0.1:{silent_port}?connect_timeout=0.5")
    assert error.reason == C.MQRC_HOST_NOT_AVAILABLE
    assert "did not answer CONNECT in 0.5 s (connect_timeout)" in str(error)


def test_connect_timeout_must_be_a_positive_number() -> None:
    for bad in ("0", "-1", "soon"):
        with pytest.raises(ValueError, match="connect_timeout"):
            connect(f"stomp://127.0.0.1:1?connect_timeout={bad}")


def test_mqjms_put_to_a_port_that_never_answers_ends_with_one_line(silent_port: int) -> None:
    url = f"stomp://127.0.0.1:{silent_port}?connect_timeout=0.5&reconnect=0"
    result = _mqjms("put", "--url", url, "ANY.Q", "--body", "x")
    assert result.returncode != 0
    assert result.stderr.splitlines() == [
        f"mqjms: MQRC_HOST_NOT_AVAILABLE (2538): stomp://127.0.0.1:{silent_port} accepted the "
        "connection but did not answer CONNECT in 0.5 s (connect_timeout): is it a STOMP "
        "broker?"
    ]


def test_a_worker_retries_a_broker_that_never_answers_and_logs_each_attempt(
    silent_port: int,
) -> None:
    events = _worker_attempts(f"stomp://127.0.0.1:{silent_port}?connect_timeout=0.3", 3)
    attempts = [e for e in events if e["event"] == "worker.connecting"]
    assert [e["attempt"] for e in attempts[:3]] == [1, 2, 3]
    assert all(e["reason"] == "MQRC_HOST_NOT_AVAILABLE" and e["wait"] >= 0 for e in attempts)
    assert "did not answer CONNECT" in attempts[0]["error"]


# --------------------------------------------------------------------------- refused


def test_a_wrong_password_is_one_clear_error_naming_the_user(refusing_port: int) -> None:
    # item 15: MQRC_NOT_AUTHORIZED (2035), the user named, never the password.
    error = _connect_error(f"stomp://bob:{SECRET}@127.0.0.1:{refusing_port}")
    assert error.reason == C.MQRC_NOT_AUTHORIZED
    assert "bob" in str(error) and SECRET not in str(error) + repr(error)
    result = _mqjms(
        "put", "--url", f"stomp://bob:{SECRET}@127.0.0.1:{refusing_port}", "ANY.Q", "--body", "x"
    )
    assert result.returncode != 0
    assert result.stderr.splitlines() == [
        f"mqjms: MQRC_NOT_AUTHORIZED (2035): stomp://bob@127.0.0.1:{refusing_port} refused "
        "the connection: User name [bob] or password is invalid."
    ]


def test_a_worker_with_a_wrong_password_logs_one_line_per_attempt(refusing_port: int) -> None:
    # item 15: no traceback, no critical "consumer failed": one warning per attempt, and
    # the worker keeps trying (the credentials may be fixed on the broker meanwhile).
    events = _worker_attempts(f"stomp://bob:{SECRET}@127.0.0.1:{refusing_port}", 2)
    attempts = [e for e in events if e["event"] == "worker.connecting"]
    assert [e["attempt"] for e in attempts[:2]] == [1, 2]
    assert all(e["reason"] == "MQRC_NOT_AUTHORIZED" for e in attempts)
    assert all("exc_info" not in e for e in events)
    assert "worker.consumer_failed" not in {e["event"] for e in events}
    assert SECRET not in repr([e for e in events if e["event"] != "worker.started"])


def test_stomp_py_never_writes_to_stderr_itself() -> None:
    # item 15: stomp.py logs through the standard library; unhandled, Python printed its
    # warnings raw ("could not connect to host ..."). They are structlog debug events now.
    script = (
        "from mqjms.transport import connect\n"
        "try:\n"
        "    connect('stomp://127.0.0.1:1?reconnect=0')\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=_env()
    )
    assert (result.stdout, result.stderr) == ("MQError\n", "")


# --------------------------------------------------------------------------- closing, TLS files
@pytest.fixture
def closing_port() -> Iterator[int]:
    """Accepts TCP connections and closes them at once, as a broker starting or stopping."""
    yield from _serve(lambda client: client.close())


def test_a_port_that_closes_at_once_is_an_mq_error_every_time(closing_port: int) -> None:
    # stomp.py raises NotConnectedException when the socket closes before CONNECT is
    # sent (a race): it must be 2538 as every other failure to connect, never raw
    for _ in range(20):
        error = _connect_error(f"stomp://127.0.0.1:{closing_port}?connect_timeout=2")
        assert error.reason == C.MQRC_HOST_NOT_AVAILABLE, error


def test_a_worker_retries_a_port_that_closes_at_once(closing_port: int) -> None:
    events = _worker_attempts(f"stomp://127.0.0.1:{closing_port}?connect_timeout=2", 3)
    assert not [e for e in events if e["event"] == "worker.start_failed"], events


@pytest.mark.parametrize("param", ["ca=/nonexistent.pem", "cert=/no/cert.pem&key=/no/key.pem"])
def test_a_missing_tls_file_is_one_clear_error_not_a_hang(silent_port: int, param: str) -> None:
    # stomp.py retries opening a missing file for ever, whatever the deadline
    url = f"stomp+ssl://app:s3cret@127.0.0.1:{silent_port}?{param}&connect_timeout=2&reconnect=0"
    error = _connect_error(url)
    assert error.reason == C.MQRC_SSL_INITIALIZATION_ERROR
    assert param.split("&")[0] in str(error) and "s3cret" not in str(error)


@pytest.mark.parametrize("kind", ["not-a-certificate", "a-directory", "cert-without-key"])
def test_a_tls_file_that_is_no_certificate_is_one_clear_error(
    silent_port: int, tmp_path: Path, kind: str
) -> None:
    # a ca= that is not a certificate (or a directory) was "cannot connect" (2538) with the
    # cause only in a debug line; the handshake would fail on it: 2393 naming the file
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("root:x:0:0:root:/root:/bin/bash\n")
    param = {
        "not-a-certificate": f"ca={garbage}",
        "a-directory": f"ca={tmp_path}",
        "cert-without-key": f"cert={garbage}",
    }[kind]
    url = f"stomp+ssl://app:s3cret@127.0.0.1:{silent_port}?{param}&connect_timeout=2&reconnect=0"
    error = _connect_error(url)
    assert error.reason == C.MQRC_SSL_INITIALIZATION_ERROR, error
    assert param in str(error) and "s3cret" not in str(error)
