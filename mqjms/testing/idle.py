"""Run a Worker's listeners until nothing is left for them to do, and say what they did.

Idle is told exactly, never by waiting a while. A consumer is *quiet* between messages:
it holds none and runs no listener, hook, commit or requeue (see
:mod:`mqjms.listeners.activity`). The worker is idle when every consumer is quiet,
none gets a message while the backlog of each listener's queue (its local queue, for an
alias: CURDEPTH and the messages got in units of work not yet ended) is read, and each is
0. A queue whose backlog is not 0 counts as idle only
when, meanwhile, one of its consumers made two whole gets that found nothing: what is
left there cannot be got (GET(DISABLED), held in another unit of work), and the summary
says so in ``left``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from mqjms.backout import PoisonEvent, PoisonOutcome
from mqjms.listeners import ConsumerActivity, Worker

#: The longest MQGET wait of a worker running until idle (seconds): a queue whose
#: messages cannot be got is recognised after two of them.
IDLE_GET_WAIT = 0.1
_POLL = 0.01  # seconds between two looks at the consumers


class QueueProbe(Protocol):
    """What the idle check asks of the queue manager."""

    @property
    def url(self) -> str: ...

    def backlog(self, queue: str) -> int: ...

    def base_queue(self, queue: str) -> str: ...


class NotIdle(TimeoutError):
    """The worker still had work when the timeout passed; the message says what."""


@dataclass(frozen=True, repr=False)
class RunSummary:
    """What one run until idle did (counts of this run only; WorkerStats's names)."""

    delivered: int  # handed to a listener (every attempt)
    committed: int  # processed: the listener returned and the unit of work committed
    backed_out: int  # failed: the listener raised and the message was rolled back
    moved: int  # poison: put to BOQNAME
    dead_lettered: int  # poison: put to the dead-letter queue
    discarded: int  # poison: MQRO_DISCARD_MSG
    requeue_failed: int  # poison that no queue took: returned to the input queue
    reconnects: int
    #: Every poison message's outcome, in order: ``event.destination`` is where it went.
    poison: tuple[PoisonEvent, ...] = ()
    #: Messages left on listeners' queues that no get could take, by queue.
    left: Mapping[str, int] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Short enough to read in a failed assertion: the counts that are not 0, where
        poison messages went, and what was left."""
        counts = ", ".join(
            f"{name}={getattr(self, name)}" for name in _COUNTS if getattr(self, name)
        )
        parts = [counts or "nothing done"]
        if self.poison:
            parts.append(f"poison to {self.destinations() or 'nowhere (discarded or returned)'}")
        if self.left:
            parts.append(f"left {dict(self.left)}")
        return f"RunSummary({'; '.join(parts)})"

    def destinations(self) -> dict[str, int]:
        """Poison messages by the queue they went to (discarded ones are not counted)."""
        out: dict[str, int] = {}
        for event in self.poison:
            if event.outcome in (PoisonOutcome.MOVED, PoisonOutcome.DEAD_LETTERED):
                out[event.destination] = out.get(event.destination, 0) + 1
        return out


_COUNTS = (
    "delivered",
    "committed",
    "backed_out",
    "moved",
    "dead_lettered",
    "discarded",
    "requeue_failed",
    "reconnects",
)


def run_until_idle(probe: QueueProbe, app: Worker, *, timeout: float) -> RunSummary:
    """Start ``app`` on ``probe``'s queue manager, wait until it is idle, stop it and
    return what it did. Raises :class:`NotIdle` after ``timeout`` seconds, and whatever
    stopped the worker if a listener could not run (an MQError with its reason)."""
    if timeout <= 0:
        raise ValueError(f"timeout must be > 0 seconds, not {timeout}")
    if app.running:
        raise RuntimeError(
            "run_until_idle starts and stops the worker itself: stop it first "
            "(put the messages, then run until idle)"
        )
    events: list[PoisonEvent] = []
    saved_wait, saved_long = app.get_wait, app.interruptible_wait
    app.url = probe.url  # as `mqjms run --url` does: never the service's own queue manager
    app.get_wait = min(saved_wait, IDLE_GET_WAIT)
    app.interruptible_wait = min(saved_long, IDLE_GET_WAIT)
    app.poison_hooks.append(events.append)
    before = app.stats.snapshot()
    try:
        app.start()
        try:
            left = _wait_until_idle(probe, app, timeout)
        finally:
            after = app.stats.snapshot()
            app.stop()
    finally:
        app.poison_hooks.remove(events.append)
        app.get_wait, app.interruptible_wait = saved_wait, saved_long
    done = {name: after[name] - before[name] for name in after}
    return RunSummary(
        delivered=done["delivered"],
        committed=done["committed"],
        backed_out=done["backed_out"],
        moved=done["moved"],
        dead_lettered=done["dead_lettered"],
        discarded=done["discarded"],
        requeue_failed=done["requeue_failed"],
        reconnects=done["reconnects"],
        poison=tuple(events),
        left=left,
    )


Snapshot = dict[str, ConsumerActivity]


def _wait_until_idle(probe: QueueProbe, app: Worker, timeout: float) -> dict[str, int]:
    deadline = time.monotonic() + timeout
    bases = {lst.queue: probe.base_queue(lst.queue) for lst in app.listeners if lst.topic is None}
    baseline: Snapshot | None = None  # all quiet here, and no message got since
    depths: dict[str, int] = {}
    while True:
        _check_running(app)
        now = _snapshot(app)
        if not _subscribed(app, now, bases) or not _all_quiet(now):
            baseline = None
        else:
            if baseline is None or _got_since(baseline, now):
                baseline = now
            depths = {queue: probe.backlog(queue) for queue in sorted(set(bases.values()))}
            after = _snapshot(app)
            if _all_quiet(after) and not _got_since(baseline, after):
                left = {queue: depth for queue, depth in depths.items() if depth}
                if all(_looked(queue, baseline, after, bases) for queue in left):
                    return left
            else:
                baseline = None
        if time.monotonic() >= deadline:
            raise NotIdle(_describe(probe, app, bases, timeout))
        time.sleep(_POLL)


def _subscribed(app: Worker, now: Snapshot, bases: dict[str, str]) -> bool:
    """A topic listener's queue is its subscription's managed queue, known once its
    consumers have subscribed: record it in ``bases``; False while one has not."""
    for lst in app.listeners:
        if lst.topic is None:
            continue
        sources = {a.source for a in now.values() if a.queue == lst.queue}
        if "" in sources or not sources:
            return False
        bases[lst.queue] = sorted(sources)[0]
    return True


def _snapshot(app: Worker) -> Snapshot:
    return {activity.consumer: activity for activity in app.activity()}


def _all_quiet(snapshot: Snapshot) -> bool:
    return all(activity.quiet for activity in snapshot.values())


def _got_since(baseline: Snapshot, now: Snapshot) -> bool:
    return baseline.keys() != now.keys() or any(
        now[name].messages != activity.messages for name, activity in baseline.items()
    )


def _looked(queue: str, baseline: Snapshot, now: Snapshot, bases: Mapping[str, str]) -> bool:
    """A consumer of ``queue`` made a whole get after ``baseline`` (its second empty
    one since: the first may have begun before) that found nothing."""
    return any(
        bases.get(activity.queue) == queue and now[name].empty_gets >= activity.empty_gets + 2
        for name, activity in baseline.items()
    )


def _check_running(app: Worker) -> None:
    if app.error is not None:
        raise app.error
    if app.stopping or not app.running:
        raise RuntimeError("the worker was stopped before its queues were idle")


def _describe(probe: QueueProbe, app: Worker, bases: Mapping[str, str], timeout: float) -> str:
    """One line: what is on the queues, what each busy consumer holds, what was done."""
    parts: list[str] = []
    busy: set[str] = set()  # queues with messages left (or whose depth is unknown)
    for queue in sorted(set(bases.values())):
        try:
            depth = probe.backlog(queue)
        except Exception as exc:  # the report must not hide the timeout
            parts.append(f"{queue}: depth unknown ({exc})")
            busy.add(queue)
            continue
        if depth:
            busy.add(queue)
        parts.append(f"{queue} holds {depth} message{'' if depth == 1 else 's'}")
    for activity in app.activity():
        seen = activity.held or activity.last
        base = bases.get(activity.queue, activity.source)
        if seen is not None and (activity.held is not None or base in busy):
            doing = "is processing" if activity.held is not None else "last got"
            parts.append(
                f"{activity.consumer} ({activity.listener}) {doing} message "
                f"{seen.msg_id.hex()} (BackoutCount {seen.backout_count})"
            )
    stats = ", ".join(f"{name} {value}" for name, value in app.stats.snapshot().items() if value)
    parts.append(f"worker totals: {stats or 'nothing done'}")
    return f"the worker was not idle after {timeout:g} s: " + "; ".join(parts)
