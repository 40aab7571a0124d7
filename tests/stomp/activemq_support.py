"""A real ActiveMQ for the tests: started once per test process by scripts/activemq.

``ensure_activemq()`` returns the broker's ``stomp://`` URL, installing (Debian's
``activemq`` package) and starting a private broker on 127.0.0.1 when none of ours runs,
and stopping it when the process ends if it started it. ``MQJMS_TEST_STOMP_URL`` points
the tests at a broker someone else runs instead.

:class:`StompBroker` is the conformance suite's Broker helper for STOMP: every instance
has its own queue-name prefix (so tests sharing the broker never see each other's
messages) and its own configuration profile, which stands in for MQSC: ``define_queue``
records BOTHRESH, BOQNAME, DEFPSIST, ... where the STOMP transport's MQINQ finds them.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

from mqjms.transport.stomp import StompConfig, register_profile, unregister_profile
from mqjms.transport.stomp.connection import StompConnection

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "activemq"
URL_ENV = "MQJMS_TEST_STOMP_URL"

_lock = threading.Lock()
_url: str | None = None
_started_here = False


class BrokerUnavailable(Exception):
    """ActiveMQ cannot be installed here (not root and not installed, no package)."""


def _script(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ensure_activemq() -> str:
    """The URL of a running broker, starting ours if needed."""
    global _url, _started_here
    with _lock:
        if _url is not None:
            return _url
        external = os.environ.get(URL_ENV)
        if external:
            _url = external
            return _url
        if _script("status").returncode != 0:
            installed = _script("install")
            if installed.returncode != 0:
                raise BrokerUnavailable(
                    "ActiveMQ is not installed and could not be: "
                    + (installed.stderr or installed.stdout).strip()[-500:]
                )
            started = _script("start", "--fresh", timeout=180)
            if started.returncode != 0:
                raise RuntimeError(
                    "scripts/activemq start failed: "
                    + (started.stderr or started.stdout).strip()[-2000:]
                )
            _started_here = True
            atexit.register(stop_activemq)
        _url = _script("url").stdout.strip()
        return _url


def stop_activemq() -> None:
    """Stop the broker if this process started it."""
    global _started_here
    if _started_here:
        _script("stop", timeout=60)
        _started_here = False


def kill_activemq() -> None:
    """SIGKILL the broker (crash tests); its data stays for :func:`start_activemq`."""
    result = _script("kill", timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"scripts/activemq kill failed: {result.stderr.strip()}")


def start_activemq() -> None:
    """Start the broker again on its existing data (after kill or stop)."""
    result = _script("start", timeout=180)
    if result.returncode != 0:
        raise RuntimeError(f"scripts/activemq start failed: {result.stderr.strip()[-2000:]}")


def restart_activemq() -> None:
    result = _script("stop", timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"scripts/activemq stop failed: {result.stderr.strip()}")
    start_activemq()


class StompBroker:
    """The conformance suite's Broker helper (tests/conftest.py) for ActiveMQ over STOMP.

    Its features are the capabilities StompConnection declares. Those it lacks, and why
    (see docs/stomp.md): ``fifo`` (ActiveMQ orders by
    priority for every queue, there is no MSGDLVSQ), ``expiration_report`` (no report
    messages), ``exclusive_input`` (an ActiveMQ exclusive consumer does not make a second
    opener fail with 2042), ``model`` (no model/dynamic queues),
    ``backout_in_place`` (a backed-out message is re-sent to the back of the queue),
    ``browse_skips_locked`` (a browser sees messages held in another unit of work).
    """

    name = "stomp"
    #: DEADQ when none is configured: ActiveMQ's dead-letter queue (MQ's is
    #: SYSTEM.DEAD.LETTER.QUEUE).
    default_deadq = "ActiveMQ.DLQ"
    features = frozenset(str(capability) for capability in StompConnection.capabilities) | {
        "processes"
    }

    def __init__(self, base_url: str | None = None, *, strict: bool = True) -> None:
        self.base_url = base_url or ensure_activemq()
        self.id = uuid.uuid4().hex[:10]
        self.prefix = f"T{self.id}."
        self.profile = f"test-{self.id}"
        self.config = register_profile(self.profile, StompConfig(strict=strict, prefix=self.prefix))
        # The same definitions in a file, for URLs handed to other processes.
        self._strict = strict
        self._file = Path(tempfile.gettempdir()) / f"mqjms-stomp-{self.id}.toml"
        self._queues: dict[str, dict[str, object]] = {}
        self._topics: dict[str, dict[str, object]] = {}
        self._qmgr: dict[str, object] = {}
        self._write_file()

    @property
    def url(self) -> str:
        """Works in this process and in child processes (configuration in a file)."""
        separator = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{separator}config={self._file}&prefix={self.prefix}"

    @property
    def profile_url(self) -> str:
        separator = "&" if "?" in self.base_url else "?"
        return f"{self.base_url}{separator}profile={self.profile}"

    def _write_file(self) -> None:
        def value(v: object) -> str:
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, int):
                return str(v)
            return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'

        lines = [f"strict = {value(self._strict)}", "[qmgr]"]
        lines += [f"{k} = {value(v)}" for k, v in self._qmgr.items()]
        for name, attrs in self._queues.items():
            lines.append(f'[queues."{name}"]')
            lines += [f"{k} = {value(v)}" for k, v in attrs.items()]
        for name, attrs in self._topics.items():
            lines.append(f'[topics."{name}"]')
            lines += [f"{k} = {value(v)}" for k, v in attrs.items()]
        tmp = self._file.with_suffix(".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        # every version gets a later mtime, so readers never keep a stale copy
        self._stamp = max(time.time_ns(), getattr(self, "_stamp", 0) + 1_000_000)
        os.utime(tmp, ns=(self._stamp, self._stamp))
        os.replace(tmp, self._file)

    def child_url(self, **params: object) -> str:
        """A URL for another process (profiles live in this one): the same prefix, and
        queue defaults as URL parameters (``bothresh=3, boqname="BO"``)."""
        separator = "&" if "?" in self.base_url else "?"
        extra = "".join(f"&{k}={v}" for k, v in params.items())
        return f"{self.base_url}{separator}prefix={self.prefix}{extra}"

    def destination(self, queue: str) -> str:
        """The broker destination of a queue of this broker helper."""
        return f"/queue/{self.prefix}{queue}"

    def define_queue(self, name: str, **attrs: object) -> None:
        self.config.define_queue(name, "QLOCAL", **attrs)
        self._queues[name] = {"type": "QLOCAL", **attrs}
        self._write_file()

    def define_alias(self, name: str, target: str, **attrs: object) -> None:
        self.config.define_queue(name, "QALIAS", TARGET=target, **attrs)
        self._queues[name] = {"type": "QALIAS", "TARGET": target, **attrs}
        self._write_file()

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.config.alter_queue(name, **attrs)
        self._queues.setdefault(name, {"type": "QLOCAL"}).update(attrs)
        self._write_file()

    def alter_qmgr(self, **attrs: object) -> None:
        self.config.alter_qmgr(**attrs)
        self._qmgr.update(attrs)
        self._write_file()

    def delete_queue(self, name: str) -> None:
        """Forget the definition: the helper is strict, so the queue then gives 2085."""
        self.config.delete_queue(name)
        self._queues.pop(name, None)
        self._write_file()

    def define_model(self, name: str, **attrs: object) -> None:
        self.config.define_queue(name, "QMODEL", **attrs)
        self._queues[name] = {"type": "QMODEL", **attrs}
        self._write_file()

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> None:
        self.config.define_topic(name, TOPICSTR=topic_string, **attrs)
        self._topics[name] = {"TOPICSTR": topic_string, **attrs}
        self._write_file()

    def restart(self) -> None:
        restart_activemq()

    def close(self) -> None:
        unregister_profile(self.profile)
        self._file.unlink(missing_ok=True)


class RawStomp:
    """A bare stomp.py client, to see and make frames as any other STOMP client would."""

    def __init__(self, url: str) -> None:
        import queue
        import socket
        from urllib.parse import urlsplit

        import stomp

        parts = urlsplit(url)
        self.frames: queue.Queue[tuple[dict[str, str], bytes]] = queue.Queue()
        self.receipts: queue.Queue[str] = queue.Queue()
        outer = self

        class Listener(stomp.ConnectionListener):  # type: ignore[misc]
            def on_message(self, frame):  # type: ignore[no-untyped-def]
                outer.frames.put((dict(frame.headers), frame.body))

            def on_receipt(self, frame):  # type: ignore[no-untyped-def]
                outer.receipts.put(frame.headers["receipt-id"])

        self.conn = stomp.Connection12(
            [(parts.hostname or "127.0.0.1", parts.port or 61613)], auto_decode=False
        )
        self.conn.set_listener("raw", Listener())
        self.conn.connect(wait=True)
        self.conn.transport.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._ids = 0

    def send(self, destination: str, body: bytes, **headers: str) -> None:
        self._ids += 1
        receipt = f"raw-{self._ids}"
        self.conn.send(destination, body, headers={**headers, "receipt": receipt})
        assert self.receipts.get(timeout=10) == receipt

    def receive_one(self, destination: str, timeout: float = 10.0) -> tuple[dict[str, str], bytes]:
        """Consume one message (auto-ack), as a plain STOMP application would."""
        self._ids += 1
        sub = f"raw-sub-{self._ids}"
        self.conn.subscribe(destination, sub, ack="auto")
        try:
            return self.frames.get(timeout=timeout)
        finally:
            self.conn.unsubscribe(sub)

    def close(self) -> None:
        self.conn.disconnect()
