"""One STOMP 1.2 session on stomp.py, made synchronous: frames per subscription, receipts,
errors, and a clear signal when the connection is lost.

stomp.py calls back on its receiver thread; this class turns those callbacks into state
that the (single) thread using a connection waits on. Nothing here knows about MQ.
"""

from __future__ import annotations

import itertools
import os
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import stomp  # type: ignore[import-untyped]
import stomp.exception  # type: ignore[import-untyped]
import stomp.utils  # type: ignore[import-untyped]

from mqjms.logs import get_logger

from . import broker_ids, logbridge
from .config import StompParams

log = get_logger("mqjms.transport.stomp")
logbridge.install()


class ConnectionLost(Exception):
    """The STOMP connection is gone (broker stopped, network, socket error)."""


class WaitInterrupted(Exception):
    """A take that waited was ended from another thread (``until`` became true)."""


class BrokerError(Exception):
    """The broker answered a frame with ERROR."""

    def __init__(self, message: str, detail: str = "") -> None:
        self.message = message
        self.detail = detail
        super().__init__(f"{message}: {detail}" if detail else message)


class ConnectRefused(Exception):
    """The broker refused the CONNECT (for example: bad credentials)."""


class ConnectTimeout(ConnectionLost):
    """Nothing answered the CONNECT within the connect deadline."""


class TlsSetupError(Exception):
    """A TLS file the URL names (``ca=``, ``cert=``, ``key=``) cannot be read: stomp.py
    would retry opening it for ever."""


def _check_tls_files(params: StompParams) -> None:
    """Load the TLS files the URL names as the handshake will, so that one that is not a
    certificate or key (or not readable) is a TlsSetupError naming it now: stomp.py
    would retry for ever, or report only that it cannot connect."""
    files = (("ca", params.ca_file), ("cert", params.cert_file), ("key", params.key_file))
    for name, path in files:
        if path and not os.access(path, os.R_OK):
            raise TlsSetupError(f"{name}={path}: no such file, or it cannot be read")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if params.ca_file:
        try:
            context.load_verify_locations(cafile=params.ca_file)
        except (ssl.SSLError, OSError) as exc:
            raise TlsSetupError(f"ca={params.ca_file}: no CA certificate in it ({exc})") from None
    if params.cert_file:
        try:
            context.load_cert_chain(params.cert_file, params.key_file)
        except (ssl.SSLError, OSError) as exc:
            key = f" with key={params.key_file}" if params.key_file else ""
            raise TlsSetupError(
                f"cert={params.cert_file}{key}: not a certificate and its key ({exc})"
            ) from None


@dataclass(slots=True)
class Frame:
    """A received MESSAGE: its headers and body (bytes, never decoded)."""

    headers: dict[str, str]
    body: bytes
    received: float = field(default_factory=time.monotonic)
    converted: Any = None  # what .bodies found an empty frame from another client to be

    @property
    def message_id(self) -> str:
        return self.headers.get("message-id", "")

    @property
    def ack_id(self) -> str:
        return self.headers.get("ack") or self.headers.get("message-id", "")


#: A message to put in place of a held one: (its ack id, destination, headers, body).
Replacement = tuple[str, str, Mapping[str, str], bytes]


def _send_headers(
    headers: Mapping[str, str], body: bytes, transaction: str | None
) -> dict[str, str]:
    out = dict(headers)
    if "content-type" not in out or b"\x00" in body:
        out["content-length"] = str(len(body))
    if transaction is not None:
        out["transaction"] = transaction
    return out


class _Listener(stomp.ConnectionListener):  # type: ignore[misc]
    def __init__(self, client: StompClient) -> None:
        self.client = client

    def on_connected(self, frame: Any) -> None:
        self.client._on_connected(frame.headers)

    def on_message(self, frame: Any) -> None:
        self.client._on_message(frame)

    def on_receipt(self, frame: Any) -> None:
        self.client._on_receipt(frame)

    def on_error(self, frame: Any) -> None:
        self.client._on_error(frame)

    def on_disconnected(self) -> None:
        self.client._on_lost()


