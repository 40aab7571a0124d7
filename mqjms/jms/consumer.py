"""MessageConsumer: synchronous receive; poison messages are screened by the session's
flow (:class:`mqjms.backout.SynchronousPoisonFlow`)."""

from __future__ import annotations

import contextlib
import threading
import time
from typing import TYPE_CHECKING, Any, TypeVar, overload

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics.contract import interrupt_wait

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

    def __init__(self, session: Session, queue: Queue) -> None:
        self.session = session
        self.queue = queue
        self.handle = session.mq.open(queue.name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING)
        self._ready()

    def _ready(self) -> None:
        self._closed = False
        self._idle = threading.Event()  # clear while a receive is in progress
        self._idle.set()

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
        raises MessageFormatException and the message is not acknowledged."""
        message = self._receive(timeout, acknowledge=False)
        if message is None:
            return None
        body = message.body
        if not isinstance(body, kind) and not (body is None and isinstance(message, TextMessage)):
            if self.session.auto_acknowledges:
                self.session.end_unit_of_work(commit=False)
            raise MessageFormatException(
                f"message {message.jms_message_id} has a {type(message).__name__} body, "
                f"not {kind.__name__}"
            )
        if self.session.auto_acknowledges:
            self.session.end_unit_of_work(commit=True)
        return body

    def _receive(self, timeout: float | None, *, acknowledge: bool) -> Message | None:
        if self._closed:
            raise IllegalStateException("the consumer is closed")
        if timeout is not None:
            if isinstance(timeout, bool) or not isinstance(timeout, int | float):
                try:  # numpy's numbers, Decimal, Fraction; not a str that looks like one
                    if isinstance(timeout, str | bytes | bool):
                        raise TypeError
                    timeout = float(timeout)
                except (TypeError, ValueError):
                    raise TypeError(
                        f"timeout must be a number of seconds or None, not {type(timeout).__name__}"
                    ) from None
            if not timeout >= 0:  # negative, or NaN
                raise ValueError(f"timeout {timeout} is not 0 or more; None waits without limit")
        self._idle.clear()
        try:
            return self._receive_open(timeout, acknowledge=acknowledge)
        finally:
            self._idle.set()

    def _receive_open(self, timeout: float | None, *, acknowledge: bool) -> Message | None:
        session, mq, handle = self.session, self.session.mq, self.handle
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self._closed:  # by another thread: JMS, a blocked receive returns null
                return None
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                got = mq.get(handle, wait=wait, syncpoint=True)
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
            self._closed = True
            self._end_receive()
            with contextlib.suppress(MQError):
                self.session.mq.close(self.handle)
