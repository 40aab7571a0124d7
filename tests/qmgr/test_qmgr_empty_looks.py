"""A get that polls an empty queue skips the look when nothing can have changed.

After a look of a handle found nothing, the next get of the same messages first reads a
mark: SQLite's ``data_version`` (moved by any other connection's commit, in any process),
the connection's own ``total_changes`` and the process's doorbell. While the mark is the
one read before the empty look, the queue is as that look saw it and the get returns
nothing without a write transaction (a polling consumer's cost, issue 9). Anything that
can make a message available moves the mark: these tests make each happen between two
gets and check that the message is returned at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Browse
from tests.qmgr.qmgr_child import Child

QUEUE = "LOOK.Q"
IN = C.MQOO_INPUT_SHARED


@pytest.fixture
def polled(qm: QueueManager) -> Iterator[tuple[QMConnection, Any]]:
    """A connection whose handle has looked at the empty queue twice (the second look
    read the mark, so the next one may be skipped)."""
    qm.define_queue("QLOCAL", QUEUE)
    conn = qm.connect()
    handle = conn.open(QUEUE, IN | C.MQOO_OUTPUT | C.MQOO_BROWSE)
    assert conn.get(handle) is None
    assert conn.get(handle) is None
    yield conn, handle
    conn.disconnect()


def statements(conn: QMConnection, call: Callable[[], object]) -> list[str]:
    run: list[str] = []
    conn._db.set_trace_callback(run.append)
    try:
        call()
    finally:
        conn._db.set_trace_callback(None)
    return run


def test_a_poll_of_an_unchanged_empty_queue_runs_no_transaction(
    polled: tuple[QMConnection, Any],
) -> None:
    conn, handle = polled
    run = statements(conn, lambda: conn.get(handle))
    assert run == ["PRAGMA data_version"]


def test_a_get_that_finds_messages_reads_no_mark(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", QUEUE)
    conn = qm.connect()
    handle = conn.open(QUEUE, IN | C.MQOO_OUTPUT)
    conn.put(handle, MQMD(), b"one")
    conn.put(handle, MQMD(), b"two")
    assert conn.get(handle) is not None
    run = statements(conn, lambda: conn.get(handle))
    assert "PRAGMA data_version" not in run, run
    conn.disconnect()


def test_a_put_by_another_connection_is_got_by_the_next_poll(
    qm: QueueManager, polled: tuple[QMConnection, Any]
) -> None:
    conn, handle = polled
    other = qm.connect()
    other.put(QUEUE, MQMD(), b"from another connection")
    got = conn.get(handle)
    assert got is not None and got[1] == b"from another connection"
    other.disconnect()


def test_a_put_by_another_queue_manager_object_is_got_by_the_next_poll(
    polled: tuple[QMConnection, Any], tmp_path: Path, qm: QueueManager
) -> None:
    conn, handle = polled
    elsewhere = QueueManager(qm.path)  # its own SQLite connections, as another process's
    putter = elsewhere.connect()
    putter.put(QUEUE, MQMD(), b"from elsewhere")
    got = conn.get(handle)
    assert got is not None and got[1] == b"from elsewhere"
    putter.disconnect()
    elsewhere.close()


def test_a_put_by_another_process_is_got_by_the_next_poll(
    polled: tuple[QMConnection, Any], qm: QueueManager, tmp_path: Path
) -> None:
    conn, handle = polled
    child = Child(tmp_path / "child.log", "put", f"embedded://{qm.path}", QUEUE, "1")
    try:
        child.expect("DONE")
    finally:
        child.kill()
    got = conn.get(handle)
    assert got is not None and got[1] == b"persistent 0"


def test_own_puts_are_got_by_the_next_poll(polled: tuple[QMConnection, Any]) -> None:
    conn, handle = polled
    conn.put(handle, MQMD(), b"mine")
    got = conn.get(handle)
    assert got is not None and got[1] == b"mine"
    assert conn.get(handle) is None
    assert conn.get(handle) is None
    conn.put(handle, MQMD(), b"mine, committed", syncpoint=True)
    assert conn.get(handle) is None  # MQ: not available before MQCMIT, even to its putter
    conn.commit()
    got = conn.get(handle)
    assert got is not None and got[1] == b"mine, committed"


def test_a_backout_elsewhere_returns_the_message_to_the_next_poll(
    qm: QueueManager, polled: tuple[QMConnection, Any]
) -> None:
    conn, handle = polled
    other = qm.connect()
    theirs = other.open(QUEUE, IN | C.MQOO_OUTPUT)
    other.put(theirs, MQMD(), b"backed out")
    assert other.get(theirs, syncpoint=True) is not None
    assert conn.get(handle) is None
    assert conn.get(handle) is None  # marked: in flight elsewhere
    other.backout()
    got = conn.get(handle)
    assert got is not None and got[1] == b"backed out" and got[0].BackoutCount == 1
    other.disconnect()


def test_a_get_inhibit_elsewhere_is_refused_at_the_next_poll(
    qm: QueueManager, polled: tuple[QMConnection, Any]
) -> None:
    conn, handle = polled
    QueueManager(qm.path).alter_queue(QUEUE, {"GET": "DISABLED"})
    with pytest.raises(MQError) as err:
        conn.get(handle)
    assert err.value.reason == C.MQRC_GET_INHIBITED


def test_an_empty_look_for_one_msg_id_says_nothing_of_another(
    polled: tuple[QMConnection, Any],
) -> None:
    conn, handle = polled
    conn.put(handle, MQMD(MsgId=b"B" * 24), b"bee", new_msg_id=False)
    assert conn.get(handle, msg_id=b"A" * 24) is None
    assert conn.get(handle, msg_id=b"A" * 24) is None  # marked for A
    got = conn.get(handle, msg_id=b"B" * 24)
    assert got is not None and got[1] == b"bee"


def test_a_message_unlocked_elsewhere_is_got_by_the_next_poll(
    qm: QueueManager, polled: tuple[QMConnection, Any]
) -> None:
    conn, handle = polled
    other = qm.connect()
    theirs = other.open(QUEUE, IN | C.MQOO_OUTPUT | C.MQOO_BROWSE)
    other.put(theirs, MQMD(), b"locked")
    assert other.get(theirs, browse=Browse.FIRST) is not None
    assert other.lock_browsed(theirs)
    assert conn.get(handle) is None
    assert conn.get(handle) is None  # marked: locked by the other handle
    other.unlock(theirs)
    got = conn.get(handle)
    assert got is not None and got[1] == b"locked"
    other.disconnect()


def test_a_put_during_the_marked_look_is_got_by_the_next_poll(
    qm: QueueManager, polled: tuple[QMConnection, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the worst moment: right after the look that read the mark found nothing
    conn, handle = polled
    conn.put(handle, MQMD(), b"moves the mark")
    assert conn.get(handle) is not None
    assert conn.get(handle) is None  # the first empty look: no mark read
    other = qm.connect()
    original = QMConnection._get_once
    fired = threading.Event()

    def get_once(self: QMConnection, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if self is conn and result is None and not fired.is_set():
            fired.set()
            other.put(QUEUE, MQMD(), b"just after the look")
        return result

    monkeypatch.setattr(QMConnection, "_get_once", get_once)
    assert conn.get(handle) is None  # this look read the mark, then the put landed
    assert fired.is_set()
    got = conn.get(handle)
    assert got is not None and got[1] == b"just after the look"
    other.disconnect()
