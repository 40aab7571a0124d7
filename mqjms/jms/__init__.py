"""The synchronous, JMS-style API: factories, connections, sessions, consumers, producers."""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

# `X as X`: an explicit re-export; __all__ below is a literal list, which is what type
# checkers read for `from package import *` (a test keeps both in step with _WHERE)
if TYPE_CHECKING:
    from .acknowledge import AUTO_ACKNOWLEDGE as AUTO_ACKNOWLEDGE
    from .acknowledge import CLIENT_ACKNOWLEDGE as CLIENT_ACKNOWLEDGE
    from .acknowledge import DUPS_OK_ACKNOWLEDGE as DUPS_OK_ACKNOWLEDGE
    from .acknowledge import SESSION_TRANSACTED as SESSION_TRANSACTED
    from .consumer import MessageConsumer as MessageConsumer
    from .delivery import MessageListener as MessageListener
    from .errors import IllegalStateException as IllegalStateException
    from .errors import InvalidDestinationException as InvalidDestinationException
    from .errors import InvalidSelectorException as InvalidSelectorException
    from .errors import JMSException as JMSException
    from .errors import MessageFormatException as MessageFormatException
    from .factory import Connection as Connection
    from .factory import ConnectionFactory as ConnectionFactory
    from .message import DEFAULT_PRIORITY as DEFAULT_PRIORITY
    from .message import DEFAULT_TIME_TO_LIVE as DEFAULT_TIME_TO_LIVE
    from .message import NON_PERSISTENT as NON_PERSISTENT
    from .message import PERSISTENT as PERSISTENT
    from .message import TARGET_JMS as TARGET_JMS
    from .message import TARGET_MQ as TARGET_MQ
    from .message import BytesMessage as BytesMessage
    from .message import MapMessage as MapMessage
    from .message import Message as Message
    from .message import ObjectMessage as ObjectMessage
    from .message import Queue as Queue
    from .message import StreamMessage as StreamMessage
    from .message import TextMessage as TextMessage
    from .message import from_mq as from_mq
    from .message import remaining_time_to_live as remaining_time_to_live
    from .message import to_mq as to_mq
    from .producer import MessageProducer as MessageProducer
    from .session import Session as Session
    from .subscriber import TopicSubscriber as TopicSubscriber
    from .topic import Topic as Topic

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
