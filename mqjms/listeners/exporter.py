"""Operating a worker: Prometheus metrics and health checks over HTTP, or a health file.

``mqjms run module:app --metrics-port 9464`` serves, beside the worker:

* ``/metrics``: Prometheus text (needs ``pip install 'mqjms[metrics]'``): per listener
  ``mqjms_messages_{received,delivered,processed,failed,backed_out,moved,dead_lettered,
  discarded,requeue_failed}_total``, the histogram ``mqjms_processing_seconds`` (the
  listener function's running time), the gauges ``mqjms_messages_in_flight`` (held by a
  consumer, unit of work not ended) and ``mqjms_queue_depth`` (CURDEPTH, inquired at each
  scrape), and the worker's ``mqjms_worker_live``, ``mqjms_worker_ready``,
  ``mqjms_consumers_connected``, ``mqjms_reconnects_total``;
* ``/healthz`` (liveness) and ``/readyz`` (readiness): 200 or 503 with
  :meth:`Worker.health() <mqjms.listeners.Worker.health>` as JSON.

The numbers are ``Worker.stats`` (counters and histograms, per listener in
``stats.listeners``), ``Worker.activity()`` and ``Worker.queue_depths()``: read at scrape
time, so the hot path pays nothing for them. ``--health-file PATH`` keeps a file while the
worker is ready instead, for a check that reads files (see docs/deployment.md).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqjms.logs import get_logger

from .stats import COUNTERS

if TYPE_CHECKING:
    from .worker import Worker

log = get_logger("mqjms.listeners")

#: Metric name suffixes for the counters (``committed`` is exported as ``processed``).
METRIC_NAMES = {name: "processed" if name == "committed" else name for name in COUNTERS}
CONTENT_TYPE_JSON = "application/json"
NOT_READY_POLL = 0.25  # seconds between health checks while the worker is not ready


def _prometheus() -> Any:
    try:
        import prometheus_client
        import prometheus_client.core
    except ImportError as exc:
        raise ImportError(
            f"metrics need prometheus-client: pip install 'mqjms[metrics]' ({exc})"
        ) from exc
    return prometheus_client


class WorkerCollector:
    """A Prometheus collector reading a worker's numbers at each scrape."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker

    def collect(self) -> Iterator[Any]:
        core = _prometheus().core
        labels = ["listener", "queue"]
        stats = self.worker.stats
        listeners = stats.listener_snapshots()
        for name, suffix in METRIC_NAMES.items():
            counter = core.CounterMetricFamily(
                f"mqjms_messages_{suffix}", f"Messages {suffix.replace('_', ' ')}", labels=labels
            )
            for one in listeners:
                counter.add_metric([one.listener, one.queue], getattr(one, name))
            yield counter
        histogram = core.HistogramMetricFamily(
            "mqjms_processing_seconds", "Time the listener function ran", labels=labels
        )
        for one in listeners:
            buckets = [
                ("+Inf" if bound == float("inf") else repr(bound), count)
                for bound, count in one.processing.cumulative()
            ]
            histogram.add_metric([one.listener, one.queue], buckets, one.processing.sum)
        yield histogram
        in_flight = core.GaugeMetricFamily(
            "mqjms_messages_in_flight", "Messages held by a consumer now", labels=labels
        )
        held: dict[tuple[str, str], int] = {(one.listener, one.queue): 0 for one in listeners}
        for activity in self.worker.activity():
            key = (activity.listener, activity.queue)
            held[key] = held.get(key, 0) + (0 if activity.quiet else 1)
        for (listener, queue), count in held.items():
            in_flight.add_metric([listener, queue], count)
        yield in_flight
        depth = core.GaugeMetricFamily("mqjms_queue_depth", "CURDEPTH", labels=["queue"])
        for queue, value in self.worker.queue_depths().items():
            depth.add_metric([queue], value)
        yield depth
        health = self.worker.health()
        for name, value, text in (
            ("mqjms_worker_live", health.live, "1 while the worker and its consumers run"),
            ("mqjms_worker_ready", health.ready, "1 while every consumer is consuming"),
            ("mqjms_consumers_connected", health.connected, "Consumers connected"),
        ):
            gauge = core.GaugeMetricFamily(name, text)
            gauge.add_metric([], int(value))
            yield gauge
        reconnects = core.CounterMetricFamily("mqjms_reconnects", "Connections made again")
        reconnects.add_metric([], stats.reconnects)
        yield reconnects


