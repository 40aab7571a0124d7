"""MQGET with browse (MQGMO_BROWSE_FIRST / _NEXT) over STOMP browser subscriptions.

A browser subscription (``browser:true``) is a snapshot of the queue ending with a
``browser:end`` frame; a browse that reaches the end takes a new snapshot, skipping the
MsgIds it has shown, so messages that arrived since are seen as MQ's cursor would.
"""

from __future__ import annotations

import time

from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, TruncatedMessage

from . import bodies, mapping, release
from .client import ConnectionLost, Frame
from .state import BrowseCursor, OpenQueue, StompState

_BROWSE_WAIT = 10.0


class Browsing(StompState):
    """The browse cursors of one connection's handles."""

    def _browse_get(
        self,
        state: OpenQueue,
        browse: Browse,
        selector: str | None,
        deadline: float | None,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        cursor = state.browse
        if browse is Browse.FIRST or cursor is None or cursor.selector != selector:
            self._end_browse(state)
            cursor = state.browse = BrowseCursor(selector)
        held, cursor.held = cursor.held, None
        if held is not None:  # the message a 2080 left for the cursor's next step
            return self._browsed(cursor, held, *self._from_frame(held, time.time()), max_length)
        fresh = cursor.sub is None  # a snapshot taken during this call
        while True:
            try:
                client = self._live()
                if cursor.sub is None:
                    headers = {"browser": "true"}
                    if selector:
                        headers["selector"] = selector
                    cursor.sub = client.subscribe(state.destination, headers, "auto")
                    cursor.ended = False
                remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
                # a browse ends with a browser:end frame, so waiting for it is never wasted
                frame = client.take(
                    cursor.sub, None if remaining is None else max(remaining, _BROWSE_WAIT)
                )
            except ConnectionLost:
                self._recover()
                cursor = state.browse = BrowseCursor(selector, seen=cursor.seen)
                continue
            if frame is not None and frame.headers.get("browser") == "end":
                cursor.ended = True
                self._unsubscribe(cursor.sub, browser=True)
                cursor.sub = None
                # a new snapshot shows messages that arrived since, skipping those seen
                if fresh and deadline is not None and time.monotonic() >= deadline:
                    return None
                if fresh:
                    time.sleep(0.05)
                fresh = True
                continue
            if frame is None:
                return None
            now = time.time()
            if mapping.is_expired(frame.headers, now):
                continue
            md, data = self._from_frame(frame, now)
            # One MsgId is shown once: a message being requeued (a backout, a give-back)
            # exists twice on the broker for an instant, the original and its copy.
            if md.MsgId in cursor.seen:
                continue
            cursor.seen.add(md.MsgId)
            return self._browsed(cursor, frame, md, data, max_length)

    def _from_frame(self, frame: Frame, now: float) -> tuple[MQMD, bytes]:
        md, data = mapping.from_frame(
            frame.headers,
            frame.body,
            prefix=self.prefix,
            now=now,
            converted=bodies.converted(self.params, frame),
        )
        if frame.headers.get("redelivered") == "true" and release.returned_peek(frame.message_id):
            md.BackoutCount += 1
        return md, data

    def _browsed(
        self, cursor: BrowseCursor, frame: Frame, md: MQMD, data: bytes, max_length: int | None
    ) -> tuple[MQMD, bytes]:
        """The browsed message, the cursor on it; 2080 (the cursor not moved) when it is
        longer than ``max_length``."""
        if max_length is not None and len(data) > max_length:
            cursor.held = frame
            raise TruncatedMessage(md, data[:max_length], len(data), max_length)
        cursor.current = frame.message_id
        return md, data

    def _end_browse(self, state: OpenQueue) -> None:
        cursor, state.browse = state.browse, None
        if cursor is not None and cursor.sub is not None:
            self._unsubscribe(cursor.sub, browser=True)
