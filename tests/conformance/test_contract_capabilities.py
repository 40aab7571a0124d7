"""Declared capabilities (issue 8): every connection says what it offers, the Broker
helper's features are those declarations, and the contract's helpers give one outcome
whatever a transport declares."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from mqjms.mq import MQMD, C
from mqjms.semantics import Capability, ConnectionWrapper, commit_and_get, interrupt_wait
from mqjms.transport import Connection

IN = C.MQOO_INPUT_AS_Q_DEF


def test_capabilities_are_declared_and_are_the_brokers_features(conn: Connection, broker) -> None:
    declared = conn.capabilities
    assert isinstance(declared, frozenset)
    assert all(isinstance(capability, Capability) for capability in declared)
    assert {str(capability) for capability in declared} <= broker.features
    assert ConnectionWrapper(conn).capabilities == declared


def test_commit_and_get_is_a_commit_then_a_get(conn: Connection, queue: str) -> None:
    # in one step (embedded) or two calls (STOMP): the first message is gone for good, the
    # second is got in the new unit of work, and a backout returns it
    for body in (b"first", b"second"):
        conn.put(queue, MQMD(), body)
    handle = conn.open(queue, IN)
    first = conn.get(handle, wait=5.0, syncpoint=True)
    assert first is not None and first[1] == b"first"
    committed: list[bool] = []
    second = commit_and_get(
        ConnectionWrapper(conn), handle, wait=5.0, committed=lambda: committed.append(True)
    )
    assert committed == [True]
    assert second is not None and second[1] == b"second"
    conn.backout()
    again = conn.get(handle, wait=5.0, syncpoint=True)
    assert again is not None and again[1] == b"second" and again[0].BackoutCount == 1
    conn.commit()
    assert conn.get(handle, wait=0.5) is None
    conn.close(handle)


@pytest.mark.requires("interrupt_wait")
def test_interrupt_wait_ends_a_get_that_waits_and_is_used_up(
    connections: Callable[..., Connection], queue: str
) -> None:
    # issue 9: a worker's stop ends its consumers' long waits, rather than their polling
    conn, producer = connections(), connections()
    handle = conn.open(queue, IN)
    ended: list[tuple[MQMD, bytes] | None] = []

    def get() -> None:
        ended.append(conn.get(handle, wait=120.0))

    waiting = threading.Thread(target=get)
    waiting.start()
    time.sleep(1.0)  # in its wait
    assert interrupt_wait(conn)
    waiting.join(30)
    assert not waiting.is_alive(), "interrupt_wait did not end the get"
    assert ended == [None]
    # used up: the next get waits for a message again, and gets it
    again = threading.Thread(target=get)
    again.start()
    time.sleep(1.0)
    assert again.is_alive()
    producer.put(queue, MQMD(), b"after")
    again.join(60)
    assert not again.is_alive() and ended[1] is not None and ended[1][1] == b"after"
    conn.close(handle)
