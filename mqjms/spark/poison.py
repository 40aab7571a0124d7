"""Moving a staged message that reached BOTHRESH: seed 002's move, from staging.

The one place the Spark integration moves messages. Seed 002 itself is the backout
component's ``STAGED`` delivery style (:class:`mqjms.backout.StagedPoisonFlow`): BOQNAME with
seed 002's rewrite (RFH2 added, MQMD reset, remaining expiry) and the ``mqjms_failure_*``
properties; else the dead-letter queue or a discard by the report options. When no queue
takes it, the message goes back to its input queue (seed 002 for listeners), never lost.
What is Spark's here: taking the message off staging, and a move a crash interrupted.
"""

from __future__ import annotations

from collections.abc import Sequence

from mqjms.backout import (
    BackoutAttributes,
    Failure,
    PoisonEvent,
    PoisonHandler,
    PoisonHook,
    PoisonOutcome,
    StagedPoisonFlow,
)
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.transport import Connection, Context, Handle

from .staging import LogStaging, Staging

log = get_logger("mqjms.spark")

BATCH_FAILED = "mqjms.spark.BatchFailed"


def batch_failure(owner: str, queue: str, attempts: int) -> Failure:
    """Why a message failed when the only thing known is that its micro-batch did."""
    return Failure(
        exception_type=BATCH_FAILED,
        message=f"the Spark micro-batch that held it did not complete ({attempts} attempts)",
        listener=owner,
        queue=queue,
    )


def thresholds(
    handler: PoisonHandler, conn: Connection, handle: Handle, scope: object = None
) -> BackoutAttributes:
    """BOTHRESH and BOQNAME of the underlying queue, inquired once and cached (seed 002)
    for ``scope``: by default ``conn``; a caller that connects afresh for each batch gives
    something that lives as long as its query, or it would inquire every time."""
    return handler.cache.get(conn, handle.resolved_name, scope=scope)


def move(
    handler: PoisonHandler,
    conn: Connection,
    handle: Handle,
    staging: Staging,
    seq: int,
    failure: Failure,
    hooks: Sequence[PoisonHook | None] = (),
    scope: object = None,
) -> PoisonEvent | None:
    """Move the staged message ``seq`` as seed 002 says, then run ``hooks``; None when it
    is not staged. ``scope``: as for :func:`thresholds`."""
    if (
        isinstance(staging, LogStaging)
        and staging.was_moving(seq)
        and _already_moved(conn, staging, seq, handler, handle, scope)
    ):
        staging.taken(seq)
        return None
    got = staging.take(conn, seq)
    if got is None:
        return None
    md, data = got

    def give_back() -> None:  # after the backout a reserved message is on its queue again
        if isinstance(staging, LogStaging):
            conn.put(handle.name, md, data, context=Context.PASS_ALL, new_msg_id=False)
            staging.taken(seq)

    flow = StagedPoisonFlow(handler, hooks, scope=scope)
    event = flow.requeue(conn, handle.resolved_name, md, data, failure, give_back=give_back)
    if event.outcome is PoisonOutcome.REQUEUE_FAILED:
        log.error("spark.poison_returned", queue=staging.queue, msg_id=md.MsgId.hex(), seq=seq)
        return event
    staging.taken(seq)
    return event


def _already_moved(
    conn: Connection,
    staging: Staging,
    seq: int,
    handler: PoisonHandler,
    handle: Handle,
    scope: object,
) -> bool:
    """After a crash mid-move: is the message on its backout queue already?"""
    found = staging.read(seq - 1, seq)
    if not found:
        return True
    boq = thresholds(handler, conn, handle, scope).backout_queue
    if not boq:
        return False
    try:
        browse = conn.open(boq, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
    except MQError:
        return False
    try:
        from mqjms.transport import Browse

        return conn.get(browse, browse=Browse.FIRST, msg_id=found[0].md.MsgId) is not None
    finally:
        conn.close(browse)
