"""mqjms: JMS-style message consumers for Python with IBM MQ's poison-message handling.

The public API is re-exported here::

    import mqjms

    cf = mqjms.ConnectionFactory("embedded:///var/lib/orders")
    with cf.connect() as conn, conn.session(transacted=True) as session:
        msg = session.consumer("ORDERS.IN").receive(timeout=5.0)
        session.commit()

Importing mqjms configures no logging: its events below WARNING stay quiet until the
application configures structlog, sets ``MQJMS_LOG_LEVEL`` or calls
``mqjms.logs.configure()`` (see :mod:`mqjms.logs`). Nor does it load what a program may
never use: structlog (with the first event), tenacity (with the first reconnection wait),
asyncio (with the first ``async def`` listener), the transports other than the embedded
one, the trigger monitor (``mqjms.TriggerMonitor``, on first access), the drop-in and Spark.
"""

from typing import TYPE_CHECKING, Any

from mqjms import logs as logs  # mqjms.logs.configure(level="INFO")
from mqjms.backout import Failure, Outcome, PoisonEvent, PoisonHandler, PoisonOutcome
from mqjms.jms import (
    AUTO_ACKNOWLEDGE,
    CLIENT_ACKNOWLEDGE,
    DEFAULT_PRIORITY,
    DEFAULT_TIME_TO_LIVE,
    DUPS_OK_ACKNOWLEDGE,
    NON_PERSISTENT,
    PERSISTENT,
    SESSION_TRANSACTED,
    TARGET_JMS,
    TARGET_MQ,
    BytesMessage,
    Connection,
    ConnectionFactory,
    IllegalStateException,
    InvalidDestinationException,
    InvalidSelectorException,
    JMSException,
    MapMessage,
    Message,
    MessageConsumer,
    MessageFormatException,
    MessageProducer,
    ObjectMessage,
    Queue,
    Session,
    StreamMessage,
    TextMessage,
    Topic,
    TopicSubscriber,
    remaining_time_to_live,
)
from mqjms.listeners import Listener, Worker, send
from mqjms.mq.errors import MQError

if TYPE_CHECKING:
    from mqjms.trigger import TriggerMonitor

__version__ = "0.1.0"

#: Public names loaded on first access (PEP 562): name -> module.
_LAZY = {"TriggerMonitor": "mqjms.trigger"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mqjms' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


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
    "Failure",
    "IllegalStateException",
    "InvalidDestinationException",
    "InvalidSelectorException",
    "JMSException",
    "Listener",
    "MQError",
    "MapMessage",
    "Message",
    "MessageConsumer",
    "MessageFormatException",
    "MessageProducer",
    "ObjectMessage",
    "Outcome",
    "PoisonEvent",
    "PoisonHandler",
    "PoisonOutcome",
    "Queue",
    "Session",
    "StreamMessage",
    "TextMessage",
    "Topic",
    "TopicSubscriber",
    "TriggerMonitor",
    "Worker",
    "__version__",
    "remaining_time_to_live",
    "send",
]
