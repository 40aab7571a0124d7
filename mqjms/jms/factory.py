"""ConnectionFactory and Connection: where sessions come from."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from mqjms import transport
from mqjms.backout import PoisonHandler
from mqjms.transport.url import redact, resolve_url

from .acknowledge import ACK_MODES, AUTO_ACKNOWLEDGE, SESSION_TRANSACTED
from .errors import IllegalStateException
from .session import Session

if TYPE_CHECKING:
    from .delivery import SessionDelivery


class ConnectionFactory:
    """Connections to one transport URL (``embedded:``, ``stomp:``, ``mq:``).

    The factory owns the poison handler. BOTHRESH/BOQNAME are cached per underlying queue
    as seed 002 describes, for the life of one :class:`Connection`: its sessions share the
    values, and a new connection inquires afresh (so an ALTER QLOCAL is seen by it).
    The URL may carry a password: :attr:`url` and ``repr()`` show it masked; only
    :meth:`connect_transport` uses the real one.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        appl_name: str | None = None,
        poison: PoisonHandler | None = None,
        client_id: str | None = None,
    ) -> None:
        self._url = resolve_url(url)
        self.appl_name = appl_name
        self.poison = poison or PoisonHandler()
        #: The JMS client id of its connections (needed for unshared durable subscriptions).
        self.client_id = client_id

    @property
    def url(self) -> str:
        """The transport URL with its password masked (see :func:`~mqjms.transport.url.redact`)."""
        return redact(self._url)

    def connect(self, *, client_id: str | None = None) -> Connection:
        """A connection; ``client_id`` overrides the factory's for it."""
        return Connection(self, client_id=client_id)

    def connect_transport(self) -> transport.Connection:
        """MQCONN to the factory's URL: one hconn for a session's unit of work."""
        return transport.connect(self._url, self.appl_name)

    def __repr__(self) -> str:
        return f"ConnectionFactory({self.url!r})"


class Connection:
    """A JMS connection: a context manager that closes its sessions (rolling back work)."""

    def __init__(self, factory: ConnectionFactory, *, client_id: str | None = None) -> None:
        import uuid  # with the first connection, not with mqjms: it loads platform

        self.factory = factory
        self._client_id = client_id if client_id is not None else factory.client_id
        self._sessions: list[Session] = []
        self._lock = threading.Lock()
        self._closed = False
        self._stopped = False
        #: JMS setExceptionListener: called with the MQError when delivery to a message
        #: listener fails (a get or the end of its unit of work; the first of a run of
        #: failures), e.g. 2009 when the connection to the broker is lost. Delivery
        #: goes on trying, pausing longer each time.
        self.exception_listener: Callable[[Exception], object] | None = None
        #: whose publications are this connection's own, for noLocal: its sessions', each
        #: on an MQ connection of its own, share it (see Session)
        self.origin = "jms:" + uuid.uuid4().hex

    @property
    def client_id(self) -> str | None:
        """The JMS client id: it names this connection's unshared durable subscriptions
        (SubName ``JMS:<client id>:<name>``). Set it before the first session, as JMS says."""
        return self._client_id

    @client_id.setter
    def client_id(self, value: str | None) -> None:
        if self._sessions:
            raise IllegalStateException("the client id is set before the first session")
        self._client_id = value

    def session(self, transacted: bool = False, ack_mode: int = AUTO_ACKNOWLEDGE) -> Session:
        """A session with its own MQ connection, hence its own unit of work."""
        if self._closed:
            raise IllegalStateException("the connection is closed")
        if ack_mode == SESSION_TRANSACTED and not isinstance(ack_mode, bool):
            transacted = True  # JMS 2.0 createSession(Session.SESSION_TRANSACTED)
        if not transacted and ack_mode not in ACK_MODES:
            raise ValueError(
                f"ack_mode {ack_mode} is not SESSION_TRANSACTED (0), AUTO_ACKNOWLEDGE (1), "
                "CLIENT_ACKNOWLEDGE (2) or DUPS_OK_ACKNOWLEDGE (3)"
            )
        session = Session(self.factory, transacted=transacted, ack_mode=ack_mode, connection=self)
        with self._lock:
            self._sessions.append(session)
        return session

    # ------------------------------------------------------------------ delivery
    @property
    def stopped(self) -> bool:
        """Whether delivery to message listeners is stopped (:meth:`stop`)."""
        return self._stopped

    def start(self) -> None:
        """JMS start(): (re)start delivery to the sessions' message listeners. A
        connection is started when made (receive() never waits for start(), unlike JMS),
        so calling this is only needed after :meth:`stop`."""
        if self._closed:
            raise IllegalStateException("the connection is closed")
        self._set_stopped(False)

    def stop(self) -> None:
        """JMS stop(): pause delivery to message listeners; returns once none is running.
        Not from a listener of this connection (IllegalStateException, as JMS says)."""
        if self._closed:
            raise IllegalStateException("the connection is closed")
        with self._lock:
            sessions = list(self._sessions)
        for session in sessions:
            delivery = session._delivery
            if delivery is not None and delivery.in_delivery_thread():
                raise IllegalStateException(
                    "a message listener cannot stop its own connection (JMS)"
                )
        self._set_stopped(True)

    def set_exception_listener(self, listener: Callable[[Exception], object] | None) -> None:
        self.exception_listener = listener

    def follow(self, delivery: SessionDelivery) -> None:
        """A session's delivery to listeners was made: it starts stopped if this is."""
        with self._lock:
            if self._stopped:
                delivery.pause(True)

    def _set_stopped(self, stopped: bool) -> None:
        with self._lock:
            self._stopped = stopped
            sessions = list(self._sessions)
        for session in sessions:
            if session._delivery is not None:
                session._delivery.pause(stopped)

    def close(self) -> None:
        """Close the sessions (rolling back their open work) once every running message
        listener has returned (but the caller, when a listener closes its connection)."""
        with self._lock:
            self._closed = True
            sessions, self._sessions = self._sessions, []
        for session in sessions:
            if session._delivery is not None:
                session._delivery.pause(True)  # a listener may use another session
        for session in sessions:
            session.close()
        self.factory.poison.cache.forget(self)  # cached BOTHRESH/BOQNAME end with it

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
