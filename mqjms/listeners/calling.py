"""A consumer's call of its listener function, the one thing a shutdown deadline may cut
short.

A graceful stop lets each message in flight finish. Past the deadline the worker abandons
what is still running: an ``async def`` listener's task is cancelled, and the consumer's
connection is ended, so that the queue manager backs the unit of work out (the message
comes back, BackoutCount + 1). Only a running listener (or its retry wait) is ever
abandoned, never an MQI call: :class:`ListenerCall` says which message is being delivered,
and the consumer raises :class:`~.runtime.Abandoned` once its delivery returns.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from mqjms.jms.message import Message
from mqjms.mq.md import MQMD

from .eventloop import EventLoopThread
from .listener import Listener
from .runtime import Abandoned
from .send import Outbox, close_outbox, collecting, open_outbox

if TYPE_CHECKING:
    import concurrent.futures

T = TypeVar("T")


class ListenerCall:
    """Calls one consumer's listener, and lets a shutdown deadline abandon the call."""

    def __init__(self, listener: Listener, loop: EventLoopThread | None) -> None:
        self.listener = listener
        self._loop = loop
        self._lock = threading.Lock()
        self._delivering = False
        #: The delivery was abandoned: the consumer's connection is ended already.
        self.aborted = False
        self._future: concurrent.futures.Future[Any] | None = None
        self._current: MQMD | None = None

    def begin(self, md: MQMD) -> None:
        """``md``'s delivery (its listener call and retry wait) starts: from now until
        :meth:`end`, :meth:`abort` may cut it short."""
        with self._lock:
            self._delivering, self._current = True, md

    def end(self) -> None:
        """The delivery is over (call it however the delivery ended); raises Abandoned
        when it was abandoned meanwhile. Two methods, not a context manager: this runs
        for every message."""
        with self._lock:
            self._delivering, self._future, self._current = False, None, None
            aborted = self.aborted
        if aborted:
            raise Abandoned()

    def call(self, message: Message, outbox: Outbox) -> None:
        """Call the listener with ``message``, collecting its sends in ``outbox``: in this
        thread, or an ``async def`` one on the worker's event loop (waited for)."""
        fn = self.listener.fn
        if not self.listener.is_async:
            token = open_outbox(outbox)
            try:
                result = fn(message)
            finally:
                close_outbox(outbox, token)
            if result is not None:
                self._check_result(result)
            return
        loop = self._loop
        assert loop is not None, "async listeners need the worker's event loop"
        future = loop.submit(_collecting_in(outbox, _as_coroutine(fn(message))))
        with self._lock:
            self._future = future
            if self.aborted:
                future.cancel()
        try:
            future.result()
        except ListenerExit as exc:
            raise exc.args[0] from None  # as a sync listener's would come

    def _check_result(self, result: object) -> None:
        """A sync listener's return value that says it never ran (an awaitable, a
        generator) raises TypeError, so its message is not committed."""
        if inspect.isawaitable(result):
            _close(result)
            raise TypeError(
                f"listener {self.listener.name} returned an awaitable: declare it async def"
            )
        if inspect.isgenerator(result) or inspect.isasyncgen(result):
            _close(result)  # its body never ran: no commit of a message not processed
            raise TypeError(
                f"listener {self.listener.name} returned a generator, whose body never "
                "ran: return instead of yield"
            )

    def abort(self, connection: Callable[[], T]) -> tuple[MQMD, T] | None:
        """Abandon the delivery under way: cancel an async listener. The message's MQMD
        and ``connection()``, read at the moment the delivery was abandoned (before the
        consumer can drop it), for the caller to end so that the queue manager backs the
        unit of work out; None when no delivery was under way (nothing is done then)."""
        with self._lock:
            if not self._delivering or self.aborted or self._current is None:
                return None
            self.aborted = True
            future, md, conn = self._future, self._current, connection()
        if future is not None:
            future.cancel()
        return md, conn


def _as_coroutine(result: Awaitable[None] | None) -> Coroutine[Any, Any, None]:
    if inspect.iscoroutine(result):
        return result

    async def wrap() -> None:
        if result is not None:
            await result

    return wrap()


async def _collecting_in(outbox: Outbox, coro: Coroutine[Any, Any, None]) -> None:
    with collecting(outbox):  # inside the task: its context is the one the listener sees
        try:
            await coro
        except (KeyboardInterrupt, SystemExit) as exc:
            # raised out of a task they stop the worker's event loop, and every async
            # listener with it: the consumer's thread gets them as any listener failure
            raise ListenerExit(exc) from exc


class ListenerExit(Exception):
    """An ``async def`` listener raised KeyboardInterrupt or SystemExit (its ``args[0]``),
    carried to the consumer's thread as a failure of that message."""


def _close(awaitable: object) -> None:
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()
