"""Dead processes noticed without polling: a pidfd per process that owns connections.

The unit of work a dead process left in flight is backed out by the next user of the queue
manager that notices (``QueueManager.recover_abandoned``), so a waiting get must notice
soon. Rather than look at every connection's lock each second, a process watches the
others: a pidfd (Linux 5.3) for each process with a connection on the queue manager, in
one epoll per directory that a daemon thread sleeps on. A death counts in :func:`deaths`
and rings this process's doorbell (:mod:`.wakeup`): the waiting gets recover at once.

A pid is watched only when ``/proc/locks``, read after its pidfd was opened, shows that
process holding the lock of each of its connections: not a pid reused since, not one of
another pid namespace. A process that cannot be watched so (no pidfd, no ``/proc/locks``,
a lock taken elsewhere) leaves the watch incomplete, and the gets poll as before.
"""

from __future__ import annotations

import os
import select
import sys
import threading
from collections.abc import Mapping, Sequence
from contextlib import suppress
from pathlib import Path

from mqjms.logs import get_logger

from . import wakeup

log = get_logger("mqjms.qmgr")

_deaths = 0
_registry_lock = threading.Lock()
_watches: dict[Path, OwnerWatch] = {}
_mine: set[str] = set()  # the ids of this process's live connections (any queue manager)


def own(conn_id: str) -> None:
    """A connection of this process was registered."""
    _mine.add(conn_id)


def disown(conn_id: str) -> None:
    """A connection of this process ended (or was dropped)."""
    _mine.discard(conn_id)


def is_mine(conn_id: str) -> bool:
    """Whether ``conn_id`` is a live connection of this process: a row with this process's
    pid that is not one belongs to a process of another pid namespace (a container
    sharing the directory), which no pidfd of this one can watch."""
    return conn_id in _mine


def deaths() -> int:
    """How many ends of connections' owners this process has noticed: a watched process
    ended, or a connection of this process was dropped without MQDISC."""
    return _deaths


def note_death() -> None:
    """A connection's owner let go of its lock without ending it (a connection of this
    process collected): the waiting gets recover now."""
    global _deaths
    _deaths += 1
    wakeup.ring()


def watch(qmgr_dir: Path) -> OwnerWatch:
    """This process's watch on ``qmgr_dir`` (a resolved path), made on first use."""
    pid = os.getpid()
    with _registry_lock:
        found = _watches.get(qmgr_dir)
        if found is None or found.pid != pid:  # none yet, or the parent's before a fork
            found = _watches[qmgr_dir] = OwnerWatch()
        return found


def stop(qmgr_dir: Path) -> None:
    """Close this process's watch on ``qmgr_dir`` (its queue manager closed)."""
    with _registry_lock:
        found = _watches.pop(qmgr_dir, None)
    if found is not None and found.pid == os.getpid():
        found.close()


class OwnerWatch:
    """The pidfds of the processes owning connections on one queue manager, and the thread
    that waits for them to end."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._fds: dict[int, int] = {}  # watched pid -> its pidfd
        self._pids: dict[int, int] = {}  # pidfd -> pid
        self._epoll: select.epoll | None = None
        self._stop_r = self._stop_w = -1
        self._closed = False
        self._failed = False

    def cover(self, owners: Mapping[int, Sequence[str]]) -> bool:
        """Watch exactly the processes of ``owners`` (pid -> the lock files of its
        connections, this process left out); True when every one is watched. A failure
        (no epoll, no thread, too many watches) is logged and answers False: poll."""
        with self._lock:
            if self._closed or not _supported():
                return False
            try:
                return self._cover(owners)
            except (OSError, RuntimeError) as exc:
                if not self._failed:  # once: recovery polls, as it did before
                    log.warning("qmgr.owner_watch_failed", error=repr(exc))
                self._failed = True
                return False

    def _cover(self, owners: Mapping[int, Sequence[str]]) -> bool:
        for pid in [p for p in self._fds if p not in owners]:
            self._forget(pid)
        new = [pid for pid in owners if pid not in self._fds]
        if not new:
            return True
        self._start()
        assert self._epoll is not None
        opened: dict[int, int] = {}
        try:
            for pid in new:
                with suppress(OSError):  # gone already (its lock tells), or not ours to see
                    opened[pid] = os.pidfd_open(pid)
            held = _flock_holders()  # read after the pidfds were opened: see the module
            complete = len(opened) == len(new)
            for pid in list(opened):
                if held is not None and all(_holds(held, pid, path) for path in owners[pid]):
                    self._epoll.register(opened[pid], select.EPOLLIN)
                    self._fds[pid] = opened[pid]
                    self._pids[opened.pop(pid)] = pid
                else:
                    complete = False
            return complete
        finally:
            for fd in opened.values():  # not watched
                os.close(fd)

    def close(self) -> None:
        """Stop the thread and close every pidfd."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for pid in list(self._fds):
                self._forget(pid)
            if self._stop_w >= 0:
                os.write(self._stop_w, b"x")  # the thread closes the epoll and the pipe

    def _start(self) -> None:
        """The epoll and its thread, at the first process to watch (all or nothing)."""
        if self._epoll is not None:
            return
        epoll = select.epoll()
        try:
            self._stop_r, self._stop_w = os.pipe()
            try:
                epoll.register(self._stop_r, select.EPOLLIN)
                self._epoll = epoll
                threading.Thread(target=self._run, name="mqjms-owners", daemon=True).start()
            except BaseException:
                self._epoll = None
                os.close(self._stop_r)
                os.close(self._stop_w)
                self._stop_r = self._stop_w = -1
                raise
        except BaseException:
            epoll.close()
            raise

    def _forget(self, pid: int) -> None:
        fd = self._fds.pop(pid)
        del self._pids[fd]
        if self._epoll is not None:
            with suppress(OSError):
                self._epoll.unregister(fd)
        os.close(fd)

    def _run(self) -> None:
        """Sleep until a watched process ends (or the watch closes)."""
        epoll = self._epoll
        assert epoll is not None
        try:
            while True:
                try:
                    events = epoll.poll()
                except InterruptedError:
                    continue
                ended = False
                with self._lock:
                    for fd, _ in events:
                        if fd == self._stop_r:
                            return
                        pid = self._pids.get(fd)
                        if pid is not None:
                            self._forget(pid)
                            ended = True
                if ended:
                    log.debug("qmgr.owner_ended")
                    note_death()
        except Exception as exc:  # never take the process down: the gets poll instead
            log.warning("qmgr.owner_watch_failed", error=repr(exc))
            with self._lock:
                self._closed = True
                for pid in list(self._fds):
                    self._forget(pid)
            note_death()  # the waiting gets look again, and poll from now on
        finally:
            epoll.close()
            os.close(self._stop_r)
            os.close(self._stop_w)


def _supported() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "pidfd_open")


def _flock_holders() -> set[tuple[int, int]] | None:
    """``(pid, inode)`` of every flock held, from ``/proc/locks``; None when unreadable."""
    try:
        with open("/proc/locks", "rb") as f:
            text = f.read()
    except OSError:
        return None
    held: set[tuple[int, int]] = set()
    for line in text.splitlines():
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 4711 fe:00:2318338 0 EOF"; a waiter's line has "->"
        if len(fields) >= 6 and fields[1] == b"FLOCK":
            with suppress(ValueError):
                held.add((int(fields[4]), int(fields[5].rsplit(b":", 1)[1])))
    return held


def _holds(held: set[tuple[int, int]], pid: int, path: str) -> bool:
    try:
        inode = os.stat(path).st_ino
    except OSError:
        return False
    return (pid, inode) in held
