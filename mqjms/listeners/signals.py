"""SIGTERM, SIGINT and SIGHUP for a worker run in the main thread: the first asks for a
graceful stop, the second cuts the shutdown deadline short. A terminal that hangs up
(SIGHUP) stops a service the same way, unless SIGHUP is ignored (``nohup``)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

_HANG_UP = tuple(s for s in [getattr(signal, "SIGHUP", None)] if s is not None)
SIGNALS = (signal.SIGTERM, signal.SIGINT, *_HANG_UP)


@contextmanager
def handled(on_signal: Callable[[int], None]) -> Iterator[bool]:
    """Route SIGTERM, SIGINT and SIGHUP to ``on_signal`` for the block, then restore the previous
    handlers. Python only lets the main thread install handlers; elsewhere this does
    nothing and yields False."""
    if threading.current_thread() is not threading.main_thread():
        yield False
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        on_signal(signum)

    previous = {sig: signal.getsignal(sig) for sig in SIGNALS}
    # a signal ignored when we start (nohup's SIGHUP) stays ignored, and SIGHUP is taken
    # only from its default: an application's own handler (reopening its logs) stays
    previous = {
        sig: old
        for sig, old in previous.items()
        if old is not signal.SIG_IGN and (sig not in _HANG_UP or old is signal.SIG_DFL)
    }
    for sig in previous:
        signal.signal(sig, handler)
    try:
        yield True
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
