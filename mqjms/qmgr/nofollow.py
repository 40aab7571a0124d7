"""The queue manager's own files are opened in its directory, never through a symbolic link.

Its lock files are truncated and stamped with their holder, ``commits.seq`` is mapped and
written, ``space.reserve`` is grown to hundreds of kilobytes, and every one of them is
given the directory's file mode: through a link, each of those would change the file the
link names instead (``/etc/passwd``, for a queue manager run by root), and with group
access any member of the group may plant one. A link found there is refused with
MQRC_RESOURCE_PROBLEM (2102) naming it.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed


def link_refused(path: Path | str) -> MQError:
    """The error for a symbolic link where the queue manager keeps one of its files."""
    return failed(
        C.MQRC_RESOURCE_PROBLEM,
        f"{path} is a symbolic link: the queue manager writes its own files in its "
        "directory and never through a link (it would change the file the link names); "
        "remove the link",
    )


# what O_NOFOLLOW on a link fails with: Linux, macOS, OpenBSD; FreeBSD; NetBSD
_LINK_ERRNOS = frozenset(
    code for code in (errno.ELOOP, errno.EMLINK, getattr(errno, "EFTYPE", None)) if code
)


def open_own(path: Path | str, flags: int, mode: int) -> int:
    """``os.open`` of one of the queue manager's own files, creating it with ``mode``; a
    symbolic link there raises :func:`link_refused` instead of being followed."""
    try:
        return os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise link_refused(path) from None
        raise


def chmod_own(path: Path | str, mode: int, *, directory: bool = False) -> None:
    """``chmod`` of a file or directory of the queue manager's, through a descriptor
    opened without following a link: a link swapped in after a look at the path (a group
    member may plant one) is refused, never changed (FileNotFoundError when it is gone)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | (os.O_DIRECTORY if directory else 0))
    except PermissionError:  # a file its owner cannot read: by its name, as before
        os.chmod(path, mode)
        return
    except OSError as exc:
        if exc.errno in _LINK_ERRNOS:
            raise link_refused(path) from None
        raise
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


__all__ = ["chmod_own", "link_refused", "open_own"]
