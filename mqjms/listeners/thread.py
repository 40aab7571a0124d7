"""A listener thread: consumes one queue for one listener, with its own connection, hence
its own unit of work. It is plumbing: what seed 002 says about a message is decided by its
:class:`~mqjms.backout.ListenerPoisonFlow`.

Per message:

1. MQGET under syncpoint, with a wait that a stop request interrupts (a short one, on a
   transport that cannot interrupt a get, so that the stop is noticed).
2. The flow screens it *before* delivery: a poison message is never delivered (requeued
   outside any unit of work of delivery, see :mod:`mqjms.backout.listener`).
3. Otherwise the listener function is called. It returns: what it sent with
   ``mqjms.send`` is put under syncpoint (:mod:`.send`), then commit. It raises: after the
   flow's retry delay (the listener's ``retry_wait``), back out (BackoutCount + 1,
   redelivered by the queue manager); a ``move_on`` exception is requeued by the flow
   at once instead.

A suspect (BackoutCount > 0, and its last backout not a failure this worker remembers) is
processed alone, apart from the queue's other consumers (see :mod:`.isolation`), so that a
crash counts only against it. It is screened first: one the flow moves at BOTHRESH is
never delivered, so it waits for nobody.

A lost connection is dropped and made again with backoff (see :mod:`.reconnect`); the
cached BOTHRESH/BOQNAME are dropped with it. Nothing else ends the thread except the
worker stopping: an unexpected error is logged and the message backed out.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from mqjms.backout import Failure, ListenerPoisonFlow, PendingMove, PoisonEvent, PoisonOutcome
from mqjms.jms.message import Message, to_message
from mqjms.jms.topic import Topic, open_subscription
from mqjms.logs import get_logger
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import (
    Connection,
    Handle,
    PutFailed,
    backout_and_get,
    commit_and_get,
    interrupt_wait,
    put_and_commit,
)

from .activity import ActivityTracker
from .calling import ListenerCall
from .isolation import SuspectGate
from .listener import Listener
from .reconnect import connect_with_retry, is_connection_error, reason_of, wait_seconds
from .runtime import OPEN_OPTIONS, Abandoned, Runtime
from .send import Outbox, Send

log = get_logger("mqjms.listeners")


# Finished and FailedDelivery are NamedTuples, not dataclasses: made once a message, and
# a NamedTuple class costs a tenth of a frozen dataclass's to create at import.
class Finished(NamedTuple):
    """A message whose unit of work is committed with the get of the next one (its puts,
    MQCMIT and the MQGET in one step), or alone when the consumer stops or takes turns:
    one whose listener returned, with what it sent, or a poison message moved to BOQNAME
    (``move``: its put is the requeue). ``failed``: the delivery that failed at the last
    attempt, moved instead of backed out (should the move's put fail, it is backed out)."""

    md: MQMD
    puts: list[Send]
    move: PendingMove | None = None
    failed: FailedDelivery | None = None


class FailedDelivery(NamedTuple):
    """A message whose delivery failed, to be backed out with the get of the next one
    (MQBACK + MQGET in one step, as a success's MQCMIT is), or alone when the consumer
    stops or takes turns: what its ``message.backed_out`` line says."""

    md: MQMD
    failure: Failure
    reason: str
    context: Mapping[str, Any] = MappingProxyType({})


class ListenerThread:
    """Consumes one queue for one listener on a thread of its own."""

    def __init__(self, listener: Listener, index: int, runtime: Runtime) -> None:
        self.listener = listener
        self.index = index
        self.rt = runtime
        self.name = f"mqjms-{listener.queue}-{index}"
        self.ready = threading.Event()  # set once the first connection attempt has finished
        self.activity = ActivityTracker(self.name, listener.name, listener.queue)
        self.error: BaseException | None = None  # what ended the thread, when not a stop
        self.stats = runtime.stats.listener(listener.name, listener.queue)
        self._started = False  # the first connection was made
        self._ctx: dict[str, Any] = {"queue": listener.queue, "listener": listener.name}
        self._log: Any = log  # bound to the context when the thread starts (see _run)
        self._debug = True  # whether _log's debug lines go anywhere (see _run)
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._conn: Connection | None = None
        self._handle: Handle | None = None
        self._errors = 0  # consecutive losses or errors before a get succeeded: backoff
        self._requeue_failures = 0  # consecutive poison requeues that no queue took
        # The worker's counters first, then its hooks, then the listener's on_poison.
        self.poison = ListenerPoisonFlow(
            runtime.poison, listener, runtime.failures, (self._count, *runtime.poison_hooks)
        )
        self._message_errors = 0  # consecutive worker errors while handling messages
        # A message whose listener returned, with what it sent, or a poison message's
        # move: put and committed with the get of the next one.
        self._done: Finished | None = None
        # A message whose delivery failed: backed out with the get of the next one.
        self._failed: FailedDelivery | None = None
        # what a shutdown deadline may cut short: the listener's call, never an MQI call
        self._call = ListenerCall(listener, runtime.loop)

    # ------------------------------------------------------------------ thread
    def start(self) -> None:
        self._thread.start()

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def interrupt_get(self) -> None:
        """End the get this consumer waits in, if its transport can (any thread): it looks
        at the stop request and its queue's turns again."""
        conn = self._conn
        if conn is not None:
            interrupt_wait(conn)

    @property
    def connected(self) -> bool:
        """The consumer has a connection with its queue open (it is consuming)."""
        return self._conn is not None

    def _run(self) -> None:
        # One logger per thread run, bound once: structlog's configuration at start applies.
        self._log = log.bind(**self._ctx)
        self._debug = debug_enabled(self._log)
        try:
            self._serve()
        except Abandoned:
            pass
        except BaseException as exc:
            self.error = exc
            if self._started:  # a failure to start is the worker's to report, once
                trace = None if isinstance(exc, MQError) else exc  # its text says it all
                log.critical("worker.consumer_failed", **self._ctx, error=repr(exc), exc_info=trace)
            self.rt.on_fatal(self, exc)
        finally:
            self.ready.set()
            self._drop_connection()

    def _serve(self) -> None:
        first = True
        stopping = self.rt.stopping
        while not stopping.is_set():
            if self._conn is None:
                if not self._connect(first):
                    return
                first = False
            try:
                self._consume()
            except Abandoned:
                raise
            except Exception as exc:
                self._errors += 1
                if is_connection_error(exc):
                    log.warning("worker.connection_lost", **self._ctx, reason=reason_of(exc))
                elif isinstance(exc, MQError):  # an MQ condition (2016 GET(DISABLED)...):
                    log.error(  # its reason says it all, once per attempt, no traceback
                        "worker.consumer_error",
                        **self._ctx,
                        reason=exc.reason_name,
                        error=str(exc),
                        attempt=self._errors,
                    )
                else:
                    log.error("worker.consumer_error", **self._ctx, error=repr(exc), exc_info=exc)
                self._drop_connection()
                if self._errors > 1:  # again, before any get succeeded: back off
                    stopping.wait(wait_seconds(self.rt.reconnect_wait, self._errors - 1))

    # ------------------------------------------------------------------ connection
    def _connect(self, first: bool) -> bool:
        """Connect and open the queue, retrying with backoff (see
        :func:`.reconnect.connect_with_retry`); False when stopped meanwhile. Each failed
        attempt is one log line: no traceback."""

        def before_sleep(attempt: int, seconds: float, exc: BaseException | None) -> None:
            self.ready.set()
            log.warning(
                "worker.connecting" if first else "worker.reconnecting",
                **self._ctx,
                attempt=attempt,
                wait=round(seconds, 3),
                reason=reason_of(exc) if exc else None,
                error=str(exc) if exc else None,
            )

        attempts = connect_with_retry(
            self._open,
            first=first,
            wait=self.rt.reconnect_wait,
            stopping=self.rt.stopping,
            before_sleep=before_sleep,
        )
        if attempts is None:
            return False
        self.ready.set()
        if first:
            self._started = True
            log.info("listener.started", **self._ctx, transacted=self.listener.transacted)
            self.rt.on_connected(self)
        else:
            # Seed 002 caches BOTHRESH/BOQNAME; definitions may have changed meanwhile.
            self.rt.poison.cache.clear()
            self.rt.stats.add("reconnects")
            log.info("worker.reconnected", **self._ctx, attempts=attempts)
        return True

    def _open(self) -> None:
        conn = self.rt.connector(self.rt.url, self.rt.appl_name)
        try:
            if self.listener.topic is not None:
                handle = self._subscribe(conn, self.listener.topic)
            else:
                handle = conn.open(self.listener.queue, OPEN_OPTIONS)
        except BaseException:
            _quietly(conn.disconnect)
            raise
        self._conn, self._handle = conn, handle

    def _subscribe(self, conn: Connection, topic: str) -> Handle:
        """A topic listener's subscription (its managed queue is what it gets from and
        where seed 002's BOTHRESH/BOQNAME are inquired); MQDISC closes it."""
        lst = self.listener
        name = lst.subscription
        if name is None and lst.shared:  # one non-durable subscription for this worker
            name = f"{lst.name}:{self.rt.instance}"
        subscription = open_subscription(
            conn,
            Topic(topic),
            name=name,
            client_id=self.rt.client_id,
            durable=lst.durable,
            shared=lst.shared,
            listener=True,
            selector=lst.selector,
        )
        self.activity.source = subscription.handle.resolved_name
        return subscription.handle

    def _drop_connection(self) -> None:
        conn, self._conn, self._handle = self._conn, None, None
        if conn is not None and not self._call.aborted:
            _quietly(conn.disconnect)  # MQDISC backs out whatever was in flight

    # ------------------------------------------------------------------ messages
    def _consume(self) -> None:
        conn, handle = self._conn, self._handle
        assert conn is not None and handle is not None
        stopping, wait = self.rt.stopping, self.rt.wait_for(conn)
        gate = self.rt.suspects.gate(handle.resolved_name)
        concurrent = False
        try:
            while not stopping.is_set():
                if gate.serial or not concurrent:  # suspects about: get in turns
                    self._commit_done(conn)
                    self.activity.released()
                    gate.leave(self)
                    concurrent = gate.enter(self)
                    if not concurrent:
                        concurrent = self._take_turn(conn, handle, gate)
                    continue
                done, self._done = self._done, None
                failed, self._failed = self._failed, None
                if failed is not None:
                    backed_out = False

                    def after_backout(failed: FailedDelivery = failed) -> None:
                        nonlocal backed_out
                        backed_out = True
                        self._backed_out(failed)
                        self.activity.released()

                    try:
                        got = backout_and_get(conn, handle, wait=wait, backed_out=after_backout)
                    except Exception as exc:
                        if backed_out:  # the get after the backout failed: not this message's
                            raise
                        self._backout_raised(conn, failed, exc)
                        continue
                elif done is not None:
                    # the last message's puts, its MQCMIT and the MQGET of the next in one
                    # step (one database transaction on the embedded queue manager)
                    committed = False

                    def record(done: Finished = done) -> None:
                        nonlocal committed
                        committed = True
                        self._committed(done)
                        self.activity.released()

                    try:
                        got = commit_and_get(
                            conn, handle, wait=wait, committed=record, puts=done.puts
                        )
                    except PutFailed as exc:
                        self._put_failed(conn, done, exc)
                        continue
                    except Exception as exc:
                        if committed:  # the get after the commit failed: not this message's
                            raise
                        if _committed_unsynced(exc):
                            self._commit_unsynced(done, exc)
                            continue
                        self._message_error(conn, done.md, exc)  # backs it out, or re-raises
                        continue
                else:
                    self.activity.released()
                    got = conn.get(handle, wait=wait, syncpoint=True)
                self._errors = 0
                self.activity.got(got[0] if got else None)
                if got is None:
                    continue
                if self._suspect(got[0]):  # screened, then processed alone
                    if self._screen(conn, handle, got[0], got[1]):
                        continue  # requeued (or backed out): its unit of work has ended
                    concurrent = False
                    with gate.alone(self):
                        self._process(conn, handle, got[0], got[1], screened=True)
                        self._commit_done(conn)
                else:
                    self._process(conn, handle, got[0], got[1])
        finally:
            try:
                self._commit_done(conn)  # stopping: the last message is committed, not backed out
            finally:
                gate.leave(self)
                gate.wake()  # a consumer waiting for a turn need not wait for its timeout

    def _take_turn(self, conn: Connection, handle: Handle, gate: SuspectGate) -> bool:
        """The queue is serial: get and process one message in this thread's turn (none
        when the queue turns concurrent or the worker stops while it waits).

        True when the turn got a message with BackoutCount 0 and no suspect waits: the
        queue turned concurrent, this consumer with it, and the message is processed as
        any concurrent one (committed with the next get). Otherwise the message's unit of
        work ends within the turn."""
        with gate.turn(self, self.rt.stopping) as mine:
            if not mine:
                return False
            got = conn.get(handle, wait=self.rt.wait_for(conn), syncpoint=True)
            self._errors = 0
            self.activity.got(got[0] if got else None)
            if got is None:
                gate.turn_was_empty()
                return False
            if self._suspect(got[0]) or not gate.cleared(self):
                self._process(conn, handle, got[0], got[1])
                self._commit_done(conn)
                return False
        self._process(conn, handle, got[0], got[1])
        return True

    def _suspect(self, md: MQMD) -> bool:
        """Whether ``md`` may be a message that crashes the process: it was backed out, and
        not by a failure of its listener here (remembered with its count), which a crash
        would have left unremembered."""
        return md.BackoutCount > 0 and not self.rt.failures.explains(
            md.MsgId, md.BackoutCount, md.PutDate + md.PutTime
        )

    def _commit_done(self, conn: Connection) -> None:
        """End the unit of work of the last message, if one waits: the sends and MQCMIT
        of one whose listener returned, the MQBACK of one whose delivery failed."""
        done, self._done = self._done, None
        if done is not None:
            try:
                put_and_commit(conn, done.puts)
            except PutFailed as exc:
                self._put_failed(conn, done, exc)  # a send's: to back out, below
            except Exception as exc:
                if _committed_unsynced(exc):
                    self._commit_unsynced(done, exc)
                else:
                    self._message_error(conn, done.md, exc)  # backs it out, or re-raises
            else:
                self._committed(done)
        failed, self._failed = self._failed, None
        if failed is not None:
            try:
                conn.backout()
            except Exception as exc:
                self._backout_raised(conn, failed, exc)
                return
            self._backed_out(failed)

    def _backout_raised(self, conn: Connection, failed: FailedDelivery, exc: Exception) -> None:
        """The MQBACK of a failed delivery raised ``exc``: one whose fsync failed stands
        all the same; any other is our failure (backed out again, or re-raised)."""
        if _committed_unsynced(exc):
            self._backed_out(failed)
        else:
            self._message_error(conn, failed.md, exc)

    def _commit_unsynced(self, done: Finished, exc: Exception) -> None:
        """The commit of ``done`` stands, but the disk did not confirm it: the message was
        processed and consumed, or moved (nothing to back out); an operating-system crash
        before the disk writes it could still bring it back."""
        md = done.md
        log.error(
            "message.commit_unsynced",
            **self._ctx,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            reason=reason_of(exc),
            detail=str(exc),
        )
        self._committed(done)

    def _committed(self, done: Finished) -> None:
        if done.move is not None:  # a poison message's move: reported as one
            if done.failed is not None:  # its last attempt's line, as a backout's
                self._backed_out(done.failed)
            self._requeued(self.poison.moved(done.move))
            return
        md = done.md
        self.rt.stats.add_commit(self.stats)
        self.poison.committed(md)
        if self._debug:
            self._log.debug(
                "message.committed", msg_id=md.MsgId.hex(), backout_count=md.BackoutCount
            )

    def _process(
        self, conn: Connection, handle: Handle, md: MQMD, data: bytes, screened: bool = False
    ) -> None:
        """Screen ``md`` (unless :meth:`_screen` did), deliver it, and back it out on a
        failure of ours."""
        try:
            self._process_one(conn, handle, md, data, screened)
        except Abandoned:
            raise
        except Exception as exc:
            self._message_error(conn, md, exc)
        else:
            self._message_errors = 0

    def _screen(self, conn: Connection, handle: Handle, md: MQMD, data: bytes) -> bool:
        """The flow's screen alone, before a suspect waits to run alone: True when the
        message's unit of work has ended (requeued at BOTHRESH, or backed out on a failure
        of ours), False when it is to be delivered."""
        self.rt.stats.add("received", listener=self.stats)
        try:
            event = self.poison.screen(conn, handle, md, data)
        except Exception as exc:
            self._message_error(conn, md, exc)
            return True
        if event is None:
            return False
        self._message_errors = 0
        self._requeued(event)
        return True

    def _message_error(self, conn: Connection, md: MQMD, exc: Exception) -> None:
        """A failure of ours (not the listener's) while handling ``md``: back it out."""
        if is_connection_error(exc):
            # The queue manager backs the unit of work out: the message comes back.
            log.warning(
                "message.connection_lost",
                **self._ctx,
                msg_id=md.MsgId.hex(),
                backout_count=md.BackoutCount,
                reason=reason_of(exc),
            )
            raise exc
        # Our failure, not the listener's: log it, and never lose the message. An MQ
        # condition (a damaged or full queue manager: 2101, 2056...) says it all in its
        # reason; anything else is a bug of ours, with its traceback.
        reason = exc.reason_name if isinstance(exc, MQError) else None
        log.error(
            "worker.message_error",
            **self._ctx,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            reason=reason,
            error=repr(exc) if reason is None else str(exc),
            exc_info=exc if reason is None else None,
        )
        conn.backout()
        self.rt.stats.add("backed_out", listener=self.stats)
        log.warning(
            "message.backed_out",
            **self._ctx,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            reason="worker error",
            exception_type=_type_name(exc),
        )
        # The same message comes straight back: do not spin on an error that persists.
        self._message_errors += 1
        self.rt.stopping.wait(wait_seconds(self.rt.reconnect_wait, self._message_errors))

    def _process_one(
        self, conn: Connection, handle: Handle, md: MQMD, data: bytes, screened: bool
    ) -> None:
        stats = self.rt.stats
        if screened:  # counted as received by _screen
            stats.add("delivered", listener=self.stats)
        elif md.BackoutCount > 0:  # perhaps poison: counted before its hooks may run
            stats.add("received", listener=self.stats)
            planned = self.poison.plan(conn, handle, md, data)
            if isinstance(planned, PendingMove):  # a move to BOQNAME made with the next get
                self._done = Finished(md, [planned.put], planned)
                return
            if planned is not None:
                self._requeued(planned)
                return
            stats.add("delivered", listener=self.stats)
        else:  # never poison (seed 002: BackoutCount 0): counted under one lock, not two
            stats.add_delivery(self.stats)
        # lazy: a listener that reads only the body never maps the jms and usr folders
        message = to_message(md, data, self.listener.queue, lazy=True)
        if self._debug:
            self._log.debug(
                "message.delivered", msg_id=md.MsgId.hex(), backout_count=md.BackoutCount
            )
        outbox = Outbox()
        error = self._deliver(message, md, outbox)
        if error is None:
            # put and committed with the next get, or when the thread stops
            self._done = Finished(md, outbox.sends)
            return
        failure, event = self.poison.failed(conn, handle, md, data, error)
        failed = FailedDelivery(md, failure, failure.message)
        if isinstance(event, PendingMove):  # the backout would bring it to BOTHRESH
            self._done = Finished(md, [event.put], event, failed)
            return
        if event is not None:
            self._requeued(event)
            return
        self._failed = failed

    def _backed_out(self, failed: FailedDelivery) -> None:
        """The MQBACK of a failed delivery is done: one log line an attempt (the traceback
        is logged once, when the message is moved)."""
        md = failed.md
        self.rt.stats.add("backed_out", listener=self.stats)
        log.warning(
            "message.backed_out",
            **self._ctx,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            exception_type=failed.failure.exception_type,
            reason=failed.reason,
            **failed.context,
        )

    def _put_failed(self, conn: Connection, done: Finished, exc: PutFailed) -> None:
        """A put of ``done`` failed, so nothing was committed: a poison message's move
        takes the whole route now (the message is still in the unit of work); a send
        fails its message (see :meth:`_send_failed`)."""
        if done.move is None or is_connection_error(exc):
            self._send_failed(conn, done.md, exc, len(done.puts))
            return
        self.poison.move_failed(done.move, exc, backed_out=done.failed is not None)
        if done.failed is not None:  # the last attempt's move: backed out after all,
            self._failed = done.failed  # then screened and moved as any poison message
            return
        try:
            event = self.poison.move_now(conn, done.move)
        except Exception as error:
            self._message_error(conn, done.md, error)  # backs it out, or re-raises
            return
        self._requeued(event)

    def _send_failed(self, conn: Connection, md: MQMD, exc: PutFailed, sends: int) -> None:
        """A put of what the listener sent (``mqjms.send``) failed, so nothing was
        committed: the message fails, backed out with the puts made before it."""
        if is_connection_error(exc):
            self._message_error(conn, md, exc)  # logs it and raises: the connection is gone
            return
        cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc  # the put's own
        failure = Failure.from_exception(cause, self.listener.name, self.listener.queue)
        self.poison.failures.remember(md.MsgId, failure)
        # the listener's retry_wait, as for its own failure: a full queue or disk down the
        # line (2053, 2056) must not turn each message into poison within milliseconds
        delay = self.poison.retry_delay(md, cause)
        if delay > 0:
            self.rt.stopping.wait(delay)
        self._failed = FailedDelivery(
            md, failure, f"send failed: {failure.message}", {"sends": sends}
        )

    def _deliver(self, message: Message, md: MQMD, outbox: Outbox) -> BaseException | None:
        """Call the listener (and wait ``retry_wait`` after a failure), collecting its
        sends in ``outbox``; its exception or None. Raises Abandoned when a shutdown
        deadline backed the message out meanwhile."""
        error: BaseException | None = None
        self._call.begin(md)
        try:
            started = time.perf_counter()
            try:
                self._call.call(message, outbox)
            except BaseException as exc:  # any failure of the listener rolls the message back
                error = exc
            if self._call.aborted:  # abandoned at the deadline (an async one cancelled): it
                return error  # neither ran its course nor failed; end() raises Abandoned
            self.rt.stats.processed(self.stats, time.perf_counter() - started, error is not None)
            if error is not None:
                delay = self.poison.retry_delay(md, error)
                if delay > 0:
                    self.rt.stopping.wait(delay)
        finally:
            self._call.end()  # raises Abandoned when a shutdown deadline backed it out
        return error

    def _requeued(self, event: PoisonEvent) -> None:
        """The flow requeued a message (its unit of work has ended)."""
        if event.outcome is PoisonOutcome.REQUEUE_FAILED:
            # It comes straight back; do not spin on it while no queue will take it.
            self._requeue_failures += 1
            self.rt.stopping.wait(wait_seconds(self.rt.reconnect_wait, self._requeue_failures))
        else:
            self._requeue_failures = 0

    def _count(self, event: PoisonEvent) -> None:
        self.rt.stats.add_outcome(event.outcome, self.stats)

    # ------------------------------------------------------------------ shutdown deadline
    def abort(self) -> MQMD | None:
        """Back out the message in flight (the shutdown deadline passed): cancel an async
        listener and disconnect, so the queue manager backs the unit of work out. Returns
        the message's MQMD, or None when no listener was running."""
        abandoned = self._call.abort(lambda: self._conn)
        if abandoned is None:
            return None
        md, conn = abandoned
        if conn is not None:
            _quietly(conn.disconnect)
        return md


def _committed_unsynced(exc: BaseException) -> bool:
    """A commit that stands although its fsync failed (the embedded queue manager's
    ``StorageError.unsynced``, MQRC_RESOURCE_PROBLEM): no backout can undo it."""
    return bool(getattr(exc, "unsynced", False))


def debug_enabled(logger: Any) -> bool:
    """Whether ``logger`` (a bound logger) may emit debug lines: False only when its
    ``debug`` is structlog's no-op, as on a filtering logger whose level is fixed above
    DEBUG (mqjms's default), so that a consumer builds no debug line per message that
    nothing would write. Any other logger (the standard library's, whose levels change at
    run time) is asked at each line."""
    try:
        from structlog._native import _nop
    except ImportError:  # another structlog: ask at each line
        return True
    return getattr(type(logger), "debug", None) is not _nop


def _quietly(action: Callable[[], object]) -> None:
    try:
        action()
    except Exception as exc:
        log.debug("worker.cleanup_failed", error=repr(exc))


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    return f"{kind.__module__}.{kind.__qualname__}"
