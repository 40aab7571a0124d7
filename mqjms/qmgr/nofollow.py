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


def open_own(path: Path | str, flags: int, mode: int) -> int:
    """``os.open`` of one of the queue manager's own files, creating it with ``mode``; a
    symbolic link there raises :func:`link_refused` instead of being followed."""
    try:
        return os.open(path, flags | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise link_refused(path) from None
        raise


__all__ = ["link_refused", "open_own"]
