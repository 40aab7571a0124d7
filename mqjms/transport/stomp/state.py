"""What a StompConnection keeps between MQI calls, shared by the modules of its concepts.

A :class:`~.connection.StompConnection` is one class assembled from one module per
concept (connecting and the MQI calls, :mod:`.subscriptions`, :mod:`.unit_of_work` with
backout counting, :mod:`.browse`, :mod:`.statistics`); each mixes in :class:`StompState`,
which declares the state they share and the few calls one concept makes on another.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from mqjms.semantics import Handle
from mqjms.semantics.emulated import EmulatedConnection

from .client import Frame, StompClient
from .config import StompConfig, StompParams


@dataclass(slots=True)
class Got:
    """A message got under syncpoint in the current unit of work."""

    sub: str
    frame: Frame
    count: int  # the BackoutCount it was returned with
    acked: bool = False  # ACK sent inside the broker transaction


@dataclass(slots=True)
class BrowseCursor:
    """Where a handle's browse is: its browser subscription and the MsgIds shown."""

    selector: str | None
    sub: str | None = None
    ended: bool = False
    seen: set[bytes] = field(default_factory=set)  # MsgIds shown
    current: str | None = None  # the broker message-id of the message under the cursor
    held: Frame | None = None  # too long for the last browse (2080): shown again next


@dataclass(slots=True)
class OpenQueue:
    """An open handle and the broker subscriptions it has made."""

    handle: Handle
    destination: str
    sub: str | None = None  # the input subscription, made at the first get
    match_subs: dict[str, str] = field(default_factory=dict)  # selector -> subscription
    overflow: list[str] = field(default_factory=list)  # extra subscriptions of a unit of work
    overflow_selector: dict[str, str | None] = field(default_factory=dict)
    browse: BrowseCursor | None = None


_F = TypeVar("_F", bound=Callable[..., Any])


def locked(method: _F) -> _F:
    """One MQI call at a time on a connection (its idle-release thread takes turns)."""

    @functools.wraps(method)
    def call(self: StompState, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return call  # type: ignore[return-value]


class StompState(EmulatedConnection):
    """The state of one STOMP connection, and the calls its concepts make on each other."""

    params: StompParams
    prefix: str
    _client: StompClient
    _lock: threading.RLock
    _closed: bool
    _handles: dict[int, OpenQueue]
    _tx: str | None  # the broker transaction of the unit of work, once begun
    _gets: list[Got]  # got under syncpoint in the unit of work
    _puts: int
    _uow_puts: dict[str, int]  # destination -> messages put in the unit of work
    _broken: bool  # the unit of work was lost with the connection
    _deferred_unsubscribe: list[str]
    # message-id -> destination: messages an idle or extra subscription gave back in
    # place (marked redelivered), caught back at MQCLOSE/MQDISC (see .release)
    _returned: dict[str, str]
    _stats_sub: str | None
    _stats_reply: str
    _known_destinations: set[str]
    _window_opened: float  # when the broker was last asked to dispatch to us
    _sub_used: dict[str, float]  # input subscription -> when a get last used it
    _reaper: threading.Thread | None
    _interrupted: bool  # interrupt_wait() was called: the next long wait ends at once

    def _interrupt_pending(self) -> bool:
        return self._interrupted

    @property
    def config(self) -> StompConfig:
        """The configuration in force now (a file is re-read when it changes)."""
        return self.params.config()

    @property
    def in_unit_of_work(self) -> bool:
        return bool(self._gets or self._tx or self._puts)

    # Implemented by the concept that owns them (the connection, subscriptions, statistics).
    def destination(self, queue: str) -> str:
        raise NotImplementedError

    def _live(self) -> StompClient:
        raise NotImplementedError

    def _recover(self) -> None:
        raise NotImplementedError

    def _statistics_once(self, queue: str) -> dict[str, int]:
        raise NotImplementedError

    def _unsubscribe(self, sub: str, *, browser: bool = False, final: bool = False) -> None:
        raise NotImplementedError

    def _close_match_sub(self, state: OpenQueue, selector: str) -> None:
        raise NotImplementedError
