"""The queue statistics of RESET QSTATS (PCF Reset Queue Statistics), as IBM MQ keeps them.

Per local queue, since the statistics were last reset: the messages enqueued (every put,
committed or not; a backed-out put stays counted), dequeued (every non-browse get, committed
or not; a backed-out get stays counted) and the highest CURDEPTH. The depth triggers of
:mod:`.store` keep them in the queue's row, in the update they already make per message (no
statement of their own on the put/get path); this module takes back removals that are not
gets (expiry, CLEAR), resets them at queue manager start (as MQ's start does) and answers
RESET QSTATS. A database of schema 5 or older that could not be upgraded yet (another
process had it open) keeps no statistics: :func:`available` says so.
"""

from __future__ import annotations

import calendar
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass

# PCF carries the counts as MQLONGs: one past it would fail the response
_MAX_COUNT = 2**31 - 1


@dataclass(frozen=True)
class QueueStats:
    """One queue's statistics at the moment they were reset."""

    queue: str
    high_depth: int
    enqueued: int
    dequeued: int
    seconds_since_reset: int


def available(db: sqlite3.Connection) -> bool:
    """True when the database's triggers keep the statistics (schema 6, see store.prepare)."""
    return bool(getattr(db, "queue_stats", False))


def uncount(db: sqlite3.Connection, removed: Mapping[str, int]) -> None:
    """Messages removed from their queues other than by a get (expired, cleared): the
    depth trigger counted them as dequeued; MQ counts only gets. ``removed``: by queue."""
    if not available(db):
        return
    db.executemany(
        "UPDATE queues SET deq = MAX(deq - ?, 0) WHERE name = ?",
        [(count, queue) for queue, count in removed.items() if count],
    )


def reset_all(db: sqlite3.Connection) -> None:
    """Queue manager start: every queue's statistics begin again (the high depth at the
    depth the restart left)."""
    if available(db):
        db.execute(
            "UPDATE queues SET enq = 0, deq = 0, hidepth = depth, reset_at = ?", (time.time(),)
        )


def reset(db: sqlite3.Connection, queue: str) -> QueueStats | None:
    """RESET QSTATS of one local queue, in the caller's write transaction: its statistics
    since the last reset (or its creation, for a queue made since the queue manager started),
    then counted afresh, the high depth from the current depth. None: no such queue."""
    row = db.execute(
        "SELECT enq, deq, hidepth, reset_at, created FROM queues WHERE name = ?", (queue,)
    ).fetchone()
    if row is None:
        return None
    now = time.time()
    since = float(row[3]) or _created(str(row[4]), now)
    db.execute(
        "UPDATE queues SET enq = 0, deq = 0, hidepth = depth, reset_at = ? WHERE name = ?",
        (now, queue),
    )
    return QueueStats(
        queue,
        min(int(row[2]), _MAX_COUNT),
        min(int(row[0]), _MAX_COUNT),
        min(int(row[1]), _MAX_COUNT),
        min(max(0, int(now - since)), _MAX_COUNT),
    )


def _created(stamp: str, now: float) -> float:
    """A queue's CRDATE/CRTIME as stored (catalog.stamp, UTC) in epoch seconds."""
    try:
        return float(calendar.timegm(time.strptime(stamp, "%Y-%m-%d %H.%M.%S")))
    except ValueError:
        return now


__all__ = ["QueueStats", "available", "reset", "reset_all", "uncount"]
