"""Asynchronous delivery to JMS message listeners (``consumer.set_message_listener``).

JMS gives a session one thread of control: its listeners are called one at a time, by a
thread of the session's own, while the connection is started. Each delivery is one unit
of work of the session, ended as its mode says:

* AUTO_ACKNOWLEDGE / DUPS_OK_ACKNOWLEDGE: committed when the listener returns;
* CLIENT_ACKNOWLEDGE: ``message.acknowledge()`` (or ``session.recover()``) in the listener;
* transacted: ``session.commit()`` / ``session.rollback()`` in the listener.

A listener that raises has the session's unit of work backed out in every mode (IBM MQ
classes for JMS "try to redeliver or requeue the message"): BackoutCount + 1, so a message
that keeps failing reaches BOTHRESH and is requeued, as the Worker's listeners do.

Seed 002, "Processing poison messages for asynchronous applications": a poison message is
never delivered; it is requeued outside any unit of work of delivery (:mod:`.async_poison`)
and, when neither BOQNAME nor the dead-letter queue takes it, returned to the input queue;
delivery then waits a little longer each time, so that it does not spin on it.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from mqjms.backout import PoisonEvent, PoisonOutcome
from mqjms.logs import get_logger
from mqjms.mq.md import MQMD
from mqjms.semantics.contract import interrupt_wait

from .acknowledge import CLIENT_ACKNOWLEDGE
from .async_poison import AsyncPoison
from .errors import JMSException
from .message import Message, to_message

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .session import Session

log = get_logger("mqjms.jms")

#: Seconds a get waits for a message before the delivery thread looks again at what it
#: was asked (a stop, a new listener); a stop also interrupts the wait where it can.
POLL = 1.0  # above the STOMP transport's DISPATCH_GRACE: an idle wait asks the broker nothing
#: Seconds between rounds of no-wait gets when a session has several listening consumers,
#: growing by ROUND for each idle round up to MAX_ROUND.
ROUND = 0.02
MAX_ROUND = 0.5
#: The longest pause after a failed get or a poison message no queue would take.
MAX_PAUSE = 5.0
#: Listener failures in a row delivered at once; after them each waits longer (a message
#: on a queue without BOTHRESH would otherwise come back a thousand times a second).
FREE_FAILURES = 5


@runtime_checkable
class MessageListener(Protocol):
    """JMS's MessageListener: an object with ``on_message`` (``onMessage`` also works)."""

    def on_message(self, message: Message) -> None: ...


ListenerLike = Callable[[Message], object] | MessageListener


def as_callable(listener: object) -> Callable[[Message], object]:
    """The function to call for ``listener``: itself, or its ``on_message``/``onMessage``."""
    for name in ("on_message", "onMessage"):
        method = getattr(listener, name, None)
        if callable(method):
            return method  # type: ignore[no-any-return]
    if callable(listener):
        return listener
    raise JMSException(
        f"a message listener is a callable taking the message, or an object with "
        f"on_message(message); got {type(listener).__name__}"
    )


