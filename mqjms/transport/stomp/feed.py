"""The feed of a subscription on ActiveMQ: its native topic subscription, moved into its
managed queue.

IBM MQ delivers each publication to a subscription's managed queue, where BackoutCount
is counted (seed 002). A broker's topic subscription is no queue: a rolled-back message
cannot be given back to it with a new count, and a durable one belongs to a STOMP
connection of its own (its ``client-id``), whose transactions are not the subscriber's
unit of work. So the transport does what MQ's publish/subscribe engine does: a *feed*
holds the native subscription (durable: ``client-id`` + ``activemq.subscriptionName``;
non-durable: a plain one) on a connection of its own, and a thread moves each message
into the managed queue, ACK and SEND in one transaction. Everything after that is a
queue's: gets under syncpoint, BackoutCount carried in copies, BOTHRESH and BOQNAME from
the model queue, CURDEPTH.

A durable subscription is held by one connection at a time (its client id); the feed of
an unshared one is connected when MQSUB runs (MQRC_SUBSCRIPTION_IN_USE when another
holds it). Every consumer of a shared subscription runs a feed that keeps trying to
connect: one of them holds it and fills the queue all consume from; when it ends, another
takes over within :data:`TAKEOVER` seconds. The native subscription of a shared one is
durable even when the JMS one is not, so nothing is missed meanwhile; each consumer is
*present* (a subscription on the presence queue, counted by the statistics plugin), so
the last one to close knows it is the last and ends a non-durable one. A moved message
keeps the publisher's MQMD (and its BackoutCount), with a MsgId of its own, as each
subscriber's copy on MQ has.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

from mqjms.logs import get_logger

from . import mapping, release
from .client import BrokerError, ConnectionLost, ConnectRefused, Frame, StompClient
from .config import StompParams

log = get_logger("mqjms.transport.stomp")

TAKEOVER = 1.0  # seconds between a waiting feed's attempts to connect
PREFETCH = "500"  # messages the broker may push to a feed ahead of its moves
_BATCH = 200  # messages moved in one transaction at most
_STEP = 0.2  # seconds a feed waits for a message before looking at its stop flag
_BACKLOG_WAIT = 0.3  # seconds a resumed durable subscription's backlog may take to come


class ClientIdInUse(Exception):
    """Another connection holds the subscription's client id: another subscriber."""


def connect_feed(params: StompParams, client_id: str | None) -> StompClient:
    """A connection for a feed; ClientIdInUse when ``client_id`` is another's now."""
    try:
        return StompClient(params, client_id=client_id)
    except ConnectRefused as exc:
        if "already connected" in str(exc) or "InvalidClientID" in str(exc):
            raise ClientIdInUse(str(exc)) from None
        raise


