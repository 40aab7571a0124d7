"""Doorbells between processes: a commit in one process wakes the gets waiting in another.

Every process with a get waiting on a queue manager has a bell there: a unix datagram
socket bound to a file in the directory's ``bells/`` (``<pid>-<random>.sock``). A writer
whose commit makes messages available sends one byte to every bell but its own process's;
a bell whose process is gone (the kernel closed its socket, even after SIGKILL, but the
file stays) refuses it, and its file is removed then. A socket file is reached through the
file system, so processes in other network namespaces (containers sharing the directory
on one host) ring each other as well. A thread per bell turns each datagram into a ring of
the process's own doorbell (:mod:`.wakeup`).

Where a socket cannot be bound in ``bells/`` (a file system without unix sockets), the bell
is a socket in Linux's abstract namespace instead, announced by an empty file of its name
(no ``.sock``): reachable from this network namespace only. Anything that stops a bell (not
Linux, a directory we may not write) leaves the waiters to poll, as before.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import sys
import threading
import time
import uuid
from contextlib import suppress
from pathlib import Path

from mqjms.logs import get_logger

from . import wakeup

log = get_logger("mqjms.qmgr")

BELLS = "bells"
_PREFIX = "\0mqjms-bell-"  # abstract bells (the fallback): _PREFIX + the announced name
SOCKET_SUFFIX = ".sock"  # a bell bound in bells/ (the file is the socket)
# A unix socket address holds at most 107 bytes of path: a longer one is reached through
# this process's descriptor of its directory (/proc/self/fd/N/name).
_MAX_ADDRESS = 107

_lock = threading.Lock()
_own: dict[Path, tuple[int, str]] = {}  # directory -> (pid, this process's bell name)
_sockets: dict[Path, socket.socket] = {}  # directory -> this process's bell
_sender: socket.socket | None = None
_bells_dirs: dict[Path, str] = {}  # directory -> its bells/ directory, as a string
_sender_pid = 0
_dir_fds: dict[str, tuple[int, int]] = {}  # bells/ directory -> (pid, an O_PATH descriptor)
_dir_fds_lock = threading.Lock()
# directory -> (the bells/ directory's mtime, when it was listed, its names), kept only
# from a listing made once that mtime had settled: a file added in the same tick of the
# file system's clock for timestamps (a few ms; a second or two on some file systems)
# leaves the mtime as it was, so a listing made within that tick may miss it; one made
# later cannot, and any later change moves the mtime. A file system whose mtimes have a
# fraction of a second keeps them to the kernel's tick (at most 10 ms): settled after
# 50 ms; one whose mtimes are whole seconds, after 3 s. Listed again every second anyway,
# for a file system that keeps no directory mtime.
_listed: dict[Path, tuple[int, int, list[str]]] = {}
# directory -> when another process was last found to have removed this one's bell file
_unheard: dict[Path, float] = {}
# Seconds the re-announced file must stay before the bell is trusted again (the process
# that removed it may have gone; if not, its next commit removes it again)
UNHEARD_FOR = 60.0
PUT_BACK_INTERVAL = 1.0  # seconds between two put-backs of a bell whose file keeps going
_SETTLED_NS = 3_000_000_000
_FINE_SETTLED_NS = 50_000_000
_RELIST_NS = 1_000_000_000


def listen(qmgr_dir: Path) -> bool:
    """Make sure this process has a bell on ``qmgr_dir`` (a resolved path; idempotent);
    False when it cannot, and its gets must poll."""
    if not sys.platform.startswith("linux"):
        return False
    key = qmgr_dir
    pid = os.getpid()
    with _lock:
        mine = _own.get(key)
        if mine is not None and mine[0] == pid:
            return bool(mine[1])
        try:
            name, sock = _put_up(key, pid)
        except OSError as exc:
            log.debug("qmgr.bell_unavailable", path=str(key), error=str(exc))
            _own[key] = (pid, "")  # do not try again: poll
            return False
        _own[key] = (pid, name)
        _unheard.pop(key, None)
        _sockets[key] = sock
    _start_answering(sock, name)
    return True


def _put_up(qmgr_dir: Path, pid: int) -> tuple[str, socket.socket]:
    """A new bell on ``qmgr_dir``: its name in ``bells/`` and its socket; bound in
    ``bells/`` when the file system allows, else in the abstract namespace."""
    base = f"{pid}-{uuid.uuid4().hex[:12]}"
    mode = _make_bells_dir(qmgr_dir)
    bells = os.path.join(qmgr_dir, BELLS)
    name = base + SOCKET_SUFFIX
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(_address(bells, name))
        _chmod_socket(_address(bells, name), mode)  # connecting takes write access
        return name, sock
    except OSError as exc:
        sock.close()
        with suppress(OSError):
            os.unlink(_address(bells, name))
        log.debug("qmgr.bell_file_unavailable", path=bells, error=str(exc))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(_PREFIX + base)
        _announce(qmgr_dir, base)
    except OSError:
        sock.close()
        raise
    return base, sock


def _start_answering(sock: socket.socket, name: str) -> None:
    threading.Thread(target=_answer, args=(sock,), name=f"mqjms-bell-{name}", daemon=True).start()


def heard(qmgr_dir: Path) -> bool:
    """This process has a bell on ``qmgr_dir`` that the other processes ring: its file is
    still there. A process that could not reach the bell (an abstract one, from another
    network namespace: abstract sockets are per namespace; or an mqjms older than bell
    files) took it for a dead one's and removed its file; the bell is put back, for those
    that can reach it, but is *unheard* until its file has stayed ``UNHEARD_FOR`` seconds:
    waits poll at their first pace meanwhile, and recovery looks every second."""
    pid = os.getpid()
    with _lock:  # not while stop() or listen() changes the bell
        mine = _own.get(qmgr_dir)
        if mine is None or mine[0] != pid or not mine[1]:
            return False
        now = time.monotonic()
        removed = _unheard.get(qmgr_dir)
        if not os.path.exists(os.path.join(qmgr_dir, BELLS, mine[1])):
            if removed is None:
                log.info("qmgr.bell_unheard", path=str(qmgr_dir), bell=mine[1])
            # at most once a second: a process that keeps removing it keeps it unheard
            if removed is None or now - removed >= PUT_BACK_INTERVAL:
                _unheard[qmgr_dir] = now
                with suppress(OSError):
                    _put_back(qmgr_dir, pid, mine[1])
            return False
        if removed is None:
            return True
        if now - removed < UNHEARD_FOR:
            return False
        del _unheard[qmgr_dir]
        return True


def stop(qmgr_dir: Path) -> None:
    """Take this process's bell on ``qmgr_dir`` down (its queue manager closed): its thread
    ends, its file goes. A later get with wait puts it up again."""
    with _lock:
        mine = _own.pop(qmgr_dir, None)
        sock = _sockets.pop(qmgr_dir, None)
    ours = mine is not None and mine[0] == os.getpid()
    if sock is not None:
        if ours:  # a forked child's copy shares its parent's socket: only closed
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)  # ends the recv of its thread
        sock.close()
    if ours and mine is not None and mine[1]:
        (qmgr_dir / BELLS / mine[1]).unlink(missing_ok=True)


def _put_back(qmgr_dir: Path, pid: int, name: str) -> None:
    """The file of this process's bell was removed: announce an abstract bell again; a
    socket file cannot be linked again, so a bell bound in ``bells/`` is replaced by a new
    one (called holding ``_lock``)."""
    if not name.endswith(SOCKET_SUFFIX):
        _announce(qmgr_dir, name)
        return
    new_name, sock = _put_up(qmgr_dir, pid)
    old = _sockets.pop(qmgr_dir, None)
    _own[qmgr_dir] = (pid, new_name)
    _sockets[qmgr_dir] = sock
    if old is not None:
        with suppress(OSError):
            old.shutdown(socket.SHUT_RDWR)  # ends its thread
        old.close()
    _start_answering(sock, new_name)


def _chmod_socket(path: str, mode: int) -> None:
    """Give the socket file just bound at ``path`` ``mode``, through a descriptor of it
    that follows no link: were it replaced meanwhile (another group member may write in
    ``bells/``), what took its place is left alone."""
    fd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISSOCK(st.st_mode) or st.st_uid != os.geteuid():
            raise OSError(errno.EPERM, "not the socket this process bound", path)
        os.chmod(f"/proc/self/fd/{fd}", mode)
    finally:
        os.close(fd)


def _make_bells_dir(qmgr_dir: Path) -> int:
    """``bells/``, with the directory's access (group or private) whatever the umask; the
    mode its files take."""
    dir_mode = os.stat(qmgr_dir).st_mode & 0o2770
    bells = qmgr_dir / BELLS
    try:
        bells.mkdir(mode=dir_mode)
        os.chmod(bells, dir_mode)
    except FileExistsError:
        pass
    return dir_mode & 0o660


def _announce(qmgr_dir: Path, name: str) -> None:
    """An abstract bell's file, with the directory's access whatever the umask."""
    file_mode = _make_bells_dir(qmgr_dir)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(qmgr_dir / BELLS / name, flags, file_mode)
    try:
        os.fchmod(fd, file_mode)
    finally:
        os.close(fd)


def _address(bells: str, name: str) -> str:
    """The address of the bell ``name`` bound in ``bells``: its path, or, when that is too
    long for a socket address, its path through a descriptor of ``bells``."""
    path = os.path.join(bells, name)
    if len(os.fsencode(path)) <= _MAX_ADDRESS:
        return path
    pid = os.getpid()
    held = _dir_fds.get(bells)
    if held is None or held[0] != pid or not _same_directory(held[1], bells):
        with _dir_fds_lock:  # a forked child opens its own; a removed directory, anew
            held = _dir_fds.get(bells)
            if held is None or held[0] != pid or not _same_directory(held[1], bells):
                if held is not None and held[0] == pid:
                    os.close(held[1])
                held = _dir_fds[bells] = (
                    pid,
                    os.open(bells, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC),
                )
    return f"/proc/self/fd/{held[1]}/{name}"


def _same_directory(fd: int, path: str) -> bool:
    """Whether descriptor ``fd`` still names the directory at ``path``."""
    try:
        held, now = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (held.st_dev, held.st_ino) == (now.st_dev, now.st_ino)


def _answer(sock: socket.socket) -> None:
    """Ring this process's doorbell for each burst of datagrams (a daemon thread, asleep in
    ``recv`` while nothing happens)."""
    while True:
        try:
            if not sock.recv(16):
                return  # shut down by stop() (a ring is never empty)
            sock.setblocking(False)
            try:
                while sock.recv(16):
                    pass
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
        except OSError:
            return
        wakeup.ring()


def ring_others(qmgr_dir: Path) -> None:
    """Wake the waiting gets of the other processes on ``qmgr_dir`` (a resolved path),
    after a COMMIT."""
    global _sender, _sender_pid
    bells = _bells_dirs.get(qmgr_dir)
    if bells is None:  # every commit rings: build the path once
        bells = _bells_dirs[qmgr_dir] = os.path.join(qmgr_dir, BELLS)
    names = _names(qmgr_dir, bells)
    if not names:
        return
    mine = _own.get(qmgr_dir)
    own_name = mine[1] if mine is not None and mine[0] == os.getpid() else None
    if names == [own_name]:
        return
    if _sender is None or _sender_pid != os.getpid():
        _sender, _sender_pid = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM), os.getpid()
    for name in names:
        if name == own_name:
            continue
        bound = name.endswith(SOCKET_SUFFIX)
        try:
            address = _address(bells, name) if bound else _PREFIX + name
            _sender.sendto(b"\1", socket.MSG_DONTWAIT, address)
        except ConnectionRefusedError:
            with suppress(FileNotFoundError):
                os.unlink(os.path.join(bells, name))  # its process is gone
        except FileNotFoundError:
            if not bound:  # an abstract bell whose process is gone
                with suppress(FileNotFoundError):
                    os.unlink(os.path.join(bells, name))
            # a socket file removed meanwhile: nothing to ring
        except OSError:
            continue  # full (it will wake anyway) or refused for another reason


def _names(qmgr_dir: Path, bells: str) -> list[str]:
    """The bells announced in ``bells`` (empty when there is no such directory): listed
    again only when the directory has changed since a listing made after its last change
    had settled (a ``stat`` per commit instead of a listing)."""
    try:
        mtime = os.stat(bells).st_mtime_ns
    except OSError:
        return []
    now = time.time_ns()  # read before the listing
    cached = _listed.get(qmgr_dir)
    if cached is not None and cached[0] == mtime and now - cached[1] < _RELIST_NS:
        return cached[2]
    try:
        names = os.listdir(bells)
    except OSError:
        return []
    if now - mtime > (_SETTLED_NS if mtime % 1_000_000_000 == 0 else _FINE_SETTLED_NS):
        _listed[qmgr_dir] = (mtime, now, names)
    else:
        _listed.pop(qmgr_dir, None)
    return names
