"""JMS destinations: a queue by name or by JMS URI, and whether its readers expect an RFH2.
Topics are in topic.py; both satisfy :class:`Destination`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

TARGET_JMS = 0  # targetClient: write an RFH2
TARGET_MQ = 1  # targetClient: plain MQ application, no RFH2


@dataclass(frozen=True, slots=True)
class Queue:
    """A JMS queue destination. ``target_client=TARGET_MQ`` sends without an RFH2."""

    name: str
    target_client: int = TARGET_JMS
    qmgr: str = ""  # the queue manager that owns the queue; "" = the one connected to

    @classmethod
    def parse(cls, destination: str | Queue) -> Queue:
        """A name, or a JMS URI such as ``queue:///ORDERS.IN?targetClient=1`` or
        ``queue://QM1/ORDERS.REPLY``."""
        if isinstance(destination, Queue):
            return destination
        if not isinstance(destination, str):
            raise TypeError(
                "a queue is a name (str) or an mqjms.Queue, not "
                f"{type(destination).__name__} {destination!r}"
            )
        if destination.startswith("topic://"):  # never a queue named "topic://..."
            raise ValueError(
                f"{destination!r} is a topic, not a queue: publish to it with a producer "
                "(session.producer(destination)), or listen with topic="
            )
        if destination.startswith("queue://"):
            from urllib.parse import parse_qs, urlsplit  # loaded by the first queue:// name

            parts = urlsplit(destination)
            name = parts.path.lstrip("/")
            target = parse_qs(parts.query).get("targetClient", ["0"])[0]
            return cls(name, TARGET_MQ if target == "1" else TARGET_JMS, parts.netloc)
        return cls(destination)

    @property
    def uri(self) -> str:
        return f"queue://{self.qmgr}/{self.name}"


class Destination(Protocol):
    """Where a message is sent: a :class:`Queue` or a :class:`~mqjms.jms.topic.Topic`."""

    @property
    def name(self) -> str: ...

    @property
    def uri(self) -> str: ...

    @property
    def target_client(self) -> int: ...
