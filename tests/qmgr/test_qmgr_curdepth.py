"""CURDEPTH as IBM MQ keeps it (MQIA_CURRENT_Q_DEPTH, "CurrentQDepth"): "incremented during
an MQPUT call, and during backout of an MQGET call. It is decremented during a nonbrowse
MQGET call, and during backout of an MQPUT call", so it counts messages put in a unit of
work not yet committed and leaves out those got in one. Before (schema 4), a message got
under syncpoint stayed in CURDEPTH until its commit: a monitor watching a queue drain, or
a program waiting for depth 0 beside a syncpoint consumer, saw it too late."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.errors import MQError
from mqjms.qmgr import QueueManager
from mqjms.qmgr.store import GOT_IN_UOW, SCHEMA_VERSION

Q = "DEPTH.Q"
IO = C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT


@pytest.fixture
def qm(tmp_path: Path) -> QueueManager:
    manager = QueueManager(tmp_path / "qm")
    manager.define_queue("QLOCAL", Q)
    return manager


def test_a_get_under_syncpoint_leaves_curdepth_and_a_backout_brings_it_back(
    qm: QueueManager,
) -> None:
    conn = qm.connect()
    handle = conn.open(Q, IO)
    conn.put(handle, MQMD(), b"one")
    conn.put(handle, MQMD(), b"two", syncpoint=True)  # an uncommitted put counts
    assert qm.queue_depth(Q) == 2
    conn.commit()
    assert conn.get(handle, syncpoint=True) is not None
    assert qm.queue_depth(Q) == 1  # decremented during the get
    conn.backout()
    assert qm.queue_depth(Q) == 2  # incremented during its backout
    assert conn.get(handle, syncpoint=True) is not None
    conn.commit()
    assert qm.queue_depth(Q) == 1  # the commit does not count it again
    conn.put(handle, MQMD(), b"three", syncpoint=True)
    conn.backout()  # decremented during the backout of the put
    assert qm.queue_depth(Q) == 1
    assert conn.get(handle) is not None  # outside syncpoint
    assert qm.queue_depth(Q) == 0
    conn.disconnect()


def test_the_depth_is_what_mqinq_answers_from_another_connection(qm: QueueManager) -> None:
    conn, other = qm.connect(), qm.connect()
    handle = conn.open(Q, IO)
    for body in (b"a", b"b", b"c"):
        conn.put(handle, MQMD(), body)
    assert conn.get(handle, syncpoint=True) is not None
    inq = other.open(Q, C.MQOO_INQUIRE)
    assert other.inquire(inq, [C.MQIA_CURRENT_Q_DEPTH]) == {C.MQIA_CURRENT_Q_DEPTH: 2}
    conn.backout()
    assert other.inquire(inq, [C.MQIA_CURRENT_Q_DEPTH]) == {C.MQIA_CURRENT_Q_DEPTH: 3}
    conn.disconnect()
    other.disconnect()


def test_the_backlog_counts_messages_got_in_units_of_work_in_one_snapshot(
    qm: QueueManager,
) -> None:
    # Read as two statements, a backout between them counted the message twice (CI saw
    # "holds 2 messages" for a queue of one): the backlog is one read.
    conn = qm.connect()
    handle = conn.open(Q, IO)
    conn.put(handle, MQMD(), b"one")
    stop = threading.Event()

    def get_and_back_out() -> None:
        while not stop.is_set():
            conn.get(handle, syncpoint=True)
            conn.backout()

    churn = threading.Thread(target=get_and_back_out)
    churn.start()
    try:
        seen = {qm.queue_backlog(Q) for _ in range(3000)}
    finally:
        stop.set()
        churn.join()
    assert seen == {1}
    assert qm.queue_depth(Q) == 1
    conn.disconnect()


def test_a_queue_whose_messages_are_got_in_a_unit_of_work_is_not_deleted(
    qm: QueueManager,
) -> None:
    conn = qm.connect()
    handle = conn.open(Q, IO)
    conn.put(handle, MQMD(), b"held")
    assert conn.get(handle, syncpoint=True) is not None
    conn.close(handle)  # the unit of work goes on after the close
    assert qm.queue_depth(Q) == 0
    for purge in (False, True):  # PURGE purges committed messages, never a unit of work's
        with pytest.raises(MQError) as caught:
            qm.delete_queue(Q, purge=purge)
        assert caught.value.reason == C.MQRC_Q_NOT_EMPTY
    conn.backout()
    assert qm.queue_depth(Q) == 1
    conn.disconnect()


def _as_schema_4(db_file: Path) -> None:
    """The database as mqjms with schema 4 left it: the old depth_down trigger, no
    depth_got, and got messages counted in the depth; "a" got in a unit of work."""
    with contextlib.closing(sqlite3.connect(db_file, isolation_level=None)) as db:
        db.execute("DROP TRIGGER depth_got")
        db.execute("DROP TRIGGER depth_down")
        db.execute(
            "CREATE TRIGGER depth_down AFTER DELETE ON messages BEGIN"
            " UPDATE queues SET depth = depth - 1 WHERE name = OLD.queue; END"
        )
        db.execute(f"UPDATE messages SET state = {GOT_IN_UOW}, uow = 'uow' WHERE data = x'61'")
        db.execute(
            "UPDATE queues SET depth = (SELECT COUNT(*) FROM messages m WHERE m.queue = name)"
        )
        db.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")


def test_a_schema_4_queue_manager_is_upgraded_and_its_depths_recounted(tmp_path: Path) -> None:
    qm = QueueManager(tmp_path / "qm")
    qm.define_queue("QLOCAL", Q)
    conn = qm.connect()
    handle = conn.open(Q, IO)
    for body in (b"a", b"b"):
        conn.put(handle, MQMD(Persistence=C.MQPER_PERSISTENT), body)
    conn.disconnect()
    qm.close()
    db_file = tmp_path / "qm" / "qmgr.db"
    _as_schema_4(db_file)
    qm = QueueManager(tmp_path / "qm")  # alone: upgraded
    with contextlib.closing(sqlite3.connect(db_file)) as db:
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    assert version == (str(SCHEMA_VERSION),)
    assert qm.queue_depth(Q) == 1  # recounted: "a" is in a unit of work
    conn = qm.connect()
    handle = conn.open(Q, IO)
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == b"b"
    assert qm.queue_depth(Q) == 0  # the upgraded triggers
    conn.backout()
    assert qm.queue_depth(Q) == 1
    conn.disconnect()
    qm.close()
