"""Durable subscriptions' records on the broker, as IBM MQ keeps them on
SYSTEM.DURABLE.SUBSCRIBER.QUEUE.

A broker knows its durable topic subscriptions but says nothing about them over STOMP:
not whether one exists (MQSO_RESUME needs that: MQRC_NO_SUBSCRIPTION 2428), nor its
topic (JMS replaces a durable subscription resumed on another topic), nor whether it is
shared. So each durable subscription has a persistent record message on
``SYSTEM.DURABLE.SUBSCRIBER.QUEUE``, found by a browse with a selector on its name,
written when the subscription is made and consumed when it is removed.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from . import mapping
from .client import StompClient

RECORDS_QUEUE = "SYSTEM.DURABLE.SUBSCRIBER.QUEUE"
H_SUB_NAME = "mqjms_sub_name"
_BROWSE_WAIT = 10.0


@dataclass(frozen=True, slots=True)
class Record:
    """What a durable subscription is: its topic, queue and kind."""

    name: str
    topic_string: str
    queue: str  # the managed (or provided) queue publications are moved to
    shared: bool
    managed: bool
    model: str  # the model queue the managed queue was made from


def _selector(name: str) -> str:
    return f"{H_SUB_NAME} = '{name.replace(chr(39), chr(39) * 2)}'"


def find(client: StompClient, prefix: str, name: str) -> Record | None:
    """The record of the durable subscription ``name``, if it exists."""
    destination = mapping.queue_destination(RECORDS_QUEUE, prefix)
    headers = {"browser": "true", "selector": _selector(name)}
    sub = client.subscribe(destination, headers, "auto")
    found: Record | None = None
    try:
        while (frame := client.take(sub, _BROWSE_WAIT)) is not None:
            if frame.headers.get("browser") == "end":
                break
            if found is None:
                found = Record(**json.loads(frame.body.decode("utf-8")))
    finally:
        client.unsubscribe(sub)
    return found


def write(client: StompClient, prefix: str, record: Record) -> None:
    """Record a new durable subscription (persistent, confirmed by a receipt)."""
    destination = mapping.queue_destination(RECORDS_QUEUE, prefix)
    headers = {
        H_SUB_NAME: record.name,
        "persistent": "true",
        "content-type": "application/json",
    }
    body = json.dumps(asdict(record)).encode("utf-8")
    client.send(destination, headers, body, receipt=True)


def remove(client: StompClient, prefix: str, name: str) -> int:
    """Consume every record of ``name``; how many there were."""
    destination = mapping.queue_destination(RECORDS_QUEUE, prefix)
    headers = {"selector": _selector(name), "activemq.prefetchSize": "1"}
    sub = client.subscribe(destination, headers, "client-individual")
    removed = 0
    try:
        wait = 2.0  # the first: a record we have just seen is on its way
        while (frame := client.take(sub, wait)) is not None:
            client.ack(frame.ack_id, receipt=True)
            removed += 1
            wait = 0.2
    finally:
        client.unsubscribe(sub)
    return removed
