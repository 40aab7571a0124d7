"""StompConnection: the transport contract (MQI semantics) over a STOMP 1.2 broker.

How each MQI idea is carried (docs/stomp.md has the full story and where it differs):

* **Unit of work** = a STOMP transaction. A get under syncpoint subscribes (once per
  handle) with ``ack:client-individual`` and ``activemq.prefetchSize:1``; its ACK is sent
  inside the transaction, lazily (at commit, or when another get on the same handle needs
  the broker to dispatch again), so the broker never hands this consumer a second message
  while the first is being processed. Puts under syncpoint are SENDs in the transaction.
  MQCMIT = COMMIT with a receipt.
* **MQBACK** = ABORT, then one new transaction that ACKs every message got in the unit of
  work and SENDs a copy of each to its queue with ``mqjms_backout_count`` + 1, then COMMIT:
  atomic, durable, and the count lives in the message, as BackoutCount does on MQ.
  The copy keeps MsgId (``mqjms_msg_id``), priority, absolute expiry and every MQMD field,
  but goes to the back of the queue and gets a new broker ``message-id``.
* **A consumer that died** (crash, disconnect, lost connection): the broker redelivers
  with ``redelivered:true``. The count is raised by one and, before the message is given
  to anyone under syncpoint, made durable the same way (ACK + copy with the new count in
  one transaction), so a crash loop ends at BOTHRESH exactly as on MQ.
* **Messages dispatched but never handed to the application** (the one prefetched message
  a subscription may hold when it ends) would come back marked redelivered and count as
  a backout in whichever process got them next; at MQCLOSE and MQDISC they are replaced
  by copies with their count unchanged, and those an open handle gave back meanwhile are
  requeued the same way if still there (see :mod:`.release`).
* **MQINQ** answers from :class:`~.config.StompConfig`; CURDEPTH asks the statistics plugin.
* **Lost connection**: the next call reconnects with tenacity backoff (``?reconnect=``
  seconds, default 10); the unit of work in flight is gone (the broker rolled it back),
  so its next syncpoint call or MQCMIT fails with MQRC_BACKED_OUT (2003), as a
  reconnectable IBM MQ client does. MQRC_CONNECTION_BROKEN (2009) when the broker does
  not come back in time.
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import itertools
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import tenacity

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.qmgr.attributes import (
    ALIAS,
    LOCAL,
    QMGR_ATTR_BY_SELECTOR,
    QTYPE_CODES,
    QUEUE_ATTR_BY_SELECTOR,
    inquire_value,
    validate_name,
)
from mqjms.qmgr.messages import put_date_time
from mqjms.qmgr.queues import check_md_for_put
from mqjms.transport.base import Browse, Context, Handle
from mqjms.transport.checks import check_get, check_put

from . import mapping, release
from .client import BrokerError, ConnectionLost, ConnectRefused, Frame, StompClient
from .config import QueueDefinition, StompConfig, StompParams

log = get_logger("mqjms.transport.stomp")

_OPEN_KINDS = C.MQOO_INPUT_MASK | C.MQOO_BROWSE | C.MQOO_OUTPUT | C.MQOO_INQUIRE | C.MQOO_SET
_STATS_PREFIX = "/queue/ActiveMQ.Statistics.Destination."
_STATS_TIMEOUT = 5.0
_DISPATCH_GRACE = 0.5  # seconds an available message may take to be dispatched to us
_BROWSE_WAIT = 10.0
_IDLE_RELEASE = 0.1  # seconds after which an idle subscription gives back its message
_CLOSE_GRACE = 0.2  # seconds a closing subscription waits for a message on its way
_DISPATCH_SETTLE = 0.05  # seconds after we asked for a dispatch (subscribe, ack)
_msg_counter = itertools.count(1)
_msg_prefix = os.urandom(4)
_counter_lock = threading.Lock()


def _default_appl_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return (name or "python")[-28:]


@dataclass(slots=True)
class _Got:
    """A message got under syncpoint in the current unit of work."""

    sub: str
    frame: Frame
    count: int  # the BackoutCount it was returned with
    acked: bool = False  # ACK sent inside the broker transaction


@dataclass(slots=True)
class _BrowseCursor:
    selector: str | None
    sub: str | None = None
    ended: bool = False
    seen: set[str] = field(default_factory=set)


@dataclass(slots=True)
class _Open:
    handle: Handle
    destination: str
    sub: str | None = None  # the input subscription, made at the first get
    match_subs: dict[str, str] = field(default_factory=dict)  # selector -> subscription
    overflow: list[str] = field(default_factory=list)  # extra subscriptions of a unit of work
    overflow_selector: dict[str, str | None] = field(default_factory=dict)
    browse: _BrowseCursor | None = None


_F = TypeVar("_F", bound=Callable[..., Any])


def _locked(method: _F) -> _F:
    """One MQI call at a time on a connection (its idle-release thread takes turns)."""

    @functools.wraps(method)
    def call(self: StompConnection, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return call  # type: ignore[return-value]


class StompConnection:
    """An MQI connection (hconn) on a STOMP broker. Not thread-safe: one per thread."""

    def __init__(self, params: StompParams, appl_name: str | None = None) -> None:
        self.params = params
        config = params.config()
        self.prefix = params.prefix if params.prefix is not None else config.prefix
        self.appl_name = (appl_name or _default_appl_name())[:28]
        try:
            self.user = getpass.getuser()[:12]
        except Exception:
            self.user = str(os.getuid())[:12]
        self._strict = params.strict if params.strict is not None else config.strict
        self._handles: dict[int, _Open] = {}
        self._hobjs = itertools.count(1)
        self._tx: str | None = None
        self._gets: list[_Got] = []
        self._puts = 0
        self._uow_puts: dict[str, int] = {}
        self._broken = False  # the unit of work was lost with the connection
        self._closed = False
        self._deferred_unsubscribe: list[str] = []
        # message-id -> destination: messages an idle or extra subscription gave back in
        # place (marked redelivered), caught back at MQCLOSE/MQDISC (see .release)
        self._returned: dict[str, str] = {}
        self._stats_sub: str | None = None
        self._known_destinations: set[str] = set()
        self._window_opened = 0.0  # when the broker was last asked to dispatch to us
        self._lock = threading.RLock()
        self._sub_used: dict[str, float] = {}  # input subscription -> when a get last used it
        self._reaper: threading.Thread | None = None
        self._client = self._new_client()
        log.debug("stomp.connected", url=params.safe_url, appl=self.appl_name)

    # ------------------------------------------------------------------ basics
    @property
    def config(self) -> StompConfig:
        """The configuration in force now (a file is re-read when it changes)."""
        return self.params.config()

    @property
    def qmgr_name(self) -> str:
        return self.params.qmgr_name or self.config.qmgr_name

    @property
    def in_unit_of_work(self) -> bool:
        return bool(self._gets or self._tx or self._puts)

    def __enter__(self) -> StompConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disconnect()

    def __repr__(self) -> str:
        return f"StompConnection({self.params.safe_url!r}, appl={self.appl_name!r})"

    def _check_open(self) -> None:
        if self._closed:
            raise failed(C.MQRC_HCONN_ERROR, "the connection is closed")

    def _state(self, handle: Handle) -> _Open:
        self._check_open()
        found = self._handles.get(handle.hobj)
        if found is None or found.handle is not handle:
            raise failed(C.MQRC_HOBJ_ERROR, f"queue {handle.name!r} is not open on this connection")
        return found

    def _lookup(self, name: str) -> QueueDefinition:
        strict = self._strict
        if strict and name == self._dead_letter_queue():
            strict = False  # the queue manager's DEADQ always exists (ActiveMQ.DLQ)
        return self.config.lookup(name, self.params.queue_defaults, strict)

    def _dead_letter_queue(self) -> str:
        return str(self.config.qmgr_attrs(self.params.qmgr_overrides).get("DEADQ", ""))

    def _resolve(self, name: str) -> tuple[QueueDefinition, QueueDefinition]:
        named = self._lookup(name)
        if named.qtype != ALIAS:
            return named, named
        target = str(named.attrs.get("TARGET", "")).strip()
        if not target:
            raise failed(C.MQRC_UNKNOWN_ALIAS_BASE_Q, f"alias queue {name!r} has no TARGET")
        try:
            base = self._lookup(target)
        except MQError:
            raise failed(
                C.MQRC_UNKNOWN_ALIAS_BASE_Q,
                f"alias queue {name!r} targets {target!r}, which is not defined",
            ) from None
        if base.qtype != LOCAL:
            raise failed(
                C.MQRC_UNKNOWN_ALIAS_BASE_Q,
                f"alias queue {name!r} targets {target!r}, a {base.qtype}, not a local queue",
            )
        return named, base

    def destination(self, queue: str) -> str:
        """The broker destination of an MQ queue name (``/queue/<prefix><name>``)."""
        return mapping.queue_destination(queue, self.prefix)

    # ------------------------------------------------------------------ connecting
    def _new_client(self) -> StompClient:
        try:
            return StompClient(self.params)
        except ConnectRefused as exc:
            raise failed(
                C.MQRC_NOT_AUTHORIZED,
                f"{self.params.safe_url} refused the connection: {exc}",
            ) from None
        except ConnectionLost as exc:
            raise failed(C.MQRC_HOST_NOT_AVAILABLE, str(exc)) from None

    def _live(self) -> StompClient:
        """The client, reconnecting first when the connection was lost."""
        if self._client.lost:
            self._recover()
        return self._client

    def _recover(self) -> None:
        """Reconnect after a lost connection. What was in flight is gone: the broker
        rolled the transaction back and will redeliver its messages (count + 1)."""
        if self.in_unit_of_work:
            self._broken = True
            log.warning(
                "uow.backed_out",
                url=self.params.safe_url,
                reason="connection lost",
                messages=len(self._gets),
            )
        self._forget_session_state()
        with_reconnect = self.params.reconnect_seconds > 0
        if not with_reconnect:
            raise failed(C.MQRC_CONNECTION_BROKEN, f"connection to {self.params.safe_url} lost")
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_delay(self.params.reconnect_seconds),
            wait=tenacity.wait_exponential(multiplier=0.1, max=2.0) + tenacity.wait_random(0, 0.1),
            retry=tenacity.retry_if_exception_type(MQError),
            reraise=True,
        )
        started = time.monotonic()
        try:
            for attempt in retrying:
                with attempt:
                    client = self._new_client()
        except MQError as exc:
            raise failed(
                C.MQRC_CONNECTION_BROKEN,
                f"connection to {self.params.safe_url} lost and not back in "
                f"{self.params.reconnect_seconds:g} s: {exc.detail}",
            ) from None
        self._client = client
        log.info(
            "stomp.reconnected",
            url=self.params.safe_url,
            seconds=round(time.monotonic() - started, 3),
        )

    def _forget_session_state(self) -> None:
        self._tx = None
        self._gets.clear()
        self._puts = 0
        self._uow_puts.clear()
        self._deferred_unsubscribe.clear()
        self._stats_sub = None
        self._known_destinations.clear()
        for state in self._handles.values():
            state.sub = None
            state.match_subs.clear()
            state.overflow.clear()
            state.overflow_selector.clear()
            state.browse = None

    # ------------------------------------------------------------------ MQOPEN / MQCLOSE
    @_locked
    def open(self, queue: str, options: int) -> Handle:
        self._check_open()
        validate_name(queue)
        if not options & _OPEN_KINDS:
            raise failed(
                C.MQRC_OPTIONS_ERROR,
                f"open options {options:#x} ask for nothing: give MQOO_INPUT_*, MQOO_BROWSE, "
                "MQOO_OUTPUT or MQOO_INQUIRE",
            )
        named, base = self._resolve(queue)
        effective = options
        if options & C.MQOO_INPUT_MASK:
            exclusive = bool(options & C.MQOO_INPUT_EXCLUSIVE) or (
                bool(options & C.MQOO_INPUT_AS_Q_DEF) and base.attrs.get("DEFSOPT") == "EXCL"
            )
            mode = C.MQOO_INPUT_EXCLUSIVE if exclusive else C.MQOO_INPUT_SHARED
            effective = (options & ~C.MQOO_INPUT_MASK) | mode
        handle = Handle(
            name=named.name, resolved_name=base.name, options=effective, hobj=next(self._hobjs)
        )
        self._handles[handle.hobj] = _Open(handle, self.destination(base.name))
        return handle

    @_locked
    def close(self, handle: Handle) -> None:
        """MQCLOSE. A message the handle's subscription holds unseen stays on the queue
        with its BackoutCount unchanged (see :mod:`.release`)."""
        self._close(handle)

    def _close(self, handle: Handle) -> None:
        state = self._state(handle)
        subs = [s for s in (state.sub, *state.match_subs.values(), *state.overflow) if s]
        in_uow = {got.sub for got in self._gets}
        try:
            for sub in subs:
                if sub in in_uow:
                    # its messages are acknowledged at MQCMIT/MQBACK: keep it until then
                    self._deferred_unsubscribe.append(sub)
                else:
                    self._unsubscribe(sub, final=True)
            self._end_browse(state)
            self._catch_back(state.destination)
        except ConnectionLost:
            pass  # the subscriptions went with the connection
        except BrokerError as exc:
            log.warning("stomp.close_failed", queue=handle.name, error=str(exc))
        del self._handles[handle.hobj]

    # ------------------------------------------------------------------ MQGET
    @_locked
    def get(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        syncpoint: bool = False,
        browse: Browse | None = None,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
    ) -> tuple[MQMD, bytes] | None:
        state = self._state(handle)
        check_get(handle, wait=wait, syncpoint=syncpoint, browse=browse)
        named, base = self._resolve(handle.name)
        for queue in (named, base):
            if queue.attrs.get("GET", "ENABLED") != "ENABLED":
                raise failed(C.MQRC_GET_INHIBITED, f"queue {queue.name!r} is GET(DISABLED)")
        selector = _selector(msg_id, correl_id)
        deadline = None if wait is None else time.monotonic() + wait
        if browse is not None:
            return self._browse_get(state, browse, selector, deadline)
        if self._client.lost:
            self._recover()
        if syncpoint and self._broken:
            raise failed(
                C.MQRC_BACKED_OUT,
                "the unit of work was backed out when the connection was lost: "
                "call backout() or commit() to end it",
            )
        while True:
            try:
                found = self._get_once(state, selector, syncpoint, deadline)
            except ConnectionLost:
                self._recover()
                if syncpoint and self._broken:
                    raise failed(
                        C.MQRC_BACKED_OUT,
                        "the unit of work was backed out when the connection was lost",
                    ) from None
                continue
            except BrokerError as exc:
                raise failed(C.MQRC_UNEXPECTED_ERROR, f"broker error on get: {exc}") from None
            if found is not _AGAIN:
                self._note_use(state)
                return found  # type: ignore[return-value]

    def _get_once(
        self, state: _Open, selector: str | None, syncpoint: bool, deadline: float | None
    ) -> tuple[MQMD, bytes] | object | None:
        client = self._client
        sub = self._input_sub(state, selector)
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        if remaining is None or remaining > _DISPATCH_GRACE:
            frame = self._take_long(state, sub, deadline)
        else:
            frame = self._take_soon(state, sub, remaining)
        if frame is None:
            return None
        now = time.time()
        if mapping.is_expired(frame.headers, now):
            # seed 000: an expired message is never returned; the get discards it
            client.ack(frame.ack_id)
            self._window_opened = time.monotonic()
            log.info("message.expired_discarded", queue=state.handle.resolved_name)
            return _AGAIN
        if self._returned:
            self._returned.pop(frame.message_id, None)
        md, data = mapping.from_frame(frame.headers, frame.body, prefix=self.prefix, now=now)
        if release.was_redelivered(frame):
            md.BackoutCount += 1
            if syncpoint:
                # make the raised count durable before anyone processes it (crash loops)
                self._requeue_copy(frame, md.BackoutCount, reason="redelivered")
                return _AGAIN
        if syncpoint:
            self._gets.append(_Got(sub, frame, md.BackoutCount))
        else:
            client.ack(frame.ack_id, receipt=True)
            self._window_opened = time.monotonic()
        if selector is not None and not syncpoint:
            self._close_match_sub(state, selector)
        return md, data

    def _take_long(self, state: _Open, sub: str, deadline: float | None) -> Frame | None:
        """Wait for a frame; meanwhile this connection's other idle handles give back
        what they hold (the idle-release thread cannot while this call has the lock)."""
        client = self._client
        others = [other for other in self._handles.values() if other is not state]
        if not others:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            return client.take(sub, remaining)
        while True:
            remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
            step = _IDLE_RELEASE if remaining is None else min(_IDLE_RELEASE, remaining)
            frame = client.take(sub, step)
            if frame is not None or (remaining is not None and remaining <= step):
                return frame
            self._release_others(state)

    def _note_use(self, state: _Open) -> None:
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
            time.sleep(_IDLE_RELEASE / 2)
            if not self._lock.acquire(blocking=False):
                continue
            try:
                if self._closed or self._client.lost:
                    continue
                busy = {got.sub for got in self._gets} | set(self._deferred_unsubscribe)
                now = time.monotonic()
                for state in self._handles.values():
                    self._reap_state(state, busy, now)
            except (ConnectionLost, BrokerError, MQError) as exc:
                log.debug("stomp.idle_release_failed", error=repr(exc))
            finally:
                self._lock.release()

    def _release_others(self, state: _Open) -> bool:
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

    def _reap_state(self, state: _Open, busy: set[str], now: float) -> None:
        if (
            state.sub is not None
            and state.sub not in busy
            and now - self._sub_used.get(state.sub, 0.0) >= _IDLE_RELEASE
        ):
            sub, state.sub = state.sub, None
            self._sub_used.pop(sub, None)
            self._unsubscribe(sub)
        for selector, sub in list(state.match_subs.items()):
            if sub not in busy and now - self._sub_used.get(sub, 0.0) >= _IDLE_RELEASE:
                del state.match_subs[selector]
                self._sub_used.pop(sub, None)
                self._unsubscribe(sub)

    def _take_soon(self, state: _Open, sub: str, wait: float) -> Frame | None:
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
            return client.take(sub, max(wait, _DISPATCH_GRACE))
        if inflight > 0:
            # Held by consumers. Idle ones (ours now, others' within IDLE_RELEASE) give
            # their message back, and it may land on another idle subscription first.
            deadline = time.monotonic() + max(wait, _IDLE_RELEASE * 4 + _DISPATCH_GRACE)
            while True:
                self._release_others(state)
                frame = client.take(sub, _IDLE_RELEASE)
                if frame is not None or time.monotonic() >= deadline:
                    return frame
                stats = self._statistics_once(state.handle.resolved_name)
                if int(stats.get("size", 0)) == 0:
                    return client.take(sub, 0.0)
        return client.take(sub, wait)

    def _input_sub(self, state: _Open, selector: str | None) -> str:
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

    def _close_match_sub(self, state: _Open, selector: str) -> None:
        sub = state.match_subs.pop(selector, None)
        if sub is not None:
            self._unsubscribe(sub)

    def _flush_acks(self, sub: str | None = None) -> None:
        """Send the ACKs of messages got in this unit of work (inside its transaction),
        so that the broker dispatches the next message to a prefetch-1 subscription."""
        pending = [g for g in self._gets if not g.acked and (sub is None or g.sub == sub)]
        if not pending:
            return
        tx = self._begin()
        for got in pending:
            self._client.ack(got.frame.ack_id, transaction=tx)
            got.acked = True
        self._window_opened = time.monotonic()

    def _begin(self) -> str:
        if self._tx is None:
            tx = self._client.new_id("tx")
            self._client.begin(tx)
            self._tx = tx
        return self._tx

    # ------------------------------------------------------------------ browse
    def _browse_get(
        self, state: _Open, browse: Browse, selector: str | None, deadline: float | None
    ) -> tuple[MQMD, bytes] | None:
        cursor = state.browse
        if browse is Browse.FIRST or cursor is None or cursor.selector != selector:
            self._end_browse(state)
            cursor = state.browse = _BrowseCursor(selector)
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
                cursor = state.browse = _BrowseCursor(selector, seen=cursor.seen)
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
            # One MsgId is shown once: a message being requeued (a backout, a give-back)
            # exists twice on the broker for an instant, the original and its copy.
            msg_id = frame.headers.get(mapping.H_MSG_ID) or (
                mapping.native_msg_id(frame.message_id).hex()
            )
            if msg_id in cursor.seen or mapping.is_expired(frame.headers, now):
                continue
            cursor.seen.add(msg_id)
            md, data = mapping.from_frame(frame.headers, frame.body, prefix=self.prefix, now=now)
            if frame.headers.get("redelivered") == "true" and release.returned_peek(
                frame.message_id
            ):
                md.BackoutCount += 1
            return md, data

    def _end_browse(self, state: _Open) -> None:
        cursor, state.browse = state.browse, None
        if cursor is not None and cursor.sub is not None:
            self._unsubscribe(cursor.sub, browser=True)

    # ------------------------------------------------------------------ MQPUT / MQPUT1
    @_locked
    def put(
        self,
        target: str | Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
    ) -> MQMD:
        self._check_open()
        if isinstance(target, Handle):
            self._state(target)
        name = check_put(target, data, context)
        data = bytes(data)
        named, base = self._resolve(name)
        check_md_for_put(md)
        for queue in (named, base):
            if queue.attrs.get("PUT", "ENABLED") != "ENABLED":
                raise failed(C.MQRC_PUT_INHIBITED, f"queue {queue.name!r} is PUT(DISABLED)")
        maxmsgl = int(base.attrs.get("MAXMSGL", 4_194_304))
        if len(data) > maxmsgl:
            raise failed(
                C.MQRC_MSG_TOO_BIG_FOR_Q,
                f"{len(data)} bytes is more than MAXMSGL({maxmsgl}) of {base.name!r}",
            )
        destination = self.destination(base.name)
        if "MAXDEPTH" in base.attrs:  # configured: enforced (a stats round trip per put)
            self._check_depth(base, destination)
        now = time.time()
        out = md.copy()
        self._set_context(out, context, now)
        if out.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
            out.Priority = int(named.attrs.get("DEFPRTY", 0))
        elif out.Priority > 9:
            out.Priority = 9
        if out.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
            out.Persistence = (
                C.MQPER_PERSISTENT
                if named.attrs.get("DEFPSIST") == "YES"
                else C.MQPER_NOT_PERSISTENT
            )
        if out.CodedCharSetId == C.MQCCSI_Q_MGR:
            out.CodedCharSetId = C.CCSID_UTF8
        out.BackoutCount = 0
        if new_msg_id or out.MsgId == C.MQMI_NONE:
            out.MsgId = self._new_msg_id()
        headers, body = mapping.to_frame(out, data, prefix=self.prefix, now=now)
        if self._client.lost:
            self._recover()
        if syncpoint and self._broken:
            raise failed(
                C.MQRC_BACKED_OUT,
                "the unit of work was backed out when the connection was lost: "
                "call backout() or commit() to end it",
            )
        try:
            if syncpoint:
                self._client.send(destination, headers, body, transaction=self._begin())
                self._puts += 1
                self._uow_puts[destination] = self._uow_puts.get(destination, 0) + 1
            else:
                self._client.send(destination, headers, body, receipt=True)
        except ConnectionLost:
            self._recover()
            raise failed(
                C.MQRC_BACKED_OUT if syncpoint else C.MQRC_CONNECTION_BROKEN,
                "the connection was lost during the put"
                + ("; the unit of work was backed out" if syncpoint else "; the put is in doubt"),
            ) from None
        except BrokerError as exc:
            raise failed(C.MQRC_UNEXPECTED_ERROR, f"the broker refused the put: {exc}") from None
        return out

    def _check_depth(self, base: QueueDefinition, destination: str) -> None:
        maxdepth = int(base.attrs["MAXDEPTH"])
        try:
            depth = int(self._statistics_once(base.name).get("size", 0))
        except ConnectionLost:
            return  # the put finds out
        if depth + self._uow_puts.get(destination, 0) >= maxdepth:
            raise failed(C.MQRC_Q_FULL, f"queue {base.name!r} is full: MAXDEPTH({maxdepth})")

    def _new_msg_id(self) -> bytes:
        with _counter_lock:
            seq = next(_msg_counter)
        head = b"AMQ " + self.qmgr_name.encode("latin-1", "replace")[:12].ljust(12, b" ")
        return head + _msg_prefix + (seq & 0xFFFFFFFF).to_bytes(4, "big")

    def _set_context(self, md: MQMD, context: Context, now: float) -> None:
        if context is Context.DEFAULT:
            md.PutApplType = C.MQAT_DEFAULT
            md.PutApplName = self.appl_name
            md.UserIdentifier = self.user
            md.ApplIdentityData = ""
            md.ApplOriginData = ""
            md.AccountingToken = C.MQACT_NONE
            md.PutDate, md.PutTime = put_date_time(now)
        elif context is Context.NONE:
            md.PutApplType = C.MQAT_NO_CONTEXT
            md.PutApplName = md.UserIdentifier = md.ApplIdentityData = md.ApplOriginData = ""
            md.AccountingToken = C.MQACT_NONE
            md.PutDate, md.PutTime = put_date_time(now)
        elif not md.PutDate.strip():
            md.PutDate, md.PutTime = put_date_time(now)

    # ------------------------------------------------------------------ MQINQ
    @_locked
    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        self._check_open()
        if isinstance(queue, Handle):
            self._state(queue)
            if not queue.options & C.MQOO_INQUIRE:
                raise failed(
                    C.MQRC_NOT_OPEN_FOR_INQUIRE, f"{queue.name!r} was not opened with MQOO_INQUIRE"
                )
            name = queue.name
        else:
            name = queue
        definition = self._lookup(name)
        stats: dict[str, int] | None = None
        out: dict[int, int | str] = {}
        for selector in selectors:
            if selector == C.MQIA_Q_TYPE:
                out[selector] = QTYPE_CODES[definition.qtype]
                continue
            if selector == C.MQCA_Q_NAME:
                out[selector] = definition.name
                continue
            if selector == C.MQIA_DEFINITION_TYPE and definition.qtype == LOCAL:
                out[selector] = C.MQQDT_PREDEFINED
                continue
            attr = QUEUE_ATTR_BY_SELECTOR.get(selector)
            if attr is None:
                raise failed(C.MQRC_SELECTOR_ERROR, f"selector {selector} is not known")
            if definition.qtype not in attr.types:
                raise failed(
                    C.MQRC_SELECTOR_NOT_FOR_TYPE,
                    f"{attr.name} (selector {selector}) does not apply to "
                    f"{definition.qtype} {definition.name!r}",
                )
            if attr.readonly:
                if stats is None:
                    stats = self._statistics(definition.name)
                key = {"CURDEPTH": "size", "IPPROCS": "consumerCount", "OPPROCS": "producerCount"}[
                    attr.name
                ]
                out[selector] = int(stats.get(key, 0))
                continue
            out[selector] = inquire_value(attr, definition.attrs.get(attr.name, attr.default))
        return out

    @_locked
    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        self._check_open()
        attrs = {
            **{a.name: a.default for a in QMGR_ATTR_BY_SELECTOR.values()},
            **self.config.qmgr_attrs(self.params.qmgr_overrides),
        }
        out: dict[int, int | str] = {}
        for selector in selectors:
            if selector == C.MQCA_Q_MGR_NAME:
                out[selector] = self.qmgr_name
                continue
            attr = QMGR_ATTR_BY_SELECTOR.get(selector)
            if attr is None:
                raise failed(
                    C.MQRC_SELECTOR_ERROR, f"selector {selector} is not a queue manager attribute"
                )
            out[selector] = inquire_value(attr, attrs[attr.name])
        return out

    def _statistics(self, queue: str) -> dict[str, int]:
        """The statistics plugin's figures for a queue (size = depth, in-flight included)."""
        for _ in range(2):
            try:
                return self._statistics_once(queue)
            except ConnectionLost:
                self._recover()
        raise failed(C.MQRC_CONNECTION_BROKEN, f"connection to {self.params.safe_url} lost")

    def _statistics_once(self, queue: str) -> dict[str, int]:
        client = self._live()
        destination = self.destination(queue)
        if destination not in self._known_destinations:
            # The plugin does not answer for a queue the broker has not created yet:
            # a consumer that matches nothing creates it (as an MQ queue exists when defined).
            sub = client.subscribe(destination, {"selector": "1 = 0"}, "auto")
            client.unsubscribe(sub)
            self._known_destinations.add(destination)
        if self._stats_sub is None:
            reply = f"/temp-queue/mqjms-stats-{client.new_id('q')}"
            self._stats_sub = client.subscribe(
                reply, {"transformation": "jms-map-json", "mqjms_reply": reply}, "auto"
            )
            self._stats_reply = reply
        client.send(
            _STATS_PREFIX + destination[len(mapping.QUEUE_PREFIX) :],
            {"reply-to": self._stats_reply},
            b"",
        )
        frame = client.take(self._stats_sub, _STATS_TIMEOUT)
        if frame is None:
            raise failed(
                C.MQRC_RESOURCE_PROBLEM,
                f"no statistics for {queue!r} from {self.params.safe_url} in "
                f"{_STATS_TIMEOUT:g} s: is <statisticsBrokerPlugin/> configured?",
            )
        return _parse_statistics(frame.body)

    # ------------------------------------------------------------------ units of work
    @_locked
    def commit(self) -> None:
        """MQCMIT: the transaction's ACKs and SENDs become permanent together."""
        self._check_open()
        if self._broken:
            self._broken = False
            self._end_uow()
            raise failed(
                C.MQRC_BACKED_OUT,
                "the unit of work was backed out when the connection was lost",
            )
        if not self.in_unit_of_work:
            return
        try:
            if self._client.lost:
                raise ConnectionLost("lost before commit")
            pending = [got for got in self._gets if not got.acked]
            begin = self._tx is None
            tx = self._tx or self._client.new_id("tx")
            self._tx = tx
            self._client.commit_acks(tx, [got.frame.ack_id for got in pending], begin=begin)
            for got in pending:
                got.acked = True
            self._tx = None
        except ConnectionLost:
            self._end_uow()
            self._recover()
            self._broken = False
            raise failed(
                C.MQRC_BACKED_OUT,
                "the connection was lost at commit: the unit of work was backed out "
                "(or, if the broker had committed it already, is complete)",
            ) from None
        except BrokerError as exc:
            pending_tx = self._tx
            self._end_uow()
            if pending_tx is not None:
                self._quietly_abort(pending_tx)
            raise failed(C.MQRC_BACKED_OUT, f"the broker refused the commit: {exc}") from None
        self._end_uow()

    @_locked
    def backout(self) -> None:
        """MQBACK: puts vanish; every message got comes back with BackoutCount + 1."""
        self._check_open()
        if self._broken:
            self._broken = False
            self._end_uow()
            return
        if not self.in_unit_of_work:
            return
        gets = list(self._gets)
        try:
            if self._client.lost:
                raise ConnectionLost("lost before backout")
            if self._tx is not None:
                self._client.abort(self._tx)
                self._tx = None
            if gets:
                self._requeue_copies([(g.frame, g.count + 1) for g in gets])
        except ConnectionLost:
            # The broker rolled everything back and redelivers the messages marked
            # redelivered: their count is raised when they are got again.
            self._end_uow()
            self._recover()
            self._broken = False
            return
        except BrokerError as exc:
            self._end_uow()
            raise failed(
                C.MQRC_UNEXPECTED_ERROR, f"the broker refused the backout: {exc}"
            ) from None
        self._end_uow()
        log.debug("uow.backed_out", messages=len(gets))

    def _end_uow(self) -> None:
        self._window_opened = time.monotonic()
        self._tx = None
        self._gets.clear()
        self._puts = 0
        self._uow_puts.clear()
        deferred, self._deferred_unsubscribe = self._deferred_unsubscribe, []
        for sub in deferred:
            with contextlib.suppress(ConnectionLost, BrokerError):
                self._unsubscribe(sub)
        for state in self._handles.values():
            extras, state.overflow = state.overflow, []
            state.overflow_selector.clear()
            for extra in extras:
                with contextlib.suppress(ConnectionLost, BrokerError):
                    self._unsubscribe(extra)
            for selector in list(state.match_subs):
                try:
                    self._close_match_sub(state, selector)
                except (ConnectionLost, BrokerError):
                    state.match_subs.pop(selector, None)

    def _quietly_abort(self, tx: str) -> None:
        with contextlib.suppress(ConnectionLost, BrokerError):
            self._client.abort(tx)

    # ------------------------------------------------------------------ requeue copies
    def _requeue_copy(self, frame: Frame, count: int, *, reason: str) -> None:
        self._requeue_copies([(frame, count)])
        log.info(
            "message.backout_count_raised",
            reason=reason,
            destination=frame.headers.get("destination"),
            backout_count=count,
        )

    def _requeue_copies(self, items: Sequence[tuple[Frame, int]]) -> None:
        """In one transaction of its own: ACK each message and SEND a copy of it to its
        queue carrying ``count`` as the BackoutCount."""
        client = self._client
        tx = client.new_id("tx")
        client.begin(tx)
        try:
            for frame, count in items:
                headers, body = release.copy_of(frame, count, self.prefix)
                client.ack(frame.ack_id, transaction=tx)
                client.send(frame.headers.get("destination", ""), headers, body, transaction=tx)
            client.commit(tx)
        except BrokerError:
            self._quietly_abort(tx)
            raise
        self._window_opened = time.monotonic()

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

    # ------------------------------------------------------------------ MQDISC
    @_locked
    def disconnect(self) -> None:
        """MQDISC. An uncommitted unit of work is backed out (BackoutCount + 1)."""
        if self._closed:
            return
        try:
            if self.in_unit_of_work and not self._client.lost:
                log.info("uow.backed_out", reason="disconnect without commit")
                try:
                    self.backout()
                except MQError as exc:
                    log.warning("stomp.disconnect_backout_failed", reason=exc.reason_name)
            for state in list(self._handles.values()):
                with contextlib.suppress(MQError, ConnectionLost, BrokerError):
                    self._close(state.handle)
            with contextlib.suppress(MQError, ConnectionLost, BrokerError):
                self._catch_back(None)  # left by units of work after their handle closed
        finally:
            self._closed = True
            self._handles.clear()
            self._client.disconnect()


