"""Room to drain a full disk: gets and commits keep working when puts no longer can.

SQLite writes every change to the write-ahead log first, and frees log space only by a
checkpoint, which copies the log into ``qmgr.db`` and may need to grow it: on a full disk
even a get, which frees space, cannot be written. So the queue manager keeps a *reserve*,
``space.reserve``, a file of allocated blocks as large as the log plus a margin, which
every put checks still covers the log (topping it up) before it writes. Puts never use
it: a put that finds the disk full, or the reserve not restorable, fails with
MQRC_Q_SPACE_NOT_AVAILABLE (2056). Anything else that meets a full disk (a get, a
commit, a backout, an open) first checkpoints and empties the log, then, if that is not
enough, gives up the reserve, and tries again. Once space is free again the next put
restores the reserve.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mqjms.logs import get_logger
from mqjms.mq import constants as C

from .failures import StorageError
from .files import DATABASE, Access

log = get_logger("mqjms.qmgr")

T = TypeVar("T")

RESERVE_MARGIN = 256 * 1024  # bytes kept beyond the log's size: room for a few gets
RESERVE_LIMIT = 64 * 1024 * 1024  # the reserve never grows beyond this
TRUST_INTERVAL = 0.05  # seconds a reserve found whole is not looked at again on disk by puts
_CHUNK = 64 * 1024
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


class SpaceReserve:
    """The reserve file of one queue manager directory."""

    def __init__(self, directory: Path, access: Access) -> None:
        self.path = directory / "space.reserve"
        self.access = access
        # plain strings: a put checks both files, and os.stat on a str is the cheapest way
        self._reserve_file = str(self.path)
        self._log_file = str(directory / f"{DATABASE}-wal")
        self._size = 0  # the reserve's size when last found or made
        self._trusted_until = 0.0

    def wanted(self, incoming: int = 0) -> int:
        """The reserve's target size: the log's, with ``incoming`` bytes about to be
        written, plus the margin, in 64 KiB steps."""
        try:
            log_size = os.stat(self._log_file).st_size
        except FileNotFoundError:
            log_size = 0
        size = min(log_size + incoming + RESERVE_MARGIN, RESERVE_LIMIT)
        return -(-size // _CHUNK) * _CHUNK

    def top_up(self, wanted: int | None = None) -> bool:
        """Grow the reserve to ``wanted`` bytes (default :meth:`wanted`); False when the
        disk has no room for it."""
        wanted = self.wanted() if wanted is None else wanted
        try:
            self._size = os.stat(self._reserve_file).st_size
            if self._size >= wanted:
                return True
        except FileNotFoundError:
            self._size = 0
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, self.access.file_mode)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                return False
            raise
        try:
            if os.fstat(fd).st_uid == os.geteuid():
                os.fchmod(fd, self.access.file_mode)  # whatever the umask
            os.posix_fallocate(fd, 0, wanted)
            self._size = wanted
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                return False
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                raise
            # a file system without fallocate: the reserve is best effort there
            self._size = wanted
        finally:
            os.close(fd)
        return True

    def _top_up_logged(self, incoming: int) -> bool:
        try:
            return self.top_up(self.wanted(incoming))
        except OSError as exc:
            log.warning("storage.reserve_failed", file=str(self.path), error=str(exc))
            return False

    def release(self) -> bool:
        """Give the reserve's blocks back to the file system; False when there was none."""
        size = self._give_up()
        if size is None:
            return False
        log.warning("storage.reserve_released", file=str(self.path), bytes=size)
        return size > 0

    def _give_up(self) -> int | None:
        """Remove the reserve file; its size, None when there was none."""
        try:
            size = os.stat(self._reserve_file).st_size
            os.unlink(self._reserve_file)
        except FileNotFoundError:
            return None
        self._size, self._trusted_until = 0, 0.0
        return size

    def _lend_to_checkpoint(self, db: sqlite3.Connection) -> bool:
        """Empty the log with the reserve's room when the disk is too full for it alone
        (the database file grows as the log is copied in): the emptied log gives back more
        than that, so the reserve, now smaller, is made again at once. True when the log
        was emptied."""
        if not disk_full(self.path.parent):
            return False
        size = self._give_up()
        if size is None:
            return False
        emptied = checkpoint(db)
        log.info("storage.reserve_lent", file=str(self.path), bytes=size, log_emptied=emptied)
        return emptied

    def make_room(self, db: sqlite3.Connection, incoming: int = 0) -> bool:
        """After a put found the disk full: empty the log (lending it the reserve's room
        if it needs it) and restore the reserve; True when both were done, so the put may
        be tried again with the reserve whole."""
        if checkpoint(db) and self._top_up_logged(incoming):
            return True
        return self._lend_to_checkpoint(db) and self._top_up_logged(incoming)

    def check_for_put(self, db: sqlite3.Connection, incoming: int = 0) -> None:
        """Refuse a put of ``incoming`` bytes while the reserve cannot be kept: the space is
        for draining. On a tight disk the log is emptied first, which shrinks the reserve
        it needs.

        The reserve must cover the log at every put, whatever the put rate (the log can
        grow by megabytes in a few milliseconds): each put compares the log's size with
        the reserve's as last found, which costs one ``stat``. A reserve found whole on
        disk is trusted there for ``TRUST_INTERVAL`` (another process may give it up).
        """
        now = time.monotonic()
        if now < self._trusted_until and self.wanted(incoming) <= self._size:
            return
        if self._top_up_logged(incoming) or self.make_room(db, incoming):
            self._trusted_until = now + TRUST_INTERVAL
        else:
            self._trusted_until = 0.0
            raise StorageError(
                C.MQRC_Q_SPACE_NOT_AVAILABLE,
                f"no space to store the message: the file system holding {self.path.parent} "
                f"is full (the {self.wanted(incoming)} bytes kept free for gets and commits are "
                "not available)",
                "SQLITE_FULL",
            )


