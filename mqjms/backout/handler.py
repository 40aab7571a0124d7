"""Seed 002 in one place: poison or not, where the message goes, what is logged and when
hooks run. Consumer loops only get messages and call the flow of their delivery style.

The decision: a message with BackoutCount > 0 is compared with its underlying queue's
BOTHRESH: below it the message is delivered; at or above it (BOTHRESH > 0) it is poison.
The route: to BOQNAME; when BOQNAME is blank, or the put to it fails, the message's report
options decide: MQRO_DISCARD_MSG discards it, otherwise it goes to the dead-letter queue
with an MQDLH; when that put fails too, no queue took it (REQUEUE_FAILED). A message not
requeued to BOQNAME also gets the exception report its Report options ask for
(:mod:`.exception_report`). Where BOTHRESH, BOQNAME and DEADQ come from: :mod:`.attributes`.

The unit of work the requeue is made in, and what ends it, is the delivery style's
(:class:`~.events.DeliveryStyle`); each style is one flow over this handler:

``SYNCHRONOUS`` (:class:`~.synchronous.SynchronousPoisonFlow`, JMS ``receive``)
    inside the unit of work active at the get; the session's mode ends it: transacted ->
    with the transaction; AUTO/DUPS_OK -> committed at once; CLIENT_ACKNOWLEDGE ->
    committed at once unless the session holds unacknowledged messages, else with them.
    No queue took it: a commit discards it, a rollback returns it.
``LISTENER`` (:class:`~.listener.ListenerPoisonFlow`, the Worker)
    outside any unit of work of delivery: committed at once; no queue took it: backed out,
    back on the input queue. Plus the listener's extras: ``retry_wait``, ``move_on``
    exceptions (requeued at once), ``on_poison`` hooks, and the failure memory whose
    ``mqjms_failure_*`` properties the move carries.
``MQI`` (:class:`~.mqi.MQIPoisonFlow`, the pymqi/ibmmq drop-in)
    the caller's MQI unit of work: a requeue joins it when it holds the program's work
    and is committed on its own at once otherwise (the CLIENT_ACKNOWLEDGE rule); a get
    the program made without syncpoint is made under the drop-in's own syncpoint when
    the unit of work is empty, and screened the same way. Committing on its own, a
    REQUEUE_FAILED is backed out (the message stays; as ``LISTENER``) rather than
    committed away; ``strict`` keeps every requeue in the program's unit of work.
``STAGED`` (:class:`~.staged.StagedPoisonFlow`, the Spark runner)
    no BackoutCount from the queue manager: the staging store counts each message's failed
    batches, and the flow compares that count with BOTHRESH. The message is taken off
    staging in a unit of work, requeued in it (the same rewrite and ``mqjms_failure_*``
    properties) and committed; no queue took it: backed out and given back to its queue.

Events and hooks: :meth:`requeue` only puts. A flow that commits the requeue at once logs
``poison.moved`` (``dead_lettered``, ``discarded``, ``requeue_failed``) after the commit;
one left in a unit of work the application may still roll back logs ``poison.move_pending``
(``dead_letter_pending``, ``discard_pending``, ``requeue_pending``) and, when that unit of
work ends, ``poison.moved`` etc. on commit or ``poison.requeue_backed_out`` on backout.
Hooks (the handler's, then the flow's) run once, with the outcome that happened, after the
unit of work was committed, or backed out for a listener's or a staged REQUEUE_FAILED; a
requeue rolled back by the application runs none (the message is back on its queue, to be
screened again).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Context, Handle, SyncpointPut

from . import rewrite
from .attributes import AttributeCache, BackoutAttributes, dead_letter_queue
from .events import (
    DeliveryStyle,
    PoisonEvent,
    PoisonHook,
    PoisonOutcome,
    completed_event_name,
    pending_event_name,
)
from .failure import Failure

log = get_logger("mqjms.backout")

# A put to the cached BOQNAME failing with these re-inquires BOQNAME once (the queue may
# have been deleted and BOQNAME altered since the attributes were cached).
STALE_BACKOUT_QUEUE = frozenset({C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_Q_DELETED})
APPL_NAME = "mqjms"  # PutApplName in the MQDLH of a dead-lettered poison message


class PoisonHandler:
    """Decides, routes and reports poison messages for every delivery style (see the
    module docstring). One per connection factory or worker: it owns the attribute cache
    and the hooks that run for every style."""

    def __init__(
        self,
        cache: AttributeCache | None = None,
        hooks: Sequence[PoisonHook] = (),
    ) -> None:
        self.cache = cache or AttributeCache()
        self.hooks = list(hooks)
        self._unguarded: set[str] = set()  # queues whose BOTHRESH 0 was warned about

    # ------------------------------------------------------------------ the decision
    @staticmethod
    def threshold_reached(backout_count: int, attrs: BackoutAttributes) -> bool:
        """seed 002: poison when BackoutCount >= BOTHRESH; BOTHRESH 0 disables handling."""
        return attrs.threshold > 0 and backout_count >= attrs.threshold

    def poison_attributes(
        self, conn: Connection, handle: Handle, md: MQMD, *, scope: object = None
    ) -> BackoutAttributes | None:
        """The queue's attributes when ``md`` is poison, else None (deliver it).

        Nothing is inquired while BackoutCount is 0 (seed 002: the attributes are queried
        the first time a message with BackoutCount > 0 is seen). ``scope`` is what the
        cached values belong to (default: ``conn``; see :class:`AttributeCache`).
        """
        if md.BackoutCount <= 0:
            return None
        attrs = self.cache.get(conn, handle.resolved_name, scope=scope)
        return attrs if self.threshold_reached(md.BackoutCount, attrs) else None

    def warn_unguarded(self, attrs: BackoutAttributes, **context: Any) -> None:
        """A listener's message failed on a queue with BOTHRESH 0: say once (per queue and
        handler) that such a message is redelivered for ever. An MQI program or a JMS
        receiver decides for itself what to do with a backed-out message: not said."""
        if attrs.threshold == 0 and attrs.queue not in self._unguarded:
            self._unguarded.add(attrs.queue)
            log.warning(
                "backout.threshold_zero",
                **context,
                queue=attrs.queue,
                detail="BOTHRESH is 0: poison handling is off for this queue (seed 002), so "
                "a message that always fails is redelivered for ever; set BOTHRESH and "
                "BOQNAME on it (or a retry_wait on its listener)",
            )

    # ------------------------------------------------------------------ the route
    def requeue(
        self,
        conn: Connection,
        queue: str,
        md: MQMD,
        data: bytes,
        attrs: BackoutAttributes,
        *,
        style: DeliveryStyle,
        failure: Failure | None = None,
        syncpoint: bool = True,
        scope: object = None,
    ) -> PoisonEvent:
        """Put a poison message got from ``queue`` (its underlying queue) to BOQNAME, else
        dead-letter or discard it by its report options, under ``syncpoint``. Only puts:
        the caller's flow ends the unit of work and reports (see the module docstring)."""
        moved_to, reason = self._move(conn, queue, md, data, attrs, failure, syncpoint, scope)

        if moved_to:
            return PoisonEvent(
                PoisonOutcome.MOVED, queue, moved_to, reason, md, data, failure, style
            )
        outcome, destination, reason = self._dispose(conn, queue, md, data, reason, syncpoint)
        report_queue = ""
        if outcome is not PoisonOutcome.REQUEUE_FAILED:
            from .exception_report import send_exception_report  # with the first one

            # removed by its disposition options: IBM's "Removing messages from the queue in
            # ASF" sends the exception report it asks for too (MQRO_DISCARD_MSG with
            # MQRO_EXCEPTION_WITH_FULL_DATA returns the message to its sender)
            report_queue = send_exception_report(
                conn, md, data, feedback=reason, queue=queue, syncpoint=syncpoint
            )
        return PoisonEvent(
            outcome,
            queue,
            destination,
            reason,
            md,
            data,
            failure,
            style,
            report_queue=report_queue,
        )

    def _dispose(
        self, conn: Connection, queue: str, md: MQMD, data: bytes, reason: int, syncpoint: bool
    ) -> tuple[PoisonOutcome, str, int]:
        """The report options' route for a message BOQNAME did not take (``reason``):
        discarded, or put to the dead-letter queue; REQUEUE_FAILED when that put fails too
        (with its reason). Returns the outcome, where the message went and the reason."""
        if md.Report & C.MQRO_DISCARD_MSG:
            return PoisonOutcome.DISCARDED, "", reason
        dlq = dead_letter_queue(conn)
        if not dlq:
            return PoisonOutcome.REQUEUE_FAILED, "", reason
        # a worker whose poison messages all go to BOQNAME never loads the MQDLH
        from mqjms.semantics.deadletter import put_dead_letter

        try:
            put_dead_letter(
                conn,
                dlq,
                md,
                data,
                reason=reason,
                dest_queue=queue,
                dest_qmgr=conn.qmgr_name,
                appl_name=APPL_NAME,
                syncpoint=syncpoint,
            )
        except MQError as exc:
            log.warning(
                "poison.dead_letter_queue_failed",
                queue=queue,
                msg_id=md.MsgId.hex(),
                backout_count=md.BackoutCount,
                dead_letter_queue=dlq,
                reason=exc.reason_name,
                detail=exc.detail,
            )
            return PoisonOutcome.REQUEUE_FAILED, "", exc.reason
        return PoisonOutcome.DEAD_LETTERED, dlq, reason

    def planned_move(
        self,
        queue: str,
        md: MQMD,
        data: bytes,
        attrs: BackoutAttributes,
        *,
        style: DeliveryStyle,
        failure: Failure | None = None,
    ) -> tuple[SyncpointPut, PoisonEvent] | None:
        """The put to BOQNAME that :meth:`requeue` makes first, and the event it reports
        when that put succeeds, for a flow that makes the put in a step of its own (one
        transaction with its commit and the next get); None when BOQNAME is blank. Should
        the put fail, nothing was committed: the flow calls :meth:`requeue`, which takes
        the whole route from the start."""
        if not attrs.backout_queue:
            return None
        moved_md, moved_data = _for_backout_queue(md, data, failure)
        put = SyncpointPut(
            attrs.backout_queue, moved_md, moved_data, Context.PASS_ALL, new_msg_id=False
        )
        event = PoisonEvent(
            PoisonOutcome.MOVED,
            queue,
            attrs.backout_queue,
            C.MQRC_BACKOUT_THRESHOLD_REACHED,
            md,
            data,
            failure,
            style,
        )
        return put, event

    def _move(
        self,
        conn: Connection,
        queue: str,
        md: MQMD,
        data: bytes,
        attrs: BackoutAttributes,
        failure: Failure | None,
        syncpoint: bool,
        scope: object,
    ) -> tuple[str, int]:
        """Put the message to BOQNAME: (the queue it went to, or "" when none took it;
        the reason for the DLH). A 2085/2052 from the cached BOQNAME re-inquires once."""
        reason = C.MQRC_BACKOUT_THRESHOLD_REACHED
        backout_queue = attrs.backout_queue
        if not backout_queue:
            return "", reason
        moved_md, moved_data = _for_backout_queue(md, data, failure)
        refreshed = False
        while backout_queue:
            try:
                conn.put(
                    backout_queue,
                    moved_md,
                    moved_data,
                    syncpoint=syncpoint,
                    context=Context.PASS_ALL,
                    new_msg_id=False,
                )
                return backout_queue, C.MQRC_BACKOUT_THRESHOLD_REACHED
            except MQError as exc:
                reason = exc.reason
                log.warning(
                    "poison.backout_queue_failed",
                    queue=queue,
                    msg_id=md.MsgId.hex(),
                    backout_count=md.BackoutCount,
                    backout_queue=backout_queue,
                    reason=exc.reason_name,
                    detail=exc.detail,
                )
                if refreshed or exc.reason not in STALE_BACKOUT_QUEUE:
                    return "", reason
            refreshed = True  # the queue may have been deleted since it was cached
            backout_queue = self._refreshed_backout_queue(conn, queue, scope)
        return "", reason

    def _refreshed_backout_queue(self, conn: Connection, queue: str, scope: object) -> str:
        try:
            return self.cache.refresh(conn, queue, scope=scope).backout_queue
        except MQError as exc:
            log.warning("poison.attributes_refresh_failed", queue=queue, reason=exc.reason_name)
            return ""

    # ------------------------------------------------------------------ the report
    def pending(self, event: PoisonEvent, **context: Any) -> None:
        """The requeue waits in a unit of work the application may still end either way."""
        warn = event.outcome is PoisonOutcome.REQUEUE_FAILED
        detail = (
            "committing discards the message; rolling back returns it to the queue"
            if warn
            else "completed when the unit of work is committed"
        )
        (log.warning if warn else log.info)(
            pending_event_name(event.outcome), **_fields(event, context), detail=detail
        )

    def completed(
        self,
        event: PoisonEvent,
        hooks: Iterable[PoisonHook | None] = (),
        **context: Any,
    ) -> PoisonEvent:
        """The requeue's unit of work has ended with ``event``'s outcome: log it, then run
        the handler's hooks and ``hooks``. Returns the event the hooks saw."""
        fields = _fields(event, context)
        failed = event.outcome is PoisonOutcome.REQUEUE_FAILED
        if failed:
            fields["returned_to_queue"] = event.returned_to_queue
        elif event.failure is not None and event.failure.traceback:
            # the listener's last traceback, once, here (each attempt logged one line)
            fields["exception"] = event.failure.traceback
        (log.error if failed else log.warning)(completed_event_name(event.outcome), **fields)
        for hook in (*self.hooks, *hooks):
            if hook is None:
                continue
            try:
                hook(event)
            except Exception as exc:  # a hook must not undo a finished unit of work
                log.error(
                    "poison.hook_failed",
                    **{**context, "queue": event.queue, "msg_id": event.md.MsgId.hex()},
                    hook=repr(hook),
                    error=repr(exc),
                    exc_info=exc,
                )
        return event

    def backed_out(self, event: PoisonEvent, **context: Any) -> None:
        """A pending requeue was rolled back: the message is on its input queue again."""
        log.info(
            "poison.requeue_backed_out", **_fields(event, context), outcome=event.outcome.value
        )

    @staticmethod
    def returned(event: PoisonEvent) -> PoisonEvent:
        """``event`` after a backout put its message back on the input queue."""
        return dataclasses.replace(event, returned_to_queue=True)


def _for_backout_queue(md: MQMD, data: bytes, failure: Failure | None) -> tuple[MQMD, bytes]:
    return rewrite.for_backout_queue(md, data, failure.properties() if failure else None)


def _fields(event: PoisonEvent, context: dict[str, Any]) -> dict[str, Any]:
    md, failure = event.md, event.failure
    return {
        **context,
        "queue": event.queue,
        "msg_id": md.MsgId.hex(),
        "backout_count": md.BackoutCount,
        "destination": event.destination or None,
        "reason": MQError(C.MQCC_FAILED, event.reason).reason_name,
        "exception_type": failure.exception_type if failure else None,
        "style": event.style.value,
        **({"report_queue": event.report_queue} if event.report_queue else {}),
    }