class StompClient:
    """A connected STOMP session. Used by one thread at a time (plus stomp.py's receiver)."""

    def __init__(self, params: StompParams, *, client_id: str | None = None) -> None:
        self.params = params
        self.client_id = client_id  # the CONNECT's client-id (durable topic subscriptions)
        self._cond = threading.Condition()
        self._frames: dict[str, deque[Frame]] = {}
        self._destinations: dict[str, str] = {}
        self._receipts: set[str] = set()
        self._receipt_errors: dict[str, BrokerError] = {}
        self.errors: deque[BrokerError] = deque(maxlen=50)
        self.stray: deque[Frame] = deque(maxlen=1000)  # frames for closed subscriptions
        self._ids = itertools.count(1)
        self._lost = False
        self._closing = False
        self._connected = False  # CONNECTED received: from then on, losses are news
        self.server = ""
        self.session = ""  # the CONNECTED frame's session (ActiveMQ: the connection id)
        self._sends = 0  # SEND frames written: ActiveMQ numbers message-ids by them
        #: A lost connection is no news (a probe the broker may close: see .bodies).
        self.loss_expected = False
        conn = stomp.Connection12(
            [(params.host, params.port)],
            reconnect_attempts_max=1,
            heartbeats=(params.heartbeat_ms, params.heartbeat_ms),
            auto_decode=False,
            auto_content_length=False,
            vhost=params.vhost,
            timeout=params.connect_timeout,  # TCP connect and TLS handshake
        )
        if params.ssl:
            _check_tls_files(params)
            conn.set_ssl(
                for_hosts=[(params.host, params.port)],
                key_file=params.key_file,
                cert_file=params.cert_file,
                ca_certs=params.ca_file or ssl.get_default_verify_paths().cafile,
                verify=params.verify,
            )
        conn.set_listener("mqjms", _Listener(self))
        self._conn = conn
        self._connect()
        sock = getattr(conn.transport, "socket", None)
        if sock is not None:
            # stomp.py leaves Nagle on: each unit of work would stall ~40 ms (reference §j).
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def _connect(self) -> None:
        """CONNECT and wait for CONNECTED until the connect deadline. stomp.py's own wait
        has none: a port that accepts TCP and never answers would hang us for ever."""
        params = self.params
        deadline = time.monotonic() + params.connect_timeout
        try:
            headers = {"client-id": self.client_id} if self.client_id else {}
            self._conn.connect(params.user, params.password, wait=False, headers=headers)
        except stomp.exception.ConnectFailedException:
            self._stop_quietly()
            hint = (
                " (nothing listening there, or no TLS handshake: is it the broker's TLS "
                "port, and does ca= hold the certificate that signed the broker's?)"
                if params.ssl
                else " (is the broker running and listening there?)"
            )
            raise ConnectionLost(f"cannot connect to {params.safe_url}{hint}") from None
        except stomp.exception.NotConnectedException:  # it closed before CONNECT was sent
            self._stop_quietly()
            raise ConnectionLost(
                f"{params.safe_url} closed the connection before CONNECT (is it starting "
                "or stopping?)"
            ) from None
        except OSError as exc:
            self._stop_quietly()
            raise ConnectionLost(f"cannot connect to {params.safe_url}: {exc}") from None
        with self._cond:
            while not (self._connected or self._lost or self.errors):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            connected, lost = self._connected, self._lost
            error = self.errors[-1] if self.errors else None
        if connected:
            return
        self._stop_quietly()
        if error is not None:
            raise ConnectRefused(error.message)
        if lost:
            raise ConnectionLost(f"{params.safe_url} closed the connection before CONNECTED")
        raise ConnectTimeout(
            f"{params.safe_url} accepted the connection but did not answer CONNECT in "
            f"{params.connect_timeout:g} s (connect_timeout): is it a STOMP broker?"
        )

    # ------------------------------------------------------------------ callbacks
    def _on_connected(self, headers: Mapping[str, str]) -> None:
        with self._cond:
            self.server = headers.get("server", "")
            self.session = headers.get("session", "")
            self._connected = True
            self._cond.notify_all()

    def _on_message(self, frame: Any) -> None:
        body = frame.body if isinstance(frame.body, bytes) else (frame.body or "").encode()
        received = Frame(dict(frame.headers), body)
        sub = received.headers.get("subscription", "")
        with self._cond:
            queue = self._frames.get(sub)
            if queue is None:
                self.stray.append(received)
            else:
                queue.append(received)
            self._cond.notify_all()

    def _on_receipt(self, frame: Any) -> None:
        with self._cond:
            self._receipts.add(frame.headers.get("receipt-id", ""))
            self._cond.notify_all()

    def _on_error(self, frame: Any) -> None:
        body = frame.body.decode("utf-8", "replace") if isinstance(frame.body, bytes) else ""
        error = BrokerError(frame.headers.get("message", "broker error"), body.strip()[:500])
        with self._cond:
            self.errors.append(error)
            receipt = frame.headers.get("receipt-id")
            if receipt:
                self._receipt_errors[receipt] = error
                self._receipts.add(receipt)
            self._cond.notify_all()
        if self._connected:  # a refused CONNECT is raised as MQRC_NOT_AUTHORIZED instead
            log.warning("stomp.broker_error", url=self.params.safe_url, message=error.message)

    def _on_lost(self) -> None:
        with self._cond:
            self._lost = True
            self._cond.notify_all()
        if self._connected and not self._closing and not self.loss_expected:
            log.warning("stomp.connection_lost", url=self.params.safe_url)

    # ------------------------------------------------------------------ state
    @property
    def lost(self) -> bool:
        return self._lost or not self._conn.is_connected()

    def check(self) -> None:
        if self.lost:
            raise ConnectionLost(f"connection to {self.params.safe_url} lost")

    def new_id(self, kind: str) -> str:
        return f"{kind}-{next(self._ids)}"

    def _count_send(self) -> str | None:
        """Count a SEND about to be written; the message-id ActiveMQ will give it (None
        on another broker: see :mod:`.broker_ids`)."""
        self._sends += 1
        if not self.server.startswith("ActiveMQ/") or not self.session:
            return None
        return broker_ids.predicted_id(self.session, self._sends)

    # ------------------------------------------------------------------ frames out
    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.check()
        try:
            fn(*args, **kwargs)
        except (stomp.exception.NotConnectedException, OSError) as exc:
            self._on_lost()
            raise ConnectionLost(f"connection to {self.params.safe_url} lost: {exc}") from None

    def subscribe(self, destination: str, headers: Mapping[str, str], ack: str) -> str:
        sub = self.new_id("sub")
        with self._cond:
            self._frames[sub] = deque()
            self._destinations[sub] = destination
        self._call(self._conn.subscribe, destination, sub, ack=ack, headers=dict(headers))
        return sub

    def subscribe_confirmed(self, destination: str, headers: Mapping[str, str], ack: str) -> str:
        """SUBSCRIBE and wait for the broker's receipt: from then on nothing published to
        ``destination`` is missed (a topic subscription sees only what comes after it)."""
        receipt = self.new_id("r")
        sub = self.subscribe(destination, {**headers, "receipt": receipt}, ack)
        self.wait_receipt(receipt)
        return sub

    def remove_durable(self, name: str) -> None:
        """Delete the inactive durable topic subscription ``name`` of this connection's
        client id (UNSUBSCRIBE with ``activemq.subscriptionName``)."""
        receipt = self.new_id("r")
        headers = {"activemq.subscriptionName": name, "receipt": receipt}
        self._call(self._conn.unsubscribe, self.new_id("remove"), headers=headers)
        self.wait_receipt(receipt)

    def unsubscribe(self, sub: str, *, wait: bool = True) -> list[Frame]:
        """UNSUBSCRIBE; returns the frames that had arrived for it and were not taken."""
        if wait and not self.lost:
            receipt = self.new_id("r")
            self._call(self._conn.unsubscribe, sub, headers={"receipt": receipt})
            self.wait_receipt(receipt)
        elif not self.lost:
            self._call(self._conn.unsubscribe, sub)
        with self._cond:
            left = self._frames.pop(sub, deque())
            self._destinations.pop(sub, None)
        return list(left)

    def release(self, sub: str, replacements: Sequence[Replacement]) -> list[Frame]:
        """UNSUBSCRIBE ``sub`` after replacing messages it holds, atomically: BEGIN, for
        each ACK it and SEND its replacement in the transaction, UNSUBSCRIBE, COMMIT, in
        one write (the transaction outlives the subscription). Returns the frames that
        arrived for ``sub`` and were not replaced: the broker took those back."""
        if not replacements:
            return self.unsubscribe(sub)
        tx, unsubscribed, committed = self.new_id("tx"), self.new_id("r"), self.new_id("r")
        frames: list[tuple[str, dict[str, str], bytes]] = [("BEGIN", {"transaction": tx}, b"")]
        for ack_id, destination, headers, body in replacements:
            frames.append(("ACK", {"id": ack_id, "transaction": tx}, b""))
            self._count_send()
            out = _send_headers(headers, body, tx)
            out["destination"] = destination
            frames.append(("SEND", out, body))
        frames.append(("UNSUBSCRIBE", {"id": sub, "receipt": unsubscribed}, b""))
        frames.append(("COMMIT", {"transaction": tx, "receipt": committed}, b""))
        try:
            self._write(frames)
            self.wait_receipt(unsubscribed)
            self.wait_receipt(committed)
        finally:
            with self._cond:
                left = list(self._frames.pop(sub, ()))
                self._destinations.pop(sub, None)
                late = [f for f in self.stray if f.headers.get("subscription") == sub]
                for frame in late:
                    self.stray.remove(frame)
        return left + late

    def held(self, sub: str) -> list[Frame]:
        """Take every frame that has arrived for ``sub`` and was not taken yet."""
        with self._cond:
            queue = self._frames.get(sub)
            if not queue:
                return []
            out = list(queue)
            queue.clear()
            return out

    def send(
        self,
        destination: str,
        headers: Mapping[str, str],
        body: bytes,
        *,
        transaction: str | None = None,
        receipt: bool = False,
    ) -> str | None:
        """SEND; returns the message-id the broker gives the message when it is known
        (ActiveMQ), else None."""
        out = _send_headers(headers, body, transaction)
        rid = None
        if receipt:
            rid = self.new_id("r")
            out["receipt"] = rid
        message_id = self._count_send()
        self._call(self._conn.send, destination, body, headers=out)
        if rid is not None:
            self.wait_receipt(rid)
        return message_id

    def ack(self, ack_id: str, *, transaction: str | None = None, receipt: bool = False) -> None:
        rid = self.new_id("r") if receipt else None
        self._call(self._conn.ack, ack_id, transaction=transaction, receipt=rid)
        if rid is not None:
            self.wait_receipt(rid)

    def begin(self, transaction: str) -> None:
        self._call(self._conn.begin, transaction)

    def commit(self, transaction: str) -> None:
        rid = self.new_id("r")
        self._call(self._conn.commit, transaction, headers={"receipt": rid})
        self.wait_receipt(rid)

    def abort(self, transaction: str, *, receipt: bool = False) -> None:
        rid = self.new_id("r") if receipt else None
        headers = {"receipt": rid} if rid else None
        self._call(self._conn.abort, transaction, headers=headers)
        if rid is not None:
            self.wait_receipt(rid)

    def commit_acks(self, transaction: str, acks: list[str], *, begin: bool) -> None:
        """[BEGIN,] ACK each, COMMIT with a receipt: one write to the socket (a unit of
        work is several small frames; sending them together saves a syscall and a thread
        switch each), then wait for the receipt."""
        rid = self.new_id("r")
        frames: list[tuple[str, dict[str, str]]] = []
        if begin:
            frames.append(("BEGIN", {"transaction": transaction}))
        frames += [("ACK", {"id": ack, "transaction": transaction}) for ack in acks]
        frames.append(("COMMIT", {"transaction": transaction, "receipt": rid}))
        self._write([(cmd, headers, b"") for cmd, headers in frames])
        self.wait_receipt(rid)

    def _write(self, frames: Sequence[tuple[str, dict[str, str], bytes]]) -> None:
        """Send several frames in one write to the socket."""
        transport = self._conn.transport
        if getattr(transport, "blocking", True) is False:  # TLS: stomp.py's io thread writes
            for cmd, headers, body in frames:
                self._call(self._conn.send_frame, cmd, headers, body)
            return
        for _, headers, _ in frames:
            self._conn._escape_headers(headers)  # STOMP 1.2: ':' in an ack id is \c
        packed = b"".join(
            stomp.utils.pack(stomp.utils.convert_frame(stomp.utils.Frame(cmd, headers, body)))
            for cmd, headers, body in frames
        )
        self._call(transport.send, packed)

    def wait_receipt(self, receipt: str, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (timeout or self.params.receipt_timeout)
        with self._cond:
            while receipt not in self._receipts:
                if self._lost:
                    raise ConnectionLost(f"connection to {self.params.safe_url} lost")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ConnectionLost(
                        f"no RECEIPT from {self.params.safe_url} in "
                        f"{self.params.receipt_timeout:g} s"
                    )
                self._cond.wait(remaining)
            self._receipts.discard(receipt)
            error = self._receipt_errors.pop(receipt, None)
        if error is not None:
            raise error

    # ------------------------------------------------------------------ frames in
    def take(
        self, sub: str, timeout: float | None, until: Callable[[], bool] | None = None
    ) -> Frame | None:
        """The next frame for ``sub``, waiting up to ``timeout`` (None: no limit); raises
        :class:`WaitInterrupted` once ``until()`` is true (read under the lock, so a
        :meth:`nudge` after its change is never missed) and no frame is there."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                queue = self._frames.get(sub)
                if queue:
                    return queue.popleft()
                if self._lost:
                    raise ConnectionLost(f"connection to {self.params.safe_url} lost")
                if queue is None:
                    return None
                if until is not None and until():
                    raise WaitInterrupted
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._cond.wait(remaining if remaining is not None else 1.0)

    def nudge(self) -> None:
        """Wake the takes that wait, to look at their ``until``."""
        with self._cond:
            self._cond.notify_all()

    def peek(self, sub: str, timeout: float) -> bool:
        """Wait up to ``timeout`` for a frame for ``sub`` without taking it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not self._frames.get(sub):
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._lost or sub not in self._frames:
                    return False
                self._cond.wait(remaining)
            return True

    def destination_of(self, sub: str) -> str | None:
        return self._destinations.get(sub)

    def buffered(self, sub: str) -> int:
        with self._cond:
            return len(self._frames.get(sub, ()))

    # ------------------------------------------------------------------ closing
    def disconnect(self) -> None:
        self._closing = True
        if not self.lost:
            try:
                receipt = self.new_id("r")
                self._conn.disconnect(receipt=receipt)
                self.wait_receipt(receipt, timeout=2.0)
            except Exception as exc:  # the connection is going anyway
                log.debug("stomp.disconnect_failed", error=repr(exc))
        self._stop_quietly()

    def _stop_quietly(self) -> None:
        self._closing = True
        try:
            self._conn.transport.disconnect_socket()
        except Exception as exc:
            log.debug("stomp.stop_failed", error=repr(exc))
        with self._cond:
            self._lost = True
            self._cond.notify_all()