class Feed:
    """Moves a native topic subscription's messages into the managed queue ``queue``."""

    def __init__(
        self,
        params: StompParams,
        *,
        topic: str,
        queue: str,
        prefix: str,
        client_id: str | None,
        durable_name: str | None,
        new_msg_id: Callable[[], bytes],
        client: StompClient | None = None,
        presence: str | None = None,
        topic_string: Callable[[str], str] | None = None,
    ) -> None:
        self.params = params
        # for a subscriber that reads properties: the topic string of a frame's destination
        # (each copy carries it: see mqjms.semantics.publication)
        self._topic_string = topic_string
        self.topic = topic  # the broker destination, /topic/...
        self.queue = queue  # the managed queue's destination, /queue/...
        self.prefix = prefix
        self.client_id = client_id
        self.durable_name = durable_name
        self._new_msg_id = new_msg_id
        self._client = client
        self._sub: str | None = None
        self.presence = presence  # /queue/... this consumer is present on (shared ones)
        self._present: StompClient | None = None
        self._stop = threading.Event()
        self._connecting = threading.Lock()
        self.moved = 0
        self._thread = threading.Thread(target=self._run, name="mqjms-stomp-feed", daemon=True)

    @property
    def connected(self) -> bool:
        return self._client is not None and not self._client.lost

    def start(self, *, backlog: bool = False) -> None:
        """Subscribe (on the connection given, or one made now) and start moving;
        ``backlog``: first move what a resumed durable subscription holds, so that it is
        on the managed queue when MQSUB returns."""
        if self.presence is not None:
            self._present = StompClient(self.params)
            self._present.subscribe_confirmed(self.presence, {"activemq.prefetchSize": "1"}, "auto")
        if self._client is not None:
            self._subscribe(self._client)
            if backlog:
                while self._pump(wait=_BACKLOG_WAIT):
                    pass
        self._thread.start()

    def leave(self) -> None:
        """No longer present (see the module docstring)."""
        present, self._present = self._present, None
        if present is not None:
            present.disconnect()

    def stop(self, *, remove: bool = False) -> None:
        """Stop moving. The native subscription ends (a durable one stays for the next
        subscriber unless ``remove``); what it had pushed to us unmoved goes back to it."""
        self.leave()
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(10.0)
        client, self._client = self._client, None
        if client is None:
            return
        try:
            if self._sub is not None and not client.lost:
                client.unsubscribe(self._sub)  # deactivate: unacknowledged ones go back
                if remove and self.durable_name:
                    client.remove_durable(self.durable_name)
        except (ConnectionLost, BrokerError) as exc:
            log.warning("stomp.feed_close_failed", topic=self.topic, error=str(exc))
        finally:
            client.disconnect()

    # ------------------------------------------------------------------ the thread
    def _subscribe(self, client: StompClient) -> None:
        headers = {"activemq.prefetchSize": PREFETCH}
        if self.durable_name:
            headers["activemq.subscriptionName"] = self.durable_name
        self._sub = client.subscribe_confirmed(self.topic, headers, "client-individual")

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                lost = self._client is None or self._client.lost
                if lost and not self._connect():
                    self._stop.wait(TAKEOVER)
                    continue
                self._pump()
            except (ConnectionLost, BrokerError) as exc:
                log.warning("stomp.feed_interrupted", topic=self.topic, error=str(exc))
                if self._client is not None:
                    with contextlib.suppress(Exception):
                        self._client.disconnect()
                self._client = None
                self._stop.wait(TAKEOVER)
            except Exception as exc:  # the feed must not die silently
                log.error("stomp.feed_failed", topic=self.topic, error=repr(exc), exc_info=exc)
                self._stop.wait(TAKEOVER)

    def take_over(self) -> bool:
        """Hold the subscription now if nobody else does (a shared one's consumer that must
        remove it); False while another connection holds its client id."""
        return self.connected or self._connect()

    def _connect(self) -> bool:
        """Connect and subscribe; False while another connection holds the client id."""
        with self._connecting:
            if self.connected:
                return True
            return self._connect_now()

    def _connect_now(self) -> bool:
        try:
            client = connect_feed(self.params, self.client_id)
        except ClientIdInUse:
            return False
        except (ConnectionLost, ConnectRefused) as exc:
            log.warning("stomp.feed_connect_failed", topic=self.topic, error=str(exc))
            return False
        self._client = client
        self._subscribe(client)
        log.info("stomp.feed_connected", topic=self.topic, queue=self.queue)
        return True

    def _pump(self, wait: float = _STEP) -> bool:
        """Move what has arrived (waiting ``wait`` for the first); False when nothing did."""
        client, sub = self._client, self._sub
        assert client is not None and sub is not None
        first = client.take(sub, wait)
        if first is None:
            return False
        batch = [first]
        while len(batch) < _BATCH and (more := client.take(sub, 0)) is not None:
            batch.append(more)
        self._move(client, batch)
        return True

    def _move(self, client: StompClient, frames: list[Frame]) -> None:
        """ACK each message on the topic and SEND it to the managed queue, in one
        transaction: a crash leaves it on the one or the other, never both or neither."""
        tx = client.new_id("tx")
        client.begin(tx)
        try:
            for frame in frames:
                destination = frame.headers.get("destination", "")
                topic = self._topic_string(destination) if self._topic_string else None
                headers, body = release.copy_of(
                    frame,
                    _count(frame),
                    self.prefix,
                    self.params,
                    msg_id=self._new_msg_id(),
                    topic_string=topic or None,
                )
                client.send(self.queue, headers, body, transaction=tx)
                client.ack(frame.ack_id, transaction=tx)
            client.commit(tx)
        except BrokerError:
            with contextlib.suppress(ConnectionLost, BrokerError):
                client.abort(tx)
            raise
        self.moved += len(frames)


def _count(frame: Frame) -> int:
    """The BackoutCount a publication carries (0 unless it was published with one): the
    feed's own redeliveries are not deliveries to an application and count nothing."""
    try:
        return int(frame.headers.get(mapping.H_BACKOUT, "0"))
    except ValueError:
        return 0
