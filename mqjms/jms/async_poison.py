"""Seed 002 for JMS message listeners: "Processing poison messages for asynchronous
applications". A poison message is never delivered; it is requeued "outside of any unit
of work associated with actual message delivery", committed at once, and "if the attempt
to put the message to the dead letter queue fails ... returns the message to the input
queue" (backed out).

When the session's unit of work holds nothing else (always so for AUTO/DUPS_OK, and for a
transacted or CLIENT_ACKNOWLEDGE listener that ended its last delivery), the message is
got in it and the requeue committed or backed out there. When a transacted or
CLIENT_ACKNOWLEDGE listener left messages unended, committing or backing out would end
those too: then the delivery looks before it gets (a browse), and a poison message is
got and requeued by a connection of its own. Where a browse may not show what a get
would take (a STOMP broker), or for a topic subscriber's managed queue, the requeue is
made in the session's unit of work instead and completed by its commit or acknowledge
(seed 002's synchronous rule), as docs/listeners.md says.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from mqjms.backout import DeliveryStyle, PoisonEvent
from mqjms.backout.requeue_end import end_requeue, ending
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Capability, Connection, Handle

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .session import Session


class AsyncPoison:
    """One listening session's poison screening (used by its delivery thread only)."""

    def __init__(self, session: Session) -> None:
        self._session = session
        self._aside: Connection | None = None  # requeues beside an open unit of work
        self._aside_handles: dict[str, Handle] = {}

    def looks_first(self, consumer: MessageConsumer) -> bool:
        """Whether the next get must look before it takes (see the module docstring)."""
        session = self._session
        return (
            session.work_pending
            and Capability.BROWSE_AT_ONCE in session.mq.capabilities
            and getattr(consumer, "subscription", None) is None
        )

    def get(
        self, consumer: MessageConsumer, wait: float
    ) -> tuple[MQMD, bytes] | PoisonEvent | None:
        """Look at the next message, then get it in the session's unit of work, or (when
        it is poison) requeue it aside: the got message, the requeue's event, or None."""
        session = self._session
        peeked = session.mq.get(consumer.browse_handle(), wait=wait, browse=Browse.FIRST)
        if peeked is None:
            return None
        md = peeked[0]
        flow = session.poison_flow
        if session.factory.poison.poison_attributes(
            session.mq, consumer.handle, md, scope=flow.scope
        ):
            return self._requeue_aside(consumer, md.MsgId)
        return session.mq.get(consumer.handle, wait=0.0, syncpoint=True, msg_id=md.MsgId)

    def screen(self, consumer: MessageConsumer, md: MQMD, data: bytes) -> PoisonEvent | None:
        """A message got in the session's unit of work: None to deliver it; else it was
        requeued (and its unit of work ended, when it held nothing else)."""
        session = self._session
        flow = session.poison_flow
        if session.work_pending:  # no look first was possible: seed 002's synchronous rule
            return flow.screen(consumer.handle, md, data)
        handler = session.factory.poison
        attrs = handler.poison_attributes(session.mq, consumer.handle, md, scope=flow.scope)
        if attrs is None:
            return None
        event = handler.requeue(
            session.mq,
            consumer.handle.resolved_name,
            md,
            data,
            attrs,
            style=DeliveryStyle.LISTENER,
            scope=flow.scope,
        )
        return end_requeue(handler, event, session.end_unit_of_work)

    def _requeue_aside(self, consumer: MessageConsumer, msg_id: bytes) -> PoisonEvent | None:
        conn = self._connection()
        handle = self._aside_handles.get(consumer.queue.name)
        if handle is None:
            handle = conn.open(
                consumer.queue.name, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING
            )
            self._aside_handles[consumer.queue.name] = handle
        got = conn.get(handle, wait=0.0, syncpoint=True, msg_id=msg_id)
        if got is None:
            return None  # another consumer took it meanwhile
        try:
            return self._requeue_got(conn, handle, *got)
        except BaseException:  # whatever failed, the message goes back to its queue
            try:
                conn.backout()
            except Exception:  # the aside connection is gone: the next requeue makes another
                self.close()
            raise

    def _requeue_got(
        self, conn: Connection, handle: Handle, md: MQMD, data: bytes
    ) -> PoisonEvent | None:
        handler, scope = self._session.factory.poison, self._session.poison_flow.scope
        attrs = handler.poison_attributes(conn, handle, md, scope=scope)
        if attrs is None:  # BOTHRESH raised since the look (or another message, same id)
            conn.backout()
            return None
        event = handler.requeue(
            conn, handle.resolved_name, md, data, attrs, style=DeliveryStyle.LISTENER, scope=scope
        )
        return end_requeue(handler, event, ending(conn))

    def _connection(self) -> Connection:
        if self._aside is None:
            self._aside = self._session.factory.connect_transport()
        return self._aside

    def close(self) -> None:
        """End the aside connection (the delivery stopped)."""
        aside, self._aside = self._aside, None
        self._aside_handles.clear()
        if aside is not None:
            with contextlib.suppress(MQError):
                aside.disconnect()