class SessionDelivery:
    """The thread that calls a session's message listeners."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._listeners: dict[MessageConsumer, Callable[[Message], object]] = {}
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._busy: MessageConsumer | None = None  # whose get or listener is running
        self._stopping = False
        self._paused = False  # the connection is stopped
        self._poison = AsyncPoison(session)
        self._failures: dict[object, int] = {}  # failed gets / ends in a row, per consumer
        self._raised = 0  # deliveries in a row whose listener raised
        self._unplaceable = 0  # poison messages in a row that no queue took

    @property
    def active(self) -> bool:
        """Whether any consumer of the session has a listener (receive() is then refused)."""
        return bool(self._listeners)

    def in_delivery_thread(self) -> bool:
        return threading.current_thread() is self._thread

    # ------------------------------------------------------------------ control
    def set(self, consumer: MessageConsumer, listener: Callable[[Message], object]) -> None:
        with self._cond:
            self._listeners[consumer] = listener
            self._cond.notify_all()
            if self._thread is None and not self._stopping:
                self._thread = threading.Thread(
                    target=self._run, name=f"mqjms-jms-listener-{id(self._session):x}", daemon=True
                )
                self._thread.start()

    def remove(self, consumer: MessageConsumer) -> None:
        """Stop delivering to ``consumer``; returns once its listener is not running
        (at once when called from the listener itself)."""
        with self._cond:
            if self._listeners.pop(consumer, None) is None:
                return
            self._cond.notify_all()
            if self.in_delivery_thread():
                return
            if self._busy is consumer:
                interrupt_wait(self._session.mq)
            while self._busy is consumer:
                self._cond.wait()

    def pause(self, paused: bool) -> None:
        """Connection.stop() / start(): stop() returns once no listener is running."""
        with self._cond:
            self._paused = paused
            self._cond.notify_all()
            if not paused or self.in_delivery_thread():
                return
            if self._busy is not None:
                interrupt_wait(self._session.mq)
            while self._busy is not None:
                self._cond.wait()

    def stop(self) -> None:
        """For the session's close: no listener is called after this returns (unless it is
        called from a listener, whose return ends the thread)."""
        with self._cond:
            self._stopping = True
            self._listeners.clear()
            self._cond.notify_all()
            thread = self._thread
            if thread is None or self.in_delivery_thread():
                return
            if self._busy is not None:
                interrupt_wait(self._session.mq)
        thread.join()

    # ------------------------------------------------------------------ the thread
    def _run(self) -> None:
        try:
            self._loop()
        except BaseException as exc:  # a defect: say so, and let set() start a new thread
            log.error("listener.delivery_thread_failed", error=repr(exc))
            with self._cond:
                self._thread = None
                self._busy = None
                self._cond.notify_all()
        finally:
            self._poison.close()

    def _loop(self) -> None:
        idle_rounds = 0
        while True:
            with self._cond:
                while not self._stopping and (self._paused or not self._listeners):
                    self._cond.wait()
                if self._stopping:
                    return
                order = list(self._listeners)
            delivered = False
            for consumer in order:
                wait = POLL if len(order) == 1 else 0.0
                delivered = self._turn(consumer, wait) or delivered
            if len(order) > 1 and not delivered:
                # several queues: no-wait gets in rounds, further apart while all are idle
                idle_rounds += 1
                with self._cond:
                    self._cond.wait(min(MAX_ROUND, ROUND * idle_rounds))
            else:
                idle_rounds = 0

    def _turn(self, consumer: MessageConsumer, wait: float) -> bool:
        with self._cond:
            listener = self._listeners.get(consumer)
            if listener is None or self._paused or self._stopping:
                return False
            self._busy = consumer
        try:
            return self._deliver(consumer, listener, wait)
        finally:
            with self._cond:
                self._busy = None
                self._cond.notify_all()

    def _deliver(
        self, consumer: MessageConsumer, listener: Callable[[Message], object], wait: float
    ) -> bool:
        """Get one message and deliver it: True if a message was got."""
        session = self._session
        try:  # a failure here leaves nothing in the session's unit of work
            if self._poison.looks_first(consumer):
                got = self._poison.get(consumer, wait)
            else:
                got = session.mq.get(consumer.handle, wait=wait, syncpoint=True)
        except Exception as exc:
            if self._stopping or consumer not in self._listeners:
                return False
            self._failed(consumer, "get", exc)
            return False
        self._failures.pop(consumer, None)  # the get worked: a failure starts a new run
        if got is None:
            return False
        if isinstance(got, tuple):
            try:
                got = self._poison.screen(consumer, *got) or got
            except Exception as exc:  # got in the session's unit of work: it must not stay
                with contextlib.suppress(Exception):
                    session.end_unit_of_work(commit=False)
                self._failed(consumer, "screen", exc)
                return True
        if isinstance(got, PoisonEvent):
            self._requeued(got)
            return True
        md, data = got
        message = to_message(md, data, consumer.queue.name)
        if session.ack_mode == CLIENT_ACKNOWLEDGE and not session.transacted:
            message._acknowledge = session.acknowledge
        session.delivered()
        try:
            listener(message)
        except BaseException as exc:  # SystemExit too: the message goes back, delivery goes on
            self._listener_failed(consumer, md, exc)
            return True
        if session.closed:  # the listener closed its session: the close backed it out
            return True
        if session.auto_acknowledges:
            self._end(consumer, commit=True)
        self._raised = self._unplaceable = 0
        return True

    def _listener_failed(self, consumer: MessageConsumer, md: MQMD, exc: BaseException) -> None:
        log.warning(
            "listener.failed",
            queue=consumer.queue.name,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            error=repr(exc),
            then="backed out",
        )
        if not self._session.closed:  # else the listener closed its session: backed out
            self._end(consumer, commit=False)
        self._raised += 1
        if self._raised > FREE_FAILURES:  # failing again and again (BOTHRESH 0?)
            self._pause(self._raised - FREE_FAILURES)

    def _requeued(self, event: PoisonEvent) -> None:
        if event.outcome is PoisonOutcome.REQUEUE_FAILED:
            self._unplaceable += 1  # it comes straight back: wait longer each time
            self._pause(self._unplaceable)
        else:
            self._unplaceable = 0

    def _end(self, consumer: MessageConsumer, *, commit: bool) -> None:
        try:
            self._session.end_unit_of_work(commit=commit)
        except Exception as exc:
            self._failed(consumer, "commit" if commit else "backout", exc)
        else:
            self._failures.pop(("end", consumer), None)

    def _failed(self, consumer: MessageConsumer, action: str, exc: Exception) -> None:
        """A get, the poison screen or the end of a unit of work failed: the connection's
        exception listener is told of the first failure of a run (per consumer and action),
        and each failure of the run waits longer."""
        key: object = consumer if action == "get" else (action, consumer)
        run = self._failures[key] = self._failures.get(key, 0) + 1
        log.error(
            f"listener.{action}_failed",
            queue=consumer.queue.name,
            reason=getattr(exc, "reason_name", None),
            error=repr(exc),
            failures=run,
        )
        connection = self._session.connection
        notify = connection.exception_listener if connection is not None else None
        if notify is not None and run == 1:
            try:
                notify(exc)
            except Exception as error:  # the application's hook must not end delivery
                log.error("listener.exception_listener_failed", error=repr(error))
        self._pause(run)

    def _pause(self, times: int) -> None:
        """Wait a little longer after each consecutive failure (a stop ends the wait)."""
        with self._cond:
            if not self._stopping:
                self._cond.wait(min(MAX_PAUSE, 0.05 * 2 ** min(times, 10)))
