"""MessageConsumer: synchronous receive; poison messages are screened by the session's
flow (:class:`mqjms.backout.SynchronousPoisonFlow`)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import TYPE_CHECKING, Any, SupportsFloat, TypeVar, overload

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Capability, Handle
from mqjms.semantics.contract import interrupt_wait

from .delivery import ListenerLike, as_callable
from .errors import IllegalStateException, MessageFormatException
from .message import Message, Queue, TextMessage, to_message

if TYPE_CHECKING:
    from .session import Session

log = get_logger("mqjms.jms")
T = TypeVar("T")

#: How long :meth:`MessageConsumer.close` waits for a receive in progress (another
#: thread's) to end once its wait was interrupted: it ends at once unless it is screening
#: a poison message.
CLOSE_WAIT = 10.0


class MessageConsumer:
    """Receives from one queue. Poison messages never reach the caller: seed 002 says they
    are requeued within the unit of work that was active at the get."""

    #: JMS getMessageSelector / getNoLocal: a topic subscriber's (see TopicSubscriber)
    message_selector: str | None = None
    no_local: bool = False

    def __init__(self, session: Session, queue: Queue) -> None:
        self.session = session
        self.queue = queue
        self.handle = session.mq.open(queue.name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING)
        self._ready()

    def _ready(self) -> None:
        self._closed = False
        self._listener: ListenerLike | None = None
        self._browser: Handle | None = None  # receive_body's look at the next message
        self._idle = threading.Event()  # clear while a receive is in progress
        self._idle.set()

    # ------------------------------------------------------------------ listener
    @property
    def message_listener(self) -> ListenerLike | None:
        """JMS getMessageListener: the listener messages are delivered to, if any."""
        return self._listener

    @message_listener.setter
    def message_listener(self, listener: ListenerLike | None) -> None:
        self.set_message_listener(listener)

    def set_message_listener(self, listener: ListenerLike | None) -> None:
        """JMS setMessageListener: deliver this consumer's messages to ``listener`` (a
        callable taking the message, or an object with ``on_message``), one at a time, on
        the session's delivery thread while the connection is started; None stops. Poison
        messages are requeued before delivery (seed 002 for asynchronous applications);
        see :mod:`.delivery` for how each delivery's unit of work ends."""
        if self._closed:
            raise IllegalStateException("the consumer is closed")
        if listener is None:
            self._drop_listener()
            return
        call = as_callable(listener)
        self._listener = listener  # before delivery starts: a close meanwhile removes it
        try:
            self.session.add_listener(self, call)
        except BaseException:
            self._listener = None
            raise

    @property
    def receiving(self) -> bool:
        """Whether a receive is in progress (in any thread)."""
        return not self._idle.is_set()

    def get_message_listener(self) -> ListenerLike | None:
        return self._listener

    def _drop_listener(self) -> None:
        """No more deliveries to this consumer (returns once its listener is not running)."""
        if self._listener is not None:
            self._listener = None
            self.session.drop_listener(self)

    # ------------------------------------------------------------------ receive
    def receive(self, timeout: float | None = None) -> Message | None:
        """The next message, waiting up to ``timeout`` seconds (None: without limit);
        None when nothing arrived."""
        return self._receive(timeout, acknowledge=True)

    def receive_no_wait(self) -> Message | None:
        return self._receive(0.0, acknowledge=True)

    @overload
    def receive_body(self, kind: type[str], timeout: float | None = None) -> str | None: ...
    @overload
    def receive_body(self, kind: type[bytes], timeout: float | None = None) -> bytes | None: ...
    def receive_body(self, kind: type[Any], timeout: float | None = None) -> Any:
        """The next message's body as ``kind`` (str or bytes). A body of another type
        raises MessageFormatException and the message is not acknowledged: in an AUTO or
        DUPS_OK session it stays on the queue as if the call had not been made (JMS 2.0
        receiveBody: not redelivered, BackoutCount unchanged, so BOTHRESH never moves it:
        take it with ``receive()``, or it comes first again); otherwise it stays in the
        session's unit of work."""
        if self.session.auto_acknowledges and self._peeks():
            return self._receive_body_peeked(kind, timeout)
        message = self._receive(timeout, acknowledge=False)
        if message is None:
            return None
        if not _assignable(message, kind):
            if self.session.auto_acknowledges:
                self.session.end_unit_of_work(commit=False)
            raise _not_assignable(message, kind)
        if self.session.auto_acknowledges:
            self.session.end_unit_of_work(commit=True)
        return message.body

    @overload
    def receive_body_no_wait(self, kind: type[str]) -> str | None: ...
    @overload
    def receive_body_no_wait(self, kind: type[bytes]) -> bytes | None: ...
    def receive_body_no_wait(self, kind: type[Any]) -> Any:
        """JMS 2.0 ``receiveBodyNoWait``: :meth:`receive_body` without waiting (None when
        no message is there now). Seed 002 lists it among the synchronous receives whose
        poison messages are requeued within the unit of work active at the get."""
        return self.receive_body(kind, 0.0)

    def _peeks(self) -> bool:
        """Whether receive_body can look at the next message before getting it: a browse
        that sees what a get would (MQ's MQMD and body, no lagging snapshot)."""
        return Capability.BROWSE_AT_ONCE in self.session.mq.capabilities

    def _receive_body_peeked(self, kind: type[Any], timeout: float | None) -> Any:
        """Browse the next message; get it only when its body is a ``kind`` (or it is
        poison, for the session's flow to requeue), so a refused one is never backed out."""
        timeout = _checked_timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            peeked = self._peek(wait)
            if peeked is None:
                if self._closed or wait == 0.0:
                    return None
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                continue  # ended early by an interrupt meant for an earlier receive
            md, data = peeked
            if not self.session.poison_flow.is_poison(self.handle, md):
                seen = to_message(md, data, self.queue.name)  # as the get maps it
                if not _assignable(seen, kind):
                    raise _not_assignable(seen, kind)
            if self._closed:  # by another thread while it looked
                return None
            message = self._receive(0.0, acknowledge=False, msg_id=md.MsgId)
            if message is None:  # another consumer took it, or it was poison: look again
                continue
            if not _assignable(message, kind):  # another message with the same MsgId
                self.session.end_unit_of_work(commit=False)
                raise _not_assignable(message, kind)
            self.session.end_unit_of_work(commit=True)
            return message.body

    def browse_handle(self) -> Handle:
        """The consumer's browse handle on its queue (opened on first use, closed with it):
        receive_body and a listener's look before it gets."""
        if self._browser is None:
            self._browser = self.session.mq.open(
                self.queue.name, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING
            )
        return self._browser

    def _peek(self, wait: float | None) -> tuple[MQMD, bytes] | None:
        """The first message a get would take, browsed; None when none came in ``wait``
        or the consumer was closed meanwhile."""
        if self._closed:
            raise IllegalStateException("the consumer is closed")
        mq = self.session.mq
        browser = self.browse_handle()
        self.session.begin_receive(self._idle)
        try:
            got = mq.get(browser, wait=wait, browse=Browse.FIRST)
        except MQError:
            if self._closed:
                return None
            raise
        finally:
            self._idle.set()
        return None if self._closed else got

    def _receive(
        self, timeout: float | None, *, acknowledge: bool, msg_id: bytes | None = None
    ) -> Message | None:
        if self._closed:
            raise IllegalStateException("the consumer is closed")
        timeout = _checked_timeout(timeout)
        self.session.begin_receive(self._idle)
        try:
            return self._receive_open(timeout, acknowledge=acknowledge, msg_id=msg_id)
        finally:
            self._idle.set()

    def _receive_open(
        self, timeout: float | None, *, acknowledge: bool, msg_id: bytes | None
    ) -> Message | None:
        session, mq, handle = self.session, self.session.mq, self.handle
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:  # by another thread: JMS, a blocked receive returns null
                return None
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                got = mq.get(handle, wait=wait, syncpoint=True, msg_id=msg_id)
            except MQError:
                if self._closed:  # a transport that cannot interrupt the wait: the
                    return None  # close ended the handle or connection under the get
                raise
            if got is None:
                if self._closed or wait == 0.0:
                    return None
                if deadline is not None and time.monotonic() >= deadline:
                    return None
                # ended early by an interrupt meant for a receive that had ended already
                # (a close racing its end): this receive waits on
                continue
            md, data = got
            if self._closed and session.auto_acknowledges:
                # closed while the get waited: a closed consumer acknowledges nothing, so
                # the message goes back (in any other mode it is in the session's unit of
                # work, and the receive returns it: a commit must not take it unseen)
                session.end_unit_of_work(commit=False)
                return None
            try:
                if session.poison_flow.screen(handle, md, data) is not None:
                    continue  # requeued (seed 002): never delivered; get the next one
                message = to_message(md, data, self.queue.name)
            except BaseException:
                # The message must stay on its queue: an auto-acknowledge session would
                # otherwise commit it away with the next receive.
                if session.auto_acknowledges:
                    session.end_unit_of_work(commit=False)
                raise
            log.debug(
                "message.delivered",
                queue=self.queue.name,
                msg_id=md.MsgId.hex(),
                backout_count=md.BackoutCount,
            )
            if session.auto_acknowledges:
                if acknowledge:
                    session.end_unit_of_work(commit=True)
            elif not session.transacted:
                message._acknowledge = session.acknowledge
            session.delivered()
            return message

    def _end_receive(self) -> None:
        """JMS: close waits for a receive in progress in another thread, and a blocked
        receive returns null. Its wait is interrupted where the transport can; where it
        cannot, the receive ends with its get, acknowledging nothing."""
        if self._idle.is_set():
            return
        # an interrupt that finds no wait to end ends the connection's next one early:
        # every receive waits on after such an early end (see _receive_open)
        if interrupt_wait(self.session.mq):
            self._idle.wait(CLOSE_WAIT)

    def close(self) -> None:
        if not self._closed:
            self._drop_listener()
            self._closed = True
            self._end_receive()
            self._close_browser()
            with contextlib.suppress(MQError):
                self.session.mq.close(self.handle)

    def _close_browser(self) -> None:
        """MQCLOSE receive_body's browse handle, if it opened one."""
        if self._browser is not None:
            with contextlib.suppress(MQError):
                self.session.mq.close(self._browser)
            self._browser = None


def _checked_timeout(timeout: object) -> float | None:
    """A receive's timeout in seconds as a float (None: without limit), or TypeError /
    ValueError naming what is wrong with it."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        try:  # numpy's numbers, Decimal, Fraction; not a str that looks like one
            if isinstance(timeout, str | bytes | bool) or not isinstance(timeout, SupportsFloat):
                raise TypeError
            timeout = float(timeout)
        except (TypeError, ValueError):
            raise TypeError(
                f"timeout must be a number of seconds or None, not {type(timeout).__name__}"
            ) from None
    if not timeout >= 0:  # negative, or NaN
        raise ValueError(f"timeout {timeout} is not 0 or more; None waits without limit")
    return float(timeout)


def _assignable(message: Message, kind: type[Any]) -> bool:
    """JMS 2.0 receiveBody: the body is a ``kind``, or the message is a TextMessage
    without text (no body: any type will do)."""
    body = message.body
    return isinstance(body, kind) or (body is None and isinstance(message, TextMessage))


def _not_assignable(message: Message, kind: type[Any]) -> MessageFormatException:
    return MessageFormatException(
        f"message {message.jms_message_id} has a {type(message).__name__} body, not {kind.__name__}"
    )
