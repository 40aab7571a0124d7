"""Puts that are one trigger event (seed 003 note 2): the segments the queue manager makes
of one MQPUT. "A trigger event will not be processed until all the segments have been
successfully placed on the queue", and the logical message "causes only one trigger event
to be processed when it is first MQPUT and segmented".

Each segment's put decides its trigger messages as any put does (the counts as the
segment finds them: the first of a FIRST queue's segments finds it empty), but while the
event is under way they are only kept, the first decision per queue; the others write
none. Once every segment is placed they are decided again from the queue as it is then
(another connection's put may have triggered it meanwhile, an ALTER changed it) and
written, in the connection's unit of work like the segments, or, when the block
committed it (a segmented put outside syncpoint), outside it after the commit; a
segmented put that fails (its commit too) writes none.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from mqjms.logs import get_logger
from mqjms.mq.errors import MQError

from . import triggers
from .connection_state import ConnectionState
from .failures import database_file, translate
from .queues import write_trigger_messages

log = get_logger("mqjms.qmgr")


class TriggerEvents(ConnectionState):
    """:meth:`one_trigger_event` for the embedded queue manager's connections."""

    #: While :meth:`one_trigger_event` is under way: each queue's trigger messages, as
    #: decided by the first of its puts that caused any.
    _event_triggers: dict[str, triggers.HeldDecision] | None = None

    @contextmanager
    def one_trigger_event(self) -> Iterator[None]:
        """The puts made inside are one trigger event: at most one trigger message per
        queue, written when the block ends without an error."""
        pending: dict[str, triggers.HeldDecision] = {}
        self._event_triggers = pending
        try:
            yield
        finally:
            self._event_triggers = None
        if not pending:
            return
        if self._uow.active:  # written in the unit of work: a failure fails the put
            self._write_event_triggers(pending)
            return
        try:  # the put was committed inside the block: failing it now would lie
            self._write_event_triggers(pending)
        except MQError as exc:  # what the store raises: a defect still fails loudly
            log.error(
                "trigger.event_not_written",
                queues=sorted(pending),
                reason=getattr(exc, "reason_name", None),
                error=str(exc),
                then="its message is on the queue, with no trigger message for this put",
            )

    def _write_event_triggers(self, pending: dict[str, triggers.HeldDecision]) -> None:
        try:
            with self._session(), self._writing(durable=False, putting=True) as tx:
                for held in pending.values():
                    for decided in held.decided:
                        # the unit of work was committed inside the block (a segmented
                        # put outside syncpoint): its trigger message is put outside it,
                        # only once the commit succeeded
                        trigger = (
                            decided
                            if self._uow.active
                            else replace(decided, uow=None, release_on_backout=False)
                        )
                        # decided again now: another connection's put may have triggered
                        # the queue meanwhile, or an ALTER changed its conditions
                        write_trigger_messages(tx, triggers.redecide(tx, held, trigger))
        except sqlite3.Error as exc:
            raise translate(exc, database_file(self)) from exc
