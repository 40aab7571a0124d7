"""Declared capabilities and ConnectionWrapper (issue 8): a wrapper keeps the optional
calls of the connection it wraps, and a caller asks ``capabilities``, never getattr."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager
from mqjms.semantics import (
    Capability,
    Connection,
    ConnectionWrapper,
    commit_and_get,
    put_warning,
)
from mqjms.transport import connect

Q = "WRAP.Q"
IN = C.MQOO_INPUT_SHARED


class WithoutCombinedCalls(ConnectionWrapper):
    """A wrapper that must see every MQCMIT and MQGET: it narrows its capabilities."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities - {Capability.COMMIT_AND_GET, Capability.PUT_WARNINGS}


class Unreserved(ConnectionWrapper):
    """A wrapper that offers no reservations."""

    @property
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities - {Capability.RESERVE}


@pytest.fixture
def conn(qm: QueueManager, embedded_url: str) -> Iterator[Connection]:
    qm.define_queue("QLOCAL", Q, {})
    inner = connect(embedded_url)
    yield inner
    inner.disconnect()


def test_a_wrapper_declares_what_it_wraps(conn: Connection) -> None:
    wrapped = ConnectionWrapper(conn)
    assert wrapped.capabilities == conn.capabilities
    assert Capability.COMMIT_AND_GET in wrapped.capabilities
    assert wrapped.qmgr_name == conn.qmgr_name
    assert repr(wrapped).startswith("ConnectionWrapper(")


def test_put_warning_reaches_through_a_wrapper(conn: Connection) -> None:
    # MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049) is an MQCC_WARNING: the put succeeded
    wrapped = ConnectionWrapper(conn)
    wrapped.put(Q, MQMD(Priority=12), b"high")
    warning = put_warning(wrapped)
    assert warning is not None and warning.reason == C.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    wrapped.put(Q, MQMD(Priority=3), b"fine")
    assert put_warning(wrapped) is None
    narrowed = WithoutCombinedCalls(conn)
    narrowed.put(Q, MQMD(Priority=12), b"high")
    assert put_warning(narrowed) is None  # not declared: never a warning


def test_commit_and_get_in_one_step_through_a_wrapper(conn: Connection) -> None:
    for body in (b"one", b"two"):
        conn.put(Q, MQMD(), body)
    wrapped = ConnectionWrapper(conn)
    handle = wrapped.open(Q, IN)
    first = wrapped.get(handle, syncpoint=True)
    assert first is not None and first[1] == b"one"
    second = commit_and_get(wrapped, handle, wait=0)
    assert second is not None and second[1] == b"two"
    wrapped.commit()
    wrapped.close(handle)


def test_a_narrowed_wrapper_makes_the_two_calls(conn: Connection) -> None:
    for body in (b"one", b"two"):
        conn.put(Q, MQMD(), body)
    narrowed = WithoutCombinedCalls(conn)
    handle = narrowed.open(Q, IN)
    assert narrowed.get(handle, syncpoint=True) is not None
    committed: list[bool] = []
    got = commit_and_get(narrowed, handle, wait=0, committed=lambda: committed.append(True))
    assert got is not None and got[1] == b"two" and committed == [True]
    with pytest.raises(MQError) as err:  # the optional call itself is refused, clearly
        narrowed.commit_and_get(handle)
    assert err.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED
    assert "does not declare commit_and_get" in err.value.detail
    narrowed.backout()
    narrowed.close(handle)


def test_reservations_reach_through_a_wrapper(conn: Connection) -> None:
    # Capability.RESERVE (the Spark source stages on the queue): a wrapper of a connection
    # that declares it offers every call; one that narrows it refuses them with 2298
    for body in (b"m0", b"m1", b"m2"):
        conn.put(Q, MQMD(), body)
    wrapped = ConnectionWrapper(conn)
    assert Capability.RESERVE in wrapped.capabilities
    handle = wrapped.open(Q, IN)
    assert wrapped.reserve(handle, "owner", 2) == 2
    assert [data for _, _, _, data in wrapped.reserved("owner", 0, 2)] == [b"m0", b"m1"]
    assert wrapped.reservation_end("owner") == 2
    assert wrapped.reservation_count("owner") == 2
    assert wrapped.renumber_reserved("owner", [1], tag=5, backout=1) == [3]
    assert wrapped.reserved_numbers("owner", 0, 10) == [(2, 0, 0), (3, 5, 1)]
    got = wrapped.get_reserved("owner", 2)
    assert got is not None and got[1] == b"m1"
    wrapped.commit()
    assert wrapped.release_reserved("owner", 3) == 1
    assert wrapped.give_back_reserved("owner") == 0
    narrowed = Unreserved(conn)
    with pytest.raises(MQError) as err:
        narrowed.reserve(handle, "other", 1)
    assert err.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED
    wrapped.close(handle)
