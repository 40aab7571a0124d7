"""MessageProducer: sends JMS messages as IBM MQ classes for JMS write them."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from mqjms.mq import constants as C
from mqjms.mq import jms
from mqjms.mq.errors import MQError
from mqjms.semantics import Capability, Handle
from mqjms.semantics.pubsub import RetainsPublications
from mqjms.semantics.topics import check_topic_string

from .errors import IllegalStateException, InvalidDestinationException
from .message import (
    DEFAULT_PRIORITY,
    DEFAULT_TIME_TO_LIVE,
    PERSISTENT,
    Message,
    PropertyValue,
    Queue,
    make_message,
    to_mq_described,
)
from .topic import Topic, subscriber

if TYPE_CHECKING:
    from .session import Session


class MessageProducer:
    """Sends to its queue or topic, or to the one given per send when created without one.
    In a transacted session sends are part of the unit of work; a send to a topic
    publishes (a copy to every matching subscription, in that unit of work)."""

    def __init__(self, session: Session, queue: Queue | Topic | None) -> None:
        self.session = session
        self.queue = queue
        self._handles: dict[str, Handle] = {}
        self._closed = False

    def send(
        self,
        message_or_body: Message | str | bytes | None,
        *,
        delivery_mode: int = PERSISTENT,
        priority: int = DEFAULT_PRIORITY,
        time_to_live: int = DEFAULT_TIME_TO_LIVE,
        properties: Mapping[str, PropertyValue] | None = None,
        reply_to: str | Queue | Topic | None = None,
        correlation_id: str | None = None,
        queue: str | Queue | Topic | None = None,
    ) -> Message:
        """Send and return the message with its JMS headers set (jms_message_id, ...).

        ``time_to_live`` is in milliseconds (0: never expires), as in JMS.
        """
        if self._closed:
            raise IllegalStateException("the producer is closed")
        target = destination_of(queue) if queue is not None else self.queue
        if target is None:
            raise ValueError("this producer has no queue: pass queue= to send()")
        message = make_message(message_or_body, properties)
        if reply_to is not None:
            if not isinstance(reply_to, str | Queue | Topic):
                raise TypeError(
                    f"reply_to must be a queue name (str), an mqjms.Queue or an mqjms.Topic, "
                    f"not {type(reply_to).__name__}"
                )
            message.jms_reply_to = reply_to if isinstance(reply_to, str) else reply_to.uri
        if correlation_id is not None:
            if not isinstance(correlation_id, str):
                raise TypeError(
                    "correlation_id must be a str (an 'ID:' and 48 hex digits for a CorrelId "
                    f"as bytes), not {type(correlation_id).__name__}"
                )
            message.jms_correlation_id = correlation_id
        md, data, body_descriptor = to_mq_described(
            message,
            target,
            delivery_mode=delivery_mode,
            priority=priority,
            time_to_live=time_to_live,
        )
        mq, handle = self.session.mq, self._handle(target)
        syncpoint = self.session.transacted
        if syncpoint:
            self.session.note_work()  # before the put: a failed put may leave work too
        if (
            isinstance(target, Topic)
            and jms.wants_retain(message.properties)
            and Capability.RETAINED_PUBLICATIONS in mq.capabilities
        ):  # JMS_IBM_Retain: MQPMO_RETAIN (a transport that keeps none publishes it plainly)
            put = cast(RetainsPublications, mq).publish_retained(
                handle, md, data, syncpoint=syncpoint
            )
        else:
            put = mq.put(handle, md, data, syncpoint=syncpoint)
        message.md, message._body_descriptor = put, body_descriptor
        message.jms_message_id = "ID:" + put.MsgId.hex()
        return message

    def _handle(self, target: Queue | Topic) -> Handle:
        handle = self._handles.get(target.uri)
        if handle is None:
            options = C.MQOO_OUTPUT | C.MQOO_FAIL_IF_QUIESCING
            mq = self.session.mq
            if isinstance(target, Topic):
                try:  # a wildcard or malformed topic string names no topic to publish on
                    check_topic_string(target.name, wildcards=False)
                except MQError as exc:
                    raise InvalidDestinationException(f"{exc.detail} ({exc.reason_name})") from None
                handle = subscriber(mq).open_topic(target.name, options)
            else:
                # a broker has no other queue manager: its JMS destinations name queues
                remote = Capability.REMOTE_QUEUES in mq.capabilities
                handle = mq.open(target.name, options, qmgr=target.qmgr if remote else "")
            self._handles[target.uri] = handle
        return handle

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for handle in self._handles.values():
            with contextlib.suppress(MQError):
                self.session.mq.close(handle)
        self._handles.clear()


def destination_of(destination: str | Queue | Topic) -> Queue | Topic:
    """A Topic as given (or a ``topic://`` URI), else a queue."""
    if isinstance(destination, Topic):
        return destination
    if isinstance(destination, str) and destination.startswith("topic://"):
        return Topic.parse(destination)
    return Queue.parse(destination)
