"""A get's cost does not grow with the messages its queue holds locked.

A get under syncpoint leaves its message on the queue, locked, until the unit of work
ends. Each next get walked the delivery-order index from the head and stepped over every
locked row, so a unit of work of n gets cost O(n^2) (10,000 gets: each slower than the
last). The message's state is now part of the delivery-order keys, so a get seeks
straight to the first available message. As in test_qmgr_browse_cost.py, the test counts
the SQLite virtual machine instructions of each get (``set_progress_handler``), the same on
any machine, never the time.
"""

from __future__ import annotations

import contextlib
import sqlite3
import statistics
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager, store

DEPTH = 3000
SAMPLE = 200
GRANULARITY = 10  # the progress handler runs every this many VM instructions


def instructions_per_get(conn: QMConnection, queue: str) -> list[int]:
    """Get every message of ``queue`` in one unit of work; the VM instructions (in units
    of GRANULARITY) of each get."""
    handle = conn.open(queue, C.MQOO_INPUT_SHARED)
    counter = [0]

    def count() -> int:
        counter[0] += 1
        return 0  # 0: go on

    db = conn._db  # the connection's own SQLite handle, to count what its queries cost
    costs: list[int] = []
    db.set_progress_handler(count, GRANULARITY)
    try:
        while True:
            counter[0] = 0
            if conn.get(handle, syncpoint=True) is None:
                break
            costs.append(counter[0])
    finally:
        db.set_progress_handler(None, GRANULARITY)
    assert len(costs) == DEPTH
    return costs


@pytest.mark.parametrize(
    ("delivery", "priorities"),
    [("PRIORITY", [0]), ("PRIORITY", [9, 5, 0, 3]), ("FIFO", [0])],
    ids=["priority-queue-one-priority", "priority-queue-mixed", "fifo-queue"],
)
def test_the_last_get_of_a_large_unit_of_work_costs_what_the_first_does(
    qm: QueueManager, delivery: str, priorities: list[int]
) -> None:
    qm.define_queue("QLOCAL", "UOW.Q", {"MSGDLVSQ": delivery, "MAXDEPTH": DEPTH})
    conn = qm.connect()
    for i in range(DEPTH):
        conn.put("UOW.Q", MQMD(Priority=priorities[i % len(priorities)]), b"%05d" % i)
    costs = instructions_per_get(conn, "UOW.Q")
    head = statistics.median(costs[:SAMPLE])
    tail = statistics.median(costs[-SAMPLE:])
    # skipping the locked rows, the last gets cost ~DEPTH/SAMPLE times the first ones
    assert tail <= 1.5 * head + 2, (head, tail)
    conn.commit()
    assert qm.queue_depth("UOW.Q") == 0
    conn.disconnect()


def test_a_queue_manager_made_before_gains_the_index_at_its_next_start(qmgr_dir: Path) -> None:
    qm = QueueManager(qmgr_dir)
    qm.define_queue("QLOCAL", "OLD.Q")
    conn = qm.connect()
    for body in (b"first", b"second"):
        conn.put("OLD.Q", MQMD(Persistence=C.MQPER_PERSISTENT), body)
    conn.disconnect()
    qm.close()
    # the delivery-order indexes as schema version 1 made them, without the state
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db:
        db.executescript(
            "DROP INDEX messages_priority;"
            " CREATE INDEX messages_fifo ON messages(queue, id);"
            " CREATE INDEX messages_priority ON messages(queue, priority DESC, id);"
            " UPDATE meta SET value = '1' WHERE key = 'schema_version';"
        )
    qm = QueueManager(qmgr_dir)
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db:
        indexes = dict(db.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'"))
        version = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    # issue 9: one delivery-order index serves FIFO and PRIORITY queues
    assert "state" in indexes["messages_priority"] and "messages_fifo" not in indexes
    assert version == (str(store.SCHEMA_VERSION),)
    conn = qm.connect()
    handle = conn.open("OLD.Q", C.MQOO_INPUT_SHARED)
    got = [conn.get(handle), conn.get(handle)]
    assert [g[1] for g in got if g is not None] == [b"first", b"second"]
    conn.disconnect()
    qm.close()
