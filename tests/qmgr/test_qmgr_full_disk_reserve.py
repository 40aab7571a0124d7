"""The room kept for draining a full disk (mqjms/qmgr/space.py) is never lost, on a real
file system that fills up (tests/qmgr/full_disk.py): a fault probe wedged the queue
manager for good with connections that each had a get in flight (the reserve, given up
or lent and not made again, let the log take the last block, and no checkpoint could
grow the database by a page), and dynamic queues made on a full disk took the room.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager, space, store
from mqjms.qmgr.failures import StorageError
from mqjms.transport import embedded
from tests.qmgr.full_disk import BODY, fill_disk, fill_queue

Q = "FULL.Q"

HOLD_GETS = """
import sys
from mqjms.mq import C
from mqjms.transport import embedded
url, n = sys.argv[1], int(sys.argv[2])
conns = []
for i in range(n):
    conn = embedded.connect(url, f"consumer {i}")
    handle = conn.open("FULL.Q", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, syncpoint=True) is not None
    conns.append(conn)
print("HELD", len(conns), flush=True)
if sys.argv[3] == "commit":
    for conn in conns:
        conn.commit()
    print("COMMITTED", flush=True)
else:
    sys.stdin.readline()  # killed meanwhile
"""

DRAIN = """
import sys
from mqjms.mq import C
from mqjms.transport import embedded
conn = embedded.connect(sys.argv[1], "drainer")
handle = conn.open("FULL.Q", C.MQOO_INPUT_SHARED)
drained = 0
while conn.get(handle, syncpoint=True) is not None:
    conn.commit()
    drained += 1
