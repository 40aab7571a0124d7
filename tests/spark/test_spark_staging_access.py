"""A log staging holds the bodies of the messages it took off the queue: its directory and
files are private to their owner whatever the umask, as the queue manager's are (no Spark
session needed)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.spark import exclusive
from mqjms.spark.options import SourceOptions
from mqjms.spark.staging import LogStaging
from mqjms.transport import connect

Q = "CARDS"


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def modes(top: Path) -> dict[str, int]:
    paths = [top, *top.rglob("*")]
    return {str(p.relative_to(top.parent)): stat.S_IMODE(p.stat().st_mode) for p in paths}


def test_a_log_staging_is_private_under_umask_000(
    qm: QueueManager, embedded_url: str, tmp_path: Path, permissive_umask: None
) -> None:
    # a fault probe: ledger.db (with the staged bodies) was 0644, its directories 0777
    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    conn.put(Q, MQMD(Format=C.MQFMT_STRING), b"4111 1111 1111 1111")
    staging = LogStaging(tmp_path / "checkpoint" / "staging", f"spark:{Q}", Q)
    try:
        handle = conn.open(Q, C.MQOO_INPUT_SHARED)
        assert staging.stage(conn, handle, 10) == 1
        found = modes(tmp_path / "checkpoint")
    finally:
        staging.close()
        conn.disconnect()
    assert "checkpoint/staging/ledger.db-wal" in found  # the body is in a file there
    for name, mode in found.items():
        expected = 0o700 if (tmp_path / name).is_dir() else 0o600
        assert mode == expected, f"{name} is {oct(mode)}"


def test_a_readable_ledger_left_by_an_older_version_is_made_private(tmp_path: Path) -> None:
    directory = tmp_path / "staging"
    directory.mkdir()
    ledger = directory / "ledger.db"
    ledger.touch(mode=0o644)
    os.chmod(ledger, 0o644)
    staging = LogStaging(directory, "spark:Q", "Q")
    staging.close()
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600


def test_the_consumers_lock_directory_in_the_queue_manager_is_private_under_umask_000(
    qm: QueueManager, embedded_url: str, qmgr_dir: Path, permissive_umask: None
) -> None:
    # a fault probe: <queue manager>/spark was made 0777, the only directory of the queue
    # manager's not private to its owner
    qm.define_queue("QLOCAL", Q)
    options = SourceOptions.parse({"url": embedded_url, "queue": Q}, streaming=True)
    lock = exclusive.hold(options)
    try:
        assert lock.path.parent == qmgr_dir / "spark"
        assert stat.S_IMODE(lock.path.parent.stat().st_mode) == 0o700
        assert stat.S_IMODE(lock.path.stat().st_mode) == 0o600
    finally:
        lock.release()


def test_a_consumer_in_a_queue_manager_with_group_access_shares_it_with_the_group(
    qmgr_dir: Path,
) -> None:
    # a fault probe: <queue manager>/spark was made 0700 (its setgid dropped) and the
    # consumer's lock and ledger 0600 in a queue manager created ?group=true (2770/0660),
    # locking the other members of its group out of Spark consumers
    url = f"embedded://{qmgr_dir}?group=true"
    conn = connect(url)
    conn.disconnect()
    options = SourceOptions.parse({"url": url, "queue": Q}, streaming=True)
    lock = exclusive.hold(options)
    staging = LogStaging(options.staging_dir(), options.owner, Q)
    try:
        found = modes(qmgr_dir / "spark")
    finally:
        staging.close()
        lock.release()
    staged = options.staging_dir().relative_to(qmgr_dir)
    assert {f"spark/{lock.path.name}", f"{staged}/ledger.db", f"{staged}/ledger.db-wal"} <= set(
        found
    )
    for name, mode in found.items():
        expected = 0o2770 if (qmgr_dir / name).is_dir() else 0o660
        assert mode == expected, f"{name} is {oct(mode)}"


@pytest.mark.parametrize(("group", "expected"), [(False, 0o700), (True, 0o2770)])
def test_a_spark_directory_left_open_by_an_older_version_is_given_the_queue_managers_mode(
    qmgr_dir: Path, group: bool, expected: int
) -> None:
    # a fault probe: <queue manager>/spark made 0777 by an older version stayed 0777
    url = f"embedded://{qmgr_dir}?group={str(group).lower()}"
    connect(url).disconnect()
    (qmgr_dir / "spark").mkdir()
    os.chmod(qmgr_dir / "spark", 0o777)
    lock = exclusive.hold(SourceOptions.parse({"url": url, "queue": Q}, streaming=True))
    lock.release()
    assert stat.S_IMODE((qmgr_dir / "spark").stat().st_mode) == expected
