"""The Worker: a service that runs decorator-registered listeners until it is stopped.

::

    app = mqjms.Worker("embedded:///var/lib/orders")

    @app.listener("ORDERS.IN", concurrency=4)
    def handle(msg: mqjms.Message) -> None:  # raise -> rolled back -> BackoutCount + 1
        ...

    app.run()  # or ``mqjms run myservice:app``; app.start() / app.stop() to embed it

Each concurrent consumer is a thread with its own connection, so each message has its
own unit of work (see :mod:`.thread` for what happens to one message, and
:mod:`mqjms.backout.listener` for seed 002's part). ``async def``
listeners run on one event loop owned by the worker; their consumer threads still do
the MQ work.

``transacted`` is carried for the record: a listener gets no session, so a transacted
listener and a non-transacted one behave alike, and alike to a JMS MessageListener on an
AUTO_ACKNOWLEDGE session (JMS 2.0 section 8.7): the message is got under syncpoint and
acknowledged (committed) when the function returns; when it raises, the message is
redelivered (backed out, BackoutCount + 1, JMSRedelivered set). Nothing is acknowledged
before the function has succeeded, so a failure never loses a message. Seed 002's rule
for asynchronous delivery is the same for both: a poison message is requeued outside the
unit of work of delivery, and returned to the input queue when no queue takes it.

Shutdown (SIGTERM or SIGINT under :meth:`Worker.run`, or :meth:`Worker.stop`): consumers
stop getting, in-flight messages finish and commit up to ``shutdown_timeout``, and
connections are closed. A shutdown adds a backout only when that deadline forces one:
the running listener is abandoned, its connection closed (the queue manager backs the
message out), and ``worker.shutdown_deadline_exceeded`` is logged with the count.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from mqjms import transport
from mqjms.backout import FailureMemory, PoisonHandler
from mqjms.jms.message import Queue
from mqjms.jms.topic import Topic
from mqjms.logs import get_logger
from mqjms.mq.errors import MQError
from mqjms.transport.url import redact, resolve_url

from . import signals
from .eventloop import EventLoopThread
from .listener import Listener, PoisonCallback, RetryWait, check_plain_hook
from .reconnect import DEFAULT_RECONNECT_WAIT, WaitStrategy
from .runtime import Connector, Runtime
from .stats import WorkerStats
from .stopping import StopRequest
from .thread import ListenerThread

if TYPE_CHECKING:  # loaded by the calls that return them, not by every worker
    from .activity import ConsumerActivity
    from .health import Health

log = get_logger("mqjms.listeners")

F = TypeVar("F", bound=Callable[..., Any])
Hook = Callable[[], None]

#: The specs ``mqjms run`` is importing (:func:`.runner.load_app`): a ``run()`` called
#: meanwhile, ``app.run()`` at a module's top level, is ignored with a warning, as
#: ``flask run`` ignores ``app.run()``; the command then runs the worker itself.
IMPORTING: list[str] = []

READY_TIMEOUT = 30.0  # how long start() waits for consumers' first connection attempts
STOP_GRACE = 2.0  # after the deadline: time for consumers to leave an MQI call or a get
LOOP_STOP_MIN = 0.5  # the event loop's share of a grace the consumers used up


class Worker:
    """Runs listeners, each on its own consumer threads and connections."""

    #: Seconds each MQGET waits before looking at the stop flag again, on a transport that
    #: cannot interrupt a get's wait (IBM MQ).
    get_wait: float = 0.5
    #: Seconds each MQGET waits where a stop interrupts the wait (the embedded queue
    #: manager): an idle worker sleeps instead of polling.
    interruptible_wait: float = 60.0

    def __init__(
        self,
        url: str | None = None,
        *,
        appl_name: str | None = None,
        shutdown_timeout: float = 30.0,
        poison_hooks: Sequence[PoisonCallback] = (),
        reconnect_wait: WaitStrategy | None = None,
        client_id: str | None = None,
    ) -> None:
        if url is not None and not isinstance(url, str):
            raise TypeError(f"the transport URL must be a str, not {type(url).__name__}")
        if isinstance(shutdown_timeout, bool) or not isinstance(shutdown_timeout, int | float):
            kind = type(shutdown_timeout).__name__
            raise TypeError(f"shutdown_timeout must be a number of seconds, not {kind}")
        if not shutdown_timeout >= 0:
            raise ValueError(f"shutdown_timeout {shutdown_timeout} is not 0 or more")
        self._url = url  # resolved at start: None means MQJMS_URL, else embedded:///
        self.appl_name = appl_name
        #: The JMS client id naming the durable subscriptions of topic listeners
        #: (SubName ``JMS:<client id>:<name>``): it keeps two services' names apart.
        self.client_id = client_id
        self.shutdown_timeout = shutdown_timeout
        for hook in poison_hooks:
            check_plain_hook(hook, "poison_hooks:")
        self.poison_hooks: list[PoisonCallback] = list(poison_hooks)
        self.reconnect_wait: WaitStrategy = reconnect_wait or DEFAULT_RECONNECT_WAIT
        self.listeners: list[Listener] = []
        # poison_hooks run after a poison message's unit of work has ended (so they see
        # where it really went): each listener thread's flow runs them, after this
        # handler's own hooks.
        self.poison = PoisonHandler()
        self.failures = FailureMemory()
        self.stats = WorkerStats()
        #: How consumers connect; tests and instrumentation may wrap it.
        self.connector: Connector = transport.connect
        self._on_start: list[Hook] = []
        self._on_stop: list[Hook] = []
        self._consumers: list[ListenerThread] = []
        self._loop: EventLoopThread | None = None
        self._stopping = StopRequest()
        self._force = threading.Event()
        self._lifecycle = threading.Lock()  # one start or stop at a time
        self._running = False
        self._fatal: BaseException | None = None
        self._started_logged = False  # worker.started: once every consumer is connected
        self._lifecycle_log = threading.Lock()
        self._failed_queue = ""
        self._connected_once: set[str] = set()
        self._resolved_url = ""

    @property
    def url(self) -> str | None:
        """The transport URL (None: ``MQJMS_URL`` at start), its password masked. Assign
        the real URL; only the consumers' connections use it."""
        return None if self._url is None else redact(self._url)

    @url.setter
    def url(self, url: str | None) -> None:
        self._url = url

    def __repr__(self) -> str:
        queues = ", ".join(sorted({lst.queue for lst in self.listeners}))
        return f"Worker({self.url!r}, listeners=[{queues}])"

    # ------------------------------------------------------------------ registration
    def listener(
        self,
        queue: str | Queue | None = None,
        *,
        concurrency: int = 1,
        transacted: bool = True,
        retry_wait: RetryWait | None = None,
        move_on: type[BaseException] | tuple[type[BaseException], ...] = (),
        on_poison: PoisonCallback | None = None,
        topic: str | Topic | None = None,
        subscription: str | None = None,
        shared: bool | None = None,
        selector: str | None = None,
    ) -> Callable[[F], F]:
        """Register ``fn(msg) -> None`` (or ``async def``) to consume ``queue``, or
        ``topic`` through a subscription (durable when ``subscription`` names it); the
        function is returned unchanged. See :class:`~.listener.Listener` for the options."""

        def register(fn: F) -> F:
            self.add_listener(
                Listener.create(
                    fn,
                    queue,
                    concurrency=concurrency,
                    transacted=transacted,
                    retry_wait=retry_wait,
                    move_on=move_on,
                    on_poison=on_poison,
                    topic=topic,
                    subscription=subscription,
                    shared=shared,
                    selector=selector,
                )
            )
            return fn

        return register

    def add_listener(self, listener: Listener) -> None:
        if self._running:
            raise RuntimeError("register listeners before the worker starts")
        self.listeners.append(listener.unique_in({lst.name for lst in self.listeners}))

    def on_start(self, fn: F) -> F:
        """Register ``fn()`` to run when the worker starts, before any message is got."""
        check_plain_hook(fn, "on_start")
        self._on_start.append(fn)
        return fn

    def on_stop(self, fn: F) -> F:
        """Register ``fn()`` to run when the worker has stopped (consumers disconnected)."""
        check_plain_hook(fn, "on_stop")
        self._on_stop.append(fn)
        return fn

    # ------------------------------------------------------------------ lifecycle
    @property
    def running(self) -> bool:
        return self._running

    @property
    def error(self) -> BaseException | None:
        """What stopped the worker when a listener could not run (else None)."""
        return self._fatal

    @property
    def stopping(self) -> bool:
        """True once a stop was asked for (signal, request_stop, stop, a fatal error)."""
        return self._stopping.is_set()

    def activity(self) -> list[ConsumerActivity]:
        """What each consumer of the running worker holds now (see :mod:`.activity`)."""
        return [consumer.activity.snapshot() for consumer in self._consumers]

    def health(self) -> Health:
        """Liveness and readiness now: see :class:`~.health.Health`."""
        from .health import Health

        consumers = list(self._consumers)
        return Health.of(
            running=self._running,
            stopping=self._stopping.is_set(),
            alive=sum(c.is_alive() for c in consumers),
            connected=sum(c.connected for c in consumers),
            consumers=len(consumers),
            error=self._fatal,
        )

    def queue_depths(self) -> dict[str, int]:
        """CURDEPTH of every listener's queue, inquired now on a connection of its own
        (an empty dict when the queue manager cannot be reached)."""
        from .health import queue_depths

        url = self._resolved_url or resolve_url(self._url)
        queues = sorted({lst.queue for lst in self.listeners})
        return queue_depths(self.connector, url, self.appl_name, queues)

    def start(self) -> None:
        """Start every listener's consumers and return once each has made its first
        connection attempt. Raises when a listener cannot start (e.g. MQRC 2085, its
        queue is not defined); a queue manager that is not available is retried."""
        with self._lifecycle:
            if self._running:
                raise RuntimeError("the worker is already running")
            if not self.listeners:
                raise ValueError("no listeners: register one with @app.listener(queue)")
            self._stopping.clear()
            self._stopping.forget_wakes()
            self._force.clear()
            self._fatal = None
            self._started_logged = False
            self._connected_once = set()
            url = self._resolved_url = resolve_url(self._url)
            for hook in self._on_start:
                hook()
            if any(lst.is_async for lst in self.listeners):
                self._loop = EventLoopThread()
                self._loop.start()
            runtime = Runtime(
                url=url,
                appl_name=self.appl_name,
                connector=self.connector,
                poison=self.poison,
                failures=self.failures,
                stats=self.stats,
                stopping=self._stopping,
                loop=self._loop,
                poison_hooks=tuple(self.poison_hooks),
                reconnect_wait=self.reconnect_wait,
                get_wait=self.get_wait,
                interruptible_wait=self.interruptible_wait,
                on_fatal=self._consumer_failed,
                client_id=self.client_id,
                on_connected=self._consumer_connected,
            )
            self._stopping.on_set(runtime.suspects.wake)
            self._consumers = [
                ListenerThread(lst, index, runtime)
                for lst in self.listeners
                for index in range(lst.concurrency)
            ]
            for consumer in self._consumers:
                self._stopping.on_set(consumer.interrupt_get)
            self._running = True
            for consumer in self._consumers:
                consumer.start()
            for consumer in self._consumers:
                consumer.ready.wait(READY_TIMEOUT)
        if self._fatal is not None:
            fatal = self._fatal
            with self._lifecycle:
                try:
                    self._stop(self.shutdown_timeout, quiet=True)  # nothing ever started
                finally:
                    self._running = False
            from .health import start_error

            raise start_error(fatal, self._failed_queue, url)
        waiting = [c.name for c in self._consumers if not c.connected]
        if waiting:  # retrying with backoff (worker.connecting): started once connected
            log.warning("worker.waiting_for_connection", url=redact(url), consumers=waiting)

    def _consumer_connected(self, consumer: ListenerThread) -> None:
        """A consumer made its first connection: ``worker.started`` once all have one."""
        with self._lifecycle_log:
            self._connected_once.add(consumer.name)
            if self._started_logged or len(self._connected_once) < len(self._consumers):
                return
            self._started_logged = True
        log.info(
            "worker.started",
            url=redact(self._resolved_url),
            consumers=len(self._consumers),
            listeners={lst.name: lst.queue for lst in self.listeners},
        )

    def request_stop(self) -> None:
        """Ask for a graceful stop without waiting: consumers stop getting at once."""
        self._stopping.set()

    def stop(self, timeout: float | None = None) -> bool:
        """Stop gracefully: stop getting, let in-flight messages finish (and commit) for up
        to ``timeout`` seconds (default ``shutdown_timeout``), then disconnect. True when
        nothing had to be backed out. From a listener it only requests the stop."""
        if self._on_worker_thread():
            self.request_stop()
            return True
        with self._lifecycle:
            if not self._running:
                return True
            try:
                return self._stop(self.shutdown_timeout if timeout is None else timeout)
            finally:
                self._running = False

    def _stop(self, timeout: float, *, quiet: bool = False) -> bool:
        deadline = time.monotonic() + timeout
        self._stopping.set()
        if not quiet:
            log.info("worker.stopping", timeout=timeout)
        consumers, self._consumers = self._consumers, []
        for consumer in consumers:
            while consumer.is_alive() and not self._force.is_set():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                consumer.join(min(remaining, 0.1))
        late = [c for c in consumers if c.is_alive()]
        abandoned = [(c, md) for c in late if (md := c.abort()) is not None]
        if abandoned:
            log.error(
                "worker.shutdown_deadline_exceeded",
                in_flight=len(abandoned),
                timeout=timeout,
                queues=sorted({c.listener.queue for c, _ in abandoned}),
            )
            for consumer, md in abandoned:
                self.stats.add("backed_out", listener=consumer.stats)
                log.warning(
                    "message.backed_out",
                    queue=consumer.listener.queue,
                    listener=consumer.listener.name,
                    msg_id=md.MsgId.hex(),
                    backout_count=md.BackoutCount,
                    reason="shutdown deadline exceeded",
                )
        grace = time.monotonic() + STOP_GRACE + self.get_wait
        for consumer in late:
            consumer.join(max(0.0, grace - time.monotonic()))
        stuck = [c.name for c in late if c.is_alive()]
        if stuck:
            log.warning("worker.consumers_not_stopped", consumers=stuck)
        if self._loop is not None:  # within the grace too: SIGTERM to exit stays bounded
            self._loop.stop(max(LOOP_STOP_MIN, grace - time.monotonic()))
            self._loop = None
        for hook in self._on_stop:
            try:
                hook()
            except Exception as exc:
                log.error("worker.on_stop_failed", hook=repr(hook), error=repr(exc), exc_info=exc)
        if not quiet:
            log.info("worker.stopped", clean=not abandoned, **self.stats.snapshot())
        return not abandoned

    def run(self) -> int:
        """Run until SIGTERM or SIGINT (a second one cuts the shutdown deadline short) or a
        fatal listener error; return the exit status: 0 after a clean stop, 1 when a
        listener could not run or the shutdown deadline backed a message out.

        Signal handlers are installed only in the main thread; elsewhere stop the worker
        with :meth:`request_stop`."""
        if IMPORTING:  # it would run (and take the first SIGTERM) inside the import
            log.warning(
                "worker.run_ignored",
                spec=IMPORTING[-1],
                reason="app.run() called while mqjms run imports the module; mqjms run "
                "runs the worker: call app.run() under if __name__ == '__main__':",
            )
            return 0
        with signals.handled(self._on_signal):
            try:
                self.start()
            except Exception as exc:
                if isinstance(exc, MQError):  # one line: what, where, and what to do
                    log.error("worker.start_failed", reason=exc.reason_name, error=str(exc))
                else:
                    trace = None if isinstance(exc, ValueError) else exc
                    log.error("worker.start_failed", error=str(exc), exc_info=trace)
                return 1
            try:
                while not self._stopping.wait(60.0):  # a signal's handler sets it
                    pass
            finally:
                clean = self.stop()
        return 0 if clean and self._fatal is None else 1

    def __enter__(self) -> Worker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ internals
    def _on_signal(self, signum: int) -> None:
        name = signal.Signals(signum).name
        if self._stopping.is_set():
            self._force.set()
            log.warning("worker.forced_stop", signal=name)
        else:
            self._stopping.set()  # first: the line below may not be writable (a hang-up)
            log.info("worker.signal", signal=name)

    def _consumer_failed(self, consumer: ListenerThread, exc: BaseException) -> None:
        if self._fatal is None:
            self._fatal = exc
            self._failed_queue = consumer.listener.queue
        self._stopping.set()

    def _on_worker_thread(self) -> bool:
        me = threading.current_thread()
        if any(c.thread is me for c in self._consumers):
            return True
        loop = self._loop
        return loop is not None and loop.thread is me
