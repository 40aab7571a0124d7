"""Poison-message handling exactly as IBM MQ classes for JMS do it (seed 002).

A message with BackoutCount > 0 is compared with its underlying queue's BOTHRESH: below
it the message is delivered; at or above it (BOTHRESH > 0) it is poison and is moved to
BOQNAME. When BOQNAME is blank, or the put to it fails, the message's report options
decide: MQRO_DISCARD_MSG discards it; otherwise it goes to the dead-letter queue with an
MQDLH. When that put fails too, the caller's delivery style decides (see
:class:`Outcome`). The handler only puts, always inside the caller's unit of work; the
caller commits or backs out, which is where synchronous and asynchronous delivery differ.

BOTHRESH and BOQNAME come from the cache (see :mod:`.attributes` for how long an entry
lives); a put to a cached BOQNAME that fails with 2085 or 2052 re-inquires once and puts to
the BOQNAME found, before falling back. DEADQ is inquired each time it is needed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Connection, Context, Handle
from mqjms.semantics.deadletter import dead_letter_message

from . import rewrite
from .attributes import AttributeCache, BackoutAttributes
from .failure import Failure

log = get_logger("mqjms.backout")

# A put to the cached BOQNAME failing with these re-inquires BOQNAME once (the queue may
# have been deleted and BOQNAME altered since the attributes were cached).
STALE_BACKOUT_QUEUE = frozenset({C.MQRC_UNKNOWN_OBJECT_NAME, C.MQRC_Q_DELETED})


class Outcome(Enum):
    """Where a poison message went. Every put was made in the caller's unit of work."""

    MOVED = "moved"  # put to BOQNAME
    DEAD_LETTERED = "dead_lettered"  # put to the queue manager's dead-letter queue
    DISCARDED = "discarded"  # MQRO_DISCARD_MSG: nothing put; committing removes it
    REQUEUE_FAILED = "requeue_failed"  # neither queue took it: the caller decides (seed 002)


@dataclass(frozen=True, slots=True)
class PoisonEvent:
    """What hooks receive: the outcome and the message as it was received."""

    outcome: Outcome
    queue: str
    destination: str  # the queue it went to, "" when discarded or not requeued
    reason: int  # MQRC: 2362 for the threshold, or the reason a put failed
    md: MQMD
    data: bytes
    failure: Failure | None


PoisonHook = Callable[[PoisonEvent], None]


class PoisonHandler:
    """Decides whether a message is poison and requeues it; shared by consumers and listeners."""

    def __init__(
        self,
        cache: AttributeCache | None = None,
        hooks: Sequence[PoisonHook] = (),
    ) -> None:
        self.cache = cache or AttributeCache()
        self.hooks = list(hooks)

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
        if attrs.threshold <= 0:  # seed 002: BOTHRESH 0 disables poison handling
            return None
        return attrs if md.BackoutCount >= attrs.threshold else None

    def requeue(
        self,
        conn: Connection,
        handle: Handle,
        md: MQMD,
        data: bytes,
        attrs: BackoutAttributes,
        *,
        failure: Failure | None = None,
        syncpoint: bool = True,
        scope: object = None,
    ) -> PoisonEvent:
        """Move a poison message to BOQNAME, else dead-letter or discard it by its report
        options. Puts are made under ``syncpoint`` (the caller's unit of work)."""
        queue = handle.resolved_name
        moved_to, reason = self._move(conn, queue, md, data, attrs, failure, syncpoint, scope)
        if moved_to:
            return self._done(Outcome.MOVED, queue, moved_to, reason, md, data, failure)
        if md.Report & C.MQRO_DISCARD_MSG:
            return self._done(Outcome.DISCARDED, queue, "", reason, md, data, failure)
        dlq = self._dead_letter_queue(conn)
        if dlq:
            dl_md, dl_data = dead_letter_message(
                md,
                data,
                reason=reason,
                dest_queue=queue,
                dest_qmgr=conn.qmgr_name,
                appl_name="mqjms",
                now=time.time(),
            )
            try:
                conn.put(
                    dlq,
                    dl_md,
                    dl_data,
                    syncpoint=syncpoint,
                    context=Context.PASS_ALL,
                    new_msg_id=False,
                )
                return self._done(Outcome.DEAD_LETTERED, queue, dlq, reason, md, data, failure)
            except MQError as exc:
                reason = exc.reason
                log.warning(
                    "poison.dead_letter_queue_failed",
                    queue=queue,
                    msg_id=md.MsgId.hex(),
                    backout_count=md.BackoutCount,
                    dead_letter_queue=dlq,
                    reason=exc.reason_name,
                    detail=exc.detail,
                )
        return self._done(Outcome.REQUEUE_FAILED, queue, "", reason, md, data, failure)

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
        moved_md, moved_data = rewrite.for_backout_queue(
            md, data, failure.properties() if failure else None
        )
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

    @staticmethod
    def _dead_letter_queue(conn: Connection) -> str:
        """The queue manager's DEADQ now ("" when none is set): never cached, so an
        ALTER QMGR DEADQ takes effect for the next poison message."""
        try:
            name = conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME])[C.MQCA_DEAD_LETTER_Q_NAME]
        except MQError as exc:
            log.warning("poison.dead_letter_queue_unknown", reason=exc.reason_name)
            return ""
        return str(name).strip()

    def _done(
        self,
        outcome: Outcome,
        queue: str,
        destination: str,
        reason: int,
        md: MQMD,
        data: bytes,
        failure: Failure | None,
    ) -> PoisonEvent:
        event = PoisonEvent(outcome, queue, destination, reason, md, data, failure)
        log_method = log.error if outcome is Outcome.REQUEUE_FAILED else log.warning
        log_method(
            f"poison.{outcome.value}",
            queue=queue,
            msg_id=md.MsgId.hex(),
            backout_count=md.BackoutCount,
            destination=destination or None,
            reason=MQError(C.MQCC_FAILED, reason).reason_name,
            exception_type=failure.exception_type if failure else None,
        )
        for hook in self.hooks:
            try:
                hook(event)
            except Exception as exc:  # a hook must not turn a handled message into a lost one
                log.error("poison.hook_failed", hook=repr(hook), error=repr(exc))
        return event
