"""Group commit: the writers of one database take turns without sleeping, and share fsyncs.

A write transaction commits at ``synchronous=NORMAL`` (its log frames reach the operating
system, so they survive the death of the process, but no fsync), then, when it must be
durable, waits in :meth:`GroupSync.sync` for an fsync of the write-ahead log that *began
after its COMMIT*: one thread's fsync makes every transaction committed before it durable,
so the commits of all consumers that arrive during one fsync share the next one. A commit
still returns only once it is on disk; it is only seen by other connections a little
earlier, as in any group-commit database (a reader that acts on it commits after it, and
the log is written in order, so that commit's fsync covers both).

Taking turns: SQLite makes a writer that finds the write lock taken sleep (1, 2, 5, 10...
ms) and retry, so concurrent writers spend most of their time asleep. :class:`WriteGate`
queues them instead: a thread lock for the threads of this process and an ``flock`` on
``write.lock`` beside the database for the other processes (released by the kernel when a
process dies, even by SIGKILL), handed on as soon as COMMIT returns.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

from mqjms.mq import constants as C

from .failures import StorageError

_registry_lock = threading.Lock()
_gates: dict[Path, WriteGate] = {}
_syncs: dict[Path, GroupSync] = {}


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
        self._lock.acquire()
        if self._depth == 0:
            try:
                fcntl.flock(self._descriptor(), fcntl.LOCK_EX)
            except OSError:
                # no lock file (a directory we may not write): SQLite's own lock still
                # serialises the writers, only more slowly
                pass
        self._depth += 1

    def release(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self._fd >= 0:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            except OSError:
                pass
        self._lock.release()

    def _descriptor(self) -> int:
        if self._fd < 0 or self._pid != os.getpid():  # a forked child needs its own
            # read-only is enough for flock, and works for a group member whatever the umask
            self._fd = os.open(self._file, os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, self._mode)
            self._pid = os.getpid()
            st = os.fstat(self._fd)
            if st.st_uid == os.geteuid() and st.st_mode & 0o777 != self._mode:
                os.fchmod(self._fd, self._mode)  # the umask narrowed it
        return self._fd


class GroupSync:
    """The fsyncs of one database's write-ahead log, shared by the commits that wait for
    them (leader and followers: the first to wait syncs for all who came before)."""

    def __init__(self, wal_file: Path) -> None:
        self._wal = wal_file
        self._changed = threading.Condition(threading.Lock())
        self._requested = 0  # tickets handed out (each after a COMMIT)
        self._synced = 0  # every ticket up to this one is on disk
        self._syncing = False
        #: fsyncs done, for tests and benchmarks (commits minus this = fsyncs shared)
        self.fsyncs = 0

    def sync(self) -> None:
        """Return once everything committed before the call is on disk; a failed fsync
        raises a StorageError (MQRC_RESOURCE_PROBLEM) to the thread that ran it, and the
        next waiter tries again."""
        with self._changed:
            self._requested += 1
            ticket = self._requested
            while self._synced < ticket:
                if self._syncing:
                    self._changed.wait()
                    continue
                self._syncing = True
                covers = self._requested
                self._changed.release()
                try:
                    self._fsync()
                finally:
                    self._changed.acquire()
                    self._syncing = False
                    self._changed.notify_all()
                self._synced = max(self._synced, covers)
                self.fsyncs += 1

    def _fsync(self) -> None:
        try:
            fd = os.open(self._wal, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return  # no log: everything is in the database file, synced by its checkpoint
        except OSError as exc:
            raise _sync_failed(self._wal, exc) from exc
        try:
            os.fdatasync(fd)
        except OSError as exc:
            raise _sync_failed(self._wal, exc) from exc
        finally:
            os.close(fd)


def _sync_failed(wal: Path, exc: OSError) -> StorageError:
    return StorageError(
        C.MQRC_RESOURCE_PROBLEM,
        f"{wal}: the log could not be written to disk ({exc.strerror or exc})",
        "SQLITE_IOERR_FSYNC",
    )


def gate_for(db_file: Path) -> WriteGate:
    """This process's gate for the database ``db_file`` (one per file, shared by its
    connections); its lock file takes the database file's permissions."""
    key = db_file.resolve()
    with _registry_lock:
        gate = _gates.get(key)
        if gate is None:
            try:
                mode = os.stat(key).st_mode & 0o666
            except OSError:
                mode = 0o600
            gate = _gates[key] = WriteGate(key.with_name("write.lock"), mode)
        return gate


def sync_for(db_file: Path) -> GroupSync:
    """This process's :class:`GroupSync` for the database ``db_file``."""
    key = db_file.resolve()
    with _registry_lock:
        sync = _syncs.get(key)
        if sync is None:
            sync = _syncs[key] = GroupSync(key.with_name(key.name + "-wal"))
        return sync
