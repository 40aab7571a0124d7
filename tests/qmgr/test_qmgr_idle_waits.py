"""Waiting without polling (issue 9, target 3: an idle Worker uses no measurable CPU).

A get with wait sleeps until something can change its outcome: a commit (the doorbell and
the other processes' bells), the death of a process holding a unit of work (a pidfd per
process, :mod:`mqjms.qmgr.owners`), or another thread ending the wait
(``interrupt_wait``, a disconnect). These tests make each happen while a get waits much
longer than the test may take, so only the wake-up can end it in time.
"""

from __future__ import annotations

import gc
import math
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager, locks, manager, owners
from mqjms.transport import embedded
from tests.qmgr.conftest import SpawnChild

IN = C.MQOO_INPUT_SHARED
LONG = 60.0  # a wait no test here may sit out
ENDS = 20.0  # how long a test waits for a wait to end (generous: a loaded machine)


class Waiting:
    """A get with wait on another thread, and what it returned."""

    def __init__(self, get: Callable[[], tuple[MQMD, bytes] | None]) -> None:
        self.result: tuple[MQMD, bytes] | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(get,), daemon=True)
        self._thread.start()

    def _run(self, get: Callable[[], tuple[MQMD, bytes] | None]) -> None:
        try:
            self.result = get()
        except BaseException as exc:
            self.error = exc

    def ended(self) -> bool:
        self._thread.join(ENDS)
        return not self._thread.is_alive()


def waiting_in(get: Callable[[], tuple[MQMD, bytes] | None]) -> Waiting:
    """``get`` on another thread, given time to reach its wait."""
    waiting = Waiting(get)
    time.sleep(0.3)
    return waiting


