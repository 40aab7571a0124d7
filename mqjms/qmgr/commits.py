"""Group commit: the writers of one database take turns, and share fsyncs.

A write transaction commits at ``synchronous=NORMAL`` (its log frames reach the operating
system, so they survive the death of the process, but no fsync), then, when it must be
durable, waits in :meth:`GroupSync.sync` for an fsync of the write-ahead log that *began
after its COMMIT*: one fsync makes every transaction committed before it durable, so the
commits of all consumers (threads and processes) that arrive during one fsync share the
next one. A commit
still returns only once it is on disk; it is only seen by other connections a little
earlier, as in any group-commit database (a reader that acts on it commits after it, and
the log is written in order, so that commit's fsync covers both).

Taking turns: SQLite makes a writer that finds the write lock taken sleep (1, 2, 5, 10...
ms) and retry, so concurrent writers spend most of their time asleep. :class:`WriteGate`
instead: a thread lock for the threads of this process and an ``flock`` on ``write.lock``
beside the database for the other processes (released by the kernel when a process dies,
even by SIGKILL), handed on as soon as COMMIT returns; a process waiting for another
looks again after pauses as short as a transaction (50 us, growing to 2 ms), so that the
wait can end: one for a process that holds the turn and does not run (stopped, in a
debugger) fails with 2059 naming it (:func:`lock_within`).
"""

from __future__ import annotations

import fcntl
import mmap
import os
import struct
import threading
import time
from contextlib import suppress
from pathlib import Path

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed

from . import locks
from .failures import UNSYNCED, StorageError
from .nofollow import open_own

log = get_logger(__name__)
_registry_lock = threading.Lock()
_gates: dict[Path, WriteGate] = {}
_syncs: dict[Path, GroupSync] = {}
_users: dict[Path, int] = {}  # open connections per database, to let go with the last


class WriteGate:
    """The turn to write to one database, for the threads of this process and across
    processes. Re-entrant in one thread (an ``flock`` is taken on the first entry only)."""

    def __init__(self, lock_file: Path, mode: int) -> None:
        self._file = lock_file
        self._mode = mode
        self._lock = threading.RLock()
        self._depth = 0
        self._fd = -1
        self._pid = 0

    def acquire(self) -> None:
        # the threads of this process queue here while one of them waits for the flock,
        # which is bounded: so is this, with room for that wait and a transaction
        if not self._lock.acquire(timeout=2 * locks.LOCK_TIMEOUT + 5):
            raise failed(
                C.MQRC_Q_MGR_NOT_AVAILABLE,
                f"waited {2 * locks.LOCK_TIMEOUT + 5:g} s for the turn to write "
                f"({self._file}) behind the other threads of this process",
            )
        if self._depth == 0:
            try:
                lock_within(self._descriptor(), self._file, "the turn to write")
            except OSError:
                # without a lock file (a directory we may not write) SQLite's own lock
                # still serialises the writers, only more slowly
                pass
            except BaseException:
                self._lock.release()
                raise
        self._depth += 1

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd >= 0:
            with suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
        self._lock.release()

    def __enter__(self) -> WriteGate:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def _descriptor(self) -> int:
        if self._fd < 0 or self._pid != os.getpid():  # a forked child needs its own
            self._pid = os.getpid()
            self._fd = _open_shared(self._file, self._mode, os.O_RDONLY)  # enough for flock
        return self._fd


