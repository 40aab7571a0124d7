"""Room to drain a full disk: gets and commits keep working when puts no longer can.

SQLite writes every change to the write-ahead log first, and frees log space only by a
checkpoint, which copies the log into ``qmgr.db`` and may need to grow it: on a full disk
even a get, which frees space, cannot be written. So the queue manager keeps a *reserve*,
``space.reserve``, a file of allocated blocks as large as the log plus a margin, which
every put checks still covers the log (topping it up) before it writes. Puts never use
it: a put that finds the disk full, or the reserve not restorable, fails with
MQRC_Q_SPACE_NOT_AVAILABLE (2056). Anything else that meets a full disk (a get, a
commit, a backout, an open) first checkpoints and empties the log, then, if that is not
enough, lends the reserve to the checkpoint and tries again, then makes the reserve
again from the room the emptied log gave back, all in one turn of the write gate (see
:func:`with_room`). A reserve that could not be made again is made by the next write
that finds room for it (a drain's or a put's).
"""

from __future__ import annotations

import errno
import itertools
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import TypeVar

from mqjms.logs import get_logger
from mqjms.mq import constants as C

from .failures import StorageError
from .files import DATABASE, Access
from .nofollow import open_own

log = get_logger("mqjms.qmgr")

T = TypeVar("T")

