"""Sending from a listener, idempotently when it runs on Spark.

``mqjms.spark.send(queue, body)`` in a listener: under a Worker it puts the message at
once (like a JMS producer on a non-transacted session); under ``mqjms.spark.run`` it
goes to the task's outbox, put with the task's other sends under one unit of work once
the task's messages are processed, each with a MsgId derived from the message that
caused it and the send's place among that message's sends. A listener that raises
sends nothing (its outbox entries are dropped, as a rollback drops its puts), and a
replayed task puts the same MsgIds again.
"""

from __future__ import annotations

import contextvars
from collections.abc import Mapping
from dataclasses import dataclass, field

from mqjms.jms.message import DEFAULT_PRIORITY, PropertyValue, Queue, make_message, to_mq
from mqjms.mq.md import MQMD
from mqjms.transport import connect


@dataclass
class Outbox:
    """The sends of one listener call, in order."""

    items: list[tuple[str, MQMD, bytes]] = field(default_factory=list)


current: contextvars.ContextVar[Outbox | None] = contextvars.ContextVar(
    "mqjms_spark_outbox", default=None
)


def send(
    queue: str | Queue,
    body: str | bytes | None,
    *,
    properties: Mapping[str, PropertyValue] | None = None,
    correlation_id: str | None = None,
    priority: int = DEFAULT_PRIORITY,
    url: str | None = None,
) -> None:
    """Send a message from a listener (see the module docstring for where it goes)."""
    target = Queue.parse(queue)
    message = make_message(body, properties)
    if correlation_id is not None:
        message.jms_correlation_id = correlation_id
    md, data = to_mq(message, target, priority=priority)
    outbox = current.get()
    if outbox is not None:
        outbox.items.append((target.name, md, data))
        return
    conn = connect(url, "mqjms-send")
    try:
        conn.put(target.name, md, data)
    finally:
        conn.disconnect()
