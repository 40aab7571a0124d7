"""Refusing to start on a damaged or vanished database, with what to do about it.

An existing queue manager (its ``qmgr.ini`` marker says one was created here) is never
re-created: a missing or zero-length ``qmgr.db``, a file that is not a SQLite database,
or one without the queue manager's tables stops the start with MQRC_Q_MGR_NOT_AVAILABLE
(2059) naming the file, instead of an empty queue manager silently taking its place. A
queue manager start (after a reboot, or ``mqjms restart``) also reads every page, so
damage inside the file stops it too; damage met later is MQRC_OBJECT_DAMAGED (2101).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mqjms.mq import constants as C

from . import store
from .failures import RESTORE_ADVICE, StorageError, translate
from .files import Marker


def cannot_start(path: Path, problem: str, cause: str = "") -> StorageError:
    return StorageError(
        C.MQRC_Q_MGR_NOT_AVAILABLE, f"the queue manager in {path} cannot start: {problem}", cause
    )


def check_before_open(path: Path, db_file: Path, marker: Marker | None) -> None:
    """Before SQLite opens (and could create) ``db_file``: it must exist when the marker does."""
    if marker is None:
        return
    who = f"queue manager {marker.name}" if marker.name else "a queue manager"
    if not db_file.exists():
        raise cannot_start(
            path,
            f"{db_file} is missing, but {who} was created here (qmgr.ini): {RESTORE_ADVICE}",
        )
    if db_file.stat().st_size == 0:
        raise cannot_start(
            path,
            f"{db_file} is empty (0 bytes), but {who} was created here (qmgr.ini): "
            f"{RESTORE_ADVICE}",
        )


def check_opened(path: Path, db: sqlite3.Connection, marker: Marker | None) -> None:
    """After opening: the database must hold the queue manager the marker names."""
    if marker is None:
        return
    try:
        if not store.has_schema(db):
            raise cannot_start(
                path,
                f"{store_file(db)} holds no queue manager (its tables are missing): "
                f"{RESTORE_ADVICE}",
            )
        row = db.execute("SELECT value FROM meta WHERE key = 'qmgr_name'").fetchone()
    except sqlite3.Error as exc:
        raise damaged(path, exc, store_file(db)) from exc
    if marker.name and row[0] != marker.name:
        raise cannot_start(
            path,
            f"{store_file(db)} belongs to queue manager {row[0]}, but qmgr.ini says "
            f"{marker.name} was created here: put back this queue manager's qmgr.db",
        )


def check_pages(path: Path, db: sqlite3.Connection) -> None:
    """Read every page of the database (``PRAGMA quick_check``): damage stops a start."""
    try:
        problem = str(db.execute("PRAGMA quick_check(1)").fetchone()[0])
    except sqlite3.Error as exc:
        raise damaged(path, exc, store_file(db)) from exc
    if problem != "ok":
        raise cannot_start(
            path, f"{store_file(db)} is damaged ({problem}): {RESTORE_ADVICE}", "SQLITE_CORRUPT"
        )


def damaged(path: Path, exc: sqlite3.Error, db_file: Path) -> StorageError:
    """The start-up error for a SQLite failure while opening (damage, permissions, ...)."""
    translated = translate(exc, db_file)
    return cannot_start(path, translated.detail, translated.cause)


def store_file(db: sqlite3.Connection) -> Path:
    file = getattr(db, "file", None)
    return file if isinstance(file, Path) else Path("qmgr.db")
