"""The embedded queue manager: IBM MQ's queue semantics on a directory, persisted in SQLite."""

from .connection import QMConnection
from .manager import RECOVERY_INTERVAL, QueueManager

__all__ = ["RECOVERY_INTERVAL", "QMConnection", "QueueManager"]
