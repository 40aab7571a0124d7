"""HARDENBO: BackoutCount survives a power cut (hardening issue item 14).

A get under syncpoint marks the message *in flight*; a queue manager start (after a
reboot) turns every in-flight mark into BackoutCount + 1. Without an fsync that mark can
be lost with the OS page cache, so a message that crashes the machine would come back
with its old count, forever below BOTHRESH. With HARDENBO the mark of a persistent
message is on disk (fsynced) before MQGET returns; with NOHARDENBO it is not, which is
enough for a process crash but not for an OS crash or power loss (IBM: "the backout
count may be lower after a restart").

A power cut cannot be pulled here, so the tests check what is durable: the fsyncs a get
makes (``strace``, skipped when it cannot run), the mark as another connection sees it,
and the count a copy of the files gives after a simulated reboot.
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager

REPO = Path(__file__).resolve().parents[2]

CHILD = """
import os, sys
from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
path, harden, persistence = sys.argv[1], sys.argv[2] == "HARDENBO", int(sys.argv[3])
qm = QueueManager(path)
qm.define_queue("QLOCAL", "HB.Q", {"HARDENBO": harden})
conn = qm.connect()
handle = conn.open("HB.Q", C.MQOO_INPUT_SHARED)
for body in (b"first", b"second"):
    conn.put("HB.Q", MQMD(Persistence=persistence), body)
