"""The embedded transport: connections onto :class:`mqjms.qmgr.QueueManager` in this process.

The queue manager's own connection already speaks the transport contract, so this module
only maps URLs to one shared QueueManager per directory and process.
"""

from __future__ import annotations

import atexit
import threading
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from mqjms.qmgr import QMConnection, QueueManager

from .url import embedded_path

_managers: dict[Path, QueueManager] = {}
_lock = threading.Lock()


def group_access(url: str) -> bool | None:
    """``?group=true|false``: share the queue manager's files with the directory's group
    (as IBM MQ's mqm group), or not; None (absent) keeps what the queue manager has."""
    values = parse_qs(urlsplit(url).query).get("group")
    if not values:
        return None
    value = values[-1].strip().lower()
    if value in ("true", "yes", "1", "on"):
        return True
    if value in ("false", "no", "0", "off"):
        return False
    raise ValueError(f"group={values[-1]!r} in an embedded: URL must be true or false")


def queue_manager(url: str) -> QueueManager:
    """The process's QueueManager for an ``embedded:`` URL, opened on first use."""
    path, name = embedded_path(url)
    key = path.resolve()
    with _lock:
        qm = _managers.get(key)
        if qm is None or qm._closed:
            qm = QueueManager(key, name, group_access=group_access(url))
            _managers[key] = qm
        return qm


def connect(url: str, appl_name: str | None = None) -> QMConnection:
    return queue_manager(url).connect(appl_name)


def close_all() -> None:
    """Close every queue manager this process opened (tests use it to simulate a restart)."""
    with _lock:
        managers = list(_managers.values())
        _managers.clear()
    for qm in managers:
        qm.close()


atexit.register(close_all)