def disk_full(directory: Path) -> bool:
    """Whether the file system holding ``directory`` has no room left for a write (a
    failure that names no cause, such as SQLite's shared-memory index not growing)."""
    try:
        stat = os.statvfs(directory)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < RESERVE_MARGIN


def checkpoint(db: sqlite3.Connection) -> bool:
    """Copy the log into the database and empty it; True when it was emptied."""
    try:
        busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except sqlite3.Error as exc:
        log.info("storage.checkpoint_failed", error=str(exc))
        return False
    return not busy


#: After the room was made: more tries, this many seconds apart, each after a checkpoint
#: (another connection's read or write may have kept the log from emptying just then).
ROOM_RETRIES = (0.01, 0.05, 0.2)


def with_room(db: sqlite3.Connection, reserve: SpaceReserve | None, attempt: Callable[[], T]) -> T:
    """Run ``attempt`` (one whole write transaction); when the disk is full, make room
    (checkpoint, then give up the reserve) and run it again, a few times: consumers
    draining in several threads or processes meet the full disk together, and the room
    one of them made is there for the others once its log is emptied."""

    def give_up_reserve() -> None:
        if reserve is not None:
            reserve.release()
        checkpoint(db)

    def later(pause: float) -> Callable[[], None]:
        def step() -> None:
            time.sleep(pause)
            checkpoint(db)

        return step

    steps: list[Callable[[], object]] = [lambda: checkpoint(db)]
    if reserve is not None:
        steps.append(give_up_reserve)
    steps += [later(pause) for pause in ROOM_RETRIES]
    for step in steps:
        try:
            return attempt()
        except StorageError as exc:
            if not exc.disk_full:
                raise
            _warn_full(str(getattr(db, "file", "")), exc.detail)
            step()
    return attempt()


FULL_WARNING_INTERVAL = 10.0  # seconds between two storage.full warnings for one file
_full_warned: dict[str, tuple[float, int]] = {}  # file -> (when warned, attempts since)


def _warn_full(file: str, detail: str) -> None:
    """Warn of a full disk once per FULL_WARNING_INTERVAL per file, with the number of
    attempts it met since: a draining consumer meets it at every write, and its log may
    be on the same full disk."""
    now = time.monotonic()
    warned, since = _full_warned.get(file, (-FULL_WARNING_INTERVAL, 0))
    if now - warned < FULL_WARNING_INTERVAL:
        _full_warned[file] = (warned, since + 1)
        return
    _full_warned[file] = (now, 0)
    log.warning("storage.full", file=file, detail=detail, attempts_since_last_warning=since)


__all__ = ["SpaceReserve", "checkpoint", "disk_full", "with_room"]