conn.disconnect()
print("DRAINED", drained, flush=True)
"""


def run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def full_queue_on_full_disk(disk: Path) -> tuple[str, int, Path]:
    """A queue filled until 2056, its process's queue manager closed, then the disk filled
    to its last block: (the url, the messages put, the filler)."""
    url = f"embedded://{disk / 'qm'}"
    put = fill_queue(url, Q)
    embedded.close_all()
    return url, put, fill_disk(disk)


def test_a_process_with_many_gets_in_flight_on_a_full_disk_commits_them_all(
    small_disk: Path,
) -> None:
    # from the 7th connection on, connect, open and commit failed with 2102 at the
    # deadline: the start's reserve was given up for good, the next one lent and not
    # made again, and the log took every block
    url, put, filler = full_queue_on_full_disk(small_disk)
    assert run(HOLD_GETS, url, "40", "commit").split() == ["HELD", "40", "COMMITTED"]
    assert run(DRAIN, url) == f"DRAINED {put - 40}"
    filler.unlink()


def test_a_full_disk_left_by_a_killed_process_can_still_be_drained(small_disk: Path) -> None:
    # after a kill -9 of the process above, a new consumer could not even connect: the
    # log's last frames grew the database by a page on a disk without one, for good
    url, put, filler = full_queue_on_full_disk(small_disk)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_GETS, url, "40", "hold"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().split() == ["HELD", "40"]
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert run(DRAIN, url) == f"DRAINED {put}"  # the 40 gets backed out: none lost
    filler.unlink()


def test_dynamic_queues_made_on_a_full_disk_fail_2102_and_leave_the_room_to_drain(
    small_disk: Path,
) -> None:
    # each MQOPEN of a model queue made a queue with the room kept for draining; after
    # 14 to 20 of them the drain, the MQCLOSEs and a new process failed with 2102
    url, put, filler = full_queue_on_full_disk(small_disk)
    conn = embedded.connect(url, "requester")
    reserve = small_disk / "qm" / "space.reserve"
    database = small_disk / "qm" / "qmgr.db"
    before = (reserve.stat().st_size, database.stat().st_size)
    opened, refused = [], []
    for _ in range(200):
        try:
            opened.append(
                conn.open(
                    "SYSTEM.DEFAULT.MODEL.QUEUE", C.MQOO_INPUT_EXCLUSIVE, dynamic_name="REPLY.*"
                )
            )
        except MQError as exc:
            refused.append(exc.reason)
    assert refused and set(refused) == {C.MQRC_RESOURCE_PROBLEM}
    # no queue was made with the reserve's room: it is whole, the database no larger
    # (a first open may have fitted in the room a checkpoint gave back)
    assert reserve.stat().st_size >= before[0] and len(opened) <= 2
    assert database.stat().st_size <= before[1] + 2 * 4096
    for handle in opened:  # a close deletes the temporary queue
        conn.close(handle)
    conn.disconnect()
    embedded.close_all()
    assert run(DRAIN, url) == f"DRAINED {put}"
    filler.unlink()


def test_refresh_expiry_on_a_full_disk_discards_the_expired_messages(small_disk: Path) -> None:
    # REFRESH QMGR TYPE(EXPIRY) failed with 2102 at once: its discards, which free the
    # disk, did not use the room kept for draining, and a batch's log outgrew it
    qm = QueueManager(small_disk / "qm")
    qm.define_queue("QLOCAL", Q, {"MAXDEPTH": 1_000_000})
    conn = qm.connect()
    put = 0
    with pytest.raises(MQError):
        while True:
            expiry = 1 if put % 2 else C.MQEI_UNLIMITED  # tenths of a second
            conn.put(Q, MQMD(Persistence=C.MQPER_PERSISTENT, Expiry=expiry), BODY)
            put += 1
    filler = fill_disk(small_disk)
    assert os.statvfs(small_disk).f_bavail == 0
    assert qm.refresh_expiry("FULL.*") == put // 2
    assert qm.queue_depth(Q) == put - put // 2
    conn.disconnect()
    qm.close()
    filler.unlink()


def test_a_reserve_without_room_for_all_of_it_takes_what_there_is(small_disk: Path) -> None:
    qm = QueueManager(small_disk / "qm")
    reserve = qm.reserve
    assert reserve is not None
    (small_disk / "qm" / "space.reserve").unlink()
    filler = fill_disk(small_disk)
    os.truncate(filler, filler.stat().st_size - 100 * 1024)  # 100 KiB free
    assert not reserve.top_up(1024 * 1024)
    assert 90 * 1024 <= (small_disk / "qm" / "space.reserve").stat().st_size <= 100 * 1024
    assert os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize < 8 * 1024
    filler.unlink()
    assert reserve.top_up(1024 * 1024)  # room again: all of it
    assert (small_disk / "qm" / "space.reserve").stat().st_size == 1024 * 1024
    qm.close()


def test_a_write_that_still_fails_after_the_lend_leaves_the_reserve_made_again(
    small_disk: Path,
) -> None:
    # with_room made the reserve again only after a lent attempt that succeeded: one that
    # failed until the deadline left it given up, the state that wedged the disk
    qm = QueueManager(small_disk / "qm")
    qm.define_queue("QLOCAL", Q)
    reserve = small_disk / "qm" / "space.reserve"
    filler = fill_disk(small_disk)
    assert reserve.stat().st_size > 0
    conn = qm.connect()

    def always_full() -> None:
        raise StorageError(C.MQRC_RESOURCE_PROBLEM, "the disk is full", "SQLITE_FULL")

    with pytest.raises(MQError):
        space.with_room(conn._db, qm.reserve, always_full, patience=0.05)
    assert reserve.stat().st_size > 0
    conn.disconnect()
    qm.close()
    filler.unlink()


def _secure_delete_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection zeroes what it deletes, as Debian's SQLite does by default."""
    connect = store.connect_db

    def connect_db(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.execute("PRAGMA secure_delete=ON")
        return db

    monkeypatch.setattr(store, "connect_db", connect_db)


def test_a_unit_of_work_whose_puts_filled_the_disk_is_backed_out(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # with secure_delete on, the backout wrote every page of the puts' bodies again, as
    # zeros: more than the reserve, on a disk full of them. The backout failed 2102, and
    # the queue manager then failed to open (its recovery backs the unit of work out)
    _secure_delete_on(monkeypatch)
    qm = QueueManager(small_disk / "qm")
    qm.define_queue("QLOCAL", Q, {"MAXDEPTH": 1_000_000})
    qm.define_queue("QLOCAL", "OTHER.Q")
    conn = qm.connect()
    conn.put("OTHER.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"committed")
    handle = conn.open(Q, C.MQOO_OUTPUT)
    with pytest.raises(MQError) as raised:
        while True:
            conn.put(handle, MQMD(), b"x" * 100_000, syncpoint=True)
    assert raised.value.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE
    conn.backout()
    assert qm.queue_depth(Q) == 0
    conn.disconnect()
    qm.close()
    embedded.close_all()
    reopened = QueueManager(small_disk / "qm")
    assert reopened.queue_depth("OTHER.Q") == 1 and reopened.queue_depth(Q) == 0
    reopened.close()


def test_a_restart_on_a_full_disk_gives_up_the_reserve_as_an_open_does(
    small_disk: Path,
) -> None:
    # an open of a queue manager on a full disk retries its start with the space reserve
    # given up; a restart (endmqm + strmqm, ``mqjms restart``) did not, and failed 2102
    # every time on a disk the queues had filled
    _, put, filler = full_queue_on_full_disk(small_disk)
    qm = QueueManager(small_disk / "qm")
    qm.restart()
    assert qm.queue_depth(Q) == put
    qm.close()
    filler.unlink()


def test_messages_drained_from_a_full_disk_make_room_for_puts_again(small_disk: Path) -> None:
    # a fault probe: once the reserve had been lent on a full disk it could never be made
    # whole again, the pages the drained messages left free staying in qmgr.db; every put
    # of a few kilobytes failed 2056 even with the queue half empty, until someone freed
    # space outside the queue manager
    url, put, filler = full_queue_on_full_disk(small_disk)
    conn = embedded.connect(url, "drainer")
    handle = conn.open(Q, C.MQOO_INPUT_SHARED)
    for _ in range(put // 2):
        assert conn.get(handle) is not None
    conn.put(Q, MQMD(Persistence=C.MQPER_PERSISTENT), BODY)  # the room the gets gave back
    assert embedded.queue_manager(url).queue_depth(Q) == put - put // 2 + 1
    conn.disconnect()
    filler.unlink()


def test_shrink_gives_pages_back_a_step_at_a_time_not_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PRAGMA incremental_vacuum(32) through execute().fetchall() freed one page: the
    # pragma returns no row, so it was stepped once; a truncating checkpoint (fsyncs,
    # the write gate held against every process) for each page
    db = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    db.execute("PRAGMA auto_vacuum=INCREMENTAL")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE t (b BLOB)")
    db.executemany("INSERT INTO t VALUES (?)", [(b"x" * 3000,) for _ in range(200)])
    db.execute("DELETE FROM t")
    (free,) = db.execute("PRAGMA freelist_count").fetchone()
    assert free >= 150
    checkpoints: list[bool] = []
    real_checkpoint = space.checkpoint

    def counted(connection: sqlite3.Connection) -> bool:
        checkpoints.append(True)
        return real_checkpoint(connection)

    monkeypatch.setattr(space, "checkpoint", counted)
    monkeypatch.setattr(space, "_room", lambda directory: 0)  # the disk stays full
    assert space.shrink(db, tmp_path)
    assert db.execute("PRAGMA freelist_count").fetchone() == (0,)
    assert len(checkpoints) <= free // 32 + 2
    db.close()


def test_a_lend_for_a_large_put_gives_back_pages_until_its_reserve_fits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # shrink stopped at 1 MiB free whatever the put waiting for room: a put needing a
    # reserve of more than that never found it again, however many pages were free
    from mqjms.qmgr.files import Access

    reserve = space.SpaceReserve(tmp_path, Access())
    db = sqlite3.connect(tmp_path / "q.db", isolation_level=None)
    asked: list[int] = []
    monkeypatch.setattr(space, "shrink", lambda db, directory, until: asked.append(until) or True)
    reserve.lend(db, 4 * space.SHRINK_UNTIL)
    assert asked and asked[0] >= reserve.wanted(4 * space.SHRINK_UNTIL)
    reserve.lend(db)  # a drain's lend: the least
    assert asked[1] == space.SHRINK_UNTIL
    db.close()
