"""Group commit and doorbells (issue 9): the commits of several consumers share one fsync
and each returns only once it is on disk; a get waiting in another process is woken by the
commit, not by polling.

The other processes run ``python -m tests.qmgr.qmgr_child`` (in this folder).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.errors import MQError
from mqjms.qmgr import bells, commits, getting, manager, wakeup
from mqjms.qmgr.manager import QueueManager
from mqjms.transport import connect, embedded
from tests.qmgr.qmgr_child import Child

PERSISTENT = MQMD(Persistence=C.MQPER_PERSISTENT)


@pytest.fixture
def children(tmp_path: Path) -> Iterator[list[Child]]:
    started: list[Child] = []
    yield started
    for child in started:  # only the processes this test started, by their pid
        child.kill()


def _committed(qm: QueueManager) -> int:
    """The durable commits counted in ``commits.seq`` (the shared ticket counter)."""
    return int.from_bytes((qm.path / "commits.seq").read_bytes()[:8], "little")


def test_a_durable_commit_returns_only_after_an_fsync_that_began_after_it(
    qm: QueueManager,
) -> None:
    # issue 9, group commit: "a commit returning only once durable". Another process's
    # fsync is in progress (it holds sync.lock): the put has committed (it took its
    # ticket), but cannot return until an fsync that covers it has run.
    qm.define_queue("QLOCAL", "GC.DURABLE")
    conn = qm.connect("gc-test")
    conn.put("GC.DURABLE", PERSISTENT, b"warm up")  # creates the shared files
    sync = commits.sync_for(qm.db_file)
    before_fsyncs, before = sync.fsyncs, _committed(qm)
    fd = os.open(qm.path / "sync.lock", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    done = threading.Event()
    putter = threading.Thread(
        target=lambda: (conn.put("GC.DURABLE", PERSISTENT, b"durable"), done.set())
    )
    try:
        putter.start()
        while _committed(qm) == before:  # the COMMIT happened; the fsync cannot yet
            threading.Event().wait(0.01)
        assert not done.is_set()
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    putter.join(30)
    assert done.is_set()
    assert sync.fsyncs == before_fsyncs + 1


def test_the_commits_of_several_consumers_share_one_fsync(qm: QueueManager) -> None:
    # issue 9, group commit: units of work of several consumers committed with one fsync.
    # The fsync is held back (sync.lock taken, as by another process's fsync) until every
    # consumer has committed; then one fsync makes all of them durable.
    qm.define_queue("QLOCAL", "GC.GROUP")
    consumers = [qm.connect(f"gc-{i}") for i in range(4)]
    consumers[0].put("GC.GROUP", PERSISTENT, b"warm up")
    handles = [c.open("GC.GROUP", C.MQOO_INPUT_SHARED | C.MQOO_OUTPUT) for c in consumers]
    for i, (conn, handle) in enumerate(zip(consumers, handles, strict=True)):
        conn.put(handle, PERSISTENT, f"m{i}".encode(), syncpoint=True)
    sync = commits.sync_for(qm.db_file)
    before_fsyncs, before = sync.fsyncs, _committed(qm)
    fd = os.open(qm.path / "sync.lock", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    threads = [threading.Thread(target=conn.commit) for conn in consumers]
    try:
        for thread in threads:
            thread.start()
        while _committed(qm) < before + len(consumers):
            threading.Event().wait(0.01)
        assert all(thread.is_alive() for thread in threads)  # none is durable yet
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    for thread in threads:
        thread.join(30)
    assert sync.fsyncs == before_fsyncs + 1
    assert qm.queue_depth("GC.GROUP") == 5


@pytest.mark.slow
def test_a_commit_acknowledged_to_one_member_of_a_group_survives_a_sigkill(
    embedded_url: str, tmp_path: Path, children: list[Child]
) -> None:
    # issue 9: "a test shows that a commit acknowledged to one consumer of a group
    # survives a SIGKILL of the process right after": 4 consumer threads commit with
    # shared fsyncs; the process is killed as soon as the first commit is acknowledged.
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "GC.KILL")
    conn = connect(embedded_url)
    bodies = {f"msg {i}" for i in range(400)}
    for body in sorted(bodies):
        conn.put("GC.KILL", PERSISTENT, body.encode())
    child = Child(tmp_path / "group.log", "group", embedded_url, "GC.KILL", "4")
    children.append(child)
    acked = {child.expect("ACKED", timeout=60)}
    child.kill()
    while True:  # the lines it printed before it died
        line = child._lines.get(timeout=10)
        if line is None:
            break
        acked.add(line.removeprefix("ACKED ").strip())
    embedded.close_all()
    # a new process's view after the kill: the queue manager reopened from its files
    qm = QueueManager(qm.path)
    try:
        later = qm.connect("after-kill")
        handle = later.open("GC.KILL", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
        left: list[str] = []
        while (got := later.get(handle, wait=5)) is not None:
            left.append(got[1].decode())
    finally:
        qm.close()
    assert not acked & set(left), "a message whose commit was acknowledged came back"
    assert len(left) == len(set(left)) and set(left) <= bodies - acked


@pytest.mark.slow
def test_a_get_waiting_in_another_process_is_woken_by_the_commit(
    embedded_url: str, tmp_path: Path, children: list[Child], monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 9, wake-ups not polling: with the fallback poll slower than the wait, only the
    # doorbell can end this get with the message another process puts
    monkeypatch.setattr(getting, "BELL_POLL_INTERVAL", 600.0)
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "GC.BELL")
    conn = connect(embedded_url)
    handle = conn.open("GC.BELL", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, wait=0.1) is None  # this process's bell is up
    children.append(Child(tmp_path / "put.log", "put", embedded_url, "GC.BELL", "1"))
    got = conn.get(handle, wait=120)
    assert got is not None and got[1] == b"persistent 0"


def test_a_bell_whose_process_is_gone_is_removed_by_the_next_ring(qm: QueueManager) -> None:
    # a process killed with its bell announced leaves the file; the kernel dropped its
    # socket, so the next ring is refused and removes the file
    directory = qm.path.resolve()
    (directory / bells.BELLS).mkdir(exist_ok=True)
    stale = directory / bells.BELLS / "999999999-gone"
    stale.touch()
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    with pytest.raises(ConnectionRefusedError):
        probe.sendto(b"\1", "\0mqjms-bell-999999999-gone")
    probe.close()
    bells.ring_others(directory)
    assert not stale.exists()


def test_a_bell_socket_whose_process_is_gone_is_removed_by_the_next_ring(
    qm: QueueManager,
) -> None:
    # a bell bound in bells/ outlives its process as a file: the socket behind it is
    # gone, so the next ring is refused and removes the file
    directory = qm.path.resolve()
    (directory / bells.BELLS).mkdir(exist_ok=True)
    stale = directory / bells.BELLS / f"999999999-gone{bells.SOCKET_SUFFIX}"
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(stale))
    dead.close()
    assert stale.exists()
    bells.ring_others(directory)
    assert not stale.exists()


def test_a_bell_is_a_socket_file_that_rings_this_process(tmp_path: Path) -> None:
    # the bell is reached through the file system (any network namespace), even from a
    # directory whose path is too long for a socket address (107 bytes)
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    qm = QueueManager(deep)
    try:
        qm.define_queue("QLOCAL", "GC.SOCK")
        conn = qm.connect("gc-sock")
        handle = conn.open("GC.SOCK", C.MQOO_INPUT_SHARED)
        assert conn.get(handle, wait=0.01) is None  # puts the bell up
        bells_dir = deep.resolve() / bells.BELLS
        (bell,) = bells_dir.iterdir()
        assert bell.name.endswith(bells.SOCKET_SUFFIX) and stat.S_ISSOCK(bell.stat().st_mode)
        assert bell.stat().st_mode & 0o777 == (deep.stat().st_mode & 0o660)
        assert len(os.fsencode(bell)) > 107
        before = wakeup.rings()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as other:
            other.sendto(b"\1", bells._address(str(bells_dir), bell.name))
        assert wakeup.wait(before, 10) > before
    finally:
        qm.close()


def test_a_forked_child_taking_its_bell_down_leaves_its_parents(tmp_path: Path) -> None:
    # the child's copy of the socket is its parent's socket: shutting it down would end
    # the parent's listening thread while its file still says it listens
    directory = tmp_path.resolve()
    assert bells.listen(directory)
    try:
        (bell,) = (directory / bells.BELLS).iterdir()
        child = os.fork()
        if child == 0:  # pragma: no cover - the child
            bells.stop(directory)
            os._exit(0)
        os.waitpid(child, 0)
        assert bell.exists()
        before = wakeup.rings()
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as other:
            other.sendto(b"\1", bells._address(str(directory / bells.BELLS), bell.name))
        assert wakeup.wait(before, 10) > before
    finally:
        bells.stop(directory)


def test_a_bell_reached_by_its_directorys_descriptor_follows_a_new_directory(
    tmp_path: Path,
) -> None:
    # a path too long for a socket address goes through a descriptor of bells/: one that
    # names a directory removed since is opened anew, or no bell there is ever rung
    deep = (tmp_path / ("d" * 60) / ("e" * 60)).resolve()
    bells_dir = deep / bells.BELLS
    bells_dir.mkdir(parents=True)
    first = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    first.bind(bells._address(str(bells_dir), f"1-first{bells.SOCKET_SUFFIX}"))
    first.close()
    for stale in bells_dir.iterdir():
        stale.unlink()
    bells_dir.rmdir()
    bells_dir.mkdir()
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as second:
        second.bind(bells._address(str(bells_dir), f"2-second{bells.SOCKET_SUFFIX}"))
        second.setblocking(False)
        bells._listed.clear()
        bells.ring_others(deep)
        assert second.recv(16) == b"\1"


def _other_network_namespace() -> list[str]:
    """The command that runs a process in a network namespace of its own, or a skip."""
    for command in (["unshare", "--net"], ["unshare", "--user", "--map-root-user", "--net"]):
        try:
            if subprocess.run([*command, "true"], capture_output=True, timeout=10).returncode == 0:
                return command
        except (OSError, subprocess.TimeoutExpired):
            continue
    pytest.skip("no network namespace can be made here (unshare --net)")


@pytest.mark.slow
def test_a_commit_in_another_network_namespace_wakes_the_get(
    embedded_url: str, tmp_path: Path, children: list[Child], monkeypatch: pytest.MonkeyPatch
) -> None:
    # containers sharing the directory on one host: abstract sockets are per network
    # namespace, a bell's socket file is not. With the fallback poll slower than the
    # wait, only the bell can end this get with the message the other process puts (an
    # unheard bell would poll, and look for dead processes' units of work, every second).
    prefix = _other_network_namespace()
    monkeypatch.setattr(getting, "BELL_POLL_INTERVAL", 600.0)
    monkeypatch.setattr(manager, "RECOVERY_INTERVAL", 600.0)
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "GC.NETNS")
    conn = connect(embedded_url)
    handle = conn.open("GC.NETNS", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, wait=0.1) is None  # this process's bell is up
    (bell,) = (qm.path.resolve() / bells.BELLS).iterdir()
    putter = Child(
        tmp_path / "put.log", "put-and-stay", embedded_url, "GC.NETNS", "1", prefix=prefix
    )
    children.append(putter)
    result: list[tuple[MQMD, bytes] | None] = []
    getter = threading.Thread(target=lambda: result.append(conn.get(handle, wait=600)))
    getter.start()
    getter.join(60)  # the get's own deadline, the only other way out, is far later
    if getter.is_alive():
        conn.interrupt_wait()
        getter.join(10)
        pytest.fail(f"the get was not woken by the other process's commit; {putter.logs()}")
    assert result[0] is not None and result[0][1] == b"persistent 0"
    assert bell.exists()  # rung, not taken for a dead process's


def test_closing_the_queue_manager_takes_its_bell_down(qm: QueueManager) -> None:
    # a long-lived process opening many queue managers must not keep a thread and a
    # socket for each one it closed
    qm.define_queue("QLOCAL", "GC.DOWN")
    conn = qm.connect("gc-down")
    handle = conn.open("GC.DOWN", C.MQOO_INPUT_SHARED)
    assert conn.get(handle, wait=0.01) is None  # puts the bell up
    bells_dir = qm.path.resolve() / bells.BELLS
    (name,) = os.listdir(bells_dir)
    (thread,) = [t for t in threading.enumerate() if t.name == f"mqjms-bell-{name}"]
    qm.close()
    assert os.listdir(bells_dir) == []
    thread.join(10)
    assert not thread.is_alive()


def test_closing_the_queue_manager_closes_the_files_of_group_commit(qmgr_dir: Path) -> None:
    # a process opening queue manager after queue manager (a test session: hundreds) must
    # not keep write.lock, sync.lock and commits.seq open for each: past 1024 descriptors,
    # select() fails in the libraries that still use it
    def open_files() -> list[str]:
        names = []
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                names.append(os.readlink(f"/proc/self/fd/{fd}"))
        return [n for n in names if n.startswith(str(qmgr_dir.resolve()))]

    qm = QueueManager(qmgr_dir)
    qm.define_queue("QLOCAL", "GC.FILES")
    conn = qm.connect("gc-files")
    conn.put("GC.FILES", PERSISTENT, b"durable")
    assert any(name.endswith("sync.lock") for name in open_files())
    qm.close()
    assert open_files() == []


def test_a_bell_announced_in_the_same_tick_as_the_last_listing_is_rung(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a commit lists the bells again only when their directory changed; a change within
    # the file system's coarse clock tick leaves the mtime as it was, so a directory that
    # changed that recently is always listed again
    monkeypatch.setattr(bells, "_SETTLED_NS", 50_000_000)  # seconds in real use
    monkeypatch.setattr(bells, "_FINE_SETTLED_NS", 50_000_000)
    directory = qm.path.resolve()
    announced = directory / bells.BELLS
    announced.mkdir(exist_ok=True)
    sockets = {}
    for name in ("t-first", "t-second", "t-third"):
        sockets[name] = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sockets[name].bind(f"\0mqjms-bell-{name}")
        sockets[name].setblocking(False)

    def rung(name: str) -> bool:
        try:
            return sockets[name].recv(16) == b"\1"
        except BlockingIOError:
            return False

    try:
        (announced / "t-first").touch()
        bells.ring_others(directory)
        assert rung("t-first")
        listed = os.stat(announced).st_mtime_ns
        (announced / "t-second").touch()
        os.utime(announced, ns=(listed, listed))  # the same tick: the mtime did not move
        time.sleep(2 * bells._SETTLED_NS / 1e9)  # settled since, but not when it was listed
        bells.ring_others(directory)
        assert rung("t-first") and rung("t-second")
        # once settled, the listing is trusted until the mtime moves
        settled = listed - 10 * bells._SETTLED_NS
        os.utime(announced, ns=(settled, settled))
        bells.ring_others(directory)
        (announced / "t-third").touch()
        os.utime(announced, ns=(settled, settled))
        bells.ring_others(directory)
        assert not rung("t-third")
        os.utime(announced)  # a real change moves the mtime
        bells.ring_others(directory)
        assert rung("t-third")
    finally:
        for sock in sockets.values():
            sock.close()


def test_a_listing_is_trusted_sooner_where_mtimes_have_fractions_of_a_second(
    qm: QueueManager,
) -> None:
    # a file system keeping mtimes to the kernel's tick settles in 50 ms; one keeping whole
    # seconds (where a second's changes share one mtime) only after seconds
    directory = qm.path.resolve()
    announced = directory / bells.BELLS
    announced.mkdir(exist_ok=True)
    whole_second = (time.time_ns() // 1_000_000_000 - 1) * 1_000_000_000
    for mtime, trusted in ((whole_second, False), (whole_second + 123_456_789, True)):
        os.utime(announced, ns=(mtime, mtime))
        bells._listed.pop(directory, None)
        bells._names(directory, str(announced))
        assert (directory in bells._listed) is trusted, mtime


def _stopped_holder(lock: Path) -> subprocess.Popen[str]:
    """A process that takes an flock on ``lock`` and stops itself (SIGSTOP) holding it;
    the caller kills it."""
    holder = subprocess.Popen(
        [
            "python3",
            "-c",
            "import fcntl, os, signal, sys; fd = os.open(sys.argv[1], os.O_RDONLY);"
            " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True);"
            " os.kill(os.getpid(), signal.SIGSTOP)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    if holder.stdout is None or holder.stdout.readline() != "held\n":
        holder.kill()
        holder.wait()
        raise AssertionError(f"the process meant to hold {lock} did not take it")
    return holder


def test_a_writer_stopped_while_it_holds_the_turn_makes_the_others_fail_not_hang(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a process stopped (SIGSTOP, a debugger) while holding write.lock: every wait for a
    # lock is bounded (LOCK_TIMEOUT), then 2059 names the holder; its death frees the turn
    from mqjms.qmgr import locks

    qm.define_queue("QLOCAL", "GC.STOPPED")
    conn = qm.connect("gc-stopped")
    holder = _stopped_holder(qm.path / "write.lock")
    try:
        monkeypatch.setattr(locks, "LOCK_TIMEOUT", 0.3)
        with pytest.raises(MQError) as failure:
            conn.put("GC.STOPPED", PERSISTENT, b"waits")
        assert failure.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
        assert f"pid {holder.pid}" in str(failure.value)
    finally:
        holder.kill()
        holder.wait()
    conn.put("GC.STOPPED", PERSISTENT, b"goes")
    assert qm.queue_depth("GC.STOPPED") == 1


def test_a_process_stopped_holding_the_turn_to_sync_costs_one_wait_not_one_per_commit(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch, events: list[dict[str, object]]
) -> None:
    # a fault probe: a process stopped while it held sync.lock made every durable commit
    # of the others wait LOCK_TIMEOUT before syncing alone (one put took two minutes);
    # the fsyncs are shared to save time only, so after one such wait a commit syncs
    # alone at once while the lock stays held, and shares again once it is free
    from mqjms.qmgr import locks

    qm.define_queue("QLOCAL", "GC.SYNC.STOPPED")
    conn = qm.connect("gc-sync-stopped")
    conn.put("GC.SYNC.STOPPED", PERSISTENT, b"first")  # sync.lock made
    holder = _stopped_holder(qm.path / "sync.lock")
    try:
        monkeypatch.setattr(locks, "LOCK_TIMEOUT", 0.3)
        for n in range(5):
            conn.put("GC.SYNC.STOPPED", PERSISTENT, b"%d" % n)  # durable, each of them
        alone = [e for e in events if e["event"] == "storage.sync_alone"]
        assert len(alone) == 1 and f"pid {holder.pid}" in str(alone[0]["detail"])
    finally:
        holder.kill()
        holder.wait()
    conn.put("GC.SYNC.STOPPED", PERSISTENT, b"shared")
    assert any(e["event"] == "storage.sync_shared_again" for e in events)
    assert qm.queue_depth("GC.SYNC.STOPPED") == 7


def test_a_forked_child_takes_turns_afresh(qm: QueueManager) -> None:
    # a thread of the parent holds the turn to write at the fork: the child, which lacks
    # that thread, must neither deadlock on its thread lock nor keep the parent's flock
    gate = commits.gate_for(qm.path / "qmgr.db")
    holding, done = threading.Event(), threading.Event()

    def hold() -> None:
        gate.acquire()
        holding.set()
        done.wait(10)
        gate.release()

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    pid = os.fork()
    if pid == 0:
        fresh = gate._fd == -1 and gate._lock.acquire(blocking=False)
        os._exit(0 if fresh else 1)
    _, status = os.waitpid(pid, 0)
    done.set()
    holder.join()
    assert os.waitstatus_to_exitcode(status) == 0
