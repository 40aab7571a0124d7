"""mqjms: JMS-style message consumers for Python with IBM MQ's poison-message handling.

The public API is re-exported here::

    import mqjms

    cf = mqjms.ConnectionFactory("embedded:///var/lib/orders")
    with cf.connect() as conn, conn.session(transacted=True) as session:
        msg = session.consumer("ORDERS.IN").receive(timeout=5.0)
        session.commit()

Importing mqjms configures no logging: its events below WARNING stay quiet until the
application configures structlog, sets ``MQJMS_LOG_LEVEL`` or calls
``mqjms.logs.configure()`` (see :mod:`mqjms.logs`). Nor does it load its API: each name
loads with its first access (PEP 562; ``from mqjms import Worker`` and ``import *`` too),
so a program pays for what it touches. Nor, then, what a program may never use: structlog
(with the first event), tenacity (with the first reconnection wait), asyncio (with the
first ``async def`` listener), the transports (with a URL of their scheme), the trigger
monitor, the drop-in and Spark; nor, for a worker, dead-letter headers, exception
reports, selectors, pub/sub (with the first subscription) and health checks.
"""

from mqjms._lazy import exports

TYPE_CHECKING = False  # typing's, without importing typing (mypy and IDEs know the name)

# `X as X`: an explicit re-export; __all__ below is a literal list, which is what type
# checkers read for `from package import *` (a test keeps both in step with _WHERE)
if TYPE_CHECKING:
    from mqjms import logs as logs  # mqjms.logs.configure(level="INFO")
    from mqjms.backout.events import Outcome as Outcome
    from mqjms.backout.events import PoisonEvent as PoisonEvent
    from mqjms.backout.events import PoisonOutcome as PoisonOutcome
    from mqjms.backout.failure import Failure as Failure
    from mqjms.backout.handler import PoisonHandler as PoisonHandler
    from mqjms.jms.acknowledge import AUTO_ACKNOWLEDGE as AUTO_ACKNOWLEDGE
    from mqjms.jms.acknowledge import CLIENT_ACKNOWLEDGE as CLIENT_ACKNOWLEDGE
    from mqjms.jms.acknowledge import DUPS_OK_ACKNOWLEDGE as DUPS_OK_ACKNOWLEDGE
    from mqjms.jms.acknowledge import SESSION_TRANSACTED as SESSION_TRANSACTED
    from mqjms.jms.consumer import MessageConsumer as MessageConsumer
    from mqjms.jms.delivery import MessageListener as MessageListener
    from mqjms.jms.errors import IllegalStateException as IllegalStateException
    from mqjms.jms.errors import InvalidDestinationException as InvalidDestinationException
    from mqjms.jms.errors import InvalidSelectorException as InvalidSelectorException
    from mqjms.jms.errors import JMSException as JMSException
    from mqjms.jms.errors import MessageFormatException as MessageFormatException
    from mqjms.jms.factory import Connection as Connection
    from mqjms.jms.factory import ConnectionFactory as ConnectionFactory
    from mqjms.jms.message import DEFAULT_PRIORITY as DEFAULT_PRIORITY
    from mqjms.jms.message import DEFAULT_TIME_TO_LIVE as DEFAULT_TIME_TO_LIVE
    from mqjms.jms.message import NON_PERSISTENT as NON_PERSISTENT
    from mqjms.jms.message import PERSISTENT as PERSISTENT
    from mqjms.jms.message import TARGET_JMS as TARGET_JMS
    from mqjms.jms.message import TARGET_MQ as TARGET_MQ
    from mqjms.jms.message import BytesMessage as BytesMessage
    from mqjms.jms.message import MapMessage as MapMessage
    from mqjms.jms.message import Message as Message
    from mqjms.jms.message import ObjectMessage as ObjectMessage
    from mqjms.jms.message import Queue as Queue
    from mqjms.jms.message import StreamMessage as StreamMessage
    from mqjms.jms.message import TextMessage as TextMessage
    from mqjms.jms.message import remaining_time_to_live as remaining_time_to_live
    from mqjms.jms.producer import MessageProducer as MessageProducer
    from mqjms.jms.session import Session as Session
    from mqjms.jms.subscriber import TopicSubscriber as TopicSubscriber
    from mqjms.jms.topic import Topic as Topic
    from mqjms.listeners.listener import Listener as Listener
    from mqjms.listeners.send import send as send
    from mqjms.listeners.worker import Worker as Worker
    from mqjms.mq.errors import MQError as MQError
    from mqjms.trigger import TriggerMonitor as TriggerMonitor

__version__ = "0.1.0"

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    "mqjms.backout.events": ("Outcome", "PoisonEvent", "PoisonOutcome"),
    "mqjms.backout.failure": ("Failure",),
    "mqjms.backout.handler": ("PoisonHandler",),
    "mqjms.jms.acknowledge": (
        "AUTO_ACKNOWLEDGE",
        "CLIENT_ACKNOWLEDGE",
        "DUPS_OK_ACKNOWLEDGE",
        "SESSION_TRANSACTED",
    ),
    "mqjms.jms.consumer": ("MessageConsumer",),
    "mqjms.jms.delivery": ("MessageListener",),
    "mqjms.jms.errors": (
        "IllegalStateException",
        "InvalidDestinationException",
        "InvalidSelectorException",
        "JMSException",
        "MessageFormatException",
    ),
    "mqjms.jms.factory": ("Connection", "ConnectionFactory"),
    "mqjms.jms.message": (
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
        "remaining_time_to_live",
    ),
    "mqjms.jms.producer": ("MessageProducer",),
    "mqjms.jms.session": ("Session",),
    "mqjms.jms.subscriber": ("TopicSubscriber",),
    "mqjms.jms.topic": ("Topic",),
    "mqjms.listeners.listener": ("Listener",),
    "mqjms.listeners.send": ("send",),
    "mqjms.listeners.worker": ("Worker",),
    "mqjms.mq.errors": ("MQError",),
    "mqjms.trigger": ("TriggerMonitor",),
}

#: Subpackages reachable as attributes after ``import mqjms`` (``mqjms.transport.connect``),
#: as they were when the package imported its API eagerly; each loads on first access.
_SUBPACKAGES = ("backout", "jms", "listeners", "logs", "mq", "qmgr", "semantics", "transport")

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(
        __name__, _WHERE, modules={name: f"mqjms.{name}" for name in _SUBPACKAGES}
    )

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
    "MessageListener",
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
