"""TestQueueManager: a queue manager for one test, driven the way an MQ administrator and
a plain MQ application would drive it.

Define objects in MQSC, put and send messages, browse and count them, and run a Worker's
listeners until they are idle. Everything goes through the transport contract and the
same Worker code as production: the listeners, units of work and poison handling under
test are the real ones, on a real (embedded) queue manager.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mqjms.jms import ConnectionFactory, Message
from mqjms.jms.message import to_message, to_mq
from mqjms.jms.producer import destination_of
from mqjms.jms.topic import Topic, open_subscription, subscriber
from mqjms.listeners import Worker
from mqjms.listeners.reconnect import is_connection_error
from mqjms.mq import ccsid
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.qmgr.mqsc import CommandResult
from mqjms.transport import Browse, Connection, connect, redact
from mqjms.transport.url import scheme_of

from .admin import Administration, EmbeddedAdministration, ScriptedAdministration
from .idle import RunSummary, run_until_idle

T = TypeVar("T")


class TestQueueManager:
    """A queue manager for a test: ``mq.mqsc(...)``, ``mq.put(...)``, ``mq.browse(...)``,
    ``mq.depth(...)`` and ``mq.run_until_idle(app)``.

    ``url`` is the transport URL; without ``admin`` it must be ``embedded:`` (the
    queue manager's own API administers it). Close it when done (the ``mq`` fixture does).
    """

    __test__ = False  # a helper, not a test class, to pytest

    def __init__(self, url: str, admin: Administration | None = None) -> None:
        if admin is None:
            if scheme_of(url) != "embedded":
                raise ValueError(
                    f"{redact(url)!r}: pass admin= (define/alter/delete for that transport); "
                    "only an embedded: URL is administered without one"
                )
            admin = EmbeddedAdministration(url)
        self._url = url
        self.admin = admin
        self._conn: Connection | None = None

    @classmethod
    def in_directory(cls, directory: str | Path) -> TestQueueManager:
        """The embedded queue manager kept in ``directory`` (created when missing)."""
        return cls(f"embedded://{Path(directory).resolve()}")

    def __repr__(self) -> str:
        return f"TestQueueManager({redact(self._url)!r})"

    # ------------------------------------------------------------------ the queue manager
    @property
    def url(self) -> str:
        """The transport URL: give it to the code under test (``Worker(mq.url)``)."""
        return self._url

    @property
    def queue_manager(self) -> QueueManager:
        """The embedded QueueManager itself, for what MQSC does not cover."""
        if not isinstance(self.admin, EmbeddedAdministration):
            raise TypeError(f"{self!r} is not an embedded queue manager")
        return self.admin.queue_manager

    @property
    def qmgr_name(self) -> str:
        return self._call(lambda conn: conn.qmgr_name)

    @property
    def dead_letter_queue(self) -> str:
        """The queue manager's DEADQ, as it is now."""
        found = self._call(lambda conn: conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]))
        return str(found[C.MQCA_DEAD_LETTER_Q_NAME]).strip()

    # ------------------------------------------------------------------ administration
    def mqsc(self, script: str) -> list[CommandResult]:
        """Run MQSC commands (``DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) ...``); an MQError
        names the first one that failed. DISPLAY results carry their objects."""
        if not isinstance(self.admin, ScriptedAdministration):
            raise TypeError(
                f"{self!r} runs no MQSC: use define_queue(), alter_queue(), alter_qmgr()"
            )
        return self.admin.mqsc(script)

    def define_queue(self, name: str, **attrs: object) -> str:
        """DEFINE QLOCAL(name) with MQSC attributes (``BOTHRESH=3``); returns the name."""
        self.admin.define_queue(name, **attrs)
        return name

    def define_alias(self, name: str, target: str, **attrs: object) -> str:
        self.admin.define_alias(name, target, **attrs)
        return name

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.admin.alter_queue(name, **attrs)

    def alter_qmgr(self, **attrs: object) -> None:
        self.admin.alter_qmgr(**attrs)

    def delete_queue(self, name: str) -> None:
        """DELETE QLOCAL(name) PURGE."""
        self.admin.delete_queue(name)

    def define_model(self, name: str, **attrs: object) -> str:
        """DEFINE QMODEL(name): a model for managed queues (``BOTHRESH=3, BOQNAME=...``)."""
        self.admin.define_model(name, **attrs)
        return name

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> str:
        """DEFINE TOPIC(name) TOPICSTR(topic_string) (``MDURMDL=..., MNDURMDL=...``)."""
        self.admin.define_topic(name, topic_string, **attrs)
        return name

    # ------------------------------------------------------------------ publish/subscribe
    def publish(self, topic: str, body: str | bytes | Message, **md_fields: Any) -> MQMD:
        """Publish on ``topic`` (a topic string), as :meth:`put` puts: a copy to every
        subscription that matches; returns the MQMD as published."""
        md, data = _encode(Topic(topic), body, md_fields)  # a Message's jms.Dst: topic://

        def publish(conn: Connection) -> MQMD:
            handle = subscriber(conn).open_topic(topic, C.MQOO_OUTPUT)
            try:
                return conn.put(handle, md, data)
            finally:
                conn.close(handle)

        return self._call(publish)

    def subscribe(self, app: Worker) -> list[str]:
        """Make the durable subscriptions of ``app``'s topic listeners now (as their
        first start would), so that what a test publishes before it runs the worker
        waits for them; returns their managed queues. A non-durable listener's
        subscription lives only while the worker runs."""

        def make(conn: Connection) -> list[str]:
            queues = []
            for lst in app.listeners:
                if lst.topic is None or lst.subscription is None:
                    continue
                made = open_subscription(
                    conn,
                    Topic(lst.topic),
                    name=lst.subscription,
                    client_id=app.client_id,
                    durable=True,
                    shared=lst.shared,
                    listener=True,
                    selector=lst.selector,
                )
                queues.append(made.handle.resolved_name)
                subscriber(conn).close_subscription(made)
            return queues

        return self._call(make)

    # ------------------------------------------------------------------ messages
    def put(self, queue: str, body: str | bytes | Message, **md_fields: Any) -> MQMD:
        """MQPUT1 outside any unit of work, as a plain MQ application puts; returns the
        MQMD as put (its MsgId).

        ``str`` goes as Format MQSTR in CCSID 1208 (or the ``CodedCharSetId`` given),
        ``bytes`` as they are, a :class:`~mqjms.Message` as IBM MQ classes for JMS write it
        (RFH2). ``md_fields`` set MQMD fields: ``Persistence=1, Expiry=600, Report=...``.
        """
        md, data = _encode(queue, body, md_fields)
        return self._call(lambda conn: conn.put(queue, md, data))

    def send(self, queue: str, *bodies: str | bytes | Message, **options: Any) -> list[Message]:
        """Send each body with a JMS producer (RFH2, persistent unless told otherwise);
        ``options`` are ``MessageProducer.send``'s (``properties=``, ``time_to_live=``...)."""
        with ConnectionFactory(self._url).connect() as connection:
            producer = connection.session().producer(queue)
            return [producer.send(body, **options) for body in bodies]

    def browse(self, queue: str) -> list[Message]:
        """The messages on ``queue`` in delivery order, left where they are (``msg.md``
        is each one's MQMD; bytes that do not parse come as a BytesMessage)."""
        return [to_message(md, data, queue) for md, data in self.browse_raw(queue)]

    def browse_raw(self, queue: str) -> list[tuple[MQMD, bytes]]:
        """What :meth:`browse` sees, as MQMD and bytes (any RFH2 or MQDLH included)."""

        def browse(conn: Connection) -> list[tuple[MQMD, bytes]]:
            handle = conn.open(queue, C.MQOO_BROWSE)
            try:
                found: list[tuple[MQMD, bytes]] = []
                how = Browse.FIRST
                while (got := conn.get(handle, browse=how)) is not None:
                    found.append(got)
                    how = Browse.NEXT
                return found
            finally:
                conn.close(handle)

        return self._call(browse)

    def depth(self, queue: str) -> int:
        """CURDEPTH of a local queue, as IBM MQ counts it: its messages, those put in units
        of work not yet committed too, not those got in one."""
        found = self._call(lambda conn: conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH]))
        return int(found[C.MQIA_CURRENT_Q_DEPTH])

    def backlog(self, queue: str) -> int:
        """Every message on a local queue, those got in units of work not yet ended too
        (CURDEPTH leaves them out): what a run until idle waits to see gone."""
        if isinstance(self.admin, EmbeddedAdministration):
            return self.admin.queue_manager.queue_backlog(queue)
        return self.depth(queue)

    def base_queue(self, queue: str) -> str:
        """The local queue ``queue`` resolves to (itself, or an alias's target)."""

        def resolve(conn: Connection) -> str:
            handle = conn.open(queue, C.MQOO_INQUIRE)
            conn.close(handle)
            return handle.resolved_name

        return self._call(resolve)

    # ------------------------------------------------------------------ listeners
    def run_until_idle(self, app: Worker, *, timeout: float = 10.0) -> RunSummary:
        """Run ``app``'s listeners on this queue manager until nothing is left for them,
        then stop it and say what happened (processed, failed, moved, dead-lettered).

        The worker is pointed at :attr:`url` first. Raises :class:`~.idle.NotIdle`, saying
        what is left, when it is not idle within ``timeout`` seconds.
        """
        return run_until_idle(self, app, timeout=timeout)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Disconnect, and close an embedded queue manager (threads stopped, files let go)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(MQError):
                conn.disconnect()
        if isinstance(self.admin, EmbeddedAdministration):
            self.admin.close()

    def __enter__(self) -> TestQueueManager:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, action: Callable[[Connection], T]) -> T:
        """Run ``action`` on this helper's connection, made again once if it was lost
        (a test may restart the queue manager under it)."""
        for attempt in (1, 2):
            if self._conn is None:
                self._conn = connect(self._url, "mqjms-testing")
            try:
                return action(self._conn)
            except Exception as exc:
                if attempt == 2 or not is_connection_error(exc):
                    raise
                with contextlib.suppress(MQError):
                    self._conn.disconnect()
                self._conn = None
        raise AssertionError("unreachable")


def _encode(
    queue: str | Topic, body: str | bytes | Message, md_fields: dict[str, Any]
) -> tuple[MQMD, bytes]:
    if isinstance(body, Message):
        md, data = to_mq(body, destination_of(queue))
        return md.copy(**md_fields), data
    if isinstance(body, str):
        fields = {"Format": C.MQFMT_STRING, "CodedCharSetId": C.CCSID_UTF8, **md_fields}
        md = MQMD(**fields)
        return md, ccsid.encode(body, md.CodedCharSetId, md.Encoding)
    if isinstance(body, bytes | bytearray | memoryview):
        return MQMD(**md_fields), bytes(body)
    raise TypeError(f"a message body must be str, bytes or a Message, not {type(body).__name__}")
