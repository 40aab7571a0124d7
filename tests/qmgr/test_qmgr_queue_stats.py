"""RESET QSTATS's statistics as the embedded queue manager keeps them (qstats.py), and
IBM MQ's default SYSTEM.ADMIN queues on queue managers old and new. IBM: MsgEnqCount
"includes messages that have been put to the queue, but have not yet been committed. The
count is not decremented if the put is later backed out"; MsgDeqCount counts non-browse
MQGETs the same way; HighQDepth is the peak of CurrentQDepth; the statistics are reset by
the command and when the queue manager restarts."""

from __future__ import annotations

import contextlib
import sqlite3
import time
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
from mqjms.qmgr.defaults import DEFAULT_OBJECTS
from mqjms.qmgr.store import SCHEMA_VERSION

Q = "STATS.Q"
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


@pytest.fixture
def qm(tmp_path: Path) -> QueueManager:
    manager = QueueManager(tmp_path / "qm")
    manager.define_queue("QLOCAL", Q)
    return manager


def test_puts_and_gets_in_units_of_work_stay_counted_after_a_backout(qm: QueueManager) -> None:
    conn = qm.connect()
    handle = conn.open(Q, IO)
    conn.put(handle, MQMD(), b"a")
    conn.put(handle, MQMD(), b"b", syncpoint=True)
    conn.backout()  # the put stays counted; the depth it reached stays the high depth
    conn.get(handle, syncpoint=True)
    conn.backout()  # the get stays counted; the depth comes back
    conn.get(handle)
    conn.put(handle, MQMD(), b"c")
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.dequeued, stats.high_depth) == (3, 2, 2)
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.dequeued, stats.high_depth) == (0, 0, 1)
    conn.disconnect()


def test_expired_messages_discarded_are_not_gets(qm: QueueManager) -> None:
    conn = qm.connect()
    conn.put(Q, MQMD(Expiry=1), b"short-lived")
    qm.reset_queue_stats(Q)
    time.sleep(0.2)
    assert qm.refresh_expiry(Q) == 1
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.dequeued, stats.high_depth) == (0, 0, 1)
    conn.disconnect()


def test_a_restart_resets_the_statistics(qm: QueueManager) -> None:
    conn = qm.connect()
    conn.put(Q, MQMD(Persistence=C.MQPER_PERSISTENT), b"kept")
    conn.put(Q, MQMD(Persistence=C.MQPER_PERSISTENT), b"kept")
    conn.disconnect()
    qm.restart()
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.dequeued, stats.high_depth) == (0, 0, 2)
    assert stats.seconds_since_reset < 60
    assert qm.started_at() is not None and time.time() - qm.started_at() < 60  # type: ignore[operator]


def test_counts_past_what_pcf_carries_are_reported_as_its_highest(qm: QueueManager) -> None:
    # a queue manager up for weeks at 1,000 messages a second passes 2**31 - 1 puts: the
    # response's MQCFIN must still be made (IBM MQ reports an overflowing count the same way)
    qm.connect().put(Q, MQMD(), b"one")
    with contextlib.closing(sqlite3.connect(qm.path / "qmgr.db")) as db, db:
        db.execute("UPDATE queues SET enq = ?, deq = ? WHERE name = ?", (2**33, 5, Q))
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.dequeued) == (2**31 - 1, 5)


def _as_schema_5(db_file: Path) -> None:
    """The database as mqjms of schema 5 left it: no statistics columns or triggers."""
    with contextlib.closing(sqlite3.connect(db_file)) as db, db:
        for trigger in ("depth_up", "depth_down", "depth_got"):
            db.execute(f"DROP TRIGGER {trigger}")
        for column in ("enq", "deq", "hidepth", "reset_at"):
            db.execute(f"ALTER TABLE queues DROP COLUMN {column}")
        db.execute(
            "CREATE TRIGGER depth_up AFTER INSERT ON messages BEGIN"
            " UPDATE queues SET depth = depth + 1 WHERE name = NEW.queue; END"
        )
        db.execute(
            "CREATE TRIGGER depth_down AFTER DELETE ON messages WHEN OLD.state != 1 BEGIN"
            " UPDATE queues SET depth = depth - 1 WHERE name = OLD.queue; END"
        )
        db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")


def test_a_schema_5_queue_manager_is_upgraded_to_keep_statistics(tmp_path: Path) -> None:
    qm = QueueManager(tmp_path / "qm")
    qm.define_queue("QLOCAL", Q)
    conn = qm.connect()
    conn.put(Q, MQMD(Persistence=C.MQPER_PERSISTENT), b"before")
    conn.disconnect()
    qm.close()
    db_file = tmp_path / "qm" / "qmgr.db"
    _as_schema_5(db_file)
    qm = QueueManager(tmp_path / "qm")  # alone: upgraded
    with contextlib.closing(sqlite3.connect(db_file)) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    conn = qm.connect()
    conn.put(Q, MQMD(), b"after")
    [stats] = qm.reset_queue_stats(Q)
    assert (stats.enqueued, stats.high_depth, qm.queue_depth(Q)) == (1, 2, 2)
    conn.disconnect()
    qm.close()


def test_a_queue_manager_made_before_the_admin_queues_gets_them_when_opened(
    qm: QueueManager,
) -> None:
    # as an MQ upgrade adds its new system objects; here at open, even while started
    names = [n for _, n, _ in DEFAULT_OBJECTS if n.startswith("SYSTEM.ADMIN.") and "EVENT" in n]
    assert "SYSTEM.ADMIN.QMGR.EVENT" in names
    with contextlib.closing(sqlite3.connect(qm.db_file)) as db, db:
        db.execute("DELETE FROM queues WHERE name LIKE 'SYSTEM.ADMIN.%'")
        db.execute(
            "UPDATE meta SET value = 'SYSTEM.DEFAULT.LOCAL.QUEUE,SYSTEM.ADMIN.COMMAND.QUEUE'"
            " WHERE key = 'default_objects'"
        )
    reopened = QueueManager(qm.path)
    try:
        found = set(reopened.queue_names("SYSTEM.ADMIN.*"))
        assert set(names) <= found and "SYSTEM.ADMIN.STATISTICS.QUEUE" in found
        # one deleted on purpose since it was made stays deleted
        reopened.delete_queue("SYSTEM.ADMIN.LOGGER.EVENT")
    finally:
        reopened.close()
    again = QueueManager(qm.path)
    try:
        assert again.queue_names("SYSTEM.ADMIN.LOGGER.EVENT") == []
        assert again.queue_names("SYSTEM.ADMIN.COMMAND.QUEUE") == []  # it was known, deleted
    finally:
        again.close()