class OperationsServer:
    """HTTP beside a worker: ``/metrics``, ``/healthz``, ``/readyz`` (see the module doc)."""

    def __init__(
        self, worker: Worker, port: int, host: str = "0.0.0.0", *, metrics: bool = True
    ) -> None:
        self.worker = worker
        self._registry: Any = None
        if metrics:
            prometheus = _prometheus()
            self._registry = prometheus.CollectorRegistry(auto_describe=False)
            self._registry.register(WorkerCollector(worker))
        self._server = ThreadingHTTPServer((host, port), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="mqjms-http", daemon=True
        )

    @property
    def port(self) -> int:
        """The port listened on (the one chosen by the system when 0 was asked for)."""
        return int(self._server.server_address[1])

    def start(self) -> None:
        self._thread.start()
        log.info("worker.http_started", port=self.port, metrics=self._registry is not None)

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def render_metrics(self) -> bytes:
        out: bytes = _prometheus().generate_latest(self._registry)
        return out

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                if path == "/metrics" and server._registry is not None:
                    self._reply(200, _prometheus().CONTENT_TYPE_LATEST, server.render_metrics())
                elif path in ("/healthz", "/livez", "/readyz"):
                    health = server.worker.health()
                    ok = health.ready if path == "/readyz" else health.live
                    body = json.dumps(health.as_dict()).encode()
                    self._reply(200 if ok else 503, CONTENT_TYPE_JSON, body)
                else:
                    self._reply(404, "text/plain", b"not found: /metrics, /healthz, /readyz\n")

            def _reply(self, status: int, content_type: str, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                log.debug("worker.http_request", request=format % args)

        return Handler


class HealthFile:
    """Keeps ``path`` while the worker is ready, rewritten every ``interval`` seconds with
    its health as JSON (so the file's age says the worker is alive); removed when it is
    not ready, and when the worker stops."""

    def __init__(self, worker: Worker, path: str | os.PathLike[str], interval: float = 5.0):
        self.worker = worker
        self.path = Path(path)
        _check_writable_file(self.path)
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mqjms-health", daemon=True)
        self._failing = ""  # the error of the last write that failed ("" when it worked)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(self.interval + 5)
        self._remove()

    def update(self) -> bool:
        """Write or remove the file for the worker's health now; True when ready."""
        health = self.worker.health()
        if not health.ready:
            self._remove()
            return False
        _write_privately(self.path, json.dumps(health.as_dict()) + "\n")
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            ready = failed = False
            try:
                ready = self.update()
            except OSError as exc:
                failed = True
                kind = f"{type(exc).__name__} {exc.errno}"  # the name holds a random part
                if kind != self._failing:  # once per error, not once per attempt
                    log.warning(
                        "worker.health_file_failed", path=str(self.path), error=self._why(exc)
                    )
                self._failing = kind
            else:
                if self._failing and ready:
                    log.info("worker.health_file_written", path=str(self.path))
                if ready:
                    self._failing = ""
            # not ready yet: look again soon, so the file appears as the worker gets ready
            soon = not ready and not failed
            if not ready:
                self._stop.wait(min(self.interval, NOT_READY_POLL) if soon else self.interval)
                continue
            # ready: rewritten every interval, but gone as soon as the worker is not ready
            # (a stop begins): a supervisor must not send it work meanwhile
            deadline = time.monotonic() + self.interval
            while not self._stop.wait(min(NOT_READY_POLL, max(0.0, deadline - time.monotonic()))):
                if time.monotonic() >= deadline or not self.worker.health().ready:
                    break

    def _why(self, exc: OSError) -> str:
        """The failure, naming the health file and not the temporary file written first
        (``.ready.x8f2k1q``), with what to do when its directory is missing."""
        if not self.path.parent.is_dir():
            return (
                f"cannot write {self.path}: the directory {self.path.parent} does not exist "
                "(create it; each write tries again)"
            )
        return f"cannot write {self.path}: {exc.strerror or exc}"

    def _remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()


def _check_writable_file(path: Path) -> None:
    """ValueError now, naming what is wrong, for a path the health file can never be
    written at (each write would fail, and the stop with it). A directory that does not
    exist yet may be made later (a volume mounted after the start): each write tries."""
    if path.is_dir():
        raise ValueError(f"{path} is a directory: name a file in it")
    parent = path.parent
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{path}: this user may not create files in {parent}")


def _write_privately(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``, readable by its owner only, through a new temporary
    file of a random name (created exclusively, so a link planted in a shared directory
    is never followed); the rename replaces a link at ``path`` itself, not its target."""
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as out:
            os.fchmod(out.fileno(), 0o600)  # mkstemp's mode, whatever the umask
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
