"""Staging files private to their owner, whatever the umask: a log staging holds the
bodies of the messages it took off the queue, the ledger the failures of poison ones, so
they get the queue manager's own modes (directories 0700, files 0600; SQLite gives its
``-wal`` and ``-shm`` the database file's mode)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def make_directory(path: Path) -> None:
    """Create ``path`` and its missing parents owner-only; existing ones are left alone."""
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for directory in reversed(missing):
        try:
            directory.mkdir(mode=DIRECTORY_MODE)
        except FileExistsError:
            continue
        os.chmod(directory, DIRECTORY_MODE)  # the umask may have narrowed it only


def prepare_database(path: Path) -> None:
    """Create the SQLite file ``path`` owner-only before SQLite opens it, and make an
    older one of this user (0644, as SQLite makes them) and its companions private."""
    make_directory(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    uid = os.geteuid()
    for file in (path, *(Path(f"{path}{suffix}") for suffix in _SQLITE_COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            st = file.stat()
            if st.st_uid == uid and st.st_mode & 0o777 != FILE_MODE:
                os.chmod(file, FILE_MODE)
