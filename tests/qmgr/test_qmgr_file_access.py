"""Who may read the embedded queue manager's files, and bounded lock waits (hardening
issue item 9).

Messages hold what applications put in them (a card number, say), so the directory is
0700 and every file in it 0600 whatever the umask, SQLite's -wal/-shm files and the lock
files included; ``?group=true`` shares them with the directory's group (2770/0660), as
IBM MQ's mqm group. Every lock wait is bounded and its error names the holder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager, locks
from mqjms.transport import connect, embedded

NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def everything(directory: Path) -> list[Path]:
    return [directory, *sorted(directory.rglob("*"))]


@pytest.fixture
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    old = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(old)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A directory every user may traverse (pytest's own tmp_path is root's alone, which
    would hide what the queue manager's modes allow)."""
    base = Path(tempfile.mkdtemp(prefix="mqjms-access-"))
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def fill(url: str) -> None:
    """Define a queue and put, get and hold messages, so that every file exists: the
    database with its -wal and -shm, the lock files and a connection's lock."""
    qm = embedded.queue_manager(url)
    qm.define_queue("QLOCAL", "CARDS", {"DEFPSIST": "YES"})
    conn = connect(url)
    conn.put("CARDS", MQMD(), b"4111 1111 1111 1111")
    conn.put("CARDS", MQMD(), b"5500 0000 0000 0004")
    handle = conn.open("CARDS", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    assert conn.get(handle, syncpoint=True) is not None  # in flight: its connection is open


@pytest.mark.parametrize("umask", [0o022, 0o000], indirect=True, ids=["umask022", "umask000"])
def test_directory_is_0700_and_every_file_0600_whatever_the_umask(
    umask: int, qmgr_dir: Path, embedded_url: str
) -> None:
    # hardening item 9: with umask 022 the directory was 0755 and qmgr.db 0644
    fill(embedded_url)
    names = {p.relative_to(qmgr_dir).as_posix() for p in qmgr_dir.rglob("*")}
    assert {"qmgr.db", "qmgr.db-wal", "qmgr.db-shm", "active.lock", "qmgr.ini"} <= names
    assert any(n.startswith("conn/") and n.endswith(".lock") for n in names)
    for path in everything(qmgr_dir):
        expected = 0o700 if path.is_dir() else 0o600
        assert mode(path) == expected, f"{path} is {oct(mode(path))}"


@pytest.mark.parametrize("umask", [0o000], indirect=True, ids=["umask000"])
def test_missing_parents_are_never_writable_by_others(umask: int, tmp_path: Path) -> None:
    # a fault probe: under umask 000 the parents made on the way were 0777, so another
    # user could swap the queue manager's directory for one of theirs
    qm = embedded.queue_manager(f"embedded://{tmp_path}/made/on/the/way/qm")
    qm.close()
    for parent in ("made", "made/on", "made/on/the", "made/on/the/way"):
        assert mode(tmp_path / parent) == 0o755, parent
    assert mode(tmp_path / "made/on/the/way/qm") == 0o700


def test_another_user_can_read_nothing_and_lock_nothing(shared_tmp: Path) -> None:
    # hardening item 9: another local user read a card number from qmgr.db with sqlite3
    directory = shared_tmp / "qm"
    old = os.umask(0o022)
    try:
        fill(f"embedded://{directory}")
    finally:
        os.umask(old)
    targets = [directory / "qmgr.db", directory / "qmgr.db-wal", directory / "active.lock"]
    targets += sorted((directory / "conn").glob("*.lock"))
    outcomes = [as_nobody(try_to_read_and_lock, path) for path in targets]
    assert outcomes == ["denied"] * len(targets), list(zip(targets, outcomes, strict=True))


def try_to_read_and_lock(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY)
    except PermissionError:
        return "denied"
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return "read and locked"
    except OSError:
        return "read"
    finally:
        os.close(fd)


def as_nobody(probe: Callable[[Path], str], path: Path) -> str:
    """Run ``probe(path)`` in a forked child that has become the user nobody."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as another user")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            os.write(write_end, probe(path).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        answer = pipe.read().decode()
    os.waitpid(pid, 0)
    return answer


def test_group_access_is_chosen_at_creation_and_kept(qmgr_dir: Path) -> None:
    # hardening item 9: a documented option allows group access, as MQ's mqm group
    fill(f"embedded://{qmgr_dir}?group=true")
    for path in everything(qmgr_dir):
        expected = 0o2770 if path.is_dir() else 0o660
        assert mode(path) == expected, f"{path} is {oct(mode(path))}"
    assert "GroupAccess=yes" in (qmgr_dir / "qmgr.ini").read_text()
    embedded.close_all()
    QueueManager(qmgr_dir).close()  # no option: what qmgr.ini says
    assert mode(qmgr_dir / "qmgr.db") == 0o660
    QueueManager(qmgr_dir, group_access=False).close()  # the owner takes it back
    assert mode(qmgr_dir) == 0o700
    assert all(mode(p) == 0o600 for p in qmgr_dir.rglob("*") if p.is_file())


def test_a_bad_group_option_is_a_clear_error(qmgr_dir: Path) -> None:
    with pytest.raises(ValueError, match="group='maybe'"):
        connect(f"embedded://{qmgr_dir}?group=maybe")


def test_files_of_an_older_version_are_made_private_at_open(qmgr_dir: Path) -> None:
    # hardening item 9: directories made before this change are 0755 with 0644 files
    fill(f"embedded://{qmgr_dir}")
    embedded.close_all()
    os.chmod(qmgr_dir, 0o755)
    for path in qmgr_dir.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    QueueManager(qmgr_dir).close()
    assert all(mode(p) == (0o700 if p.is_dir() else 0o600) for p in everything(qmgr_dir))


def hold_lock(path: Path) -> subprocess.Popen[str]:
    """Another process holding an exclusive lock on ``path`` until killed."""
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from mqjms.qmgr.locks import FileLock\n"
        "FileLock(Path(sys.argv[1])).acquire(exclusive=True)\n"
        "print('HELD', flush=True)\n"
        "time.sleep(600)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
    return proc


def test_a_lock_wait_is_bounded_and_names_the_holder(
    qmgr_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # hardening item 9: every lock wait is bounded and its error names the holder
    QueueManager(qmgr_dir).close()
    holder = hold_lock(qmgr_dir / "startup.lock")
    try:
        monkeypatch.setattr(locks, "LOCK_TIMEOUT", 0.3)
        with pytest.raises(MQError) as raised:
            QueueManager(qmgr_dir)
    finally:
        holder.kill()
        holder.wait()
    assert raised.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    assert f"pid {holder.pid} (" in raised.value.detail
    assert "startup.lock" in raised.value.detail
    QueueManager(qmgr_dir).close()  # the holder is gone: the lock is free again


def test_restart_refusal_names_the_processes_using_the_queue_manager(
    qm: QueueManager, embedded_url: str
) -> None:
    # hardening item 9: an error about a held lock names the holder
    script = (
        "import sys, time\n"
        "from mqjms.transport import connect\n"
        "conn = connect(sys.argv[1], 'holder-app')\n"
        "print('HELD', flush=True)\n"
        "time.sleep(600)\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, embedded_url], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "HELD"
        with pytest.raises(MQError) as raised:
            qm.restart()
    finally:
        proc.kill()
        proc.wait()
    assert raised.value.reason == C.MQRC_OBJECT_IN_USE
    assert f"pid {proc.pid} (holder-app)" in raised.value.detail
