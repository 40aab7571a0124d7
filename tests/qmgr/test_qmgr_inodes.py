"""A file system out of inodes (not of blocks): the queue manager cannot start, since
SQLite must create its ``-wal`` and ``-shm`` files, and the error says why instead of
sending the user to check the database's permissions. Needs ``mount`` (root)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.transport import embedded
from tests.qmgr.full_disk import run_mount, unmount


@pytest.fixture
def few_inodes(tmp_path: Path) -> Iterator[Path]:
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    run_mount("-t", "tmpfs", "-o", "size=8m,nr_inodes=64,mode=0700", "tmpfs", str(mount_point))
    try:
        yield mount_point
    finally:
        unmount(mount_point)


def take_every_inode(directory: Path) -> None:
    for i in range(10_000):
        try:
            (directory / f"f{i}").touch()
        except OSError:
            return
    raise AssertionError("the file system never ran out of inodes")


def test_a_file_system_without_free_inodes_is_named_in_the_error(few_inodes: Path) -> None:
    # a fault probe: the error said "cannot open qmgr.db: check that it exists and this
    # user may read it", sending the user to the wrong cause
    url = f"embedded://{few_inodes / 'qm'}"
    conn = embedded.queue_manager(url).connect()
    conn.put("SYSTEM.DEFAULT.LOCAL.QUEUE", MQMD(Persistence=C.MQPER_PERSISTENT), b"kept")
    conn.disconnect()
    embedded.close_all()
    take_every_inode(few_inodes)
    with pytest.raises(MQError) as err:
        embedded.queue_manager(url).connect()
    assert "no free inodes" in err.value.detail
    assert "df -i" in err.value.detail
    for extra in few_inodes.glob("f*"):  # inodes back: the message is still there
        with contextlib.suppress(FileNotFoundError):
            os.unlink(extra)
    conn = embedded.queue_manager(url).connect()
    handle = conn.open("SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_INPUT_SHARED)
    got = conn.get(handle)
    assert got is not None and got[1] == b"kept"
    conn.disconnect()
