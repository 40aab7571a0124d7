"""Seed 002 for messages that wait in a staging store (the Spark runner): the
``STAGED`` delivery style.

The queue manager counts no backouts here: a message leaves its queue for staging, and a
failed batch is counted against each message in staging (its BackoutCount there). The
decision is seed 002's all the same (:meth:`PoisonHandler.threshold_reached`: that count
against the underlying queue's BOTHRESH, inquired once and cached), and so is the move
(:meth:`StagedPoisonFlow.requeue`: BOQNAME with the RFH2 and MQMD rewrite and the
``mqjms_failure_*`` properties, else the dead-letter queue or a discard by the report
options). As for listeners, the requeue is outside any delivery: the caller takes the
message off staging in a unit of work, the flow puts it and commits; when no queue takes
it, the flow backs out and the message is made available on its queue again, never lost.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from mqjms.mq.md import MQMD
from mqjms.semantics import Connection

from .attributes import BackoutAttributes
from .events import DeliveryStyle, PoisonEvent, PoisonHook
from .failure import Failure
from .handler import PoisonHandler
from .requeue_end import end_requeue, ending


class StagedPoisonFlow:
    """Poison handling for staged messages (``DeliveryStyle.STAGED``)."""

    style = DeliveryStyle.STAGED

    def __init__(
        self,
        handler: PoisonHandler,
        hooks: Sequence[PoisonHook | None] = (),
        *,
        scope: object = None,
        **context: Any,
    ) -> None:
        self.handler = handler
        self.hooks = tuple(hooks)  # run after the handler's, once the requeue has ended
        self.scope = scope  # what the cached BOTHRESH/BOQNAME belong to (default: conn)
        self._context = context  # logged with each poison event (e.g. the listener)

    def attributes(self, conn: Connection, queue: str) -> BackoutAttributes:
        """BOTHRESH and BOQNAME of the underlying ``queue`` (cached, seed 002)."""
        return self.handler.cache.get(conn, queue, scope=self.scope)

    def requeue(
        self,
        conn: Connection,
        queue: str,
        md: MQMD,
        data: bytes,
        failure: Failure | None,
        *,
        give_back: Callable[[], None] | None = None,
    ) -> PoisonEvent:
        """Requeue the staged message ``md``/``data`` of the underlying ``queue`` in the
        unit of work that took it off staging, and end that unit of work: committed, or
        backed out when no queue took it, then ``give_back()`` when a backout alone does
        not make the message available on its queue again."""
        event = self.handler.requeue(
            conn,
            queue,
            md,
            data,
            self.attributes(conn, queue),
            style=self.style,
            failure=failure,
            scope=self.scope,
        )
        return end_requeue(
            self.handler, event, ending(conn, give_back), self.hooks, **self._context
        )
