"""Large bodies are stored out of their message's row (store.BODIES): what changes while
a message waits (its state in a unit of work, its BackoutCount) rewrites a small row,
never the body, and the body goes wherever the row goes."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.errors import MQError
from mqjms.qmgr import QMConnection, QueueManager, messages
from mqjms.qmgr.locks import FileLock
from mqjms.qmgr.store import SCHEMA_VERSION
from mqjms.transport import Browse, connect

BIG = 1024 * 1024  # 256 pages of 4 KiB


def _body(size: int, seed: int = 0) -> bytes:
    return (bytes(range(256)) * (size // 256 + 1))[seed : seed + size]


def _bodies_rows(qmgr_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db:
        return int(db.execute("SELECT COUNT(*) FROM bodies").fetchone()[0])


def _log_pages(qmgr_dir: Path, action: Callable[[], object]) -> int:
    """The pages ``action`` writes to the log (WAL frames), from an emptied log."""
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db", isolation_level=None)) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        action()
        return int(db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1])


@pytest.mark.parametrize(
    "size", [0, 1, messages.INLINE_LIMIT, messages.INLINE_LIMIT + 1, 70_000, BIG]
)
def test_every_size_comes_back_byte_for_byte_on_get_browse_and_backout(
    qm: QueueManager, size: int
) -> None:
    qm.define_queue("QLOCAL", "Q", {"MAXMSGL": 4 * BIG})
    conn = qm.connect()
    body = _body(size, seed=size % 7)
    put = conn.put("Q", MQMD(Persistence=C.MQPER_PERSISTENT), body)
    handle = conn.open("Q", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    browsed = conn.get(handle, browse=Browse.FIRST)
    assert browsed is not None and browsed[1] == body
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[1] == body and got[0].MsgId == put.MsgId
    conn.backout()
    again = conn.get(handle, syncpoint=True)
    assert again is not None and again[1] == body and again[0].BackoutCount == 1
    conn.commit()
    assert qm.queue_depth("Q") == 0
    conn.disconnect()


def test_a_get_under_syncpoint_and_a_backout_do_not_rewrite_a_large_body(
    qm: QueueManager, qmgr_dir: Path
) -> None:
    qm.define_queue("QLOCAL", "Q", {"MAXMSGL": 4 * BIG})
    conn = qm.connect()
    conn.put("Q", MQMD(Persistence=C.MQPER_PERSISTENT), _body(BIG))
    handle = conn.open("Q", C.MQOO_INPUT_SHARED)
    body_pages = BIG // 4096
    get_pages = _log_pages(qmgr_dir, lambda: conn.get(handle, syncpoint=True))
    backout_pages = _log_pages(qmgr_dir, conn.backout)
    # before: both rewrote the row with its 256 overflow pages
    assert get_pages < 10 and backout_pages < 10, (get_pages, backout_pages, body_pages)
    got = conn.get(handle)
    assert got is not None and got[1] == _body(BIG) and got[0].BackoutCount == 1
    conn.disconnect()


def test_a_body_goes_with_its_row_however_the_row_goes(
    qm: QueueManager, qmgr_dir: Path, embedded_url: str
) -> None:
    for name in ("GOT", "DISCARDED", "CLEARED", "DELETED", "EXPIRED", "NONPERSISTENT"):
        qm.define_queue("QLOCAL", name, {"MAXMSGL": 4 * BIG})
    conn = qm.connect()
    big = _body(100_000)
    persistent = MQMD(Persistence=C.MQPER_PERSISTENT)
    for name in ("GOT", "DISCARDED", "CLEARED", "DELETED"):
        conn.put(name, persistent, big)
    conn.put("EXPIRED", MQMD(Persistence=C.MQPER_PERSISTENT, Expiry=1), big)
    conn.put("NONPERSISTENT", MQMD(Persistence=C.MQPER_NOT_PERSISTENT), big)
    assert _bodies_rows(qmgr_dir) == 6
    got = conn.open("GOT", C.MQOO_INPUT_SHARED)
    assert conn.get(got, syncpoint=True) is not None
    conn.commit()  # MQCMIT deletes the row
    discarded = conn.open("DISCARDED", C.MQOO_INPUT_SHARED)
    assert conn.get(discarded) is not None  # a get outside syncpoint
    qm.clear_queue("CLEARED")
    qm.delete_queue("DELETED", purge=True)
    time.sleep(0.15)
    expired = conn.open("EXPIRED", C.MQOO_INPUT_SHARED)
    assert conn.get(expired) is None  # seed 000: discarded by the get that reached it
    conn.disconnect()
    assert _bodies_rows(qmgr_dir) == 1  # the non-persistent one, until the restart
    qm.restart()
    assert _bodies_rows(qmgr_dir) == 0
    assert qm.queue_depth("NONPERSISTENT") == 0


def test_a_queue_manager_made_before_reads_its_bodies_and_stores_new_large_ones_apart(
    qmgr_dir: Path,
) -> None:
    qm = QueueManager(qmgr_dir)
    qm.define_queue("QLOCAL", "OLD.Q", {"MAXMSGL": 4 * BIG})
    conn = qm.connect()
    conn.put("OLD.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"small")
    conn.disconnect()
    qm.close()
    # schema 3: no bodies table, a large body in its row
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db", isolation_level=None)) as db:
        row = db.execute("SELECT queue, priority, state, persistent, md FROM messages").fetchone()
        db.executescript(
            "DROP TRIGGER bodies_gone; DROP TABLE bodies;"
            " UPDATE meta SET value = '3' WHERE key = 'schema_version';"
        )
        db.execute(
            "INSERT INTO messages (queue, priority, state, persistent, msg_id, correl_id,"
            " md, data) VALUES (?, ?, ?, ?, ?, zeroblob(24), ?, ?)",
            (*row[:4], os.urandom(24), row[4], _body(BIG, 3)),
        )
        db.execute("UPDATE queues SET depth = depth + 1 WHERE name = 'OLD.Q'")
    qm = QueueManager(qmgr_dir)
    try:
        conn = qm.connect()
        conn.put("OLD.Q", MQMD(Persistence=C.MQPER_PERSISTENT), _body(BIG, 5))
        assert _bodies_rows(qmgr_dir) == 1  # the new one, apart
        handle = conn.open("OLD.Q", C.MQOO_INPUT_SHARED)
        bodies = []
        while (got := conn.get(handle, syncpoint=True)) is not None:
            bodies.append(got[1])
        assert bodies == [b"small", _body(BIG, 3), _body(BIG, 5)]
        conn.commit()
        assert _bodies_rows(qmgr_dir) == 0
        conn.disconnect()
    finally:
        qm.close()


def _downgrade_to_schema_3(qmgr_dir: Path) -> None:
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db", isolation_level=None)) as db:
        db.executescript(
            "DROP TRIGGER bodies_gone; DROP TABLE bodies;"
            " UPDATE meta SET value = '3' WHERE key = 'schema_version';"
        )


def _schema_version(qmgr_dir: Path) -> str:
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])


def test_a_queue_manager_open_in_another_process_is_not_upgraded_under_it(
    qmgr_dir: Path,
) -> None:
    # the other process may be an older mqjms, which reads every body from its row: until
    # a process has the queue manager to itself, large bodies stay in their rows
    QueueManager(qmgr_dir).close()
    _downgrade_to_schema_3(qmgr_dir)
    other = FileLock(qmgr_dir / "active.lock")  # what every process that has it open holds
    assert other.acquire(exclusive=False)
    qm = QueueManager(qmgr_dir)
    qm.define_queue("QLOCAL", "MIXED.Q", {"MAXMSGL": 4 * BIG})
    conn = qm.connect()
    conn.put("MIXED.Q", MQMD(Persistence=C.MQPER_PERSISTENT), _body(BIG, 1))
    assert _schema_version(qmgr_dir) == "3"
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db")) as db:  # as an older one reads
        assert db.execute("SELECT length(data) FROM messages").fetchall() == [(BIG,)]
    conn.disconnect()
    qm.close()
    other.release()
    qm = QueueManager(qmgr_dir)  # alone now: upgraded
    assert _schema_version(qmgr_dir) == str(SCHEMA_VERSION)
    conn = qm.connect()
    conn.put("MIXED.Q", MQMD(Persistence=C.MQPER_PERSISTENT), _body(BIG, 2))
    assert _bodies_rows(qmgr_dir) == 1
    handle = conn.open("MIXED.Q", C.MQOO_INPUT_SHARED)
    assert [conn.get(handle)[1], conn.get(handle)[1]] == [_body(BIG, 1), _body(BIG, 2)]  # type: ignore[index]
    conn.disconnect()
    qm.close()


def test_a_queue_manager_of_a_newer_mqjms_is_refused_with_2360(qmgr_dir: Path) -> None:
    QueueManager(qmgr_dir).close()
    with contextlib.closing(sqlite3.connect(qmgr_dir / "qmgr.db", isolation_level=None)) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    for _ in range(2):  # the refusal lets go of its locks: the next one is refused alike
        with pytest.raises(MQError) as caught:
            QueueManager(qmgr_dir)
        assert caught.value.reason == C.MQRC_OBJECT_LEVEL_INCOMPATIBLE
        assert "newer mqjms" in caught.value.detail and "upgrade mqjms" in caught.value.detail
    probe = FileLock(qmgr_dir / "active.lock")
    assert probe.acquire(exclusive=True, blocking=False)
    probe.release()


def test_reserved_large_bodies_are_read_whole(qm: QueueManager, embedded_url: str) -> None:
    """The Spark source reads reservations in bulk: large bodies come from ``bodies``."""
    qm.define_queue("QLOCAL", "Q", {"MAXMSGL": 4 * BIG})
    conn = connect(embedded_url)
    sizes = [10, 200_000, messages.INLINE_LIMIT + 1]
    for i, size in enumerate(sizes):
        conn.put("Q", MQMD(Persistence=C.MQPER_PERSISTENT), _body(size, i))
    handle = conn.open("Q", C.MQOO_INPUT_SHARED)
    assert conn.reserve(handle, "spark:Q", 3) == 3
    expected = [_body(size, i) for i, size in enumerate(sizes)]
    assert [d for _, _, _, d in conn.reserved("spark:Q", 0, 3)] == expected
    assert [d for _, _, _, d in conn.reserved_packed("spark:Q", 0, 3)] == expected
    assert conn.release_reserved("spark:Q", 3) == 3
    conn.disconnect()
    assert isinstance(conn, QMConnection)
