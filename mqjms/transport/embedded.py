"""The embedded transport: connections onto :class:`mqjms.qmgr.QueueManager` in this process.

The queue manager's own connection already speaks the transport contract, so this module
only maps URLs to one shared QueueManager per directory and process, and turns a
directory that cannot hold a queue manager into an MQError that says what to do.
"""

from __future__ import annotations

import atexit
import errno
import os
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics.attributes import validate_name

from .url import embedded_path, redact, url_flag

log = get_logger("mqjms.transport.embedded")

# directory -> (the process that opened it, its QueueManager). A child forked since finds
# its parent's there: it opens its own, and never closes the parent's (that would back out
# the parent's units of work, through database handles SQLite forbids using after fork).
_managers: dict[Path, tuple[int, QueueManager]] = {}
_inherited: list[QueueManager] = []  # a forked child's parent's, kept from collection
_lock = threading.Lock()

_NOT_PERMITTED = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})


def group_access(url: str) -> bool | None:
    """``?group=true|false``: share the queue manager's files with the directory's group
    (as IBM MQ's mqm group), or not; None (absent) keeps what the queue manager has."""
    values = parse_qs(urlsplit(url).query).get("group")
    if not values:
        return None
    return url_flag(values[-1], "group")


def queue_manager(url: str) -> QueueManager:
    """The process's QueueManager for an ``embedded:`` URL, opened on first use."""
    path, given = embedded_path(url)
    name = given or None  # ?qmgr= left blank (a template's unset variable): the default
    if name is not None:  # before anything is made for a name that cannot be
        validate_name(name, "queue manager")
    try:
        key = path.resolve()
    except (OSError, RuntimeError) as exc:  # a symbolic link loop (RuntimeError before 3.13)
        raise unusable_directory(url, path, _as_os_error(exc, path)) from None
    pid = os.getpid()
    with _lock:
        found = _managers.get(key)
        if found is not None and found[0] != pid:
            _inherited.append(found[1])
            found = None
        if found is None or found[1].closed:
            try:
                qm = QueueManager(key, name, group_access=group_access(url))
            except OSError as exc:
                raise unusable_directory(url, key, exc) from None
            found = _managers[key] = (pid, qm)
    qm = found[1]
    if name is not None and name != qm.name:
        raise failed(
            C.MQRC_Q_MGR_NAME_ERROR,
            f"{redact(url)}: the queue manager in {key} is {qm.name!r}, not {name!r} "
            "(?qmgr= names a queue manager when it is made; leave it out, or name that one)",
        )
    return qm


def unusable_directory(url: str, path: Path, exc: OSError) -> MQError:
    """Why ``path`` cannot hold a queue manager, as MQCONN's reason code and a way out."""
    where = redact(url)
    if isinstance(exc, FileExistsError | NotADirectoryError) or _is_file(path):
        file = next((p for p in (path, *path.parents) if _is_file(p)), path)
        return failed(
            C.MQRC_Q_MGR_NAME_ERROR,
            f"{where}: {file} is a file, not a directory; name a directory for the embedded "
            "queue manager (it is created when missing), e.g. embedded:///var/lib/mqjms/QM1",
        )
    if isinstance(exc, PermissionError) or exc.errno in _NOT_PERMITTED:
        return failed(
            C.MQRC_NOT_AUTHORIZED,
            f"{where}: cannot create or write {exc.filename or path} ({exc.strerror}); "
            "choose a directory this user may write for the embedded queue manager, or "
            "give it write permission",
        )
    if exc.errno == errno.ENAMETOOLONG:
        return failed(
            C.MQRC_Q_MGR_NAME_ERROR,
            f"{where}: the directory's path is too long for the file system "
            f"({len(os.fsencode(path))} bytes); choose a shorter one",
        )
    return failed(
        C.MQRC_RESOURCE_PROBLEM,
        f"{where}: cannot use {exc.filename or path} ({exc.strerror or exc})",
    )


def _as_os_error(exc: OSError | RuntimeError, path: Path) -> OSError:
    """``exc`` as an OSError: Python before 3.13 reports a symbolic link loop met by
    ``Path.resolve`` as a RuntimeError."""
    if isinstance(exc, OSError):
        return exc
    return OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))


def _is_file(path: Path) -> bool:
    """Whether ``path`` exists and is not a directory (False when it cannot be looked at)."""
    try:
        return path.exists() and not path.is_dir()
    except OSError:
        return False


def connect(url: str, appl_name: str | None = None) -> QMConnection:
    return queue_manager(url).connect(appl_name)


def close_all() -> None:
    """Close every queue manager this process opened (tests use it to simulate a restart;
    at exit it backs out what connections left uncommitted)."""
    pid = os.getpid()
    with _lock:
        managers = [qm for opener, qm in _managers.values() if opener == pid]
        _inherited.extend(qm for opener, qm in _managers.values() if opener != pid)
        _managers.clear()
    for qm in managers:
        try:
            qm.close()
        except Exception as exc:  # one queue manager must not keep the others open
            log.warning("qmgr.close_failed", path=str(qm.path), error=repr(exc))


atexit.register(close_all)
