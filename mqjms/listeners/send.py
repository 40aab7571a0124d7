"""Sending from a listener: ``mqjms.send(queue, body)`` commits with the message.

A listener that forwards, replies or fans out must not send for a message it then fails
on, nor lose the send of one it succeeded on. So a send made while a listener runs joins
that message's unit of work, as a send on a JMS transacted session does::

    @app.listener("ORDERS.IN")
    def ship(msg: mqjms.Message) -> None:
        mqjms.send("ORDERS.SHIPPED", msg.body, properties={"carrier": "DHL"})

The listener's sends are collected while it runs (:func:`collecting`) and put by its
runner once it has returned: under a Worker on the listener's own connection, under
syncpoint, with the commit of the message (one step where the transport has one: a
single database transaction on the embedded queue manager; a listener that raises sends
nothing, and a send that fails fails the message, backed out with whatever it had put); under
``mqjms.spark.run`` per Spark task, in one unit of work with a commit marker, MsgIds
derived from the message, so a replayed batch sends nothing twice. The same listener
code runs under both. Outside a listener, use a :class:`mqjms.MessageProducer`.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from mqjms.jms.errors import IllegalStateException
from mqjms.jms.message import (
    DEFAULT_PRIORITY,
    DEFAULT_TIME_TO_LIVE,
    PERSISTENT,
    Message,
    PropertyValue,
    Queue,
    make_message,
    to_mq,
)
from mqjms.jms.topic import Topic
from mqjms.semantics import SyncpointPut

#: One message a listener sent: the queue, and the MQMD and bytes to put under syncpoint.
Send = SyncpointPut


class Outbox:  # not a dataclass: one is made per message, and a dataclass costs at import
    """The sends of one listener call, in order."""

    __slots__ = ("closed", "sends")

    def __init__(self) -> None:
        self.sends: list[Send] = []
        #: The listener call is over: a send now (a task it left running) would be lost.
        self.closed = False


_current: contextvars.ContextVar[Outbox | None] = contextvars.ContextVar(
    "mqjms_listener_outbox", default=None
)


def send(
    queue: str | Queue,
    message_or_body: Message | str | bytes | None,
    *,
    delivery_mode: int = PERSISTENT,
    priority: int = DEFAULT_PRIORITY,
    time_to_live: int = DEFAULT_TIME_TO_LIVE,
    properties: Mapping[str, PropertyValue] | None = None,
    reply_to: str | Queue | Topic | None = None,
    correlation_id: str | None = None,
) -> None:
    """Send a message from a listener, in the unit of work of the message it handles
    (the options are :meth:`mqjms.MessageProducer.send`'s; ``time_to_live`` in ms)."""
    outbox = _current.get()
    if outbox is None:
        raise IllegalStateException(
            "mqjms.send() sends from a listener while it runs; elsewhere use a producer: "
            "session.producer(queue).send(...)"
        )
    if outbox.closed:
        raise IllegalStateException(
            "mqjms.send() after the listener returned (from a task it left running): the "
            "message it handled is committed already, and this send would be lost; await "
            "the task inside the listener"
        )
    target = Queue.parse(queue)
    message = make_message(message_or_body, properties)
    if reply_to is not None:
        message.jms_reply_to = reply_to if isinstance(reply_to, str) else reply_to.uri
    if correlation_id is not None:
        message.jms_correlation_id = correlation_id
    md, data = to_mq(
        message,
        target,
        delivery_mode=delivery_mode,
        priority=priority,
        time_to_live=time_to_live,
    )
    outbox.sends.append(Send(target.name, md, data))


@contextmanager
def collecting(outbox: Outbox | None = None) -> Iterator[Outbox]:
    """Collect the sends made in this context into ``outbox`` (a new one by default):
    around a listener call; for an ``async def`` listener, inside its coroutine, since
    an event loop runs each task in a context of its own."""
    box = Outbox() if outbox is None else outbox
    token = open_outbox(box)
    try:
        yield box
    finally:
        close_outbox(box, token)


def open_outbox(outbox: Outbox) -> contextvars.Token[Outbox | None]:
    """Start collecting into ``outbox`` (what :func:`collecting` does on entry), for a
    caller that runs once per message: a generator-based context manager costs more than
    the rest of the call; the caller must :func:`close_outbox` in a ``finally``."""
    return _current.set(outbox)


def close_outbox(outbox: Outbox, token: contextvars.Token[Outbox | None]) -> None:
    """Stop collecting into ``outbox`` (what :func:`collecting` does on exit)."""
    outbox.closed = True  # a task that copied this context must not send into it now
    _current.reset(token)