_AGAIN = object()


_INPUT_HEADERS = {"activemq.prefetchSize": "1"}


def _selector(msg_id: bytes | None, correl_id: bytes | None) -> str | None:
    """A JMS selector matching MsgId and/or CorrelId (padded with NULs, as MQ matches)."""
    parts = []
    if msg_id is not None:
        wanted = msg_id.ljust(24, b"\x00")[:24].hex()
        parts.append(f"{mapping.H_MSG_ID} = '{wanted}'")
    if correl_id is not None:
        text = mapping.correl_text(correl_id.ljust(24, b"\x00")[:24]).replace("'", "''")
        parts.append(f"JMSCorrelationID = '{text}'")
    return " AND ".join(parts) or None


def _parse_statistics(body: bytes) -> dict[str, int]:
    """The numbers in a statistics-plugin reply (jms-map-json)."""
    try:
        entries = json.loads(body.decode("utf-8"))["map"]["entry"]
    except (ValueError, KeyError, TypeError) as exc:
        raise failed(C.MQRC_RESOURCE_PROBLEM, f"unreadable statistics reply: {exc}") from None
    out: dict[str, int] = {}
    for entry in entries:
        name = entry.get("string")
        if not isinstance(name, str):
            continue
        for kind in ("long", "int"):
            if kind in entry:
                out[name] = int(entry[kind])
    return out
