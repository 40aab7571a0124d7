"""File locks that tell the living from the dead across processes.

The kernel drops a process's ``flock`` locks when it dies, even by SIGKILL, so a lock
file per connection is a liveness signal that needs no heartbeat and survives PID reuse.
A shared lock on ``active.lock`` held by every process that has the queue manager open
defines a *restart*: the first opener that finds nobody holding it starts the queue
manager anew (non-persistent messages are dropped, abandoned units of work backed out).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class FileLock:
    """An flock on one file, held until :meth:`release`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def acquire(self, exclusive: bool = True, blocking: bool = True) -> bool:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        flags = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        if not blocking:
            flags |= fcntl.LOCK_NB
        try:
            fcntl.flock(self._fd, flags)
        except BlockingIOError:
            return False
        return True

    def release(self) -> None:
        if self._fd is not None:
            try:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            finally:
                os.close(self._fd)
                self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def owner_is_dead(path: Path) -> bool:
    """True when nobody holds the lock on ``path`` (or the file is gone).

    Takes the lock for a moment to find out; a live owner makes that fail at once.
    """
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)  # closing drops the lock if we took it
    return True
