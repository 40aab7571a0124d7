"""Poison isolation: a failed batch is re-planned until the message that fails is alone.

Spark has no per-record skip: a batch that fails is replayed with the same range, and
fails again. The source sees it because ``partitions(start, end)`` plans a range that was
planned before and never completed (the ledger counts plans, and forgets a range once
Spark asks for the batch after it). Then (spark.md 6.3b):

* The first failure of an ordinary range is *replayed*: the same messages in the same
  partitions, as Spark itself replays a batch. A crash (a kill -9 of the driver, a lost
  executor, a query stopped mid-batch) is not the data's fault, and a replay that repeats
  the batch exactly lets an idempotent sink skip the partitions it had committed.
* A range of several messages that failed again (or a suspect range that failed): its
  messages become *suspects*, renumbered at the tail in two halves, each half a tag of
  its own, and the range is emitted empty (the batch commits with nothing). A range that
  was not yet suspect raises each message's BackoutCount by one (its unit of work ended
  without a commit, as on MQ); a suspect half that fails again is split without raising
  it, so innocent neighbours are never pushed to BOTHRESH.
* A single message that failed: BackoutCount + 1, renumbered alone.
* Planning never puts a suspect beside other messages (:meth:`Staging.plan_end`), so
  good messages behind it keep flowing, and a suspect with BackoutCount >= BOTHRESH
  (BOTHRESH > 0) is moved to BOQNAME instead of being emitted.

Order is not kept for suspects (as on MQ, a requeued message goes where it goes).
"""

from __future__ import annotations

from mqjms.backout import PoisonEvent, PoisonHandler
from mqjms.logs import get_logger
from mqjms.transport import Connection, Handle

from . import poison
from .staging import Meta, Staging

log = get_logger("mqjms.spark")


def plan(
    staging: Staging,
    handler: PoisonHandler,
    conn: Connection,
    handle: Handle,
    lo: int,
    hi: int,
    planned: list[Meta] | None = None,
) -> tuple[list[Meta], list[PoisonEvent]]:
    """What ``(lo, hi]`` emits now (runner only), and the moves made meanwhile.
    ``planned``: the range's messages as planning the batch just read them (a batch
    that failed before is always read again)."""
    if hi <= lo:
        return [], []
    failed_before = staging.ledger.attempt(lo, hi)
    found = planned if planned is not None and not failed_before else staging.metas(lo, hi)
    moves: list[PoisonEvent] = []
    if failed_before and found:
        if failed_before == 1 and len(found) > 1 and all(m.tag == 0 for m in found):
            log.warning(
                "spark.batch_replayed",
                queue=staging.queue,
                range=f"({lo},{hi}]",
                messages=len(found),
            )
        else:
            _isolate(staging, lo, hi, found, failed_before)
            return [], moves
    if not any(m.backout > 0 for m in found):
        return found, moves  # seed 002: nothing is inquired before a BackoutCount > 0
    attrs = poison.thresholds(handler, conn, handle)
    if any(handler.threshold_reached(m.backout, attrs) for m in found):
        keep: list[Meta] = []
        for meta in found:
            if handler.threshold_reached(meta.backout, attrs):
                event = move_staged(staging, handler, conn, handle, meta.seq, failed_before)
                if event is not None:
                    moves.append(event)
            else:
                keep.append(meta)
        found = keep
    return found, moves


def move_staged(
    staging: Staging,
    handler: PoisonHandler,
    conn: Connection,
    handle: Handle,
    seq: int,
    attempts: int,
) -> PoisonEvent | None:
    """Move one staged message, carrying its last known failure."""
    staged = staging.read(seq - 1, seq)
    if not staged:
        return None
    failure = staging.ledger.failure(staged[0].md.MsgId) or poison.batch_failure(
        staging.owner, staging.queue, max(attempts, staged[0].md.BackoutCount)
    )
    return poison.move(handler, conn, handle, staging, seq, failure)


def _isolate(staging: Staging, lo: int, hi: int, found: list[Meta], attempts: int) -> None:
    tags = {m.tag for m in found}
    suspects_already = len(tags) == 1 and 0 not in tags
    seqs = [m.seq for m in found]
    if len(seqs) == 1:
        new = staging.renumber(seqs, staging.ledger.new_tag(), 1)
        staging.ledger.extend_target(new)
        log.warning(
            "spark.suspect_failed",
            queue=staging.queue,
            seq=seqs[0],
            renumbered=new,
            backout_count=found[0].backout + 1,
            range=f"({lo},{hi}]",
        )
        return
    half = (len(seqs) + 1) // 2
    bump = 0 if suspects_already else 1
    new = staging.renumber(seqs[:half], staging.ledger.new_tag(), bump)
    new += staging.renumber(seqs[half:], staging.ledger.new_tag(), bump)
    staging.ledger.extend_target(new)
    log.warning(
        "spark.batch_split",
        queue=staging.queue,
        range=f"({lo},{hi}]",
        messages=len(seqs),
        attempts=attempts + 1,
        backout_raised=bool(bump),
    )
