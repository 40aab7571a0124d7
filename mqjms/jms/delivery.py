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
never delivered; it is requeued "outside of any unit of work associated with actual
message delivery" (committed at once) and, when neither BOQNAME nor the dead-letter queue
takes it, "returned to the input queue" (backed out; delivery waits a little longer each
time, so that it does not spin on it). A transacted or CLIENT_ACKNOWLEDGE listener that
left earlier messages unended has the requeue made inside that unit of work instead (its
commit or acknowledge completes it), since committing it alone would end theirs too.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from mqjms.backout import DeliveryStyle, PoisonOutcome
from mqjms.logs import get_logger
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics.contract import interrupt_wait

from .acknowledge import CLIENT_ACKNOWLEDGE
from .errors import JMSException
from .message import Message, to_message

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .session import Session

log = get_logger("mqjms.jms")

#: Seconds a get waits for a message before the delivery thread looks again at what it
#: was asked (a stop, a new listener); a stop also interrupts the wait where it can.
POLL = 0.25
#: Seconds between rounds of no-wait gets when a session has several listening consumers.
ROUND = 0.02
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
        self._pauses = 0  # consecutive failed gets or unplaceable poison messages
        self._failures = 0  # consecutive deliveries whose listener raised
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
            if not delivered and len(order) > 1:
                with self._cond:
                    self._cond.wait(ROUND)

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
        try:
            got = session.mq.get(consumer.handle, wait=wait, syncpoint=True)
        except MQError as exc:
            if self._stopping or consumer not in self._listeners:
                return False
            log.error(
                "listener.get_failed",
                queue=consumer.queue.name,
                reason=exc.reason_name,
                detail=exc.detail,
            )
            self._failed(exc)
            return False
        self._pauses = 0  # the get worked: a failure after this starts a new run
        if got is None:
            return False
        md, data = got
        if self._requeued(consumer, md, data):
            return True
        message = to_message(md, data, consumer.queue.name)
        if session.ack_mode == CLIENT_ACKNOWLEDGE and not session.transacted:
            message._acknowledge = session.acknowledge
        session.delivered()
        try:
            listener(message)
        except BaseException as exc:
            log.warning(
                "listener.failed",
                queue=consumer.queue.name,
                msg_id=md.MsgId.hex(),
                backout_count=md.BackoutCount,
                error=repr(exc),
                then="backed out",
            )
            if not self._stopping:  # else the listener closed its session: backed out
                self._end(commit=False)
            if not isinstance(exc, Exception):
                raise  # SystemExit and the like end the delivery thread
            self._failures += 1
            if self._failures > FREE_FAILURES:  # failing again and again (BOTHRESH 0?)
                self._pause(self._failures - FREE_FAILURES)
            return True
        if self._stopping:  # the listener closed its session: the close backed it out
            return True
        if session.auto_acknowledges:
            self._end(commit=True)
        self._failures = self._unplaceable = 0
        return True

    def _requeued(self, consumer: MessageConsumer, md: MQMD, data: bytes) -> bool:
        """Seed 002 for asynchronous delivery: True when the message was poison (requeued,
        or returned to the queue when no queue took it) and is not to be delivered."""
        session = self._session
        flow = session.poison_flow
        if session.work_pending:
            return flow.screen(consumer.handle, md, data) is not None
        handler = session.factory.poison
        attrs = handler.poison_attributes(session.mq, consumer.handle, md, scope=flow.scope)
        if attrs is None:
            return False
        event = handler.requeue(
            session.mq,
            consumer.handle.resolved_name,
            md,
            data,
            attrs,
            style=DeliveryStyle.LISTENER,
            scope=flow.scope,
        )
        if event.outcome is PoisonOutcome.REQUEUE_FAILED:
            self._end(commit=False)
            handler.completed(handler.returned(event))
            self._unplaceable += 1  # it comes straight back: wait longer each time
            self._pause(self._unplaceable)
        else:
            self._end(commit=True)
            handler.completed(event)
            self._unplaceable = 0
        return True

    def _end(self, *, commit: bool) -> None:
        try:
            self._session.end_unit_of_work(commit=commit)
        except MQError as exc:
            log.error(
                "listener.end_failed",
                action="commit" if commit else "backout",
                reason=exc.reason_name,
                detail=exc.detail,
            )
            self._failed(exc)

    def _failed(self, exc: MQError) -> None:
        """Tell the connection's exception listener (the first failure of a run), pause."""
        connection = self._session.connection
        notify = connection.exception_listener if connection is not None else None
        if notify is not None and self._pauses == 0:
            try:
                notify(exc)
            except Exception as error:  # the application's hook must not end delivery
                log.error("listener.exception_listener_failed", error=repr(error))
        self._pause()

    def _pause(self, times: int | None = None) -> None:
        """Wait a little longer after each consecutive failure (a stop ends the wait)."""
        if times is None:
            self._pauses += 1
            times = self._pauses
        with self._cond:
            if not self._stopping:
                self._cond.wait(min(MAX_PAUSE, 0.05 * 2 ** min(times, 10)))
