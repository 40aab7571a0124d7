"""Session: one unit of work at a time, on an MQ connection of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms.backout import Outcome, PoisonEvent
from mqjms.logs import get_logger

from .acknowledge import AUTO_ACKNOWLEDGE, CLIENT_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE
from .errors import IllegalStateException
from .message import Queue

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .factory import Connection, ConnectionFactory
    from .producer import MessageProducer

log = get_logger("mqjms.consumer")


class Session:
    """A JMS session. Not thread-safe, as in JMS: use one per thread.

    Every message is got under syncpoint. A transacted session ends its unit of work on
    :meth:`commit`/:meth:`rollback`; AUTO and DUPS_OK commit as :meth:`receive` returns;
    CLIENT_ACKNOWLEDGE commits on ``message.acknowledge()`` and backs out on
    :meth:`recover`. A rollback or recover raises BackoutCount of each message by one.
    """

    def __init__(
        self,
        factory: ConnectionFactory,
        *,
        transacted: bool,
        ack_mode: int,
        connection: Connection | None = None,
    ) -> None:
        self.factory = factory
        self.transacted = transacted
        self.ack_mode = 0 if transacted else ack_mode
        self.mq = factory.connect_transport()
        self.poison = factory.poison
        # What cached BOTHRESH/BOQNAME belong to: the JMS connection (else this session's).
        self.poison_scope: object = connection if connection is not None else self.mq
        # CLIENT_ACKNOWLEDGE: messages delivered since the last acknowledge or recover.
        self._unacknowledged = 0
        self._closed = False
        self._children: list[MessageConsumer | MessageProducer] = []

    # ------------------------------------------------------------------ factories
    def consumer(self, queue: str | Queue) -> MessageConsumer:
        from .consumer import MessageConsumer

        self._check()
        consumer = MessageConsumer(self, Queue.parse(queue))
        self._children.append(consumer)
        return consumer

    def producer(self, queue: str | Queue | None = None) -> MessageProducer:
        from .producer import MessageProducer

        self._check()
        producer = MessageProducer(self, Queue.parse(queue) if queue is not None else None)
        self._children.append(producer)
        return producer

    # ------------------------------------------------------------------ units of work
    @property
    def auto_acknowledges(self) -> bool:
        return not self.transacted and self.ack_mode in (AUTO_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE)

    def commit(self) -> None:
        self._check()
        if not self.transacted:
            raise IllegalStateException("commit() needs a transacted session")
        self.mq.commit()

    def rollback(self) -> None:
        self._check()
        if not self.transacted:
            raise IllegalStateException("rollback() needs a transacted session")
        self.mq.backout()

    def recover(self) -> None:
        """Redeliver every unacknowledged message (BackoutCount + 1 each)."""
        self._check()
        if self.transacted:
            raise IllegalStateException("recover() is for non-transacted sessions; use rollback()")
        self.mq.backout()
        self._unacknowledged = 0

    def acknowledge(self) -> None:
        """CLIENT_ACKNOWLEDGE: acknowledge every message received so far."""
        self._check()
        if self.ack_mode == CLIENT_ACKNOWLEDGE:
            self.mq.commit()
            self._unacknowledged = 0

    def delivered(self) -> None:
        """A message was handed to the application (counted until it is acknowledged)."""
        if self.ack_mode == CLIENT_ACKNOWLEDGE:
            self._unacknowledged += 1

    def after_poison(self, event: PoisonEvent) -> None:
        """Finish a poison requeue as seed 002 says for synchronous receivers.

        The requeue was made in the unit of work active at the get. A transacted session
        keeps it there: its commit completes the move, or discards the message when no
        queue took it; its rollback returns the message to the input queue.

        A non-transacted session completes it now (seed 002: "If the receiving
        application has created a non-transacted JMS context or session, the message is
        discarded"): AUTO and DUPS_OK always; CLIENT_ACKNOWLEDGE when the session holds no
        other unacknowledged message, since the application never received this one and
        could otherwise bring it back to the input queue by closing or recovering. With
        unacknowledged messages the requeue stays with them, in their unit of work: the
        next acknowledge completes it, a recover or close returns the message to the
        input queue (with BackoutCount + 1) to be requeued again.
        """
        if self.auto_acknowledges or (
            self.ack_mode == CLIENT_ACKNOWLEDGE and self._unacknowledged == 0
        ):
            self.mq.commit()
        elif event.outcome is Outcome.REQUEUE_FAILED:
            log.warning(
                "poison.requeue_pending",
                queue=event.queue,
                msg_id=event.md.MsgId.hex(),
                detail="committing discards the message; rolling back returns it to the queue",
            )

    # ------------------------------------------------------------------ lifecycle
    def _check(self) -> None:
        if self._closed:
            raise IllegalStateException("the session is closed")

    def close(self) -> None:
        """Close: uncommitted or unacknowledged work is rolled back, as in JMS."""
        if self._closed:
            return
        self._closed = True
        for child in self._children:
            child.close()
        self.mq.disconnect()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
