"""A worker's stop request: an event that also wakes what sleeps elsewhere.

Consumers look at the stop request between MQI calls, but one waiting for its turn at a
serial queue sleeps on that queue's condition, not on the event. Rather than having it poll
the event several times a second (CPU an idle worker should not use), setting the request
runs the wake-ups registered with it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class StopRequest(threading.Event):
    """:class:`threading.Event` whose :meth:`set` then calls every registered wake-up."""

    def __init__(self) -> None:
        super().__init__()
        self._wakes: list[Callable[[], None]] = []

    def on_set(self, wake: Callable[[], None]) -> None:
        """Call ``wake`` whenever the request is set (until :meth:`forget_wakes`)."""
        self._wakes.append(wake)

    def forget_wakes(self) -> None:
        """Drop the registered wake-ups (the worker starts again with new consumers)."""
        self._wakes = []

    def set(self) -> None:
        super().set()
        for wake in list(self._wakes):
            wake()
