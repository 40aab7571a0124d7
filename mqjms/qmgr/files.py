"""The queue manager's directory: who may read it, and the marker that says it exists.

Messages carry whatever applications put in them (card numbers, personal data), so the
directory is private to its owner whatever the umask: the directory 0700, every file in
it 0600, SQLite's ``-wal``/``-shm``/``-journal`` files included (SQLite gives them the
database file's mode). *Group access*, as IBM MQ's ``mqm`` group has, is chosen when the
queue manager is created (``embedded:///dir?group=true`` or ``QueueManager(group_access=
True)``) and kept in the marker: the directory is then 2770 (new files take its group) and
files 0660.

The marker, ``qmgr.ini``, is written once the database has been created. It lets a
later start tell a directory where no queue manager was ever created from one whose
``qmgr.db`` vanished or was emptied: the latter is refused, never silently re-created.
"""

from __future__ import annotations

import configparser
import contextlib
import os
import stat
import time
from dataclasses import dataclass
from pathlib import Path

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .nofollow import chmod_own, link_refused, open_own

log = get_logger("mqjms.qmgr")

MARKER = "qmgr.ini"
DATABASE = "qmgr.db"
# SQLite's companions of the database, and the queue manager's own files.
COMPANIONS = ("-wal", "-shm", "-journal")
OWN_FILES = (
    "active.lock",
    "startup.lock",
    "write.lock",  # commits.py: the writers' turns, the shared fsyncs
    "sync.lock",
    "commits.seq",
    "space.reserve",
    MARKER,
)


@dataclass(frozen=True, slots=True)
class Access:
    """File modes for one queue manager: private to the owner, or shared with its group."""

    group: bool = False

    @property
    def directory_mode(self) -> int:
        return 0o2770 if self.group else 0o700

    @property
    def file_mode(self) -> int:
        return 0o660 if self.group else 0o600


@dataclass(frozen=True, slots=True)
class Marker:
    """What ``qmgr.ini`` records about the queue manager created in the directory."""

    name: str
    created: str
    group_access: bool


#: The mode of a missing parent directory made on the way (less where the umask says):
#: never writable by others, whatever the umask, or another user could swap the queue
#: manager's directory for one of theirs.
PARENT_MODE = 0o755


def make_directory(path: Path, access: Access) -> None:
    """Create the directory (and ``conn/`` in it) with the access's mode, whatever the umask;
    missing parents with :data:`PARENT_MODE` at most."""
    for parent in reversed(path.parents):
        if not parent.exists():
            with contextlib.suppress(FileExistsError):  # the umask narrows it further only
                parent.mkdir(mode=PARENT_MODE)
    for directory in (path, path / "conn"):
        try:
            directory.mkdir(mode=access.directory_mode)
        except FileExistsError:
            if directory is not path and not directory.is_dir():  # path: the caller's 2058
                raise failed(
                    C.MQRC_OBJECT_DAMAGED,
                    f"{directory} is not a directory: the queue manager keeps its files "
                    "there; move it away (a new one is made)",
                ) from None
            continue
        os.chmod(directory, access.directory_mode)
        log.debug("qmgr.directory_created", path=str(directory), mode=oct(access.directory_mode))


def secure(path: Path, access: Access) -> None:
    """Give the directory and every file the queue manager keeps in it the access's mode.

    Runs at every open by the owner, so a directory made by an older version (0755 and
    0644 under the usual umask) or switched to or from group access is fixed in place.
    Files of other owners (a group member's lock files) are left alone; a symbolic link
    in place of one of the queue manager's files is refused (:mod:`.nofollow`).
    """
    uid = os.geteuid()
    targets = [(path, access.directory_mode)]
    targets += [(path / name, access.directory_mode) for name in ("conn", "bells")]
    targets += [(path / (DATABASE + suffix), access.file_mode) for suffix in ("", *COMPANIONS)]
    targets += [(path / name, access.file_mode) for name in OWN_FILES]
    conn = path / "conn"
    if conn.is_dir():
        targets += [(lock, access.file_mode) for lock in conn.glob("*.lock")]
    for target, mode in targets:
        try:
            st = target.stat() if target == path else target.lstat()  # path: the caller's
            if stat.S_ISLNK(st.st_mode):
                if target.name != DATABASE:
                    raise link_refused(target)  # a chmod, and every write, would go through it
                # SQLite opens a linked database where it lies, and gives its log and
                # index the database's mode there: the file it names is made private too
                target = target.resolve()
                st = target.stat()
            if st.st_uid == uid and st.st_mode & 0o7777 != mode:
                if target == path:  # the caller's path, which may be a link to the directory
                    os.chmod(target, mode)
                else:
                    chmod_own(target, mode, directory=stat.S_ISDIR(st.st_mode))
        except FileNotFoundError:  # gone meanwhile (another process's lock, log or index)
            continue


def create_database_file(path: Path, access: Access) -> None:
    """Create an empty ``qmgr.db`` with the access's mode before SQLite opens it, so that
    SQLite (which gives ``-wal`` and ``-shm`` the database's mode) never makes a readable one."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, access.file_mode)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, access.file_mode)
    finally:
        os.close(fd)


def read_marker(path: Path) -> Marker | None:
    """The marker of the queue manager in ``path``, or None when none was ever created
    (a marker that cannot be read still says that one was: its name is then blank)."""
    file = path / MARKER
    parser = configparser.ConfigParser(interpolation=None)
    unknown = Marker(name="", created="", group_access=False)  # created, but by whom?
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        log.warning("qmgr.marker_unreadable", file=str(file), error="not UTF-8 text")
        return unknown
    except OSError as exc:
        raise failed(
            C.MQRC_Q_MGR_NOT_AVAILABLE,
            f"cannot read {file} ({exc.strerror or exc}): the queue manager's owner can "
            "read it; run as that user, or in a group given access",
        ) from None
    try:
        parser.read_string(text, source=str(file))
    except configparser.Error as exc:
        log.warning("qmgr.marker_unreadable", file=str(file), error=str(exc).splitlines()[0])
        return unknown
    section = parser["QueueManager"] if parser.has_section("QueueManager") else None
    if section is None or not section.get("Name"):
        return unknown
    if len(section.get("Name", "")) > C.MQ_Q_MGR_NAME_LENGTH:
        log.warning("qmgr.marker_unreadable", file=str(file), error="Name is too long")
        return unknown
    try:
        group_access = section.getboolean("GroupAccess", fallback=False)
    except ValueError:  # damaged: the safe reading, owner only
        log.warning("qmgr.marker_unreadable", file=str(file), error="GroupAccess is not yes/no")
        group_access = False
    return Marker(
        name=section.get("Name", ""),
        created=section.get("Created", ""),
        group_access=group_access,
    )


def write_marker(path: Path, marker: Marker, access: Access) -> None:
    """Write ``qmgr.ini`` atomically and durably (a temporary file renamed over it)."""
    created = marker.created or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    text = (
        "# mqjms embedded queue manager. Written when the queue manager was created: it tells\n"
        "# a missing or emptied qmgr.db from a directory that never held a queue manager.\n"
        "# Do not delete it; to start afresh, move the whole directory away.\n"
        "[QueueManager]\n"
        f"Name={marker.name}\n"
        f"Created={created}\n"
        f"GroupAccess={'yes' if marker.group_access else 'no'}\n"
    )
    temporary = path / f".{MARKER}.{os.getpid()}"
    fd = open_own(temporary, os.O_WRONLY | os.O_TRUNC, access.file_mode)
    try:
        os.fchmod(fd, access.file_mode)
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, path / MARKER)
    directory = os.open(path, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
