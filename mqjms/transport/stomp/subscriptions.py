"""The broker subscriptions MQGET reads from, and giving back what they hold unseen.

A get subscribes (once per handle, and once per MsgId/CorrelId selector) with
``ack:client-individual`` and ``activemq.prefetchSize:1``, so the broker dispatches one
message at a time. Such a subscription can hold a message no get has returned: an idle
one gives it back after IDLE_RELEASE seconds (the reaper thread; on MQ an idle handle
holds nothing), a unit of work that gets twice from one handle takes the second through
an extra subscription, and what a closing subscription held goes back without counting
as a backout (:mod:`.release`). A short get asks the statistics plugin whether a message
is available before it concludes the queue is empty.
"""

from __future__ import annotations

import threading
import time

from mqjms.logs import get_logger
from mqjms.mq.errors import MQError

from . import mapping, release
from .client import BrokerError, ConnectionLost, Frame
from .state import OpenQueue, StompState

log = get_logger("mqjms.transport.stomp")

DISPATCH_GRACE = 0.5  # seconds an available message may take to be dispatched to us
IDLE_RELEASE = 0.1  # seconds after which an idle subscription gives back its message
_CLOSE_GRACE = 0.2  # seconds a closing subscription waits for a message on its way
_DISPATCH_SETTLE = 0.05  # seconds after we asked for a dispatch (subscribe, ack)
_INPUT_HEADERS = {"activemq.prefetchSize": "1"}


