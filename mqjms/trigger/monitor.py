"""The trigger monitor: gets trigger messages from an initiation queue and starts the
programs they name, as IBM's ``runmqtrm`` does, over any transport.

::

    monitor = TriggerMonitor("embedded:///var/lib/orders", "ORDERS.INITQ")
    monitor.run()          # until stop() / SIGTERM (``mqjms trigger-monitor``); or
    monitor.start() ... monitor.stop()   # in a thread of this process

Opening the initiation queue for input is itself a trigger event (seed 003 item 13): the
queue manager writes a trigger message for every application queue whose messages arrived
while no monitor ran. Each trigger message is got in a unit of work; it must be Format
MQTRIG with a valid MQTM, else it is dead-lettered (MQFB_TM_ERROR). The program is started
with the command line :mod:`.command` builds (ApplId, the MQTMC2, EnvData) and the
environment of the monitor plus ``MQJMS_URL``, so that an ``mqjms run`` worker connects to
the same queue manager. A program that cannot be started (or of an application type the
monitor does not start) has its trigger message reported and dead-lettered with
MQFB_APPL_CANNOT_BE_STARTED (MQFB_APPL_TYPE_ERROR), see :mod:`.undeliverable`.

One server per application queue. While the program started for a queue runs, a further
trigger message for that queue starts nothing: the first one is kept (deferred), the rest
are logged as duplicates (``trigger.duplicate``). When the program exits, a deferred
trigger message starts it again only when the queue still has messages and nobody has it
open for input -- this covers a server that closes the queue (seed 003 item 12 writes a
trigger message at that close) an instant before its process ends. So no trigger event
starts two servers, and no message is left without one.

Unlike runmqtrm, which waits for each program unless its EnvData ends with ``&``, every
program runs in the background and is supervised: its output is logged
(``trigger.output``), its exit logged with its status (``trigger.exited``). Stopping the
monitor closes the initiation queue first (so servers that end leave their trigger
messages for the next monitor: item 13 again), then sends SIGTERM to the programs still
running and SIGKILL to those still running after ``stop_timeout``.

Exit status of :meth:`TriggerMonitor.run`, as runmqtrm's: 0 stopped (or the queue manager
is ending), 10 interrupted by an error, 20 not run (no connection, no initiation queue).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mqjms import transport
from mqjms.counters import Counters
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.mq.tm import MQTM, parse_tm
from mqjms.semantics import Connection, Handle
from mqjms.transport.url import ENV_VAR, redact, resolve_url

from .children import Child, ChildRecord
from .command import SUPPORTED_APPL_TYPES, CommandError, command_line
from .undeliverable import reject

log = get_logger("mqjms.trigger")

DEFAULT_INITQ = "SYSTEM.DEFAULT.INITIATION.QUEUE"
OPEN_OPTIONS = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING
EXIT_STOPPED = 0
EXIT_ERROR = 10  # runmqtrm: trigger monitor interrupted by an error
EXIT_NOT_RUN = 20  # runmqtrm: error; trigger monitor not run
ENDING = frozenset(
    {
        C.MQRC_Q_MGR_QUIESCING,
        C.MQRC_Q_MGR_STOPPING,
        C.MQRC_CONNECTION_QUIESCING,
        C.MQRC_CONNECTION_STOPPING,
    }
)

Connector = Callable[[str, str | None], Connection]


@dataclass
class MonitorStats(Counters):
    """What the monitor did since it was created. Thread-safe."""

    received: int = 0  # trigger messages got
    started: int = 0  # programs started
    exited: int = 0  # programs that ended
    deferred: int = 0  # trigger messages kept for the end of a running program
    duplicates: int = 0  # trigger messages that started nothing: a server ran or was not needed
    invalid: int = 0  # not an MQTRIG message with a valid MQTM (MQFB_TM_ERROR)
    not_started: int = 0  # program not startable (MQFB_APPL_CANNOT_BE_STARTED / TYPE_ERROR)
    dead_lettered: int = 0
    reported: int = 0


@dataclass(frozen=True, slots=True)
class TriggerRequest:
    """A valid trigger message: its MQTM, and the message as got (for dead-lettering)."""

    tm: MQTM
    md: MQMD
    data: bytes


class TriggerMonitor:
    """Serves one initiation queue: one connection, one thread, the programs it started."""

    def __init__(
        self,
        url: str | None = None,
        initq: str = DEFAULT_INITQ,
        *,
        wait: float | None = None,
        poll_interval: float = 0.5,
        stop_timeout: float = 30.0,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
        python: str = sys.executable,
        connector: Connector | None = None,
        appl_name: str = "mqjms trigger-monitor",
    ) -> None:
        """``wait``: end :meth:`run` once no trigger message arrived for that many seconds
        and no started program is running (None: run until stopped). ``poll_interval``:
        how long each MQGET waits before the monitor looks at its programs and at stop
        requests. ``stop_timeout``: how long programs get to end after SIGTERM when the
        monitor stops. ``env``: the environment of started programs (default: this
        process's), to which ``MQJMS_URL`` is set to the monitor's URL."""
        if wait is not None and wait < 0:
            raise ValueError(f"wait {wait} is negative")
        if poll_interval <= 0:
            raise ValueError(f"poll_interval {poll_interval} must be positive")
        self._url = resolve_url(url)
        self.initq = initq
        self.wait = wait
        self.poll_interval = poll_interval
        self.stop_timeout = stop_timeout
        self.env = dict(os.environ if env is None else env)
        self.env[ENV_VAR] = self._url  # the real URL: started programs connect with it
        self.cwd = cwd
        self.python = python
        self.connector: Connector = connector or transport.connect
        self.appl_name = appl_name
        self.appl_types = SUPPORTED_APPL_TYPES
        self.stats = MonitorStats()
        self.qmgr_name = ""
        self._children: dict[str, Child] = {}
        self._history: list[ChildRecord] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._force = threading.Event()
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None
        self._status: int | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        """The transport URL, its password masked (for logs and display)."""
        return redact(self._url)

    def __repr__(self) -> str:
        return f"TriggerMonitor({self.url!r}, {self.initq!r})"

    # ------------------------------------------------------------------ public API
    @property
    def history(self) -> list[ChildRecord]:
        """Every program started, in order (running ones have ``status`` None)."""
        with self._lock:
            return list(self._history)

    def running(self) -> dict[str, ChildRecord]:
        """Application queue -> the program running for it."""
        with self._lock:
            return {q: c.record for q, c in self._children.items() if c.record.running}

    @property
    def status(self) -> int | None:
        """The exit status once :meth:`run` has returned."""
        return self._status

    @property
    def stopping(self) -> bool:
        """True once a stop was asked for."""
        return self._stopping.is_set()

    def request_stop(self) -> None:
        """Ask :meth:`run` to stop gracefully, without waiting (programs get SIGTERM and
        ``stop_timeout`` to end)."""
        self._stopping.set()

    def force_stop(self) -> None:
        """Stop now: programs still running get SIGKILL instead of time to end."""
        self._force.set()
        self._stopping.set()

    def start(self, timeout: float = 30.0) -> None:
        """Run the monitor on a thread of its own; return once the initiation queue is open.
        Raises RuntimeError when the monitor could not run."""
        if self._thread is not None and self._thread.is_alive():
            raise RuntimeError("the trigger monitor is already running")
        self._ready.clear()
        self._stopping.clear()
        self._force.clear()
        self._thread = threading.Thread(
            target=self.run, name=f"mqjms-trigger-monitor-{self.initq}", daemon=True
        )
        self._thread.start()
        self._ready.wait(timeout)
        if self._status == EXIT_NOT_RUN:
            raise RuntimeError(f"trigger monitor on {self.initq} not run: {self._error}")

    def stop(self, timeout: float | None = None) -> int | None:
        """Stop gracefully (see the module doc) and wait for :meth:`run` to return, at most
        ``timeout`` seconds (default: ``stop_timeout`` + 10); returns the exit status."""
        self.request_stop()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self.stop_timeout + 10.0 if timeout is None else timeout)
        return self._status

    def __enter__(self) -> TriggerMonitor:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        """Serve the initiation queue until stopped; returns runmqtrm's exit status."""
        self._status = None
        try:
            conn = self.connector(self._url, self.appl_name)
        except Exception as exc:  # MQError, a bad URL, a missing client library...
            return self._not_run(exc)
        try:
            handle = conn.open(self.initq, OPEN_OPTIONS)
        except MQError as exc:
            _quietly(conn.disconnect)
            return self._not_run(exc)
        self.qmgr_name = conn.qmgr_name
        log.info("trigger.monitor_started", initq=self.initq, qmgr=self.qmgr_name, url=self.url)
        self._ready.set()
        status = EXIT_STOPPED
        try:
            self._serve(conn, handle)
        except MQError as exc:
            if exc.reason in ENDING:
                log.info("trigger.monitor_ending", initq=self.initq, reason=exc.reason_name)
            else:
                status = EXIT_ERROR
                self._error = exc
                log.error(
                    "trigger.monitor_failed",
                    initq=self.initq,
                    reason=exc.reason_name,
                    detail=exc.detail,
                )
        except Exception as exc:
            status = EXIT_ERROR
            self._error = exc
            log.critical("trigger.monitor_failed", initq=self.initq, error=repr(exc), exc_info=exc)
        finally:
            # Close the initiation queue first: servers that end from now on leave their
            # trigger events to the next monitor (seed 003 item 13).
            _quietly(lambda: conn.close(handle))
            _quietly(conn.disconnect)
            self._stop_children()
            self._status = status
            log.info(
                "trigger.monitor_stopped", initq=self.initq, status=status, **self.stats.snapshot()
            )
        return status

    def _not_run(self, exc: BaseException) -> int:
        self._error = exc
        self._status = EXIT_NOT_RUN
        detail = str(exc)
        log.error("trigger.monitor_not_run", initq=self.initq, url=self.url, error=detail)
        self._ready.set()
        return EXIT_NOT_RUN

    def _serve(self, conn: Connection, handle: Handle) -> None:
        last_activity = time.monotonic()
        while not self._stopping.is_set():
            if self._reap(conn):
                last_activity = time.monotonic()
            got = conn.get(handle, wait=self.poll_interval, syncpoint=True)
            if got is None:
                if (
                    self.wait is not None
                    and not self._children
                    and time.monotonic() - last_activity >= self.wait
                ):
                    log.info("trigger.monitor_idle", initq=self.initq, wait=self.wait)
                    return
                continue
            last_activity = time.monotonic()
            self.stats.add("received")
            try:
                self._process(conn, got[0], got[1])
            except BaseException:
                _quietly(conn.backout)  # the trigger message returns to the initiation queue
                raise
            conn.commit()

    # ------------------------------------------------------------------ one trigger message
    def _process(self, conn: Connection, md: MQMD, data: bytes) -> None:
        try:
            tm = self._parse(md, data)
        except MQError as exc:
            self.stats.add("invalid")
            log.error(
                "trigger.invalid_message",
                initq=self.initq,
                msg_id=md.MsgId.hex(),
                format=md.Format.strip(),
                reason=exc.reason_name,
                detail=exc.detail,
            )
            self._reject(conn, md, data, C.MQFB_TM_ERROR, "")
            return
        request = TriggerRequest(tm, md, data)
        child = self._children.get(tm.QName)
        if child is not None:
            if child.deferred is None:
                child.deferred = request
                self.stats.add("deferred")
                log.info(
                    "trigger.deferred",
                    queue=tm.QName,
                    process=tm.ProcessName or None,
                    pid=child.record.pid,
                    reason="a server for the queue is running",
                )
            else:
                self._duplicate(tm, f"a server for the queue is running (pid {child.record.pid})")
            return
        self._start(conn, request)

    def _parse(self, md: MQMD, data: bytes) -> MQTM:
        """The MQTM of a trigger message; MQError(MQRC_TM_ERROR) when it is not one."""
        if md.Format.strip() != C.MQFMT_TRIGGER:
            raise MQError(
                C.MQCC_FAILED,
                C.MQRC_TM_ERROR,
                f"Format {md.Format.strip()!r} is not {C.MQFMT_TRIGGER!r}",
            )
        tm = parse_tm(data, md.Encoding)
        if not tm.QName.strip():
            raise MQError(C.MQCC_FAILED, C.MQRC_TM_ERROR, "MQTM.QName is blank")
        return tm

    def _start(self, conn: Connection, request: TriggerRequest) -> None:
        tm = request.tm
        try:
            argv = command_line(tm, self.qmgr_name, python=self.python, appl_types=self.appl_types)
            child = Child.start(
                argv, queue=tm.QName, process=tm.ProcessName, env=self.env, cwd=self.cwd
            )
        except CommandError as exc:
            self._not_started(conn, request, exc.feedback, exc.detail)
            return
        except OSError as exc:
            self._not_started(
                conn,
                request,
                C.MQFB_APPL_CANNOT_BE_STARTED,
                f"{tm.ApplId!r}: {exc.strerror or exc}",
            )
            return
        with self._lock:
            self._children[tm.QName] = child
            self._history.append(child.record)
        self.stats.add("started")

    def _not_started(
        self, conn: Connection, request: TriggerRequest, feedback: int, detail: str
    ) -> None:
        tm = request.tm
        self.stats.add("not_started")
        log.error(
            "trigger.not_started",
            queue=tm.QName,
            process=tm.ProcessName or None,
            appl_type=tm.ApplType,
            applid=tm.ApplId,
            feedback=feedback,
            detail=detail,
        )
        self._reject(conn, request.md, request.data, feedback, tm.QName)

    def _reject(self, conn: Connection, md: MQMD, data: bytes, feedback: int, queue: str) -> None:
        rejection = reject(conn, md, data, feedback=feedback, initq=self.initq, queue=queue)
        if rejection.dead_letter_queue:
            self.stats.add("dead_lettered")
        if rejection.report_queue:
            self.stats.add("reported")

    def _duplicate(self, tm: MQTM, reason: str) -> None:
        self.stats.add("duplicates")
        log.info("trigger.duplicate", queue=tm.QName, process=tm.ProcessName or None, reason=reason)

    # ------------------------------------------------------------------ started programs
    def _reap(self, conn: Connection) -> bool:
        """Record programs that ended; act on the trigger message each one deferred.
        True when one ended."""
        ended = False
        for queue, child in list(self._children.items()):
            status = child.poll()
            if status is None:
                continue
            ended = True
            child.finish(status)
            self.stats.add("exited")
            with self._lock:
                del self._children[queue]
            deferred: TriggerRequest | None = child.deferred
            if deferred is not None:
                self._after_deferral(conn, deferred)
        return ended

    def _after_deferral(self, conn: Connection, request: TriggerRequest) -> None:
        """The server of ``request``'s queue ended: start it again if it left work."""
        queue = request.tm.QName
        try:
            found = conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH, C.MQIA_OPEN_INPUT_COUNT])
            depth = int(found[C.MQIA_CURRENT_Q_DEPTH])
            readers = int(found[C.MQIA_OPEN_INPUT_COUNT])
        except (MQError, KeyError, ValueError, TypeError) as exc:
            log.debug("trigger.inquire_failed", queue=queue, error=str(exc))
            depth, readers = 1, 0  # cannot tell: start it; a server copes with an empty queue
        if depth == 0:
            self._duplicate(request.tm, "the server it waited for emptied the queue")
            return
        if readers > 0:
            self._duplicate(request.tm, f"the queue is open for input ({readers})")
            return
        self._start(conn, request)
        conn.commit()  # a dead-letter put of a program that could not start

    def _stop_children(self) -> None:
        children = list(self._children.values())
        if not children:
            return
        log.info("trigger.stopping_programs", count=len(children), timeout=self.stop_timeout)
        for child in children:
            child.terminate()
        deadline = time.monotonic() + self.stop_timeout
        for child in children:
            while child.poll() is None and not self._force.is_set():
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
            if child.poll() is None:
                log.warning("trigger.killing", queue=child.record.queue, pid=child.record.pid)
                child.kill()
                try:
                    child.proc.wait(10.0)
                except Exception as exc:  # pragma: no cover - a process that ignores SIGKILL
                    log.error("trigger.not_stopped", pid=child.record.pid, error=repr(exc))
                    continue
            status = child.poll()
            if status is not None:
                child.finish(status)
                self.stats.add("exited")
            with self._lock:
                self._children.pop(child.record.queue, None)
            if child.deferred is not None:
                self._duplicate(child.deferred.tm, "the trigger monitor is stopping")


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception as exc:
        log.debug("trigger.cleanup_failed", error=repr(exc))
