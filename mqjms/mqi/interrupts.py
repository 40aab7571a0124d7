"""Ctrl-C during an MQI call: the program gets its KeyboardInterrupt, no message is lost.

A KeyboardInterrupt raised at an arbitrary point inside a transport call could land after
a message left the queue and before the call returned it (gone for a get without
syncpoint), or leave the transport half way through any other call. So during every MQI
call (:meth:`.Hconn.call`) SIGINT is only noted (:func:`deferred`) and acted on when the
call is over, as with the C library, whose call returns before Python sees the signal:
at once when it brought nothing (a wait is cut into slices, so a waiting get notices
within one slice), or, when a get did bring a message, at the program's next MQI call,
after the program has the message. A program's own SIGINT
handler is called as soon as the transport call is over. Only the main thread receives
signals; other threads are left alone.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

_pending = threading.Event()  # a Ctrl-C that arrived while a message was being delivered
_current: Deferral | None = None  # the main thread's deferral in force (calls nest)


class Deferral:
    """What :func:`deferred` noted during one transport call."""

    __slots__ = ("handler", "interrupted")

    def __init__(self) -> None:
        self.interrupted = False
        self.handler: object = signal.default_int_handler

    def delivered(self) -> None:
        """The call brought a message: a noted Ctrl-C waits for the next MQI call."""
        if self.interrupted and self.handler is signal.default_int_handler:
            self.interrupted = False
            _pending.set()

    def act(self) -> None:
        """Act on a noted SIGINT now, as the program's handler would have."""
        if not self.interrupted:
            return
        self.interrupted = False
        handler = self.handler
        if handler is signal.default_int_handler or handler == signal.SIG_DFL:
            raise KeyboardInterrupt
        if callable(handler):
            handler(signal.SIGINT, None)


def check_pending() -> None:
    """At the start of an MQI call: raise the Ctrl-C a delivery put off."""
    if _pending.is_set() and threading.current_thread() is threading.main_thread():
        _pending.clear()
        raise KeyboardInterrupt


@contextlib.contextmanager
def deferred() -> Iterator[Deferral]:
    """Note SIGINT instead of raising it inside the block (main thread only); the caller
    then calls :meth:`Deferral.delivered` if it got a message, and :meth:`Deferral.act`.
    Inside another such block it is that block's deferral."""
    global _current
    noted = Deferral()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    if _current is not None:
        yield _current
        return
    try:
        previous = signal.getsignal(signal.SIGINT)
    except ValueError:  # not the main interpreter
        yield noted
        return
    if previous == signal.SIG_IGN or previous is None:
        yield noted
        return

    def note(_signum: int, _frame: FrameType | None) -> None:
        noted.interrupted = True

    noted.handler = previous
    signal.signal(signal.SIGINT, note)
    _current = noted
    try:
        yield noted
    finally:
        _current = None
        signal.signal(signal.SIGINT, previous)