def count_lock_looks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lock files recovery looks at from now on (one list entry per look)."""
    looks: list[str] = []
    original = locks.owner_is_dead

    def counted(path: str | Path) -> bool:
        looks.append(str(path))
        return original(path)

    monkeypatch.setattr(manager, "owner_is_dead", counted)
    return looks


def assert_back_once(qm: QueueManager, queue: str, body: bytes) -> None:
    """``body`` is available on ``queue`` again, backed out once."""
    reader = qm.connect()
    got = reader.get(reader.open(queue, IN), wait=ENDS)
    assert got is not None and (got[1], got[0].BackoutCount) == (body, 1)


def test_interrupt_wait_ends_a_waiting_get_without_a_message(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG, syncpoint=True))
    conn.interrupt_wait()
    assert waiting.ended(), "interrupt_wait did not end the get"
    assert waiting.error is None and waiting.result is None
    # the interrupt was used up: the next get waits, and a put then wakes it
    again = waiting_in(lambda: conn.get(handle, wait=LONG, syncpoint=True))
    qm.connect().put("IW.Q", MQMD(), b"after")
    assert again.ended() and again.result is not None and again.result[1] == b"after"


def test_an_interrupt_before_the_get_ends_the_next_wait_after_one_look(
    qm: QueueManager,
) -> None:
    # no race lost: the interrupt that comes just before the get reaches its wait counts
    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    conn.interrupt_wait()
    waiting = Waiting(lambda: conn.get(handle, wait=LONG))
    assert waiting.ended() and waiting.result is None
    # a message that is there is still returned: the get looks before it would wait
    conn.interrupt_wait()
    qm.connect().put("IW.Q", MQMD(), b"there")
    got = conn.get(handle, wait=LONG)
    assert got is not None and got[1] == b"there"


def test_interrupt_wait_is_declared_and_passes_through_a_wrapper(qm: QueueManager) -> None:
    from mqjms.semantics import Capability, ConnectionWrapper, interrupt_wait

    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    assert Capability.INTERRUPT_WAIT in conn.capabilities
    wrapped = ConnectionWrapper(conn)
    handle = wrapped.open("IW.Q", IN)
    waiting = waiting_in(lambda: wrapped.get(handle, wait=LONG))
    assert interrupt_wait(wrapped)
    assert waiting.ended() and waiting.result is None


def test_a_dead_process_is_watched_not_polled_and_its_message_comes_back_at_once(
    embedded_url: str, children: SpawnChild, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 2's recovery of a SIGKILLed process's unit of work, without polling: once the
    # other process is watched, nothing is due until it dies, then at once
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.KILL")
    conn = embedded.connect(embedded_url)
    conn.put("IW.KILL", MQMD(Persistence=C.MQPER_PERSISTENT), b"in flight")
    child = children("hold", embedded_url, "IW.KILL")
    assert child.expect("HELD", timeout=30) == "in flight"
    handle = conn.open("IW.KILL", IN)
    # waiting, with a bell the others ring
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG, syncpoint=True))
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() == math.inf, "the other process is not watched"
    looks = count_lock_looks(monkeypatch)
    time.sleep(2.5)  # more than RECOVERY_INTERVAL: a poll would have looked by now
    assert looks == [], "recovery polled while every owner was watched"
    child.kill()
    assert waiting.ended(), "the death of the process did not wake the get"
    assert waiting.result is not None
    md, data = waiting.result
    assert (data, md.BackoutCount) == (b"in flight", 1)


@pytest.mark.parametrize("unwatchable", ["no pidfd", "lock not shown held by the pid"])
def test_a_process_that_cannot_be_watched_is_polled(
    embedded_url: str,
    children: SpawnChild,
    monkeypatch: pytest.MonkeyPatch,
    unwatchable: str,
) -> None:
    # no pidfd (not Linux, an old kernel), or a pid not proven to be the lock's holder
    # (another pid namespace): recovery polls every RECOVERY_INTERVAL, as before
    if unwatchable == "no pidfd":
        monkeypatch.setattr(owners, "_supported", lambda: False)
    else:
        monkeypatch.setattr(owners, "_flock_holders", lambda: set())
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.KILL")
    conn = embedded.connect(embedded_url)
    conn.put("IW.KILL", MQMD(), b"in flight")
    child = children("hold", embedded_url, "IW.KILL")
    assert child.expect("HELD", timeout=30) == "in flight"
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() <= manager.RECOVERY_INTERVAL
    handle = conn.open("IW.KILL", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    child.kill()
    assert waiting.ended() and waiting.result is not None
    assert waiting.result[0].BackoutCount == 1


def test_a_connection_made_while_a_get_waits_is_watched_too(
    embedded_url: str, children: SpawnChild, events: list[dict[str, object]]
) -> None:
    # a new connection rings the other processes, whose waiting gets then watch it: its
    # process's death is noticed (and its unit of work backed out) with nobody polling
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.IDLE")
    qm.define_queue("QLOCAL", "IW.OTHER")
    qm.connect().put("IW.OTHER", MQMD(), b"held")
    conn = embedded.connect(embedded_url)
    handle = conn.open("IW.IDLE", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    child = children("hold", embedded_url, "IW.OTHER")
    assert child.expect("HELD", timeout=30) == "held"
    deadline = time.monotonic() + ENDS
    while qm.recovery_wait() != math.inf:  # the waiting get's recovery covered it
        assert time.monotonic() < deadline, "the new connection's process is not watched"
        time.sleep(0.1)
    child.kill()

    def backed_out() -> bool:
        return any(
            e["event"] == "uow.backed_out" and e.get("reason") == "process ended" for e in events
        )

    while not backed_out():
        assert time.monotonic() < deadline, "the child's death was not noticed"
        time.sleep(0.05)
    assert_back_once(qm, "IW.OTHER", b"held")
    conn.interrupt_wait()
    assert waiting.ended()


def test_a_dropped_connection_of_this_process_is_recovered_without_polling(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # its lock is let go when it is collected: that counts as its owner's end at once
    monkeypatch.setattr(manager, "RECOVERY_INTERVAL", 600.0)
    qm.define_queue("QLOCAL", "IW.Q")
    qm.connect().put("IW.Q", MQMD(), b"held")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    qm.recover_abandoned(force=True)

    def hold_and_drop() -> None:
        dropped = qm.connect()
        got = dropped.get(dropped.open("IW.Q", IN), syncpoint=True)
        assert got is not None and got[1] == b"held"

    hold_and_drop()
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    gc.collect()
    assert waiting.ended() and waiting.result is not None
    assert (waiting.result[1], waiting.result[0].BackoutCount) == (b"held", 1)


def test_disconnect_from_another_thread_ends_a_long_wait(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    conn.disconnect()
    assert waiting.ended()
    assert waiting.error is not None and "2018" in str(waiting.error)


def test_an_alter_qmgr_in_another_process_wakes_the_sleeping_expiry_scanner(
    embedded_url: str,
) -> None:
    # seed 000, "Periodic scan": the scanner of a process that waits sleeps while no scan
    # is due (EXPRYINT OFF); another process's ALTER QMGR EXPRYINT rings it awake
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.SCAN")
    qm.define_queue("QLOCAL", "IW.IDLE")
    conn = qm.connect()
    conn.put("IW.SCAN", MQMD(Expiry=1), b"expires")
    idle = conn.open("IW.IDLE", IN)
    waiting = Waiting(lambda: conn.get(idle, wait=LONG))  # this process listens
    time.sleep(2.5)  # the scanner has gone to sleep: EXPRYINT is OFF
    assert qm.queue_depth("IW.SCAN") == 1
    subprocess.run(
        [sys.executable, "-m", "mqjms", "mqsc", "--url", embedded_url],
        input=b"ALTER QMGR EXPRYINT(1)\n",
        check=True,
        capture_output=True,
        timeout=60,
    )
    deadline = time.monotonic() + ENDS
    while qm.queue_depth("IW.SCAN"):
        assert time.monotonic() < deadline, "the expiry scanner slept through the ALTER"
        time.sleep(0.1)
    conn.interrupt_wait()
    assert waiting.ended()


def test_a_connection_dropped_in_another_live_process_is_recovered(
    embedded_url: str, children: SpawnChild
) -> None:
    # its process lives on, so no pidfd fires: dropping it rings the other processes,
    # whose recovery then looks within RECOVERY_INTERVAL, as it always did
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.Q")
    conn = embedded.connect(embedded_url)
    conn.put("IW.Q", MQMD(), b"held")
    child = children("hold-then-drop", embedded_url, "IW.Q")
    assert child.expect("HELD", timeout=30) == "held"
    handle = conn.open("IW.Q", IN)
    waiting = Waiting(lambda: conn.get(handle, wait=LONG))
    deadline = time.monotonic() + ENDS
    while qm.recovery_wait() != math.inf:
        assert time.monotonic() < deadline, "the child is not watched"
        time.sleep(0.1)
    child.send("drop")
    child.expect("DROPPED")
    assert waiting.ended(), "the dropped connection's unit of work was not backed out"
    assert waiting.result is not None
    assert (waiting.result[1], waiting.result[0].BackoutCount) == (b"held", 1)


def test_a_row_with_this_pid_that_is_not_this_process_is_polled_for(
    embedded_url: str, children: SpawnChild
) -> None:
    # two containers sharing the directory may both run their program as pid 1: a
    # connection row with this process's pid but not one of its connections is another
    # namespace's, which no pidfd here can watch (played by rewriting a child's pid)
    import os
    import sqlite3

    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.Q")
    conn = embedded.connect(embedded_url)
    conn.put("IW.Q", MQMD(), b"held")
    child = children("hold", embedded_url, "IW.Q")
    assert child.expect("HELD", timeout=30) == "held"
    with sqlite3.connect(qm.db_file) as db:
        db.execute("UPDATE connections SET pid = ? WHERE appl = 'child-hold'", (os.getpid(),))
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() <= manager.RECOVERY_INTERVAL, "a stranger's row was trusted"
    child.kill()
    assert waiting.ended() and waiting.result is not None
    assert waiting.result[0].BackoutCount == 1


def test_a_bell_whose_file_another_process_removed_is_announced_again_and_polled(
    qm: QueueManager,
) -> None:
    # a process that cannot reach the bell (an older mqjms, or another network namespace
    # for an abstract bell) takes it for a dead one's and removes its file: the watch is
    # then not trusted, and a bell is back (a new socket: a socket file cannot be linked
    # again)
    from mqjms.qmgr import bells

    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    directory = qm.db_file.resolve().parent
    assert bells.heard(directory)
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() == math.inf
    announced = sorted((directory / bells.BELLS).iterdir())
    for bell in announced:
        bell.unlink()
    assert not bells.heard(directory)
    (back,) = (directory / bells.BELLS).iterdir()
    assert back not in announced and stat.S_ISSOCK(back.stat().st_mode)
    assert qm.recovery_wait() <= manager.RECOVERY_INTERVAL
    assert not bells.heard(directory)  # put back, but not trusted yet
    assert list((directory / bells.BELLS).iterdir()) == [back]
    conn.interrupt_wait()
    assert waiting.ended()


def test_a_read_only_queue_manager_has_nothing_to_recover(
    embedded_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # it never recovers, so a death noticed in the process must not make recovery due
    # for ever (a browse with wait would spin)
    embedded.queue_manager(embedded_url).define_queue("QLOCAL", "IW.Q")
    embedded.close_all()
    monkeypatch.setattr(manager, "_writable", lambda path, db_file: False)
    read_only = QueueManager(embedded_url.removeprefix("embedded://"))
    try:
        assert read_only.read_only
        owners.note_death()
        assert read_only.recovery_wait() == math.inf
    finally:
        read_only.close()


def test_a_forked_child_recovers_afresh(qm: QueueManager) -> None:
    # the watch's thread stays with the parent: the child's first recovery is due at once
    import os

    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() == math.inf
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer, and leave without running anything of the parent's
        os.write(write, b"%r" % qm.recovery_wait())
        os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 64) == b"0.0"
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    conn.interrupt_wait()
    assert waiting.ended()


def test_a_process_whose_commits_ring_nobody_is_still_recovered(
    embedded_url: str, children: SpawnChild, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an older mqjms neither rings nor says it connected: the waiting get's fallback look
    # sees its commit unrung, and recovery looks again (and covers it)
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.Q")
    qm.define_queue("QLOCAL", "IW.IDLE")
    conn = embedded.connect(embedded_url)
    conn.put("IW.Q", MQMD(), b"held")
    idle = conn.open("IW.IDLE", IN)
    waiting = waiting_in(lambda: conn.get(idle, wait=LONG))
    qm.recover_abandoned(force=True)
    assert qm.recovery_wait() == math.inf
    child = children("hold-unrung", embedded_url, "IW.Q")
    assert child.expect("HELD", timeout=30) == "held"
    looks = count_lock_looks(monkeypatch)  # the recoveries' looks since the hold
    deadline = time.monotonic() + ENDS
    while not looks:  # the fallback look saw the unrung commit, and recovery ran
        assert time.monotonic() < deadline, "the unrung commit was never noticed"
        time.sleep(0.05)
    child.kill()
    assert_back_once(qm, "IW.Q", b"held")
    conn.interrupt_wait()
    assert waiting.ended()


def test_an_unheard_bell_is_trusted_again_once_its_file_has_stayed(
    qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the process that removed it may be gone: a file that stays is rung again
    from mqjms.qmgr import bells

    monkeypatch.setattr(bells, "UNHEARD_FOR", 0.5)
    qm.define_queue("QLOCAL", "IW.Q")
    conn = qm.connect()
    handle = conn.open("IW.Q", IN)
    waiting = waiting_in(lambda: conn.get(handle, wait=LONG))
    directory = qm.db_file.resolve().parent
    for bell in (directory / bells.BELLS).iterdir():
        bell.unlink()
    assert not bells.heard(directory)
    time.sleep(0.7)
    assert bells.heard(directory)
    conn.interrupt_wait()
    assert waiting.ended()


def test_a_forked_child_letting_go_of_an_inherited_lock_leaves_it_held(tmp_path: Path) -> None:
    # flock's lock belongs to the open file, shared across fork: a child that releases
    # (or collects) what it inherited must not unlock its parent's connection
    import os

    lock = locks.FileLock(tmp_path / "conn.lock")
    lock.acquire()
    pid = os.fork()
    if pid == 0:
        lock.release()
        os._exit(0)
    os.waitpid(pid, 0)
    try:
        assert not locks.owner_is_dead(tmp_path / "conn.lock")
    finally:
        lock.release()
    assert locks.owner_is_dead(tmp_path / "conn.lock")


def test_a_forked_child_does_not_keep_its_dead_parents_lock(tmp_path: Path) -> None:
    # a child that never uses mqjms (a helper process) must not keep a killed parent's
    # connection looking alive: its units of work are backed out at once, not at its end
    import os
    import signal
    import subprocess
    import sys

    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from mqjms.qmgr import locks\n"
        "lock = locks.FileLock(Path(sys.argv[1]))\n"
        "lock.acquire()\n"
        "child = os.fork()\n"
        "if child == 0:\n"  # after the fork hooks have run; one write a line, as print
        "    os.write(1, b'child\\n')\n"  # writes two under PYTHONUNBUFFERED=1 (interleaved)
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "os.write(1, f'{child}\\n'.encode())\n"
        "time.sleep(60)\n"
    )
    path = tmp_path / "conn.lock"
    parent = subprocess.Popen(
        [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True
    )
    assert parent.stdout is not None
    # both lines, in either order: killed before its hooks ran, the child held the lock
    lines = {parent.stdout.readline().strip(), parent.stdout.readline().strip()}
    child = int((lines - {"child"}).pop())
    try:
        assert not locks.owner_is_dead(path)
        parent.kill()
        parent.wait()
        assert locks.owner_is_dead(path)  # its child lives on
    finally:
        os.kill(child, signal.SIGKILL)


def test_a_forked_child_opens_its_own_queue_manager_and_leaves_its_parents(
    embedded_url: str,
) -> None:
    # a child forked after the parent connected (os.fork, multiprocessing's fork) gets a
    # QueueManager of its own, and at exit does not back out the parent's unit of work
    import os

    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "IW.Q")
    conn = embedded.connect(embedded_url)
    conn.put("IW.Q", MQMD(), b"mine")
    handle = conn.open("IW.Q", IN)
    assert conn.get(handle, syncpoint=True) is not None  # in the parent's unit of work
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            child_qm = embedded.queue_manager(embedded_url)
            os.write(write, b"own" if child_qm is not qm else b"inherited")
            embedded.close_all()  # what atexit runs
        finally:
            os._exit(0)
    os.close(write)
    try:
        assert os.read(read, 16) == b"own"
    finally:
        os.close(read)
        os.waitpid(pid, 0)
    conn.commit()  # the parent's unit of work was not backed out by the child
    assert qm.queue_depth("IW.Q") == 0
