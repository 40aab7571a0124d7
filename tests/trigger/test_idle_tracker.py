"""The idle clock of ``mqjms run --idle-timeout``: a unit of work a step did not commit
keeps the Worker busy (a failed put in the step left the message in flight)."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.semantics import PutFailed, SyncpointPut
from mqjms.trigger import ActivityTracker
from mqjms.trigger.idle import TrackedConnection


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def tracked(qm: QueueManager) -> tuple[TrackedConnection, ActivityTracker, Clock]:
    qm.define_queue("QLOCAL", "IN")
    qm.define_queue("QLOCAL", "OUT")
    clock = Clock()
    tracker = ActivityTracker(clock)
    conn = TrackedConnection(qm.connect("idle-test"), tracker)
    conn.put("IN", MQMD(), b"work")
    return conn, tracker, clock


def test_a_failed_put_in_the_step_leaves_the_message_in_flight(
    qm: QueueManager, tracked: tuple[TrackedConnection, ActivityTracker, Clock]
) -> None:
    conn, tracker, clock = tracked
    handle = conn.open("IN", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    qm.mqsc("ALTER QLOCAL(OUT) PUT(DISABLED)")
    with pytest.raises(PutFailed) as failed:
        conn.commit_and_get(handle, [SyncpointPut("OUT", MQMD(), b"reply")])
    assert failed.value.reason == C.MQRC_PUT_INHIBITED
    clock.now += 60
    assert tracker.idle_for() == 0.0  # the message got is still in flight
    with pytest.raises(PutFailed):
        conn.put_and_commit([SyncpointPut("OUT", MQMD(), b"reply")])
    assert tracker.idle_for() == 0.0
    conn.backout()  # what the Worker does after a PutFailed: the unit of work ends
    clock.now += 5
    assert tracker.idle_for() == 5.0
    conn.disconnect()


def test_a_committed_step_ends_the_unit_of_work(
    tracked: tuple[TrackedConnection, ActivityTracker, Clock],
) -> None:
    conn, tracker, clock = tracked
    handle = conn.open("IN", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    assert conn.commit_and_get(handle, [SyncpointPut("OUT", MQMD(), b"reply")]) is None
    clock.now += 7
    assert tracker.idle_for() == 7.0
    assert tracker.messages == 1
    conn.disconnect()
