"""Idle timeout for a triggered Worker: drain the queue, stay while messages keep coming,
exit when none has arrived for a while (``mqjms run module:app --idle-timeout SECONDS``).

The Worker has no idle timeout of its own, so this wraps its public ``connector`` hook:
every connection its consumers make is a :class:`TrackedConnection` that notes when an
MQGET returns a message and when its unit of work ends. The worker is idle when no
message is in flight on any of them and none arrived for ``timeout`` seconds while every
consumer was connected with its queue open (one that cannot connect is not idle); then
:func:`stop_when_idle`'s thread asks it to stop (``Worker.request_stop()``), which ends
:meth:`Worker.run` as a SIGTERM would: in-flight work finishes, connections close.

When the worker closes its queue with messages left (one arrived just before the close),
the queue manager writes a new trigger message (seed 003 item 12) and the trigger monitor
starts the worker again: nothing is stranded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from mqjms.listeners import Worker
from mqjms.logs import get_logger
from mqjms.mq.md import MQMD
from mqjms.semantics import (
    DEFAULT_DYNAMIC_NAME,
    Browse,
    Connection,
    ConnectionWrapper,
    Handle,
    PutFailed,
    SyncpointPut,
)

log = get_logger("mqjms.trigger")

Connector = Callable[[str, str | None], Connection]


class ActivityTracker:
    """Messages in flight on a set of connections, and when the last activity was."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._busy: set[int] = set()  # id() of connections with a message in flight
        self._last = clock()
        self.messages = 0  # messages got

    def touch(self) -> None:
        with self._lock:
            self._last = self._clock()

    def begin(self, conn: object, in_unit_of_work: bool) -> None:
        with self._lock:
            self.messages += 1
            self._last = self._clock()
            if in_unit_of_work:
                self._busy.add(id(conn))

    def end(self, conn: object) -> None:
        with self._lock:
            if id(conn) in self._busy:
                self._busy.discard(id(conn))
                self._last = self._clock()

    def idle_for(self) -> float:
        """Seconds since the last activity; 0 while a message is in flight."""
        with self._lock:
            if self._busy:
                return 0.0
            return max(0.0, self._clock() - self._last)

    def wrap(self, connector: Connector) -> Connector:
        """A connector whose connections report to this tracker."""

        def connect(url: str, appl_name: str | None) -> Connection:
            return TrackedConnection(connector(url, appl_name), self)

        return connect


class TrackedConnection(ConnectionWrapper):
    """A transport connection that tells an :class:`ActivityTracker` what it does. It is
    a :class:`ConnectionWrapper`, so the wrapped connection's capabilities stay (a
    triggered worker keeps its one-step commit-and-get)."""

    def __init__(self, inner: Connection, tracker: ActivityTracker) -> None:
        super().__init__(inner)
        self.tracker = tracker

    def open(
        self,
        queue: str,
        options: int,
        *,
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
        qmgr: str = "",
    ) -> Handle:
        handle = self.inner.open(queue, options, dynamic_name=dynamic_name, qmgr=qmgr)
        self.tracker.touch()  # the idle clock starts when the queue is being served
        return handle

    def get(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        syncpoint: bool = False,
        browse: Browse | None = None,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        group_id: bytes | None = None,
        under_cursor: bool = False,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        got = self.inner.get(
            handle,
            wait=wait,
            syncpoint=syncpoint,
            browse=browse,
            msg_id=msg_id,
            correl_id=correl_id,
            group_id=group_id,
            under_cursor=under_cursor,
            max_length=max_length,
        )
        if got is not None and browse is None:
            self.tracker.begin(self, in_unit_of_work=syncpoint)
        return got

    def commit_and_get(
        self, handle: Handle, puts: Sequence[SyncpointPut] = ()
    ) -> tuple[MQMD, bytes] | None:
        """The commit ends the unit of work in flight; a message got begins the next."""
        with self._ending():
            got = super().commit_and_get(handle, puts)
        if got is not None:
            self.tracker.begin(self, in_unit_of_work=True)
        return got

    def backout_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """The backout ends the unit of work in flight; a message got begins the next."""
        try:
            got = super().backout_and_get(handle)
        finally:
            self.tracker.end(self)
        if got is not None:
            self.tracker.begin(self, in_unit_of_work=True)
        return got

    def put_and_commit(self, puts: Sequence[SyncpointPut]) -> None:
        with self._ending():
            super().put_and_commit(puts)

    @contextmanager
    def _ending(self) -> Iterator[None]:
        """A step that commits ends the unit of work in flight, unless one of its puts
        failed (PutFailed): then nothing was committed, the message is still in flight,
        and the caller's backout ends it."""
        try:
            yield
        except PutFailed:
            raise
        except BaseException:
            self.tracker.end(self)
            raise
        self.tracker.end(self)

    def commit(self) -> None:
        try:
            self.inner.commit()
        finally:
            self.tracker.end(self)

    def backout(self) -> None:
        try:
            self.inner.backout()
        finally:
            self.tracker.end(self)

    def disconnect(self, *, commit: bool = False) -> None:
        try:
            self.inner.disconnect(commit=commit)
        finally:
            self.tracker.end(self)


class IdleStop:
    """The thread that stops a worker once it has been idle for ``timeout`` seconds."""

    def __init__(self, worker: Worker, tracker: ActivityTracker, timeout: float) -> None:
        self.worker = worker
        self.tracker = tracker
        self.timeout = timeout
        self.fired = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="mqjms-idle-timeout", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._done.set()

    def _watch(self) -> None:
        tick = min(0.25, max(0.01, self.timeout / 10))
        started = False
        while not self._done.wait(tick):
            # until it runs, a worker that ran before (the same app, run again) still says
            # it is stopping: the watcher that believed it ended, and the run never did
            started = started or self.worker.running
            if not started:
                continue
            if self.worker.stopping:
                return  # stopping for another reason (a signal, a fatal error)
            if not self.worker.health().ready:
                # a consumer not connected (a broker down) is not serving its queue: the
                # worker is not idle but waiting, and must not stop as if it had drained
                self.tracker.touch()
            elif self.tracker.idle_for() >= self.timeout:
                log.info(
                    "worker.idle_timeout",
                    idle_timeout=self.timeout,
                    messages=self.tracker.messages,
                )
                self.fired.set()
                self.worker.request_stop()
                return


def stop_when_idle(worker: Worker, timeout: float) -> IdleStop:
    """Make ``worker`` stop after ``timeout`` seconds without a message (none in flight).
    Call before the worker starts; returns the watcher, already running."""
    if timeout <= 0:
        raise ValueError(f"idle timeout {timeout} must be positive")
    tracker = ActivityTracker()
    worker.connector = tracker.wrap(worker.connector)
    watch = IdleStop(worker, tracker, timeout)
    watch.start()
    return watch