RESERVE_MARGIN = 256 * 1024  # bytes kept beyond the log's size: room for a few gets
RESERVE_LIMIT = 64 * 1024 * 1024  # the reserve never grows beyond this
TRUST_INTERVAL = 0.05  # seconds a reserve found whole is not looked at again on disk by puts
_CHUNK = 64 * 1024
_PAGE = 4096  # the smallest part of a reserve taken from a disk without room for it all
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)
_SHRINK_STEP = 32  # pages an incremental vacuum moves per checkpoint: its log fits a full disk
SHRINK_UNTIL = 4 * RESERVE_MARGIN  # bytes free on the file system after which shrink stops


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
        disk has no room for all of it.

        Without room for all of it, the reserve takes what room there is: a reserve given
        up for good let the log take every block of a full disk, and a checkpoint whose
        log grows the database by a single page could then never run again (nor any
        write, in any process, after a kill -9). A partial reserve keeps that page: the
        next write that meets the full disk lends it to the checkpoint."""
        wanted = self.wanted() if wanted is None else wanted
        try:
            self._size = os.stat(self._reserve_file).st_size
            if self._size >= wanted:
                return True
        except FileNotFoundError:
            self._size = 0
        try:
            fd = open_own(self.path, os.O_WRONLY, self.access.file_mode)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                return False
            raise
        try:
            if os.fstat(fd).st_uid == os.geteuid():
                os.fchmod(fd, self.access.file_mode)  # whatever the umask
            if self._allocate(fd, wanted):
                return True
            self._take_what_is_free(fd)
            return False
        finally:
            os.close(fd)

    def _allocate(self, fd: int, size: int) -> bool:
        """Allocate the reserve's blocks up to ``size`` bytes; False on a full disk (tmpfs
        gives back what a failed fallocate took; ext4 may keep it, in the file)."""
        try:
            os.posix_fallocate(fd, 0, size)
        except OSError as exc:
            if exc.errno in _NO_SPACE:
                return False
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL):
                raise
            # a file system without fallocate: the reserve is best effort there
        self._size = max(self._size, size)
        return True

    def _take_what_is_free(self, fd: int) -> None:
        """Grow the reserve by the room the disk has left, less and less of it while
        another writer takes some first."""
        try:
            stat = os.statvfs(self.path.parent)
        except OSError:
            return
        room = stat.f_bavail * stat.f_frsize // _PAGE * _PAGE
        while room >= _PAGE and not self._allocate(fd, self._size + room):
            room = room // 2 // _PAGE * _PAGE

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

    def _lend_to_checkpoint(self, db: sqlite3.Connection, incoming: int = 0) -> bool:
        """Empty the log with the reserve's room when the disk is too full for it alone;
        True when the log was emptied."""
        if not disk_full(self.path.parent):
            return False
        return self.lend(db, incoming)

    def lend(self, db: sqlite3.Connection, incoming: int = 0) -> bool:
        """Give the reserve's room to a checkpoint (the database file grows as the log is
        copied in) and to the write that follows it; :meth:`restore` makes the reserve
        again once that write is done. :func:`with_room` calls it holding the connection's
        write gate, so that no other writer of this queue manager takes the lent room
        first (a put's :meth:`make_room` too, though a put never uses the room it lends).
        True when the log was emptied."""
        size = self._give_up()
        # free pages go back until the reserve a put of ``incoming`` bytes needs fits too
        until = max(SHRINK_UNTIL, self.wanted(incoming) + RESERVE_MARGIN)
        emptied = checkpoint(db) and shrink(db, self.path.parent, until)
        if size is not None:
            log.debug("storage.reserve_lent", file=str(self.path), bytes=size, log_emptied=emptied)
        return emptied

    def restore(self) -> bool:
        """Make the reserve again, as large as the log now needs, if there is room: after
        a write that was lent it, and after any write that found it lost. A reserve given
        up for good let the log take every block of a full disk, and the next checkpoint
        could not grow the database by a page: the drain's commits failed."""
        return self._top_up_logged(0)

    def make_room(self, db: sqlite3.Connection, incoming: int = 0) -> bool:
        """After a put found the disk full: empty the log (lending it the reserve's room
        if it needs it) and restore the reserve; True when both were done, so the put may
        be tried again with the reserve whole. In a turn of the write gate: a drain's
        retried write, in its own turn, is lent the reserve and must not find it taken
        away, nor its room taken, by a put between the lend and its attempt."""
        with _write_gate(db):
            if checkpoint(db) and self._top_up_logged(incoming):
                return True
            return self._lend_to_checkpoint(db, incoming) and self._top_up_logged(incoming)

    def check_for_put(self, db: sqlite3.Connection, incoming: int = 0) -> None:
        """Refuse a put of ``incoming`` bytes while the reserve cannot be kept: the space is
        for draining. On a tight disk the log is emptied first, which shrinks the reserve
        it needs.

        The reserve must cover the log at every put, whatever the put rate (the log can
        grow by megabytes in a few milliseconds): each put compares the log's size with
        the reserve's as last found, which costs one ``stat``. A reserve found whole on
        disk is trusted there for ``TRUST_INTERVAL`` (another process may give it up).
        """
        if not self.has_room(db, incoming):
            raise StorageError(
                C.MQRC_Q_SPACE_NOT_AVAILABLE,
                f"no space to store the message: the file system holding {self.path.parent} "
                f"is full (the {self.wanted(incoming)} bytes kept free for gets and commits are "
                "not available)",
                "SQLITE_FULL",
            )

    def has_room(self, db: sqlite3.Connection, incoming: int = 0) -> bool:
        """Whether ``incoming`` bytes may be written that the queue manager keeps (a put, a
        new queue) with the reserve kept whole (see :meth:`check_for_put`)."""
        now = time.monotonic()
        if now < self._trusted_until and self.wanted(incoming) <= self._size:
            return True
        if self._top_up_logged(incoming) or self.make_room(db, incoming):
            self._trusted_until = now + TRUST_INTERVAL
            return True
        self._trusted_until = 0.0
        return False


def _room(directory: Path) -> int:
    """Bytes free on the file system holding ``directory`` (0 when it cannot be asked)."""
    try:
        stat = os.statvfs(directory)
    except OSError:
        return 0
    return stat.f_bavail * stat.f_frsize


def disk_full(directory: Path) -> bool:
    """Whether the file system holding ``directory`` has no room left for a write (a
    failure that names no cause, such as SQLite's shared-memory index not growing)."""
    try:
        stat = os.statvfs(directory)
    except OSError:
        return False
    return stat.f_bavail * stat.f_frsize < RESERVE_MARGIN


def checkpoint(db: sqlite3.Connection) -> bool:
    """Copy the log into the database and empty it; True when it was emptied.

    Taken in the connection's write gate: a checkpoint another connection is running
    makes SQLite's answer "busy" at once, not after a wait, and consumers meeting a full
    disk together all checkpoint; in turns, each finds the log emptied or empties it."""
    with _write_gate(db):
        try:
            busy, _, _ = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            log.info("storage.checkpoint_failed", error=str(exc))
            return False
    return not busy


def shrink(db: sqlite3.Connection, directory: Path, until: int = SHRINK_UNTIL) -> bool:
    """Give the pages that drained messages left free in ``qmgr.db`` back to the file
    system, a few at a time (an incremental vacuum moves the live pages from the end of
    the file into free ones, through the log, and a checkpoint then truncates the file);
    True when the log is empty after it. It stops once the file system has ``until``
    bytes free (the reserve a put waiting for room needs, at least
    :data:`SHRINK_UNTIL`): room for the reserve and the puts after it, without
    moving every page of a large database while the writers wait.

    Without it a queue manager that had filled the disk kept that room for good: its
    reserve, once lent, could never be made whole again, and every put of a few
    kilobytes failed 2056 even with its queues drained, until someone freed space outside
    it. A database made before ``auto_vacuum`` was set keeps its free pages (the vacuum
    does nothing there)."""
    with _write_gate(db):
        if db.in_transaction:  # it would join the unit of work being written
            return True
        given = 0
        try:
            (free,) = db.execute("PRAGMA freelist_count").fetchone()
            while free and _room(directory) < until:
                # executescript steps the pragma to its end: execute().fetchall() frees one
                # page (the pragma returns no row), a checkpoint with fsyncs for each
                db.executescript(f"PRAGMA incremental_vacuum({_SHRINK_STEP});")
                if not checkpoint(db):
                    return False
                (left,) = db.execute("PRAGMA freelist_count").fetchone()
                if left >= free:  # no room left to move even a step's pages
                    break
                given, free = given + free - left, left
        except sqlite3.Error as exc:
            log.info("storage.shrink_failed", error=str(exc), pages_given_back=given)
            return checkpoint(db)
    if given:
        log.info("storage.shrunk", pages_given_back=given)
    return True


@contextmanager
def _deletes_not_zeroed(db: sqlite3.Connection) -> Iterator[None]:
    """Let a retried write free pages without writing them again as zeros.

    An SQLite built with secure_delete on (Debian's is) writes every page a delete frees
    to the log: backing out a unit of work of puts that filled the disk needed as much
    room again as the puts took, far beyond the reserve, and failed, and so did every
    later open (its recovery backs the unit of work out). ``FAST`` still zeroes deleted
    rows in the pages the delete writes anyway."""
    (mode,) = db.execute("PRAGMA secure_delete").fetchone()
    if mode != 1:
        yield
        return
    db.execute("PRAGMA secure_delete=FAST")
    try:
        yield
    finally:
        db.execute("PRAGMA secure_delete=ON")


def _write_gate(db: sqlite3.Connection) -> AbstractContextManager[object]:
    """The connection's turn to write (re-entrant), or nothing for a connection without."""
    gate = getattr(db, "gate", None)
    return gate if gate is not None else nullcontext()


#: Pauses before the tries after the first two (which follow a checkpoint, then a lend of
#: the reserve, at once); the last is repeated until ROOM_DEADLINE.
ROOM_PAUSES = (0.01, 0.05, 0.1, 0.2)
#: Seconds a write that meets a full disk keeps making room and trying again: another
#: process's reader or checkpoint can keep the log from emptying for a while.
ROOM_DEADLINE = 5.0


def with_room(
    db: sqlite3.Connection,
    reserve: SpaceReserve | None,
    attempt: Callable[[], T],
    patience: float = ROOM_DEADLINE,
) -> T:
    """Run ``attempt`` (one whole write transaction); when the disk is full, make room
    (checkpoint, then lend the reserve to the checkpoint) and run it again, for
    ``patience`` seconds (0: once more after one checkpoint, for a write that fails fast).

    The room is made and the attempt run in one turn of the write gate: consumers
    draining together meet the full disk together, and when each made room for the
    others to take, one of sixteen threads lost its turn for seconds."""
    deadline = time.monotonic() + patience
    for tries in itertools.count():
        try:
            if tries == 0:
                return attempt()
            with _write_gate(db), _deletes_not_zeroed(db):
                if tries == 1 or reserve is None:
                    checkpoint(db)
                    return attempt()
                reserve.lend(db)
                try:
                    return attempt()
                finally:
                    reserve.restore()  # the attempt failed too: kept for the next try
        except StorageError as exc:
            if not exc.disk_full or (tries and time.monotonic() >= deadline):
                raise
            _warn_full(str(getattr(db, "file", "")), exc.detail)
        if tries >= 1:
            time.sleep(ROOM_PAUSES[min(tries - 1, len(ROOM_PAUSES) - 1)])
    raise AssertionError("unreachable")


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
