"""The synchronous, JMS-style API: factories, connections, sessions, consumers, producers."""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

if TYPE_CHECKING:
    from .acknowledge import (
        AUTO_ACKNOWLEDGE,
        CLIENT_ACKNOWLEDGE,
        DUPS_OK_ACKNOWLEDGE,
        SESSION_TRANSACTED,
    )
    from .consumer import MessageConsumer
    from .delivery import MessageListener
    from .errors import (
        IllegalStateException,
        InvalidDestinationException,
        InvalidSelectorException,
        JMSException,
        MessageFormatException,
    )
    from .factory import Connection, ConnectionFactory
    from .message import (
        DEFAULT_PRIORITY,
        DEFAULT_TIME_TO_LIVE,
        NON_PERSISTENT,
        PERSISTENT,
        TARGET_JMS,
        TARGET_MQ,
        BytesMessage,
        MapMessage,
        Message,
        ObjectMessage,
        Queue,
        StreamMessage,
        TextMessage,
        from_mq,
        remaining_time_to_live,
        to_mq,
    )
    from .producer import MessageProducer
    from .session import Session
    from .subscriber import TopicSubscriber
    from .topic import Topic

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    ".acknowledge": (
        "AUTO_ACKNOWLEDGE",
        "CLIENT_ACKNOWLEDGE",
        "DUPS_OK_ACKNOWLEDGE",
        "SESSION_TRANSACTED",
    ),
    ".consumer": ("MessageConsumer",),
    ".delivery": ("MessageListener",),
    ".errors": (
        "IllegalStateException",
        "InvalidDestinationException",
        "InvalidSelectorException",
        "JMSException",
        "MessageFormatException",
    ),
    ".factory": ("Connection", "ConnectionFactory"),
    ".message": (
        "DEFAULT_PRIORITY",
        "DEFAULT_TIME_TO_LIVE",
        "NON_PERSISTENT",
        "PERSISTENT",
        "TARGET_JMS",
        "TARGET_MQ",
        "BytesMessage",
        "MapMessage",
        "Message",
        "ObjectMessage",
        "Queue",
        "StreamMessage",
        "TextMessage",
        "from_mq",
        "remaining_time_to_live",
        "to_mq",
    ),
    ".producer": ("MessageProducer",),
    ".session": ("Session",),
    ".subscriber": ("TopicSubscriber",),
    ".topic": ("Topic",),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE)

__all__ = [
    "AUTO_ACKNOWLEDGE",
    "CLIENT_ACKNOWLEDGE",
    "DEFAULT_PRIORITY",
    "DEFAULT_TIME_TO_LIVE",
    "DUPS_OK_ACKNOWLEDGE",
    "NON_PERSISTENT",
    "PERSISTENT",
    "SESSION_TRANSACTED",
    "TARGET_JMS",
    "TARGET_MQ",
    "BytesMessage",
    "Connection",
    "ConnectionFactory",
    "IllegalStateException",
    "InvalidDestinationException",
    "InvalidSelectorException",
    "JMSException",
    "MapMessage",
    "Message",
    "MessageConsumer",
    "MessageFormatException",
    "MessageListener",
    "MessageProducer",
    "ObjectMessage",
    "Queue",
    "Session",
    "StreamMessage",
    "TextMessage",
    "Topic",
    "TopicSubscriber",
    "from_mq",
    "remaining_time_to_live",
    "to_mq",
]
