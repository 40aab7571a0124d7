"""Seed 002 for listeners: "Processing poison messages for asynchronous applications".
A Worker's consumer thread has one flow; its loop calls :meth:`~ListenerPoisonFlow.screen`
after each get, asks :meth:`~ListenerPoisonFlow.retry_delay` and
:meth:`~ListenerPoisonFlow.failed` when the listener raised, and reports commits.

A poison message is never delivered. It is requeued in a unit of work of its own (the get
under syncpoint, before any delivery), committed at once: "the requeue process takes place
outside of any unit of work associated with actual message delivery". When no queue takes
it, that unit of work is backed out: "the IBM MQ classes for JMS returns the message to the
input queue".

The listener's extras, kept here rather than in the loop:

* ``retry_wait``: how long the loop waits before backing out a failed delivery;
* ``move_on`` exceptions: the message is requeued at once, as a poison one, with the
  failure recorded (the listener holds nothing of the unit of work, so the requeue is made
  in it and committed);
* the failure memory: a delivery that failed is backed out and its :class:`~.Failure`
  remembered, so that the move at BOTHRESH carries ``mqjms_failure_*`` properties;
* ``on_poison`` and the worker's hooks, run once the requeue's unit of work has ended.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple, Protocol

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Handle, SyncpointPut

from .attributes import BackoutAttributes
from .events import DeliveryStyle, PoisonEvent, PoisonHook
from .failure import Failure, FailureMemory
from .handler import PoisonHandler
from .requeue_end import end_requeue, ending

log = get_logger("mqjms.backout")


class ListenerOptions(Protocol):
    """What the flow needs of a registered listener (:class:`mqjms.Listener` has it)."""

    @property
    def name(self) -> str: ...
    @property
    def queue(self) -> str: ...
    @property
    def on_poison(self) -> PoisonHook | None: ...
    def moves_on(self, exc: BaseException) -> bool: ...
    def retry_delay(self, md: MQMD, exc: BaseException) -> float: ...


class PendingMove(NamedTuple):  # not a dataclass: a NamedTuple class costs a tenth to create
    """A poison message's move to BOQNAME made with the consumer's next step: the put, its
    MQCMIT and the next MQGET in one transaction where three took one each. The
    message stays in the consumer's unit of work until then (a stop commits it alone; a
    lost connection backs it out, to be screened again)."""

    put: SyncpointPut
    event: PoisonEvent  # what is reported once the put is committed
    handle: Handle
    attrs: BackoutAttributes


class ListenerPoisonFlow:
    """One listener consumer's poison handling (``DeliveryStyle.LISTENER``)."""

    style = DeliveryStyle.LISTENER

    def __init__(
        self,
        handler: PoisonHandler,
        listener: ListenerOptions,
        failures: FailureMemory,
        hooks: Sequence[PoisonHook] = (),
    ) -> None:
        self.handler = handler
        self.listener = listener
        self.failures = failures
        # The handler's hooks run first, then these, then the listener's on_poison.
        self.hooks = (*hooks, listener.on_poison)
        self._context: dict[str, Any] = {"listener": listener.name}

    def screen(self, conn: Connection, handle: Handle, md: MQMD, data: bytes) -> PoisonEvent | None:
        """Before delivery: None when ``md`` is to be delivered; else the message was
        requeued and its unit of work ended (committed, or backed out when no queue took it)."""
        attrs = self.handler.poison_attributes(conn, handle, md)
        if attrs is None:
            return None
        return self._requeue(conn, handle, md, data, attrs, self.failures.pop(md.MsgId))

    def plan(
        self, conn: Connection, handle: Handle, md: MQMD, data: bytes
    ) -> PendingMove | PoisonEvent | None:
        """As :meth:`screen`, but a move to BOQNAME is left pending: the caller puts it
        and commits with its next get, in one step (then calls :meth:`moved`), or calls
        :meth:`move_now` should that put fail. Any other route is taken now."""
        attrs = self.handler.poison_attributes(conn, handle, md)
        if attrs is None:
            return None
        failure = self.failures.pop(md.MsgId)
        planned = self.handler.planned_move(
            handle.resolved_name, md, data, attrs, style=self.style, failure=failure
        )
        if planned is None:
            return self._requeue(conn, handle, md, data, attrs, failure)
        put, event = planned
        return PendingMove(put, event, handle, attrs)

    def moved(self, pending: PendingMove) -> PoisonEvent:
        """The pending move's put was committed: log it and run the hooks."""
        self.failures.forget(pending.event.md.MsgId)
        return self.handler.completed(pending.event, self.hooks, **self._context)

    def move_failed(self, pending: PendingMove, error: MQError, *, backed_out: bool) -> None:
        """Note that the step's put of ``pending`` failed (nothing was committed). The
        route that follows puts to BOQNAME again and warns if that fails too, so this is
        information: it tells a failure that passed from none. ``backed_out``: the
        message is backed out and screened again, else it takes the route now
        (:meth:`move_now`)."""
        md = pending.event.md
        log.info(
            "poison.step_put_failed",
            queue=pending.handle.resolved_name,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            backout_queue=pending.put.queue,
            reason=error.reason_name,
            detail=error.detail,
            then="backout" if backed_out else "requeue",
            **self._context,
        )

    def move_now(self, conn: Connection, pending: PendingMove) -> PoisonEvent:
        """The pending move's put failed and nothing was committed (the message is still
        in the unit of work): take the whole route now, as :meth:`screen` does (BOQNAME
        again, re-inquired after a 2085/2052, then the dead-letter queue...)."""
        event = pending.event
        return self._requeue(
            conn, pending.handle, event.md, event.data, pending.attrs, event.failure
        )

    def retry_delay(self, md: MQMD, error: BaseException) -> float:
        """Seconds to wait before the failed delivery of ``md`` is backed out (0: none;
        a ``move_on`` exception is requeued at once instead)."""
        if self.listener.moves_on(error):
            return 0.0
        try:
            return self.listener.retry_delay(md, error)
        except Exception as exc:  # a broken wait strategy must not lose the rollback
            log.error(
                "listener.retry_wait_failed",
                queue=self.listener.queue,
                **self._context,
                error=repr(exc),
            )
            return 0.0

    def failed(
        self, conn: Connection, handle: Handle, md: MQMD, data: bytes, error: BaseException
    ) -> tuple[Failure, PoisonEvent | PendingMove | None]:
        """The listener raised ``error`` for ``md``. A ``move_on`` exception is requeued
        now (the event is returned). Otherwise the failure is remembered and the caller
        backs the message out (None), unless that backout brings it to BOTHRESH by the
        cached attributes: then it would come straight back only to be moved, so the move
        is returned pending (its MQMD with the BackoutCount the backout would give it),
        made with the caller's next step instead of the backout, the get and the move's
        own step; should its put fail, the caller backs the message out after all.

        Only for a message that does not expire: one that expires meanwhile is discarded
        by the get after a backout, and its remaining expiry is the get's."""
        if not self.listener.moves_on(error):
            attrs = self._cached_attributes(conn, handle)
            if attrs is not None:
                self.handler.warn_unguarded(attrs, **self._context)
            last = attrs is None or self.handler.threshold_reached(md.BackoutCount + 1, attrs)
            failure = Failure.from_exception(
                error, self.listener.name, self.listener.queue, traceback=last
            )
            self.failures.remember(md.MsgId, failure, md.BackoutCount, md.PutDate + md.PutTime)
            if attrs is None or not last or md.Expiry != C.MQEI_UNLIMITED:
                return failure, None
            planned = self.handler.planned_move(
                handle.resolved_name,
                md.copy(BackoutCount=md.BackoutCount + 1),
                data,
                attrs,
                style=self.style,
                failure=failure,
            )
            return failure, None if planned is None else PendingMove(*planned, handle, attrs)
        failure = Failure.from_exception(error, self.listener.name, self.listener.queue)
        # move_on: skip the remaining attempts; the listener holds no resources of this
        # unit of work, so the requeue is made in it, exactly as a poison one.
        log.warning(
            "message.moving_on",
            queue=self.listener.queue,
            **self._context,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            exception_type=failure.exception_type,
            reason=failure.message,
        )
        attrs = self.handler.cache.get(conn, handle.resolved_name)
        return failure, self._requeue(conn, handle, md, data, attrs, failure)

    def _cached_attributes(self, conn: Connection, handle: Handle) -> BackoutAttributes | None:
        """BOTHRESH and BOQNAME as cached, or None when they were not inquired yet: whether
        a backout brings a message to BOTHRESH, so that the move that follows logs the
        failure's traceback (only then is it formatted; None keeps it). A threshold lowered
        since the cache was filled moves the message with the failure but without its
        traceback. Never inquires: seed 002 inquires the first time a message with
        BackoutCount > 0 is seen, and a failure of one with BackoutCount 0 is not that (its
        redelivery is, when the get screens it)."""
        return self.handler.cache.peek(conn, handle.resolved_name)

    def committed(self, md: MQMD) -> None:
        """``md``'s delivery succeeded and was committed: its failures are history."""
        self.failures.forget(md.MsgId)

    def _requeue(
        self,
        conn: Connection,
        handle: Handle,
        md: MQMD,
        data: bytes,
        attrs: BackoutAttributes,
        failure: Failure | None,
    ) -> PoisonEvent:
        event = self.handler.requeue(
            conn, handle.resolved_name, md, data, attrs, style=self.style, failure=failure
        )
        remember = None  # a returned message keeps its failure for its next delivery
        if failure is not None:
            remember = partial(
                self.failures.remember, md.MsgId, failure, md.BackoutCount, md.PutDate + md.PutTime
            )
        return end_requeue(self.handler, event, ending(conn, remember), self.hooks, **self._context)
