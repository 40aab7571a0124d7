"""TopicSubscriber: a MessageConsumer of a topic, through the subscription it holds.

Receiving is the queue consumer's: MQGET under syncpoint from the subscription's managed
queue, poison messages screened by the session's flow (seed 002's synchronous rules:
requeued inside the unit of work active at the get), BOTHRESH and BOQNAME inquired on
the managed queue and cached per connection as for a queue.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from mqjms.mq.errors import MQError

from .consumer import MessageConsumer
from .message import Queue
from .topic import Topic, open_subscription, subscriber

if TYPE_CHECKING:
    from .session import Session


class TopicSubscriber(MessageConsumer):
    """Receives the publications of one subscription (see :mod:`.topic`)."""

    def __init__(
        self,
        session: Session,
        topic: Topic,
        *,
        name: str | None = None,
        durable: bool = False,
        shared: bool = False,
        no_local: bool = False,
        selector: str | None = None,
    ) -> None:
        self.session = session
        self.no_local = no_local
        self.message_selector = selector or None
        self.topic = topic
        self.subscription = open_subscription(
            session.mq,
            topic,
            name=name,
            client_id=session.client_id,
            durable=durable,
            shared=shared,
            no_local=no_local,
            selector=selector,
        )
        self.handle = self.subscription.handle
        # the managed queue the messages are got from (and poison settings inquired on)
        self.queue = Queue(self.handle.resolved_name)
        self._ready()

    @property
    def durable(self) -> bool:
        return self.subscription.durable

    def close(self) -> None:
        """Close: a non-durable subscription ends (with the messages waiting for it);
        a durable one stays for the next consumer."""
        if not self._closed:
            self._drop_listener()
            self._closed = True
            self._end_receive()
            self._close_browser()  # before a non-durable subscription's queue goes
            with contextlib.suppress(MQError):
                subscriber(self.session.mq).close_subscription(self.subscription)
