"""A symbolic link where the queue manager keeps one of its files is refused, never
followed (mqjms/qmgr/nofollow.py).

A fault probe: with ``startup.lock`` or ``active.lock`` a link, every open truncated the
file it named and wrote ``pid N (python ...)`` into it; ``commits.seq`` had its first 16
bytes overwritten, ``space.reserve`` was grown to 320 KiB of zeros, and each was made
0600 (run as root with a link to /etc/passwd: the file was emptied, then unreadable by
every other user).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from mqjms.mq import C, MQError
from mqjms.qmgr import QueueManager, files, locks

PRECIOUS = b"precious data that must survive\n"


@pytest.fixture
def decoy(tmp_path: Path) -> Path:
    """A file some link points to: it must keep its bytes and its mode."""
    target = tmp_path / "decoy"
    target.write_bytes(PRECIOUS)
    os.chmod(target, 0o644)
    return target


def untouched(target: Path) -> bool:
    return target.read_bytes() == PRECIOUS and stat.S_IMODE(target.stat().st_mode) == 0o644


@pytest.mark.parametrize(
    "name",
    [*files.OWN_FILES, files.DATABASE + "-wal", files.DATABASE + "-shm"],
)
def test_a_link_in_place_of_a_file_of_the_queue_manager_stops_its_open(
    qmgr_dir: Path, decoy: Path, name: str
) -> None:
    QueueManager(qmgr_dir).close()
    link = qmgr_dir / name
    link.unlink(missing_ok=True)
    link.symlink_to(decoy)
    with pytest.raises(MQError) as raised:
        QueueManager(qmgr_dir).close()
    assert raised.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert str(link) in raised.value.detail and "symbolic link" in raised.value.detail
    assert untouched(decoy)


@pytest.mark.parametrize("name", ["conn", "bells"])
def test_a_link_in_place_of_a_directory_of_the_queue_manager_stops_its_open(
    qmgr_dir: Path, tmp_path: Path, name: str
) -> None:
    # its lock files and bell sockets would be made in whatever directory it names
    QueueManager(qmgr_dir).close()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o755)
    link = qmgr_dir / name
    if link.exists():
        shutil.rmtree(link)
    link.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(MQError) as raised:
        QueueManager(qmgr_dir).close()
    assert raised.value.reason == C.MQRC_RESOURCE_PROBLEM and str(link) in raised.value.detail
    assert list(elsewhere.iterdir()) == [] and stat.S_IMODE(elsewhere.stat().st_mode) == 0o755


def test_a_lock_file_made_a_link_while_the_queue_manager_runs_is_not_written_through(
    tmp_path: Path, decoy: Path
) -> None:
    # the open's check has passed by then: the lock itself must not follow the link
    link = tmp_path / "conn.lock"
    link.symlink_to(decoy)
    lock = locks.FileLock(link)
    with pytest.raises(MQError) as raised:
        lock.acquire(exclusive=True)
    assert raised.value.reason == C.MQRC_RESOURCE_PROBLEM and str(link) in raised.value.detail
    assert untouched(decoy)


def test_a_reserve_made_a_link_while_the_queue_manager_runs_is_not_grown_through_it(
    qmgr_dir: Path, decoy: Path
) -> None:
    qm = QueueManager(qmgr_dir)
    try:
        assert qm.reserve is not None
        reserve = qmgr_dir / "space.reserve"
        reserve.unlink()
        reserve.symlink_to(decoy)
        with pytest.raises(MQError) as raised:
            qm.reserve.top_up()  # what a put does when it finds the reserve short
        assert raised.value.reason == C.MQRC_RESOURCE_PROBLEM
        assert untouched(decoy)
    finally:
        qm.close()


def test_a_linked_database_is_still_opened_where_it_lies(qmgr_dir: Path, tmp_path: Path) -> None:
    # SQLite follows a link to the database itself: a deliberate one (the database on
    # another disk) keeps working, and the file it names is made private (its log and
    # index, which SQLite makes beside it with its mode, too)
    QueueManager(qmgr_dir).close()
    elsewhere = tmp_path / "other-disk.db"
    (qmgr_dir / files.DATABASE).rename(elsewhere)
    os.chmod(elsewhere, 0o644)
    for suffix in ("-wal", "-shm"):
        (qmgr_dir / (files.DATABASE + suffix)).unlink(missing_ok=True)
    (qmgr_dir / files.DATABASE).symlink_to(elsewhere)
    qm = QueueManager(qmgr_dir)
    try:
        qm.define_queue("QLOCAL", "STILL.HERE", {})
        assert qm.queue_depth("STILL.HERE") == 0
        assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o600
        log = elsewhere.with_name(elsewhere.name + "-wal")
        assert stat.S_IMODE(log.stat().st_mode) == 0o600
    finally:
        qm.close()


def test_a_file_swapped_for_a_link_before_its_mode_is_fixed_is_refused(
    qmgr_dir: Path, decoy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # secure() looked at the path, then chmod followed whatever was there by then: a
    # group member could swap a lock file for a link in between and have the file the
    # link names made group-writable
    QueueManager(qmgr_dir).close()
    lock = qmgr_dir / "conn" / "4242.lock"
    lock.write_bytes(b"")
    os.chmod(lock, 0o644)  # not the file mode: secure() fixes it
    real_lstat = Path.lstat

    def swapped_after_the_look(self: Path) -> os.stat_result:
        st = real_lstat(self)
        if self == lock:
            lock.unlink()
            lock.symlink_to(decoy)
        return st

    monkeypatch.setattr(Path, "lstat", swapped_after_the_look)
    with pytest.raises(MQError) as err:
        files.secure(qmgr_dir, files.Access())
    assert err.value.reason == C.MQRC_RESOURCE_PROBLEM
    assert untouched(decoy)


def test_a_file_gone_before_its_mode_is_fixed_is_passed_over(
    qmgr_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # another process's lock file, log or index may go between the look and the chmod
    QueueManager(qmgr_dir).close()
    lock = qmgr_dir / "conn" / "4242.lock"
    lock.write_bytes(b"")
    os.chmod(lock, 0o644)
    real_lstat = Path.lstat

    def gone_after_the_look(self: Path) -> os.stat_result:
        st = real_lstat(self)
        if self == lock:
            lock.unlink()
        return st

    monkeypatch.setattr(Path, "lstat", gone_after_the_look)
    files.secure(qmgr_dir, files.Access())


def test_a_directory_reached_through_a_link_is_opened_and_made_private(tmp_path: Path) -> None:
    # the caller's path may be a link (a home or a mount elsewhere): only the files in
    # the directory must not be links; its own mode is fixed through the caller's path
    real = tmp_path / "real"
    QueueManager(real).close()
    os.chmod(real, 0o755)
    link = tmp_path / "link"
    link.symlink_to(real)
    QueueManager(link).close()
    assert stat.S_IMODE(real.stat().st_mode) == 0o700
