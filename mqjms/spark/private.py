"""Staging files as private as the messages they hold, whatever the umask: a log staging
holds the bodies of the messages it took off the queue, the ledger the failures of poison
ones. Inside a queue manager's directory (``<queue manager>/spark``) they get its modes,
group access included (directories 2770, files 0660), so that every member of its group
can run a consumer; elsewhere, and in an owner-only queue manager, they are private to
their owner (directories 0700, files 0600). SQLite gives its ``-wal`` and ``-shm`` the
database file's mode."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from mqjms.qmgr.files import MARKER, Access, read_marker

_SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def enclosing_queue_manager(path: Path) -> tuple[Path | None, Access]:
    """The queue manager directory that holds ``path`` (or is it) and its access; outside
    any queue manager, None and owner-only access."""
    for directory in (path, *path.parents):
        if (directory / MARKER).is_file():
            marker = read_marker(directory)
            return directory, Access(group=marker is not None and marker.group_access)
    return None, Access()


def make_directory(path: Path) -> Access:
    """Create ``path`` and its missing parents with the modes of the queue manager that
    holds them (owner-only outside one), and return that access. Inside a queue manager,
    existing directories of this user are given its mode too (an older version made
    ``<queue manager>/spark`` 0777 under umask 000); elsewhere they are left alone."""
    home, access = enclosing_queue_manager(path)
    mode = access.directory_mode
    missing = [p for p in (path, *path.parents) if not p.exists()]
    inside = [p for p in (path, *path.parents) if home is not None and home in p.parents]
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):
            directory.mkdir(mode=mode)
            os.chmod(directory, mode)  # the umask may have narrowed it; mkdir drops setgid
    uid = os.geteuid()
    for directory in inside:
        st = directory.stat()
        if st.st_uid == uid and st.st_mode & 0o7777 != mode:
            os.chmod(directory, mode)
    return access


def prepare_database(path: Path) -> None:
    """Create the SQLite file ``path`` with its directory's access before SQLite opens it,
    and give an older one of this user (0644, as SQLite makes them) and its companions
    that mode."""
    mode = make_directory(path.parent).file_mode
    with contextlib.suppress(FileExistsError):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        os.close(fd)
    uid = os.geteuid()
    for file in (path, *(Path(f"{path}{suffix}") for suffix in _SQLITE_COMPANIONS)):
        with contextlib.suppress(FileNotFoundError):
            st = file.stat()
            if st.st_uid == uid and st.st_mode & 0o777 != mode:
                os.chmod(file, mode)
