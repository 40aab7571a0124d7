"""Why a message failed, carried on the moved message as ``usr`` properties, and the
memory that keeps it between a failed delivery and the move at BOTHRESH.

Property names (all strings, in the RFH2 ``usr`` folder of a message on a backout queue):

================================  ===========================================================
``mqjms_failure_exception``       the exception's qualified type, e.g. ``builtins.ValueError``
``mqjms_failure_message``         ``str(exception)``, truncated to 1,000 characters
``mqjms_failure_listener``        the listener's qualified name (module.function)
``mqjms_failure_queue``           the queue the message was consumed from
``mqjms_failure_time``            when it failed, ISO 8601 UTC
================================  ===========================================================
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import datetime as dt

MAX_MESSAGE_LENGTH = 1000
MAX_TRACEBACK_LENGTH = 8000
PROPERTY_PREFIX = "mqjms_failure_"
DEFAULT_CAPACITY = 10_000


def _now() -> dt.datetime:
    import datetime as dt  # with the first failure: it adds milliseconds to import mqjms

    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True, slots=True)
class Failure:
    exception_type: str
    message: str
    listener: str
    queue: str
    time: dt.datetime = field(default_factory=_now)
    #: The formatted traceback, logged once, with the move (never a property).
    traceback: str = field(default="", repr=False, compare=False)

    @classmethod
    def from_exception(
        cls, exc: BaseException, listener: str, queue: str, *, traceback: bool = True
    ) -> Failure:
        """``traceback=False`` when no move will log it (formatting one is most of what a
        failure costs)."""
        kind = type(exc)
        return cls(
            exception_type=f"{kind.__module__}.{kind.__qualname__}",
            message=truncate(_text(exc)),
            listener=listener,
            queue=queue,
            traceback=_last(_formatted(exc), MAX_TRACEBACK_LENGTH) if traceback else "",
        )

    def properties(self) -> dict[str, str]:
        return {
            f"{PROPERTY_PREFIX}exception": self.exception_type,
            f"{PROPERTY_PREFIX}message": self.message,
            f"{PROPERTY_PREFIX}listener": self.listener,
            f"{PROPERTY_PREFIX}queue": self.queue,
            f"{PROPERTY_PREFIX}time": self.time.isoformat(timespec="milliseconds"),
        }


def _text(exc: BaseException) -> str:
    """``str(exc)``, or a stand-in naming its type when its ``__str__`` raises (a failure
    of the listener's exception must not become one of the worker's)."""
    try:
        return str(exc)
    except Exception:
        return f"<unprintable {type(exc).__qualname__}>"


def _formatted(exc: BaseException) -> str:
    """The traceback as Python prints it, chained exceptions included, but without the
    ``^^^^`` lines under each frame's source: drawing them parses every line of the stack,
    most of what a poison message's last failure cost (``traceback`` loads with the first
    failure)."""
    import traceback

    if _unchained(exc):
        # its frames without their column positions from the start (each is looked up in
        # the frame's code, to be dropped), then the exception's own lines: the same text
        stack = traceback.StackSummary.extract(traceback.walk_tb(exc.__traceback__))
        head = ["Traceback (most recent call last):\n", *stack.format()] if stack else []
        return "".join([*head, *traceback.format_exception_only(exc)])
    report = traceback.TracebackException.from_exception(exc)
    _without_carets(report)
    return "".join(report.format())


def _unchained(exc: BaseException) -> bool:
    """Whether ``exc`` is printed alone: no cause, no context shown, not a group."""
    shown_context = exc.__context__ is not None and not exc.__suppress_context__
    return exc.__cause__ is None and not shown_context and not isinstance(exc, BaseExceptionGroup)


def _without_carets(report: object) -> None:
    """Drop the column positions of every frame in ``report``'s chain, which is what
    decides whether Python 3.11+ draws carets under a frame's line. Walked with a list,
    not recursion: a chain of thousands of exceptions must not fail the failure."""
    seen: set[int] = set()
    todo = [report]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        for frame in getattr(current, "stack", ()):
            frame.colno = frame.end_colno = None
        todo.append(getattr(current, "__cause__", None))
        todo.append(getattr(current, "__context__", None))
        todo.extend(getattr(current, "exceptions", None) or ())  # an ExceptionGroup's


def truncate(text: str, limit: int = MAX_MESSAGE_LENGTH) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _last(text: str, limit: int) -> str:
    """The end of a traceback too long to log whole: Python prints a chain's first cause
    first, so the end holds the exception that was raised and where."""
    return text if len(text) <= limit else "…" + text[len(text) - limit + 1 :]


class FailureMemory:
    """A thread-safe LRU of MsgId -> last Failure, shared by every consumer of a worker.

    A delivery that fails only rolls the message back; the queue manager counts the
    backouts. When the same message comes back at BOTHRESH in this process, the failure
    remembered here travels with the move. The memory is bounded (least recently failed
    first out): a process that never sees the message again must not keep it forever.

    With the failure it keeps the message's BackoutCount when it failed, and its put date
    and time (a MsgId an application set need not be unique), so that a consumer can tell a
    message whose last backout was that failure (it raised here: no suspect of a crash, see
    :mod:`mqjms.listeners.isolation`) from one backed out since by a crash.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"capacity {capacity} must be at least 1")
        self.capacity = capacity
        self._lock = threading.Lock()
        self._items: OrderedDict[bytes, tuple[Failure, int | None, str]] = OrderedDict()

    def remember(
        self,
        msg_id: bytes,
        failure: Failure,
        backout_count: int | None = None,
        stamp: str = "",
    ) -> None:
        """Keep ``failure`` of ``msg_id``; ``backout_count``: the message's BackoutCount
        when it failed (its backout makes it one more); ``stamp``: its PutDate + PutTime."""
        with self._lock:
            self._items[msg_id] = (failure, backout_count, stamp)
            self._items.move_to_end(msg_id)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)

    def pop(self, msg_id: bytes) -> Failure | None:
        """The last failure of ``msg_id`` (forgotten now), or None when none is known."""
        if not self._items:  # the common case, without the lock: nothing ever failed
            return None
        with self._lock:
            found = self._items.pop(msg_id, None)
        return None if found is None else found[0]

    def explains(self, msg_id: bytes, backout_count: int, stamp: str = "") -> bool:
        """Whether the last backout of the message now at ``backout_count`` (put at
        ``stamp``) was a failure remembered here (it failed at ``backout_count - 1``), not a
        crash or another process."""
        if not self._items:
            return False
        with self._lock:
            found = self._items.get(msg_id)
        if found is None or found[1] is None:
            return False
        return found[1] + 1 == backout_count and found[2] == stamp

    def forget(self, msg_id: bytes) -> None:
        if self._items:
            with self._lock:
                self._items.pop(msg_id, None)

    def __len__(self) -> int:
        return len(self._items)
