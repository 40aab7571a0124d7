"""StompConnection: the transport contract (MQI semantics) over a STOMP 1.2 broker.

The MQ rules it shares with the embedded queue manager (open checks, put defaults and
context, alias resolution, MQINQ) come from :mod:`mqjms.semantics`; this module connects,
opens, gets and puts, and the other concepts of a connection have a module each:
:mod:`.subscriptions`, :mod:`.unit_of_work` (with backout counting), :mod:`.browse`,
:mod:`.statistics`, :mod:`.release`.

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
import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence

import tenacity

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.semantics import (
    Browse,
    Capability,
    Context,
    Handle,
    TruncatedMessage,
    definitions,
)
from mqjms.semantics.attributes import QMGR_ATTR_BY_NAME
from mqjms.semantics.checks import check_get_allowed, input_mode
from mqjms.semantics.definitions import AttrValue
from mqjms.semantics.definitions import QueueDefinition as Definition
from mqjms.semantics.emulated import GetRequest, PutRequest
from mqjms.semantics.inquire import inquire_queue
from mqjms.semantics.put import (
    MAX_PRIORITY,
    MsgIdGenerator,
    PutIdentity,
    check_md_for_put,
    check_put_allowed,
    random_node,
    resolve_defaults,
    set_context,
)

from . import bodies, broker_ids, mapping, release
from .browse import Browsing
from .client import (
    BrokerError,
    ConnectionLost,
    ConnectRefused,
    StompClient,
    TlsSetupError,
    WaitInterrupted,
)
from .config import QueueDefinition, StompParams
from .pubsub import PublishSubscribe
from .state import Got, OpenQueue, locked
from .statistics import QueueStatistics
from .subscriptions import DISPATCH_GRACE, Subscriptions
from .unit_of_work import UnitOfWork

log = get_logger("mqjms.transport.stomp")

#: MsgIds: processes on many machines put to one broker, so each numbers itself at random.
_msg_ids = MsgIdGenerator(random_node)
_AGAIN = object()
#: How long a get under the browse cursor waits for the broker to dispatch that message.
UNDER_CURSOR_WAIT = 2.0


class StompConnection(PublishSubscribe, UnitOfWork, Subscriptions, Browsing, QueueStatistics):
    """An MQI connection (hconn) on a STOMP broker. Not thread-safe: one per thread."""

    #: What a broker gives, emulated where it lacks it (BackoutCount, alias queues); no
    #: FIFO queues, expiration reports, exclusive input, model queues, backout in place,
    #: browse that skips locked messages (docs/stomp.md says why).
    capabilities: frozenset[Capability] = frozenset(
        {
            Capability.ALIAS_QUEUES,
            Capability.BACKOUT_COUNT,
            Capability.EXPIRY,
            Capability.PRIORITY,
            Capability.PERSISTENCE,
            Capability.PUBLISH_SUBSCRIBE,
            Capability.SHARED_SUBSCRIPTIONS,
            Capability.INTERRUPT_WAIT,
        }
    )

    def __init__(self, params: StompParams, appl_name: str | None = None) -> None:
        self.params = params
        config = params.config()
        self.prefix = params.prefix if params.prefix is not None else config.prefix
        # a broker has no put application: "mqjms" unless named (never the program name)
        self.identity = PutIdentity.of(appl_name or "mqjms")
        self._strict = params.strict if params.strict is not None else config.strict
        self._handles = {}
        self._hobjs = itertools.count(1)
        self._tx = None
        self._gets = []
        self._puts = 0
        self._uow_puts = {}
        self._broken = False
        self._closed = False
        self._deferred_unsubscribe = []
        self._returned = {}
        self._stats_sub = None
        self._known_destinations = set()
        self._window_opened = 0.0
        self._lock = threading.RLock()
        self._sub_used = {}
        self._reaper = None
        self._interrupted = False
        self._init_pubsub()
        self._client = self._new_client()
        log.debug("stomp.connected", url=params.safe_url, appl=self.identity.appl_name)

    # ------------------------------------------------------------------ basics
    @property
    def qmgr_name(self) -> str:
        return self.params.qmgr_name or self.config.qmgr_name

    def __repr__(self) -> str:
        return f"StompConnection({self.params.safe_url!r}, appl={self.identity.appl_name!r})"

    def _check_handle(self, handle: Handle) -> None:
        self._state(handle)

    def _state(self, handle: Handle) -> OpenQueue:
        self._check_open()
        found = self._handles.get(handle.hobj)
        if found is None or found.handle is not handle:
            raise failed(C.MQRC_HOBJ_ERROR, f"queue {handle.name!r} is not open on this connection")
        return found

    def _find(self, name: str) -> QueueDefinition | None:
        managed = self._managed_definition(name)  # a subscription's queue (pubsub.py)
        if managed is not None:
            return managed
        strict = self._strict
        if strict and name == self._dead_letter_queue():
            strict = False  # the queue manager's DEADQ always exists (ActiveMQ.DLQ)
        return self.config.find(name, self.params.queue_defaults, strict)

    def _dead_letter_queue(self) -> str:
        return str(self._qmgr_attr("DEADQ"))

    def _qmgr_attr(self, name: str) -> int | str | bool:
        return self._qmgr_attrs().get(name, QMGR_ATTR_BY_NAME[name].default)

    def _resolve(self, name: str) -> tuple[QueueDefinition, QueueDefinition]:
        return definitions.resolve(name, self._find)

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
        except TlsSetupError as exc:
            raise failed(
                C.MQRC_SSL_INITIALIZATION_ERROR, f"{self.params.safe_url}: TLS: {exc}"
            ) from None

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
    @locked
    def _open(self, queue: str, options: int, dynamic_name: str, qmgr: str) -> Handle:
        if qmgr:  # a broker has no channels to a queue manager
            raise failed(
                C.MQRC_UNKNOWN_REMOTE_Q_MGR,
                f"queue {queue!r} of queue manager {qmgr!r}: a STOMP broker reaches no other "
                "queue manager",
            )
        named, base = self._resolve(queue)
        effective = input_mode(options, base) if options & C.MQOO_INPUT_MASK else options
        handle = Handle(
            name=named.name, resolved_name=base.name, options=effective, hobj=next(self._hobjs)
        )
        self._handles[handle.hobj] = OpenQueue(handle, self.destination(base.name))
        return handle

    @locked
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
    @locked
    def _get(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        wait, syncpoint, browse = request.wait, request.syncpoint, request.browse
        state = self._state(handle)
        check_get_allowed(*self._resolve(handle.name))
        selector: str | None
        if request.under_cursor:
            selector = self._under_cursor_selector(state)
            wait = UNDER_CURSOR_WAIT
        else:
            selector = _selector(request.msg_id, request.correl_id, request.group_id)
        if browse is Browse.CURSOR:
            return self._browse_under_cursor(state, request.max_length)
        deadline = None if wait is None else time.monotonic() + wait
        if browse is not None:
            return self._browse_get(state, browse, selector, deadline, request.max_length)
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
                found = self._get_once(state, selector, syncpoint, deadline, request.max_length)
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
            except WaitInterrupted:
                self._interrupted = False
                return None
            if found is not _AGAIN:
                if found is not None and wait != 0:
                    self._interrupted = False  # the wait it was for has ended
                self._note_use(state)
                if found is None and request.under_cursor:
                    raise failed(
                        C.MQRC_NO_MSG_UNDER_CURSOR,
                        f"the message under the browse cursor of {handle.name!r} is gone",
                    )
                return found  # type: ignore[return-value]

    def _browse_under_cursor(
        self, state: OpenQueue, max_length: int | None
    ) -> tuple[MQMD, bytes] | None:
        """MQGMO_BROWSE_MSG_UNDER_CURSOR: the cursor's message read again, through a browser
        snapshot of it alone, so a message gone or expired is 2034; the cursor stays."""
        selector = self._under_cursor_selector(state)
        saved, state.browse = state.browse, None
        try:
            deadline = time.monotonic() + UNDER_CURSOR_WAIT
            found = self._browse_get(state, Browse.FIRST, selector, deadline, max_length)
        finally:
            self._end_browse(state)
            state.browse = saved
        if found is None:
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR,
                f"the message under the browse cursor of {state.handle.name!r} is gone",
            )
        return found

    def _under_cursor_selector(self, state: OpenQueue) -> str:
        """MQGMO_MSG_UNDER_CURSOR: a selector naming the broker message the handle's
        browse cursor is on (2034 when it is on none)."""
        current = state.browse.current if state.browse is not None else None
        if current is None:
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR,
                f"the browse cursor of {state.handle.name!r} is on no message",
            )
        return "JMSMessageID = '" + current.replace("'", "''") + "'"

    def _get_once(
        self,
        state: OpenQueue,
        selector: str | None,
        syncpoint: bool,
        deadline: float | None,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | object | None:
        client = self._client
        sub = self._input_sub(state, selector)
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        if remaining is None or remaining > DISPATCH_GRACE:
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
        converted = bodies.converted(self.params, frame)
        md, data = mapping.from_frame(
            frame.headers, frame.body, prefix=self.prefix, now=now, converted=converted
        )
        if release.was_redelivered(frame):
            md.BackoutCount += 1
            if syncpoint:
                # make the raised count durable before anyone processes it (crash loops)
                self._requeue_copy(frame, md.BackoutCount, reason="redelivered")
                return _AGAIN
        if max_length is not None and len(data) > max_length:
            # 2080: not got. The broker has no "leave it": a copy with the same count
            # replaces it, at the back of the queue (as a backout's copy goes)
            self._requeue_copies([(frame, md.BackoutCount)])
            if selector is not None:
                self._close_match_sub(state, selector)
            raise TruncatedMessage(md, data[:max_length], len(data), max_length)
        if syncpoint:
            self._gets.append(Got(sub, frame, md.BackoutCount))
        else:
            client.ack(frame.ack_id, receipt=True)
            self._window_opened = time.monotonic()
        if selector is not None and not syncpoint:
            self._close_match_sub(state, selector)
        return md, data

    # ------------------------------------------------------------------ MQPUT / MQPUT1
    @locked
    def _put(self, name: str, md: MQMD, data: bytes, request: PutRequest) -> MQMD:
        syncpoint, context, new_msg_id = request.syncpoint, request.context, request.new_msg_id
        named, base = self._resolve(name)
        check_md_for_put(md)
        check_put_allowed(named, base, len(data), int(self._qmgr_attr("MAXMSGL")))
        destination = self.destination(base.name)
        if "MAXDEPTH" in base.attrs:  # configured: enforced (a stats round trip per put)
            self._check_depth(base, destination)
        now = time.time()
        out = md.copy()
        set_context(out, context, self.identity, now)
        resolve_defaults(
            out,
            named,
            qmgr_name=self.qmgr_name,
            qmgr_ccsid=int(self._qmgr_attr("CCSID")),
            new_msg_id=new_msg_id,
            msg_ids=_msg_ids,
        )
        # a broker has priorities 0-9: the MQMD says the one the message was put at
        out.Priority = min(out.Priority, MAX_PRIORITY)
        headers, body = mapping.to_frame(
            out, data, prefix=self.prefix, now=now, context=context is not Context.DEFAULT
        )
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
                broker_id = self._client.send(destination, headers, body, transaction=self._begin())
                self._puts += 1
                self._uow_puts[destination] = self._uow_puts.get(destination, 0) + 1
            else:
                broker_id = self._client.send(destination, headers, body, receipt=True)
            if out.ReplyToQ and broker_id is not None:  # a request: a JMS reply names it so
                broker_ids.requests.remember(broker_id, out.MsgId)
        except ConnectionLost:
            self._recover()
            raise failed(
                C.MQRC_BACKED_OUT if syncpoint else C.MQRC_CONNECTION_BROKEN,
                "the connection was lost during the put"
                + ("; the unit of work was backed out" if syncpoint else "; the put is in doubt"),
            ) from None
        except BrokerError as exc:
            # ActiveMQ may answer ERROR after it stored the message (out of heap while
            # acknowledging a large one): a retry could duplicate it, so say so
            raise failed(
                C.MQRC_UNEXPECTED_ERROR,
                f"the broker answered the put with an error: {_first_line(exc)} (it may "
                "have stored the message all the same: look before putting it again)",
            ) from None
        return out

    # ------------------------------------------------------------------ MQINQ
    @locked
    def _inquire(self, queue: str, selectors: Sequence[int]) -> dict[int, int | str]:
        definition = definitions.require(queue, self._find)
        return inquire_queue(definition, selectors, lambda: self._queue_status(definition.name))

    def _qmgr_attrs(self) -> dict[str, int | str | bool]:
        return self.config.qmgr_attrs(self.params.qmgr_overrides)

    # ------------------------------------------------------------------ MQDISC
    def interrupt_wait(self) -> None:
        """End the get with wait this connection is in (another thread's call) without a
        message (unless it got one meanwhile), or the next one once it has looked: see
        :attr:`~mqjms.semantics.Capability.INTERRUPT_WAIT`. Takes no lock (the get holds
        the connection's); the flag is set before the client is read, so a get waiting
        on a client made since (a reconnection) reads it before it sleeps."""
        self._interrupted = True
        self._client.nudge()

    # ------------------------------------------------------------------ MQSET
    @locked
    def _set(self, queue: str, change: Callable[[Definition], Mapping[str, AttrValue]]) -> None:
        """MQSET changes the configuration this process's connections share (a broker
        keeps no queue attributes: see :mod:`.config`)."""
        definition = definitions.require(queue, self._find)
        self.config.alter_queue(definition.name, **change(definition))

    @locked
    def disconnect(self, *, commit: bool = False) -> None:
        """MQDISC. An uncommitted unit of work is backed out (BackoutCount + 1), or
        committed first with ``commit``."""
        if self._closed:
            return
        if commit and self.in_unit_of_work:
            try:
                self.commit()
            except MQError:
                self._disconnect()
                raise
        self._disconnect()

    def _disconnect(self) -> None:
        if self._closed:
            return
        try:
            self._end_subscriptions()
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


def _selector(
    msg_id: bytes | None, correl_id: bytes | None, group_id: bytes | None = None
) -> str | None:
    """A JMS selector matching MsgId, CorrelId and/or GroupId (padded with NULs, as MQ
    matches); GroupId travels as an MQMD header (:mod:`.mapping`), absent when none."""
    parts = []
    if msg_id is not None:
        wanted = msg_id.ljust(24, b"\x00")[:24].hex()
        parts.append(f"{mapping.H_MSG_ID} = '{wanted}'")
    if correl_id is not None:
        wanted_id = correl_id.ljust(24, b"\x00")[:24]
        texts = [mapping.correl_text(wanted_id)]
        broker_id = broker_ids.requests.broker_id(wanted_id)
        if broker_id is not None:  # a JMS reply to our request names its broker id
            texts.append(broker_id)
        quoted = ", ".join("'" + text.replace("'", "''") + "'" for text in texts)
        parts.append(f"JMSCorrelationID IN ({quoted})")
    if group_id is not None:
        group = group_id.ljust(24, b"\x00")[:24]
        header = mapping.H_MD + "GroupId"
        if group == C.MQGI_NONE:
            parts.append(f"{header} IS NULL")
        else:
            parts.append(f"{header} = '{group.hex()}'")
    return " AND ".join(parts) or None


def _first_line(error: BrokerError) -> str:
    """A broker's ERROR without the Java stack trace it may carry (its ``at ...`` lines)."""
    lines = [line.strip() for line in str(error).splitlines()]
    return "; ".join(line for line in lines if line and not line.startswith("at "))[:500]