conn.get(handle, syncpoint=True)   # a first get: the handle learns what the queue wants
conn.backout()
os.write(1, b"MARK-GET-STARTS\\n")
got = conn.get(handle, syncpoint=True)
os.write(1, b"MARK-GET-RETURNED\\n")
assert got is not None and got[0].BackoutCount == 1
os._exit(0)  # no backout, no close: as if the power went now
"""


def fsyncs_during_get(tmp_path: Path, attribute: str, persistence: int) -> list[str]:
    """The fsync/fdatasync calls a get under syncpoint makes, as strace sees them."""
    return fsyncs_during(tmp_path, CHILD, attribute, str(persistence))


def fsyncs_during(tmp_path: Path, child: str, attribute: str, arg: str) -> list[str]:
    """The fsync/fdatasync calls ``child`` makes between its two marks (strace)."""
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed")
    trace = tmp_path / "strace.txt"
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = ["strace", "-f", "-y", "-e", "trace=fsync,fdatasync,write", "-o", str(trace)]
    command += [sys.executable, "-c", child, str(tmp_path / "qm"), attribute, arg]
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    if "PTRACE" in result.stderr or "Operation not permitted" in result.stderr:
        pytest.skip(f"strace cannot trace here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    lines = trace.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "MARK-GET-STARTS" in line)
    end = next(i for i, line in enumerate(lines) if "MARK-GET-RETURNED" in line)
    return [line for line in lines[start:end] if re.search(r"\b(fsync|fdatasync)\(", line)]


def test_with_hardenbo_the_in_flight_mark_is_fsynced_before_the_get_returns(
    tmp_path: Path,
) -> None:
    # hardening item 14: with HARDENBO the count is durable before the get returns
    synced = fsyncs_during_get(tmp_path, "HARDENBO", C.MQPER_PERSISTENT)
    assert any("qmgr.db-wal" in line for line in synced), synced


def test_with_nohardenbo_a_get_under_syncpoint_makes_no_fsync(tmp_path: Path) -> None:
    # hardening item 14: NOHARDENBO keeps today's behaviour (survives a process crash,
    # not an OS crash or power loss: README)
    assert fsyncs_during_get(tmp_path, "NOHARDENBO", C.MQPER_PERSISTENT) == []


def test_hardenbo_does_not_sync_for_a_non_persistent_message(tmp_path: Path) -> None:
    # a non-persistent message does not survive a restart, so its count needs no fsync
    assert fsyncs_during_get(tmp_path, "HARDENBO", C.MQPER_NOT_PERSISTENT) == []


def test_with_hardenbo_the_backout_count_is_accurate_after_a_restart(tmp_path: Path) -> None:
    # hardening item 14, IBM's semantics: with HARDENBO the BackoutCount is accurate after
    # a queue manager restart. The files are copied the moment the get returns (the
    # process and the machine "die" then) and the copy is started as after a reboot.
    original, copy = tmp_path / "qm", tmp_path / "after-power-cut"
    qm = QueueManager(original)
    qm.define_queue("QLOCAL", "HB.Q", {"HARDENBO": True, "BOTHRESH": 3})
    conn = qm.connect()
    conn.put("HB.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"crashes the machine")
    handle = conn.open("HB.Q", C.MQOO_INPUT_SHARED)
    got = conn.get(handle, syncpoint=True)
    assert got is not None and got[0].BackoutCount == 0
    # another connection sees the in-flight mark: committed, not held in a transaction
    with closing(sqlite3.connect(f"file:{original / 'qmgr.db'}?mode=ro", uri=True)) as db:
        assert db.execute("SELECT state, uow IS NOT NULL FROM messages").fetchall() == [(1, 1)]
    shutil.copytree(original, copy)
    with closing(sqlite3.connect(copy / "qmgr.db")) as db, db:
        db.execute("UPDATE meta SET value = 'an earlier boot' WHERE key = 'boot_id'")
    with QueueManager(copy) as restarted:
        again = restarted.connect()
        got = again.get(again.open("HB.Q", C.MQOO_INPUT_SHARED), syncpoint=True)
        assert got is not None and got[0].BackoutCount == 1
        again.disconnect()
    conn.disconnect()
    qm.close()


BACKOUT_CHILD = """
import os, sys
from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager
path, harden, action = sys.argv[1], sys.argv[2] == "HARDENBO", sys.argv[3]
qm = QueueManager(path)
qm.define_queue("QLOCAL", "HB.Q", {"HARDENBO": harden})
qm.define_queue("QLOCAL", "HB.OUT")
conn = qm.connect()
handle = conn.open("HB.Q", C.MQOO_INPUT_SHARED)
conn.put("HB.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"fails")
assert conn.get(handle, syncpoint=True) is not None
if action == "put":
    conn.put("HB.OUT", MQMD(Persistence=C.MQPER_PERSISTENT), b"sent", syncpoint=True)
os.write(1, b"MARK-GET-STARTS\\n")
conn.backout()
os.write(1, b"MARK-GET-RETURNED\\n")
os._exit(0)
"""


def fsyncs_during_backout(tmp_path: Path, attribute: str, action: str) -> list[str]:
    """The fsync/fdatasync calls an MQBACK makes, as strace sees them."""
    return fsyncs_during(tmp_path, BACKOUT_CHILD, attribute, action)


@pytest.mark.parametrize("attribute", ["HARDENBO", "NOHARDENBO"])
def test_a_backout_of_gets_alone_makes_no_fsync(tmp_path: Path, attribute: str) -> None:
    # issue 9 (poison path): lost with the OS page cache, the backout leaves the unit of
    # work in flight on disk, which the start after the reboot backs out the same way
    assert fsyncs_during_backout(tmp_path, attribute, "get") == []


def test_a_backout_of_persistent_puts_is_durable(tmp_path: Path) -> None:
    synced = fsyncs_during_backout(tmp_path, "NOHARDENBO", "put")
    assert any("qmgr.db-wal" in line for line in synced), synced


def test_with_hardenbo_a_lost_backout_gives_the_count_it_would_have_given(
    tmp_path: Path,
) -> None:
    # the backout makes no fsync: what an OS crash right after it can leave on disk is the
    # state before it (the get's in-flight mark, fsynced with HARDENBO), and the start
    # after the reboot counts that backout itself
    original = tmp_path / "qm"
    qm = QueueManager(original)
    qm.define_queue("QLOCAL", "HB.Q", {"HARDENBO": True, "BOTHRESH": 5})
    conn = qm.connect()
    conn.put("HB.Q", MQMD(Persistence=C.MQPER_PERSISTENT), b"fails twice")
    handle = conn.open("HB.Q", C.MQOO_INPUT_SHARED)
    counts = {}
    for attempt in (1, 2):
        got = conn.get(handle, syncpoint=True)
        assert got is not None and got[0].BackoutCount == attempt - 1
        lost = tmp_path / f"backout-{attempt}-lost"
        shutil.copytree(original, lost)  # the disk as it is before the backout
        conn.backout()
        kept = tmp_path / f"backout-{attempt}-kept"
        shutil.copytree(original, kept)
        counts[attempt] = [_count_after_reboot(copy) for copy in (lost, kept)]
    assert counts == {1: [1, 1], 2: [2, 2]}
    conn.disconnect()
    qm.close()


def _count_after_reboot(copy: Path) -> int:
    with closing(sqlite3.connect(copy / "qmgr.db")) as db, db:
        db.execute("UPDATE meta SET value = 'an earlier boot' WHERE key = 'boot_id'")
    with QueueManager(copy) as restarted:
        again = restarted.connect()
        got = again.get(again.open("HB.Q", C.MQOO_INPUT_SHARED))
        assert got is not None
        again.disconnect()
        return got[0].BackoutCount