class GroupSync:
    """The fsyncs of one database's write-ahead log, shared by every commit that waits for
    one, in this process and the others.

    Two counters in ``commits.seq`` beside the database, mapped into every process: the
    durable commits counted so far (each takes the next number as its *ticket* just after
    its COMMIT, while it still holds the write gate, so the counter only grows and every
    number's COMMIT is in the log) and the number up to which the log is known to be on
    disk. A commit waits until the second reaches its ticket; the first to wait takes
    ``sync.lock`` (one fsync at a time across processes), reads the first counter, fsyncs
    and publishes that reading: every commit counted before the fsync began is durable.
    The threads of one process wait for their own leader instead of queuing on the flock.
    A process killed at any point leaves the counters consistent (each is one aligned
    8-byte store) and its flock released.
    """

    def __init__(self, wal_file: Path, mode: int) -> None:
        self._wal = wal_file
        self._wal_path = str(wal_file)
        # the log's descriptor, kept between fsyncs (see _log_descriptor), and the file
        # (device, inode) and process it was opened in
        self._wal_fd = -1
        self._wal_file_id = (0, 0, 0)
        self._changed = threading.Condition(threading.Lock())
        self._syncing = False
        self._waiting = 0  # threads of this process waiting for the leader's fsync
        self._lock_file = wal_file.with_name("sync.lock")
        self._mode = mode
        self._lock_fd = -1
        self._pid = 0
        #: sync.lock was held past LOCK_TIMEOUT (its holder stopped): sync without waiting
        #: for it until it is free again, instead of a full wait at every commit
        self._alone = False
        self._counters: mmap.mmap | bytearray = _map(wal_file.with_name("commits.seq"), mode)
        #: fsyncs this process ran, for tests and benchmarks
        self.fsyncs = 0

    def ticket(self) -> int:
        """Count a durable commit (call after its COMMIT, holding the write gate)."""
        committed = _COUNTER.unpack_from(self._counters, 0)[0] + 1
        _COUNTER.pack_into(self._counters, 0, committed)
        return int(committed)

    def _synced(self) -> int:
        return int(_COUNTER.unpack_from(self._counters, 8)[0])

    def sync(self, ticket: int) -> None:
        """Return once the commit that took ``ticket`` is on disk; a failed fsync raises a
        StorageError (MQRC_RESOURCE_PROBLEM) to the thread that ran it, and the next
        waiter tries again."""
        with self._changed:
            while self._synced() < ticket:
                if self._syncing:
                    self._waiting += 1
                    try:
                        self._changed.wait()
                    finally:
                        self._waiting -= 1
                    continue
                self._syncing = True
                self._changed.release()
                try:
                    self._lead(ticket)
                finally:
                    self._changed.acquire()
                    self._syncing = False
                    if self._waiting:  # a notify costs a commit more than a check
                        self._changed.notify_all()

    def _lead(self, ticket: int) -> None:
        """Sync for this process's waiters, unless another process's fsync, which this one
        waited for on ``sync.lock``, covered the ticket already."""
        fd = self._lock_descriptor()
        if fd >= 0 and self._alone:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self._alone = False  # free again: the fsyncs are shared once more
                log.info("storage.sync_shared_again", file=str(self._lock_file))
            except BlockingIOError:
                fd = -1  # still held by the process that does not run: no wait
        elif fd >= 0:
            try:
                lock_within(fd, self._lock_file, "the turn to sync the log")
            except MQError as exc:  # the fsyncs are shared to save time, not for safety
                log.warning("storage.sync_alone", file=str(self._lock_file), detail=exc.detail)
                self._alone = True
                fd = -1
        try:
            if self._synced() >= ticket:
                return
            covers = _COUNTER.unpack_from(self._counters, 0)[0]
            self._fsync()
            self.fsyncs += 1
            if covers > self._synced():
                _COUNTER.pack_into(self._counters, 8, covers)
        finally:
            if fd >= 0:
                fcntl.flock(fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1
        self._drop_log_descriptor()
        if isinstance(self._counters, mmap.mmap):
            self._counters.close()

    def _lock_descriptor(self) -> int:
        if self._lock_fd < 0 or self._pid != os.getpid():
            self._pid = os.getpid()
            try:
                self._lock_fd = _open_shared(self._lock_file, self._mode, os.O_RDONLY)
            except OSError:
                self._lock_fd = -1  # counters private to this process: nothing to share
        return self._lock_fd

    def _fsync(self) -> None:
        fd = self._log_descriptor()
        if fd < 0:
            return  # no log: everything is in the database file, synced by its checkpoint
        try:
            os.fdatasync(fd)
        except OSError as exc:
            raise _sync_failed(self._wal, exc) from exc

    def _log_descriptor(self) -> int:
        """A descriptor of the log file now at its path (-1: there is none), kept open
        between fsyncs: a ``stat`` finds the same file (device and inode) there, where an
        open and a close per fsync cost three times that. Another file there (the log
        removed by the last connection's close, and made again) is opened afresh."""
        try:
            st = os.stat(self._wal_path)
        except FileNotFoundError:
            self._drop_log_descriptor()
            return -1
        except OSError as exc:
            raise _sync_failed(self._wal, exc) from exc
        file_id = (st.st_dev, st.st_ino, os.getpid())
        if self._wal_fd >= 0 and file_id == self._wal_file_id:
            return self._wal_fd
        self._drop_log_descriptor()
        try:
            fd = os.open(self._wal_path, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return -1
        except OSError as exc:
            raise _sync_failed(self._wal, exc) from exc
        opened = os.fstat(fd)
        self._wal_fd, self._wal_file_id = fd, (opened.st_dev, opened.st_ino, os.getpid())
        return fd

    def _drop_log_descriptor(self) -> None:
        fd, self._wal_fd = self._wal_fd, -1
        if fd >= 0:
            with suppress(OSError):
                os.close(fd)


_COUNTER = struct.Struct("=Q")
# A wait for a lock another process holds: first pauses as short as a transaction, then
# longer ones; the kernel queues no waiter, so each pause is a look.
_FIRST_PAUSE = 0.00005
_LONGEST_PAUSE = 0.002
_NOTE_HOLDER_AFTER = 0.1  # seconds


def lock_within(fd: int, path: Path, what: str, timeout: float | None = None) -> None:
    """``flock(fd, LOCK_EX)``, waiting at most ``timeout`` (``LOCK_TIMEOUT``) seconds: a
    process that holds the lock and does not run (stopped by SIGSTOP or a debugger, or
    hung) makes the others fail with MQRC_Q_MGR_NOT_AVAILABLE naming it, never wait for
    ever. Its death releases the lock at once."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    limit = locks.LOCK_TIMEOUT if timeout is None else timeout
    started = time.monotonic()
    deadline = started + limit
    pause = _FIRST_PAUSE
    holder = ""  # who held it once the wait grew long (read from /proc/locks only then)
    while True:
        time.sleep(pause)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            now = time.monotonic()
            if not holder and now - started > _NOTE_HOLDER_AFTER:
                holder = _holder(path)
            if now >= deadline:
                now_held_by = _holder(path)
                if now_held_by != holder and now_held_by != "another process":
                    # another holder than the last look's: the turns go round, this
                    # waiter only keeps losing them; give it another full wait
                    holder, deadline = now_held_by, time.monotonic() + limit
                    continue
                raise failed(
                    C.MQRC_Q_MGR_NOT_AVAILABLE,
                    f"waited {limit:g} s for {what} ({path}), held by {holder or now_held_by}: a "
                    "process that holds it and does not run (stopped, or in a debugger) "
                    "keeps every writer of this queue manager waiting",
                ) from None
            pause = min(pause * 1.5, _LONGEST_PAUSE)


def _holder(path: Path) -> str:
    """The process holding an flock on ``path``, from /proc/locks (Linux)."""
    try:
        inode = os.stat(path).st_ino
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            for line in table:
                parts = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF"
                if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5].endswith(f":{inode}"):
                    return f"pid {parts[4]}"
    except (OSError, ValueError):
        pass
    return "another process"


def _open_shared(path: Path, mode: int, flags: int) -> int:
    """Open (creating it) a file the queue manager's processes share, with ``mode`` whatever
    the umask."""
    fd = open_own(path, flags, mode)  # never through a link
    st = os.fstat(fd)
    if st.st_uid == os.geteuid() and st.st_mode & 0o777 != mode:
        os.fchmod(fd, mode)
    return fd


def _map(path: Path, mode: int) -> mmap.mmap | bytearray:
    """The two counters shared through ``path``; private ones when it cannot be written
    (then the process's commits share fsyncs among its threads only)."""
    try:
        fd = _open_shared(path, mode, os.O_RDWR)
    except OSError:
        return bytearray(16)
    try:
        if os.fstat(fd).st_size < 16:
            os.ftruncate(fd, 16)  # zeros; every process maps the same 16 bytes
        return mmap.mmap(fd, 16)
    except OSError:
        return bytearray(16)
    finally:
        os.close(fd)


def _sync_failed(wal: Path, exc: OSError) -> StorageError:
    return StorageError(
        C.MQRC_RESOURCE_PROBLEM,
        f"{wal}: the log could not be written to disk ({exc.strerror or exc})",
        UNSYNCED,
    )


def retain(db_file: Path) -> tuple[Path, WriteGate, GroupSync]:
    """The gate and group sync of a connection just opened on ``db_file``, with the key
    to :func:`release` them by when it closes (the last one closes their files)."""
    key = db_file.resolve()
    gate, sync = gate_for(key), sync_for(key)
    with _registry_lock:
        _users[key] = _users.get(key, 0) + 1
    return key, gate, sync


def release(key: Path) -> None:
    """A connection :func:`retain` counted has closed."""
    with _registry_lock:
        left = _users.get(key, 0) - 1
        if left > 0:
            _users[key] = left
            return
        _users.pop(key, None)
        gate, sync = _gates.pop(key, None), _syncs.pop(key, None)
    if gate is not None:
        gate.close()
    if sync is not None:
        sync.close()


def gate_for(db_file: Path) -> WriteGate:
    """This process's gate for the database ``db_file`` (one per file, shared by its
    connections); its lock file takes the database file's permissions."""
    key = db_file.resolve()
    with _registry_lock:
        gate = _gates.get(key)
        if gate is None:
            gate = _gates[key] = WriteGate(key.with_name("write.lock"), _mode(key))
        return gate


def sync_for(db_file: Path) -> GroupSync:
    """This process's :class:`GroupSync` for the database ``db_file``."""
    key = db_file.resolve()
    with _registry_lock:
        sync = _syncs.get(key)
        if sync is None:
            sync = _syncs[key] = GroupSync(key.with_name(key.name + "-wal"), _mode(key))
        return sync


def _mode(db_file: Path) -> int:
    """The database file's permissions, which the files shared beside it take."""
    try:
        return os.stat(db_file).st_mode & 0o666
    except OSError:
        return 0o600


def _close_in_child() -> None:
    """After a fork, in the child: close the copies of the parent's lock files, so that a
    parent killed while it holds its turn (a transaction in another thread at the fork)
    does not leave the turn held for as long as the child lives; and start the child's
    thread locks afresh (a parent's thread holding one at the fork is not in the child)."""
    for gate in list(_gates.values()):
        fd, gate._fd = gate._fd, -1
        if fd >= 0:
            with suppress(OSError):
                os.close(fd)
        gate._lock, gate._depth = threading.RLock(), 0
    for sync in list(_syncs.values()):
        fd, sync._lock_fd = sync._lock_fd, -1
        if fd >= 0:
            with suppress(OSError):
                os.close(fd)
        sync._changed, sync._syncing = threading.Condition(threading.Lock()), False
        sync._waiting = 0
        sync._drop_log_descriptor()  # the parent's: the child opens its own


os.register_at_fork(after_in_child=_close_in_child)
