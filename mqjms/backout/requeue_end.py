"""How a requeue made in a unit of work of its own ends (seed 002, "Processing poison
messages for asynchronous applications"): committed, or, when no queue took the message,
backed out, because then "the IBM MQ classes for JMS returns the message to the input
queue". The event is reported only once its unit of work has ended, so that a hook never
sees a move that a failed commit would undo."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from mqjms.semantics import Connection

from .events import PoisonEvent, PoisonHook, PoisonOutcome
from .handler import PoisonHandler


class UnitOfWorkEnd(Protocol):
    """Ends the unit of work that holds the requeue: commits it or backs it out."""

    def __call__(self, *, commit: bool) -> None: ...


def ending(conn: Connection, then: Callable[[], object] | None = None) -> UnitOfWorkEnd:
    """``conn``'s unit of work as a :class:`UnitOfWorkEnd`; ``then()`` runs after a
    backout, for what the backout alone does not do (give a staged message back, remember
    the failure for the message's next delivery)."""

    def end(*, commit: bool) -> None:
        if commit:
            conn.commit()
            return
        conn.backout()
        if then is not None:
            then()

    return end


def end_requeue(
    handler: PoisonHandler,
    event: PoisonEvent,
    end: UnitOfWorkEnd,
    hooks: Iterable[PoisonHook | None] = (),
    **context: Any,
) -> PoisonEvent:
    """End the unit of work of ``event``'s requeue, then report it (log and hooks, see
    :meth:`PoisonHandler.completed`): the event the hooks saw, marked ``returned_to_queue``
    when it was backed out."""
    if event.outcome is PoisonOutcome.REQUEUE_FAILED:
        end(commit=False)
        event = handler.returned(event)
    else:
        end(commit=True)
    return handler.completed(event, hooks, **context)
