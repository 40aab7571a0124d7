"""SQLite's failures as MQErrors: no ``sqlite3`` exception ever reaches a caller.

Each becomes a :class:`StorageError` (an MQError) with IBM's reason code and the file it
concerns: a full disk is MQRC_Q_SPACE_NOT_AVAILABLE (2056) for a put and
MQRC_RESOURCE_PROBLEM (2102) otherwise, a damaged database MQRC_OBJECT_DAMAGED (2101),
anything else MQRC_RESOURCE_PROBLEM. :func:`translating` wraps every public method of a
class, so a failure no code path expected is translated too.
"""

from __future__ import annotations

import functools
import inspect
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics.emulated import EmulatedConnection

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

RESTORE_ADVICE = (
    "stop every process using it and restore qmgr.db from a backup "
    "(or, to start afresh with an empty queue manager, move the directory away)"
)


log = get_logger("mqjms.qmgr")

#: The cause of a StorageError raised when a committed transaction's fsync failed.
UNSYNCED = "SQLITE_IOERR_FSYNC"


class StorageError(MQError):
    """A failure of the queue manager's files: an MQError that knows its SQLite cause."""

    def __init__(self, reason: int, detail: str, cause: str = "") -> None:
        super().__init__(C.MQCC_FAILED, reason, detail)
        self.cause = cause  # SQLite's primary error name, e.g. SQLITE_FULL

    @property
    def disk_full(self) -> bool:
        return self.cause == "SQLITE_FULL"

    @property
    def read_only(self) -> bool:
        return self.cause == "SQLITE_READONLY"

    @property
    def unsynced(self) -> bool:
        """The transaction committed, but the fsync that was to make it durable failed:
        every connection sees what it did, and whether it survives an OS crash is
        unknown. What the caller was told must then match what was committed."""
        return self.cause == UNSYNCED

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.detail, self.cause))


def log_unsynced(exc: StorageError, call: str) -> None:
    """``call`` returns what its committed transaction did although the fsync failed
    (raising would lose a message): the failure is logged instead, for the operator."""
    log.error(
        "qmgr.fsync_failed",
        call=call,
        reason=exc.reason_name,
        detail=exc.detail,
        action="check the disk: what was committed since may not survive an OS crash",
    )


_EMULATION_STEPS = EmulatedConnection.__abstractmethods__
_PRIMARY_NAMES = {
    sqlite3.SQLITE_FULL: "SQLITE_FULL",
    sqlite3.SQLITE_READONLY: "SQLITE_READONLY",
    sqlite3.SQLITE_BUSY: "SQLITE_BUSY",
    sqlite3.SQLITE_LOCKED: "SQLITE_LOCKED",
    sqlite3.SQLITE_CORRUPT: "SQLITE_CORRUPT",
    sqlite3.SQLITE_NOTADB: "SQLITE_NOTADB",
    sqlite3.SQLITE_IOERR: "SQLITE_IOERR",
    sqlite3.SQLITE_CANTOPEN: "SQLITE_CANTOPEN",
    sqlite3.SQLITE_PERM: "SQLITE_PERM",
    sqlite3.SQLITE_NOMEM: "SQLITE_NOMEM",
}


def primary_error(exc: sqlite3.Error) -> str:
    """SQLite's primary error name (SQLITE_IOERR for SQLITE_IOERR_WRITE), or ''."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return ""
    return _PRIMARY_NAMES.get(code & 0xFF, str(getattr(exc, "sqlite_errorname", "")))


def translate(exc: sqlite3.Error, file: Path, *, putting: bool = False) -> StorageError:
    """The MQError for a SQLite failure on ``file``; ``putting`` when storing a message."""
    cause = primary_error(exc)
    said = f"{getattr(exc, 'sqlite_errorname', '') or type(exc).__name__}: {exc}"
    if cause == "SQLITE_FULL":
        if putting:
            return StorageError(
                C.MQRC_Q_SPACE_NOT_AVAILABLE,
                f"no space to store the message: the file system holding {file} is full ({said})",
                cause,
            )
        return StorageError(
            C.MQRC_RESOURCE_PROBLEM, f"the file system holding {file} is full ({said})", cause
        )
    if cause == "SQLITE_READONLY":
        return StorageError(
            C.MQRC_RESOURCE_PROBLEM,
            f"{file} is read-only ({said}): the queue manager can be browsed, not changed",
            cause,
        )
    if cause in ("SQLITE_BUSY", "SQLITE_LOCKED"):
        return StorageError(
            C.MQRC_RESOURCE_PROBLEM,
            f"{file} stayed locked by another process for longer than the busy timeout ({said})",
            cause,
        )
    if cause in ("SQLITE_CORRUPT", "SQLITE_NOTADB"):
        return StorageError(
            C.MQRC_OBJECT_DAMAGED, f"{file} is damaged ({said}): {RESTORE_ADVICE}", cause
        )
    if cause == "SQLITE_IOERR":
        return StorageError(C.MQRC_RESOURCE_PROBLEM, f"I/O error on {file} ({said})", cause)
    if cause in ("SQLITE_CANTOPEN", "SQLITE_PERM"):
        advice = "check that it exists and this user may read it"
        if _no_free_inodes(file):  # SQLite could not create its -wal or -shm beside it
            advice = "the file system holding it has no free inodes left (df -i): free some"
        return StorageError(
            C.MQRC_RESOURCE_PROBLEM, f"cannot open {file} ({said}): {advice}", cause
        )
    if isinstance(exc, sqlite3.ProgrammingError):  # e.g. a handle closed by another thread
        return StorageError(
            C.MQRC_CONNECTION_BROKEN, f"the database handle on {file} is closed ({said})", cause
        )
    return StorageError(C.MQRC_RESOURCE_PROBLEM, f"{file}: {said}", cause)


def _no_free_inodes(file: Path) -> bool:
    """Whether the file system holding ``file`` has no inode left (False when unknown)."""
    try:
        found = os.statvfs(file.parent)
    except OSError:
        return False
    return found.f_files > 0 and found.f_favail == 0


def database_file(owner: object) -> Path:
    """The database an object of the queue manager works on (for error texts)."""
    file = getattr(owner, "db_file", None)
    return file if isinstance(file, Path) else Path("qmgr.db")


def _translating_method(method: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as exc:
            raise translate(exc, database_file(args[0] if args else None)) from exc

    return wrapper


def translating(cls: type[T]) -> type[T]:
    """Class decorator: every public method (and ``__init__``, and the steps an
    :class:`~mqjms.semantics.emulated.EmulatedConnection` hands its calls to) lets no
    sqlite3 error out."""
    for name, member in list(vars(cls).items()):
        public = name == "__init__" or not name.startswith("_")
        if inspect.isfunction(member) and (public or name in _EMULATION_STEPS):
            setattr(cls, name, _translating_method(member))
    return cls