class Subscriptions(StompState):
    """The input subscriptions of one connection's handles."""

    def _input_sub(self, state: OpenQueue, selector: str | None) -> str:
        """The subscription to get from. Its window is one message (prefetch 1), and a
        message got under syncpoint holds it until MQCMIT/MQBACK (ActiveMQ lets a
        transacted ACK extend a window only once), so a unit of work that gets a second
        message from the same handle takes it through an extra subscription, closed when
        the unit of work ends."""
        client = self._client
        busy = {got.sub for got in self._gets}
        if selector is None:
            if state.sub is None:
                state.sub = client.subscribe(state.destination, _INPUT_HEADERS, "client-individual")
                self._window_opened = time.monotonic()
            if state.sub not in busy:
                return state.sub
        else:
            sub = state.match_subs.get(selector)
            if sub is None:
                headers = {**_INPUT_HEADERS, "selector": selector}
                sub = client.subscribe(state.destination, headers, "client-individual")
                state.match_subs[selector] = sub
                self._window_opened = time.monotonic()
            if sub not in busy:
                return sub
        for extra in state.overflow:
            if extra not in busy and state.overflow_selector.get(extra) == selector:
                return extra
        headers = dict(_INPUT_HEADERS)
        if selector is not None:
            headers["selector"] = selector
        extra = client.subscribe(state.destination, headers, "client-individual")
        state.overflow.append(extra)
        state.overflow_selector[extra] = selector
        self._window_opened = time.monotonic()
        return extra

    def _close_match_sub(self, state: OpenQueue, selector: str) -> None:
        sub = state.match_subs.pop(selector, None)
        if sub is not None:
            self._unsubscribe(sub)

    def _take_long(self, state: OpenQueue, sub: str, deadline: float | None) -> Frame | None:
        """Wait for a frame; meanwhile this connection's other idle handles give back
        what they hold (the idle-release thread cannot while this call has the lock)."""
        client = self._client
        until = self._interrupt_pending  # interrupt_wait(): WaitInterrupted ends the get
        others = [other for other in self._handles.values() if other is not state]
        if not others:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            return client.take(sub, remaining, until)
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            step = IDLE_RELEASE if remaining is None else min(IDLE_RELEASE, remaining)
            frame = client.take(sub, step, until)
            if frame is not None or (remaining is not None and remaining <= step):
                return frame
            self._release_others(state)

    def _take_soon(self, state: OpenQueue, sub: str, wait: float) -> Frame | None:
        """A frame for a short wait. A subscription cannot tell "the queue is empty" from
        "the broker has not dispatched to us yet", so: wait for a dispatch that may be on
        its way (the broker was just asked for one), then ask the statistics plugin whether
        any message is available (on the queue, held by no consumer) before giving up."""
        client = self._client
        frame = client.take(sub, 0.0)
        if frame is not None:
            return frame
        settle = self._window_opened + _DISPATCH_SETTLE - time.monotonic()
        if settle > 0:
            frame = client.take(sub, settle)
            if frame is not None:
                return frame
        stats = self._statistics_once(state.handle.resolved_name)
        inflight = int(stats.get("inflightCount", 0))
        available = int(stats.get("size", 0)) - inflight
        if available > 0:
            return client.take(sub, max(wait, DISPATCH_GRACE))
        if inflight > 0:
            # Held by consumers. Idle ones (ours now, others' within IDLE_RELEASE) give
            # their message back, and it may land on another idle subscription first.
            deadline = time.monotonic() + max(wait, IDLE_RELEASE * 4 + DISPATCH_GRACE)
            while True:
                self._release_others(state)
                frame = client.take(sub, IDLE_RELEASE)
                if frame is not None or time.monotonic() >= deadline:
                    return frame
                stats = self._statistics_once(state.handle.resolved_name)
                if int(stats.get("size", 0)) == 0:
                    return client.take(sub, 0.0)
        return client.take(sub, wait)

    def _note_use(self, state: OpenQueue) -> None:
        now = time.monotonic()
        for sub in (state.sub, *state.match_subs.values()):
            if sub is not None:
                self._sub_used[sub] = now
        if self._reaper is None and state.sub is not None:
            self._reaper = threading.Thread(target=self._reap, name="mqjms-stomp-idle", daemon=True)
            self._reaper.start()

    def _reap(self) -> None:
        """Give back what idle subscriptions hold. With prefetch 1 an open handle that is
        not in MQGET would keep the next message from every other consumer; on MQ an idle
        handle holds nothing. So a subscription unused for IDLE_RELEASE seconds outside a
        unit of work is closed (the message it held goes back, its count untouched) and
        made again by the next get."""
        while not self._closed:
            time.sleep(IDLE_RELEASE / 2)
            if not self._lock.acquire(blocking=False):
                continue
            try:
                if self._closed or self._client.lost:
                    continue
                busy = {got.sub for got in self._gets} | set(self._deferred_unsubscribe)
                now = time.monotonic()
                for state in list(self._handles.values()):
                    self._reap_state(state, busy, now)
            except (ConnectionLost, BrokerError, MQError) as exc:
                log.debug("stomp.idle_release_failed", error=repr(exc))
            finally:
                self._lock.release()

    def _release_others(self, state: OpenQueue) -> bool:
        """This connection's other handles are not in MQGET (this call is): what their
        subscriptions hold outside the unit of work goes back now. True if any did."""
        busy = {got.sub for got in self._gets} | set(self._deferred_unsubscribe)
        released = False
        for other in list(self._handles.values()):
            if other is state:
                continue
            subs = [sub for sub in (other.sub, *other.match_subs.values()) if sub]
            if any(sub not in busy and self._client.buffered(sub) for sub in subs):
                self._reap_state(other, busy, float("inf"))
                released = True
        return released

    def _reap_state(self, state: OpenQueue, busy: set[str], now: float) -> None:
        if (
            state.sub is not None
            and state.sub not in busy
            and now - self._sub_used.get(state.sub, 0.0) >= IDLE_RELEASE
        ):
            sub, state.sub = state.sub, None
            self._sub_used.pop(sub, None)
            self._unsubscribe(sub)
        for selector, sub in list(state.match_subs.items()):
            if sub not in busy and now - self._sub_used.get(sub, 0.0) >= IDLE_RELEASE:
                del state.match_subs[selector]
                self._sub_used.pop(sub, None)
                self._unsubscribe(sub)

    def _unsubscribe(self, sub: str, *, browser: bool = False, final: bool = False) -> None:
        """UNSUBSCRIBE. A message dispatched to an input subscription that no get returned
        comes back marked redelivered although nobody saw it. ``final`` (MQCLOSE, MQDISC):
        it is given back with its BackoutCount unchanged (:func:`.release.give_back`; it
        moves to the back of the queue). Otherwise (an idle handle, a unit of work's extra
        subscription: the handle stays open) it goes back in its place, remembered, and is
        caught back at MQCLOSE/MQDISC if it is still there (:meth:`_catch_back`)."""
        client = self._client
        if client.buffered(sub) == 0 and not client.lost:
            # With prefetch 1 a subscription holding one message gets nothing more; one
            # holding none may have a message on its way, which UNSUBSCRIBE would return
            # marked redelivered before we ever saw it. Let it arrive first.
            self._settle(sub)
        if browser:
            client.unsubscribe(sub)
        elif final:
            if release.give_back(client, sub, self.prefix):
                self._window_opened = time.monotonic()
        else:
            left = client.unsubscribe(sub)
            release.note_returned(left)
            for frame in left:
                self._returned[frame.message_id] = frame.headers.get("destination", "")

    def _catch_back(self, destination: str | None) -> None:
        """Requeue, with the count they had, the messages this connection gave back in
        place (for ``destination``, or all) that are still on their queue unseen."""
        by_destination: dict[str, list[str]] = {}
        for message_id, where in list(self._returned.items()):
            if destination is None or where == destination:
                del self._returned[message_id]
                by_destination.setdefault(where, []).append(message_id)
        for where, ids in by_destination.items():
            if release.catch_back(self._client, where, ids, self.prefix):
                self._window_opened = time.monotonic()

    def _settle(self, sub: str) -> None:
        client = self._client
        wait = self._window_opened + _DISPATCH_SETTLE - time.monotonic()
        if wait > 0 and client.peek(sub, wait):
            return
        destination = client.destination_of(sub)
        if destination is None:
            return
        try:
            stats = self._statistics_once(mapping.queue_name(destination, self.prefix))
        except MQError:
            return
        if int(stats.get("size", 0)) > 0:
            client.peek(sub, _CLOSE_GRACE)
