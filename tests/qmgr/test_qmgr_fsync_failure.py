"""An fsync that fails after COMMIT: what the caller is told matches what was committed.

Writers commit without an fsync and then wait for a shared one (group commit, see
``mqjms/qmgr/commits.py``), so when that fsync fails (EIO: a failing disk) the transaction
is committed already and every connection sees it; only its durability is in doubt. The
queue manager reports MQRC_RESOURCE_PROBLEM (2102) where the call's outcome allows it,
never so that a message is lost or counted against for nothing:

* MQGET: the message has left its queue (or is in flight in the unit of work), so it is
  returned, and the failure logged; raising would lose it.
* MQCMIT: 2102, and the unit of work has ended (a later MQBACK must not think it holds
  what was committed).
* A consumer's commit-and-get step: 2102 for the commit, and the message the step's get
  took is released with its BackoutCount unchanged (no backout counted against it).

The disk's failure is simulated by making the group's fsync raise EIO once.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QMConnection, QueueManager, commits
from mqjms.semantics import commit_and_get

QUEUE = "FSYNC.Q"
BOQ = "FSYNC.BACKOUT"
PERSISTENT = MQMD(Persistence=C.MQPER_PERSISTENT)


@pytest.fixture
def conn(qm: QueueManager) -> Iterator[QMConnection]:
    qm.define_queue("QLOCAL", QUEUE, {"BOTHRESH": 1, "BOQNAME": BOQ})
    qm.define_queue("QLOCAL", BOQ)
    connection = qm.connect()
    yield connection
    connection.disconnect()


@pytest.fixture
def failing_fsync(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Make the next fsync of the group fail with EIO (``armed[0] = 1``), in any thread or
    in those whose name starts with ``armed[1]`` when given."""
    armed: list[Any] = [0]
    original = commits.GroupSync._fsync

    def fsync(self: commits.GroupSync) -> None:
        if armed[0] and (len(armed) < 2 or threading.current_thread().name.startswith(armed[1])):
            armed[0] = 0
            raise commits._sync_failed(self._wal, OSError(errno.EIO, "Input/output error"))
        original(self)

    monkeypatch.setattr(commits.GroupSync, "_fsync", fsync)
    return armed


def test_a_get_whose_fsync_fails_returns_the_message(
    conn: QMConnection, qm: QueueManager, failing_fsync: list[Any]
) -> None:
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"removed for good")
    failing_fsync[0] = 1
    got = conn.get(handle)  # a persistent message without syncpoint: a durable removal
    assert failing_fsync[0] == 0, "the fsync was not made"
    assert got is not None and got[1] == b"removed for good"
    assert qm.queue_depth(QUEUE) == 0


def test_a_hardenbo_get_whose_fsync_fails_returns_the_message_in_its_unit_of_work(
    conn: QMConnection, qm: QueueManager, failing_fsync: list[Any]
) -> None:
    qm.alter_queue(QUEUE, {"HARDENBO": True, "BOTHRESH": 5})
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"in flight")
    failing_fsync[0] = 1
    got = conn.get(handle, syncpoint=True)  # HARDENBO: its in-flight mark is fsynced
    assert failing_fsync[0] == 0, "the fsync was not made"
    assert got is not None and got[1] == b"in flight"
    assert conn.in_unit_of_work
    conn.backout()
    again = conn.get(handle, syncpoint=True)
    assert again is not None and again[0].BackoutCount == 1
    conn.commit()
    assert qm.queue_depth(QUEUE) == 0


def test_a_commit_whose_fsync_fails_reports_2102_and_ends_the_unit_of_work(
    conn: QMConnection, qm: QueueManager, failing_fsync: list[Any]
) -> None:
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"processed")
    assert conn.get(handle, syncpoint=True) is not None
    failing_fsync[0] = 1
    with pytest.raises(MQError) as err:
        conn.commit()
    assert err.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert not conn.in_unit_of_work  # committed: nothing left to back out
    conn.backout()
    assert qm.queue_depth(QUEUE) == 0


