"""File locks that tell the living from the dead across processes.

The kernel drops a process's ``flock`` locks when it dies, even by SIGKILL, so a lock
file per connection is a liveness signal that needs no heartbeat and survives PID reuse.
A shared lock on ``active.lock`` held by every process that has the queue manager open
defines a *restart*: the first opener that finds nobody holding it starts the queue
manager anew (non-persistent messages are dropped, abandoned units of work backed out).

Lock files are created with the directory's file mode (0600, or 0660 with group access),
so another user can neither read nor lock them. Every wait is bounded: a lock held for
longer than ``LOCK_TIMEOUT`` fails with an MQError naming the process that holds it, which
an exclusive holder writes into the file.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
import weakref
from contextlib import suppress
from pathlib import Path

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .nofollow import open_own

LOCK_TIMEOUT = 30.0  # seconds: the longest any lock wait lasts
OWNER_ONLY = 0o600


def this_process() -> str:
    """How a lock file names its holder: pid and program, never the arguments (which may
    hold a password)."""
    program = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    executable = os.path.basename(sys.executable or "python")
    return f"pid {os.getpid()} ({executable} {program})".replace(" )", ")")


class FileLock:
    """An flock on one file, held until :meth:`release`. A forked child closes its copy at
    once: a lock says its process lives, and a child (a helper that never uses mqjms)
    must not keep its dead parent's connection looking alive."""

    def __init__(self, path: Path, mode: int = OWNER_ONLY, what: str = "") -> None:
        self.path = path
        self.mode = mode
        self.what = what or f"the lock {path.name}"
        self._fd: int | None = None
        self._pid = 0  # the process that opened the file
        _locks.add(self)

    def acquire(
        self, exclusive: bool = True, blocking: bool = True, timeout: float | None = None
    ) -> bool:
        """Take the lock; False when ``blocking`` is False and someone else holds it.

        A blocking wait lasts at most ``timeout`` (default ``LOCK_TIMEOUT``) seconds, then
        fails with MQRC_Q_MGR_NOT_AVAILABLE naming the holder.
        """
        if self._fd is None:
            self._fd = open_own(self.path, os.O_RDWR, self.mode)  # never through a link
            self._pid = os.getpid()
            if os.fstat(self._fd).st_uid == os.geteuid():
                os.fchmod(self._fd, self.mode)  # whatever the umask
        flags = (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB
        limit = LOCK_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + limit
        pause = 0.001
        while True:
            try:
                fcntl.flock(self._fd, flags)
                break
            except BlockingIOError:
                if not blocking:
                    return False
                if time.monotonic() >= deadline:
                    holder = self.holder()
                    self.release()
                    raise failed(
                        C.MQRC_Q_MGR_NOT_AVAILABLE,
                        f"waited {limit:g} s for {self.what} ({self.path}), held by {holder}",
                    ) from None
                time.sleep(pause)
                pause = min(pause * 2, 0.05)
        if exclusive:
            stamp = f"{this_process()}\n".encode()
            try:
                os.ftruncate(self._fd, 0)
                os.pwrite(self._fd, stamp, 0)
            except OSError:  # a full disk: the stamp only names the holder in messages
                pass
        return True

    def holder(self) -> str:
        """Who holds the lock, as its last exclusive holder wrote it."""
        try:
            text = self.path.read_text(errors="replace").strip()
        except OSError:
            text = ""
        return text or "another process"

    def release(self) -> None:
        """Let go. In a child forked since, only close its copy: the lock (one per open
        file, shared across fork) stays its parent's."""
        if self._fd is not None:
            try:
                if self._pid == os.getpid():
                    fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


_locks: weakref.WeakSet[FileLock] = weakref.WeakSet()


def _close_in_child() -> None:
    """After a fork, in the child: close the copies of the parent's lock files (the locks
    stay the parent's, and end with it)."""
    for lock in list(_locks):
        fd, lock._fd = lock._fd, None
        if fd is not None:
            with suppress(OSError):
                os.close(fd)


os.register_at_fork(after_in_child=_close_in_child)


def owner_is_dead(path: str | Path) -> bool:
    """True when nobody holds the lock on ``path`` (or the file is gone).

    Takes the lock for a moment to find out; a live owner makes that fail at once. A lock
    this process may not open belongs to someone it cannot judge: taken as alive.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    except PermissionError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing drops the lock if we took it
    return True
