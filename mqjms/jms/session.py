"""Session: one unit of work at a time, on an MQ connection of its own."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from mqjms.backout import SynchronousPoisonFlow, UnitOfWorkMode
from mqjms.semantics import Capability

from .acknowledge import AUTO_ACKNOWLEDGE, CLIENT_ACKNOWLEDGE, DUPS_OK_ACKNOWLEDGE
from .errors import IllegalStateException, JMSException
from .message import Queue
from .topic import Topic, unsubscribe

if TYPE_CHECKING:
    from mqjms.semantics.pubsub import KnowsOwnPublications

    from .consumer import MessageConsumer
    from .delivery import SessionDelivery
    from .factory import Connection, ConnectionFactory
    from .message import Message
    from .producer import MessageProducer
    from .subscriber import TopicSubscriber


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
        self.connection = connection
        self.transacted = transacted
        self.ack_mode = 0 if transacted else ack_mode
        self.mq = factory.connect_transport()
        if connection is not None and Capability.OWN_PUBLICATIONS in self.mq.capabilities:
            # noLocal means the JMS connection: its sessions' publications are all its own
            cast("KnowsOwnPublications", self.mq).share_origin(connection.origin)
        # Cached BOTHRESH/BOQNAME belong to the JMS connection (else this session's).
        self.poison_flow = SynchronousPoisonFlow(
            factory.poison,
            self.mq,
            mode=_unit_of_work_mode(transacted, ack_mode),
            scope=connection if connection is not None else self.mq,
        )
        self._closed = False
        self._children: list[MessageConsumer | MessageProducer] = []
        self._delivery: SessionDelivery | None = None  # made by the first listener
        self._receiving = threading.Lock()  # a receive starting / a listener being set
        self._work_pending = False  # a message was delivered in this unit of work

    # ------------------------------------------------------------------ factories
    def consumer(
        self,
        destination: str | Queue | Topic,
        selector: str | None = None,
        *,
        no_local: bool = False,
    ) -> MessageConsumer:
        """A consumer of a queue, or of a topic (a :class:`~.topic.Topic`, or a
        ``topic://`` URI) through a non-durable subscription that ends with it.
        A topic's may have a ``selector`` (a JMS message selector: only the messages it
        selects) and ``no_local`` (not the messages published by this session's JMS
        connection, any of its sessions), as JMS's createConsumer."""
        from .consumer import MessageConsumer

        self._check()
        if isinstance(destination, str) and destination.startswith("topic://"):
            destination = Topic.parse(destination)
        if isinstance(destination, Topic):
            return self._subscriber(destination, no_local=no_local, selector=selector)
        if selector:
            raise JMSException(
                f"message selectors on queues are not supported (queue {destination!r}): "
                "select by correlation id, or subscribe to a topic with the selector"
            )
        consumer = MessageConsumer(self, Queue.parse(destination))
        self._children.append(consumer)
        return consumer

    def producer(self, destination: str | Queue | Topic | None = None) -> MessageProducer:
        """A producer for a queue or a topic (a send to a topic publishes), or for the
        destination given per send."""
        from .producer import MessageProducer, destination_of

        self._check()
        target = None if destination is None else destination_of(destination)
        producer = MessageProducer(self, target)
        self._children.append(producer)
        return producer

    # ------------------------------------------------------------------ publish/subscribe
    def topic(self, topic_string: str) -> Topic:
        """The topic ``topic_string`` (``prices/eu``; ``#`` and ``+`` levels to subscribe)."""
        return Topic.parse(topic_string)

    def durable_consumer(
        self,
        topic: str | Topic,
        name: str,
        selector: str | None = None,
        *,
        no_local: bool = False,
    ) -> TopicSubscriber:
        """A consumer of the durable subscription ``name`` (made on first use, resumed
        after): its messages wait on its managed queue while nobody consumes. Needs the
        connection's client id; one consumer at a time. ``selector``: only what it
        selects is kept (resumed with another selector, or topic, it is made anew, as
        JMS 2.0 says); ``no_local``: the messages this JMS connection publishes while it
        consumes are not added to it (JMS 2.0)."""
        return self._subscriber(
            Topic.parse(topic), name=name, durable=True, no_local=no_local, selector=selector
        )

    def shared_consumer(
        self, topic: str | Topic, name: str, selector: str | None = None
    ) -> TopicSubscriber:
        """A consumer of the shared non-durable subscription ``name``: its consumers take
        turns at its messages; it ends when the last one closes."""
        return self._subscriber(Topic.parse(topic), name=name, shared=True, selector=selector)

    def shared_durable_consumer(
        self, topic: str | Topic, name: str, selector: str | None = None
    ) -> TopicSubscriber:
        """A consumer of the shared durable subscription ``name``: any number of
        consumers, in any process, take turns at its messages."""
        return self._subscriber(
            Topic.parse(topic), name=name, durable=True, shared=True, selector=selector
        )

    def unsubscribe(self, name: str) -> None:
        """Delete the durable subscription ``name`` and the messages waiting for it
        (IllegalStateException while a consumer holds it)."""
        self._check()
        unsubscribe(self.mq, name, client_id=self.client_id)

    @property
    def client_id(self) -> str | None:
        """The JMS client id of the connection (or of the factory) this session is of."""
        if self.connection is not None:
            return self.connection.client_id
        return self.factory.client_id

    def _subscriber(
        self,
        topic: Topic,
        *,
        name: str | None = None,
        durable: bool = False,
        shared: bool = False,
        no_local: bool = False,
        selector: str | None = None,
    ) -> TopicSubscriber:
        from .subscriber import TopicSubscriber

        self._check()
        consumer = TopicSubscriber(
            self,
            topic,
            name=name,
            durable=durable,
            shared=shared,
            no_local=no_local,
            selector=selector,
        )
        self._children.append(consumer)
        return consumer

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
        self._work_pending = not self.auto_acknowledges
        self.poison_flow.delivered()

    def note_work(self) -> None:
        """A put under syncpoint joined the unit of work (a transacted send)."""
        self._work_pending = True

    @property
    def work_pending(self) -> bool:
        """Whether the unit of work holds a message delivered and not yet committed or
        acknowledged (transacted and CLIENT_ACKNOWLEDGE sessions), or a transacted send."""
        return self._work_pending

    def end_unit_of_work(self, *, commit: bool) -> None:
        """MQCMIT or MQBACK, reported to the poison flow (its pending requeues end too)."""
        self._work_pending = False
        if commit:
            self.mq.commit()
            self.poison_flow.committed()
        else:
            self.mq.backout()
            self.poison_flow.backed_out()

    # ------------------------------------------------------------------ message listeners
    def add_listener(self, consumer: MessageConsumer, call: Callable[[Message], object]) -> None:
        """Deliver ``consumer``'s messages to ``call`` on the session's delivery thread
        (started with the first listener). Refused while a receive is in progress on any
        of the session's consumers: the two would share one unit of work."""
        from .consumer import MessageConsumer
        from .delivery import SessionDelivery

        with self._receiving:
            self._check()
            if any(isinstance(c, MessageConsumer) and c.receiving for c in self._children):
                raise IllegalStateException(
                    "a receive() is in progress on this session: set the listener after it ends"
                )
            if self._delivery is None:
                self._delivery = SessionDelivery(self)
                if self.connection is not None:
                    self.connection.follow(self._delivery)
            self._delivery.set(consumer, call)

    def drop_listener(self, consumer: MessageConsumer) -> None:
        """No more deliveries to ``consumer``'s listener (returns once it is not running)."""
        if self._delivery is not None:
            self._delivery.remove(consumer)

    def begin_receive(self, idle: threading.Event) -> None:
        """A receive starts (``idle`` cleared until it ends). JMS: a session whose
        consumers have message listeners cannot also receive."""
        with self._receiving:
            if self._delivery is not None and self._delivery.active:
                raise IllegalStateException(
                    "receive() on a session with a message listener: JMS delivers a session's "
                    "messages one way; use another session to receive synchronously"
                )
            idle.clear()

    # ------------------------------------------------------------------ lifecycle
    def _check(self) -> None:
        if self._closed:
            raise IllegalStateException("the session is closed")

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close: uncommitted or unacknowledged work is rolled back, as in JMS. A running
        message listener returns first (its work ends as usual), unless it is the caller."""
        if self._closed:
            return
        delivery = self._delivery
        if delivery is not None and not delivery.in_delivery_thread():
            delivery.stop()  # the listener keeps the session until it returns
        self._closed = True
        try:
            if delivery is not None:
                delivery.stop()  # from the listener itself: none is called after it
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