def test_a_step_whose_fsync_fails_releases_the_next_message_uncounted(
    conn: QMConnection, qm: QueueManager, failing_fsync: list[Any]
) -> None:
    # BOTHRESH 1: a backout counted against the next message, which nobody was given,
    # would make it poison at its first delivery
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"first")
    conn.put(handle, PERSISTENT, b"second")
    assert conn.get(handle, syncpoint=True) is not None
    failing_fsync[0] = 1
    with pytest.raises(MQError) as err:
        commit_and_get(conn, handle, wait=0)
    assert err.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert not conn.in_unit_of_work
    conn.backout()  # what a consumer does after a failed commit: nothing is in flight
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == b"second" and got[0].BackoutCount == 0
    conn.commit()
    assert qm.queue_depth(QUEUE) == 0 and qm.queue_depth(BOQ) == 0


def test_a_worker_whose_commit_fsync_fails_moves_no_good_message(
    qm: QueueManager, failing_fsync: list[Any]
) -> None:
    # end to end, at BOTHRESH 1: the commit of the first message fails its fsync; the
    # second message, which the same step had got, is delivered all the same, once
    import mqjms
    from mqjms.testing import TestQueueManager

    qm.define_queue("QLOCAL", QUEUE, {"BOTHRESH": 1, "BOQNAME": BOQ})
    qm.define_queue("QLOCAL", BOQ)
    harness = TestQueueManager(f"embedded://{qm.path}")
    app = mqjms.Worker(harness.url, reconnect_wait=lambda state: 0.01)
    delivered: list[str] = []

    @app.listener(QUEUE)
    def handle(msg: mqjms.Message) -> None:
        delivered.append(msg.body)
        if len(delivered) == 1:  # the commit of this message, with the next get (not a
            failing_fsync[:] = [1, "mqjms-"]  # commit of the harness's, in the main thread)

    harness.send(QUEUE, "first", "second")
    summary = harness.run_until_idle(app, timeout=20)
    assert delivered == ["first", "second"], delivered
    assert failing_fsync[0] == 0, "the fsync was not made"
    assert summary.moved == 0 and qm.queue_depth(BOQ) == 0
    # the first message's commit stands: counted as committed, never as backed out
    assert (summary.committed, summary.backed_out) == (2, 0), summary
    assert qm.queue_depth(QUEUE) == 0
    harness.close()


def test_a_reserved_message_whose_get_fails_its_fsync_is_returned(
    conn: QMConnection, qm: QueueManager, failing_fsync: list[Any]
) -> None:
    # the Spark source's get of a message it reserved: in flight once committed, so it
    # is returned (raising left it in the unit of work, and the next commit deleted it)
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"reserved")
    conn.reserve(handle, "spark:test", 1)
    failing_fsync[0] = 1
    got = conn.get_reserved("spark:test", 1)
    assert failing_fsync[0] == 0, "the fsync was not made"
    assert got is not None and got[1] == b"reserved"
    assert conn.in_unit_of_work
    conn.backout()
    assert qm.queue_depth(QUEUE) == 1  # back on its queue, never lost


def test_any_failure_to_sync_after_commit_counts_as_unsynced(
    conn: QMConnection, qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # not only the fsync: the shared sync lock refused (ENOLCK, as on some NFS) comes
    # after COMMIT too, and a get outside syncpoint must not lose its message to it
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT)
    conn.put(handle, PERSISTENT, b"one")
    original = commits.GroupSync._lead
    armed = [1]

    def lead(self: commits.GroupSync, ticket: int) -> None:
        if armed[0]:
            armed[0] = 0
            raise OSError(errno.ENOLCK, "No locks available")
        original(self, ticket)

    monkeypatch.setattr(commits.GroupSync, "_lead", lead)
    got = conn.get(handle)
    assert armed[0] == 0
    assert got is not None and got[1] == b"one"
    assert qm.queue_depth(QUEUE) == 0
