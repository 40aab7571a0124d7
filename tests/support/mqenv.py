"""The test environment shared by tests/backout and tests/consumer.

:class:`MQEnv` wraps the transport-parametrised ``Broker`` helper of tests/conftest.py
(embedded and STOMP) with what these tests need: the transport URL, queue
definitions with MQSC attributes, queue depths, and raw MQI-style access through
``mqjms.transport.connect(url)`` (to put a message exactly as a plain MQ application
would, or to look at the exact bytes a JMS producer or the poison handler wrote).

Everything goes through the Broker helper and the transport contract, never through a
transport's internals, so the same tests run on every transport.

:class:`SpyConnection` is a transport connection that delegates to a real one and
records what was opened (with which MQOO_* options), inquired and closed: the tests that
check *when* and *how* BOTHRESH/BOQNAME are inquired (seed 002) install it by
monkeypatching ``mqjms.transport.connect``.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

import mqjms
import mqjms.transport
from mqjms.mq import MQMD, C, MQError
from mqjms.transport import Browse, Connection, Handle, connect

if TYPE_CHECKING:
    from tests.conftest import Broker

IN = C.MQOO_INPUT_SHARED
BROWSE = C.MQOO_BROWSE
INQ = C.MQOO_INQUIRE


class MQEnv:
    """url + define/alter + depth + raw connections, over a ``Broker`` helper."""

    def __init__(self, broker: Broker) -> None:
        self.broker = broker
        self._raw: list[Connection] = []
        self._admin: Connection | None = None
        self._factories: list[mqjms.Connection] = []

    # ------------------------------------------------------------------ administration
    @property
    def url(self) -> str:
        return str(self.broker.url)

    def define_queue(self, name: str, **attrs: object) -> str:
        self.broker.define_queue(name, **attrs)
        return name

    def define_alias(self, name: str, target: str, **attrs: object) -> str:
        self.broker.define_alias(name, target, **attrs)
        return name

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.broker.alter_queue(name, **attrs)

    def alter_qmgr(self, **attrs: object) -> None:
        self.broker.alter_qmgr(**attrs)

    def define_model(self, name: str, **attrs: object) -> str:
        self.broker.define_model(name, **attrs)
        return name

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> str:
        self.broker.define_topic(name, topic_string, **attrs)
        return name

    def delete_queue(self, name: str) -> None:
        """DELETE QLOCAL(name) PURGE (the admin connection must not hold it open)."""
        self.broker.delete_queue(name)

    @property
    def admin(self) -> Connection:
        """One raw connection used for looking (depth, browse, qmgr name)."""
        if self._admin is None:
            self._admin = self.raw_connection()
        return self._admin

    def depth(self, name: str) -> int:
        """CURDEPTH (MQINQ MQIA_CURRENT_Q_DEPTH): committed and uncommitted messages."""
        value = self.admin.inquire(name, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH]
        return int(value)

    @property
    def qmgr_name(self) -> str:
        return self.admin.qmgr_name

    def dead_letter_queue(self) -> str:
        name = self.admin.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME])[C.MQCA_DEAD_LETTER_Q_NAME]
        return str(name).strip()

    # ------------------------------------------------------------------ raw MQI access
    def raw_connection(self, appl_name: str | None = None) -> Connection:
        """A transport connection (hconn) of its own, disconnected after the test."""
        conn = connect(self.url, appl_name)
        self._raw.append(conn)
        return conn

    def put_raw(self, queue: str, data: bytes, md: MQMD | None = None, **md_fields: Any) -> MQMD:
        """MQPUT1 outside any unit of work, as a plain MQ application puts."""
        md = (md or MQMD()).copy(**md_fields)
        return self.raw_connection("raw-putter").put(queue, md, data)

    def get_raw(self, queue: str, wait: float = 0.0) -> tuple[MQMD, bytes] | None:
        """A destructive MQGET outside syncpoint on a connection of its own."""
        conn = self.raw_connection()
        handle = conn.open(queue, IN)
        try:
            return conn.get(handle, wait=wait)
        finally:
            conn.close(handle)

    def browse(self, queue: str) -> list[tuple[MQMD, bytes]]:
        """Every available message of ``queue``, in delivery order, left where it is."""
        conn = self.admin
        handle = conn.open(queue, BROWSE)
        out: list[tuple[MQMD, bytes]] = []
        try:
            got = conn.get(handle, browse=Browse.FIRST)
            while got is not None:
                out.append(got)
                got = conn.get(handle, browse=Browse.NEXT)
        finally:
            conn.close(handle)
        return out

    def browse_one(self, queue: str) -> tuple[MQMD, bytes]:
        found = self.browse(queue)
        assert len(found) == 1, f"{queue} holds {len(found)} available messages, expected 1"
        return found[0]

    def back_out(self, queue: str, times: int) -> MQMD:
        """Raise the first message's BackoutCount by ``times`` with MQGET under syncpoint
        + MQBACK on the raw transport (no JMS layer, so no poison handling and no
        inquiry). Returns the MQMD of the last get."""
        conn = self.raw_connection("raw-backout")
        handle = conn.open(queue, IN)
        last: MQMD | None = None
        try:
            for _ in range(times):
                got = conn.get(handle, wait=1.0, syncpoint=True)
                assert got is not None, f"no message on {queue} to back out"
                last = got[0]
                conn.backout()
        finally:
            conn.close(handle)
        assert last is not None
        return last

    # ------------------------------------------------------------------ JMS API
    def factory(self, **kwargs: Any) -> mqjms.ConnectionFactory:
        return mqjms.ConnectionFactory(self.url, **kwargs)

    def connect(self, factory: mqjms.ConnectionFactory | None = None) -> mqjms.Connection:
        """A JMS connection closed after the test (closing rolls back open work)."""
        connection = (factory or self.factory()).connect()
        self._factories.append(connection)
        return connection

    def send(self, queue: str | mqjms.Queue, body: Any = "poison", **kwargs: Any) -> mqjms.Message:
        """Send one message with a JMS producer in an AUTO_ACKNOWLEDGE session."""
        connection = self.connect()
        with connection.session() as session:
            return session.producer(queue).send(body, **kwargs)

    # ------------------------------------------------------------------ cleanup
    def close(self) -> None:
        for connection in self._factories:
            with contextlib.suppress(Exception):
                connection.close()
        for conn in self._raw:
            with contextlib.suppress(MQError):
                conn.disconnect()
        self._raw.clear()
        self._admin = None


# --------------------------------------------------------------------------- the spy
@dataclass
class SpyLog:
    """What every spied connection did, in order."""

    opens: list[tuple[str, int, str]] = field(default_factory=list)  # (queue, options, resolved)
    inquiries: list[tuple[str, tuple[int, ...], int]] = field(default_factory=list)  # handle opts
    qmgr_inquiries: list[tuple[int, ...]] = field(default_factory=list)
    closes: list[str] = field(default_factory=list)
    connections: int = 0
    fail_inquire: list[MQError] = field(default_factory=list)  # raised by the next inquire

    def inquiry_opens(self) -> list[tuple[str, int, str]]:
        return [o for o in self.opens if o[1] & C.MQOO_INQUIRE]

    def backout_inquiries(self) -> list[str]:
        """Queues whose BOTHRESH/BOQNAME were inquired, one entry per MQINQ."""
        return [
            q
            for q, sel, _ in self.inquiries
            if C.MQIA_BACKOUT_THRESHOLD in sel or C.MQCA_BACKOUT_REQ_Q_NAME in sel
        ]


class SpyConnection:
    """Delegates every call to a real transport connection and records opens/inquiries."""

    def __init__(self, real: Connection, log: SpyLog) -> None:
        self._real = real
        self._log = log

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    @property
    def qmgr_name(self) -> str:
        return self._real.qmgr_name

    def open(self, queue: str, options: int, **kwargs: Any) -> Handle:
        handle = self._real.open(queue, options, **kwargs)
        self._log.opens.append((queue, options, handle.resolved_name))
        return handle

    def close(self, handle: Handle) -> None:
        self._log.closes.append(handle.name)
        self._real.close(handle)

    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        if isinstance(queue, Handle):
            name, options = queue.name, queue.options
        else:
            name, options = queue, 0
        self._log.inquiries.append((name, tuple(selectors), options))
        if self._log.fail_inquire:
            raise self._log.fail_inquire.pop(0)
        return self._real.inquire(queue, selectors)

    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        self._log.qmgr_inquiries.append(tuple(selectors))
        return self._real.inquire_qmgr(selectors)


def install_spy(monkeypatch: pytest.MonkeyPatch) -> SpyLog:
    """Every connection the JMS layer makes from now on is a SpyConnection."""
    log = SpyLog()
    real_connect: Callable[..., Connection] = mqjms.transport.connect

    def spying_connect(url: str | None = None, appl_name: str | None = None) -> Any:
        log.connections += 1
        return SpyConnection(real_connect(url, appl_name), log)

    monkeypatch.setattr(mqjms.transport, "connect", spying_connect)
    return log


def wait_until(predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def env_fixture(broker: Broker) -> Iterator[MQEnv]:
    env = MQEnv(broker)
    try:
        yield env
    finally:
        env.close()
