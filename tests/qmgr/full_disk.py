"""A file system that really fills up, for the full-disk tests: a small tmpfs (``mount``
needs root; without it the tests are skipped and say why) and a filler taking its last
block."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.transport import embedded

BODY = b"x" * 4000


def run_mount(*args: str) -> None:
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"mount is not permitted here: {result.stderr.strip()}")


def unmount(path: Path) -> None:
    embedded.close_all()
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def mounted_small_disk(tmp_path: Path) -> Iterator[Path]:
    """An 8 MiB tmpfs (the ``small_disk`` fixture)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    run_mount("-t", "tmpfs", "-o", "size=8m,mode=0700", "tmpfs", str(mount_point))
    try:
        yield mount_point
    finally:
        unmount(mount_point)


def fill_disk(path: Path) -> Path:
    """Take every block left on the file system of ``path``."""
    filler = path / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while True:
            os.write(fd, b"\0" * 65536)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    try:
        while True:
            os.write(fd, b"\0" * 512)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def fill_queue(url: str, queue: str, attrs: dict[str, object] | None = None) -> int:
    """Define ``queue`` and put persistent messages of BODY until 2056; how many."""
    qm = embedded.queue_manager(url)
    qm.define_queue("QLOCAL", queue, {"MAXDEPTH": 1_000_000, **(attrs or {})})
    conn = qm.connect()
    put = 0
    try:
        while True:
            conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), BODY)
            put += 1
    except MQError as exc:
        assert exc.reason == C.MQRC_Q_SPACE_NOT_AVAILABLE, exc
    finally:
        conn.disconnect()
    return put
