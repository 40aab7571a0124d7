"""Session: one unit of work at a time, on an MQ connection of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms.backout import SynchronousPoisonFlow, UnitOfWorkMode

from .acknowledge import AUTO_ACKNOWLEDGE, CLIENT_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE
from .errors import IllegalStateException
from .message import Queue

if TYPE_CHECKING:
    from .consumer import MessageConsumer
    from .factory import Connection, ConnectionFactory
    from .producer import MessageProducer


class Session:
    """A JMS session. Not thread-safe, as in JMS: use one per thread.

    Every message is got under syncpoint. A transacted session ends its unit of work on
    :meth:`commit`/:meth:`rollback`; AUTO and DUPS_OK commit as :meth:`receive` returns;
    CLIENT_ACKNOWLEDGE commits on ``message.acknowledge()`` and backs out on
    :meth:`recover`. A rollback or recover raises BackoutCount of each message by one.

    Poison messages are screened by the session's :attr:`poison_flow` (seed 002 for
    synchronous receivers: :class:`~mqjms.backout.SynchronousPoisonFlow`), which every
    end of a unit of work is reported to.
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
        # Cached BOTHRESH/BOQNAME belong to the JMS connection (else this session's).
        self.poison_flow = SynchronousPoisonFlow(
            factory.poison,
            self.mq,
            mode=_unit_of_work_mode(transacted, ack_mode),
            scope=connection if connection is not None else self.mq,
        )
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
        self.end_unit_of_work(commit=True)

    def rollback(self) -> None:
        self._check()
        if not self.transacted:
            raise IllegalStateException("rollback() needs a transacted session")
        self.end_unit_of_work(commit=False)

    def recover(self) -> None:
        """Redeliver every unacknowledged message (BackoutCount + 1 each)."""
        self._check()
        if self.transacted:
            raise IllegalStateException("recover() is for non-transacted sessions; use rollback()")
        self.end_unit_of_work(commit=False)

    def acknowledge(self) -> None:
        """CLIENT_ACKNOWLEDGE: acknowledge every message received so far."""
        self._check()
        if self.ack_mode == CLIENT_ACKNOWLEDGE:
            self.end_unit_of_work(commit=True)

    def delivered(self) -> None:
        """A message was handed to the application (counted until it is acknowledged)."""
        self.poison_flow.delivered()

    def end_unit_of_work(self, *, commit: bool) -> None:
        """MQCMIT or MQBACK, reported to the poison flow (its pending requeues end too)."""
        if commit:
            self.mq.commit()
            self.poison_flow.committed()
        else:
            self.mq.backout()
            self.poison_flow.backed_out()

    # ------------------------------------------------------------------ lifecycle
    def _check(self) -> None:
        if self._closed:
            raise IllegalStateException("the session is closed")

    def close(self) -> None:
        """Close: uncommitted or unacknowledged work is rolled back, as in JMS."""
        if self._closed:
            return
        self._closed = True
        try:
            for child in self._children:
                child.close()
            self.mq.disconnect()  # backs out what was not committed or acknowledged
        finally:
            self.poison_flow.backed_out()

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unit_of_work_mode(transacted: bool, ack_mode: int) -> UnitOfWorkMode:
    if transacted:
        return UnitOfWorkMode.TRANSACTED
    if ack_mode == CLIENT_ACKNOWLEDGE:
        return UnitOfWorkMode.CLIENT_ACKNOWLEDGE
    return UnitOfWorkMode.AUTO_ACKNOWLEDGE  # AUTO_ACKNOWLEDGE and DUPS_OK_ACKNOWLEDGE
