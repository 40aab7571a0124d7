"""Triggering (seed 003): a trigger monitor that starts worker services on demand.

The queue manager writes a trigger message to an initiation queue when work arrives on a
triggered queue (:mod:`mqjms.qmgr.triggers` for the embedded one; IBM MQ does it itself);
:class:`TriggerMonitor` gets it and starts the process definition's program, as IBM's
``runmqtrm`` does; a worker started with ``mqjms run module:app --idle-timeout SECONDS``
drains the queue and ends when idle (:func:`stop_when_idle`). ``mqjms trigger-monitor``
runs the monitor from the command line.
"""

from .children import ChildRecord
from .command import SUPPORTED_APPL_TYPES, CommandError, command_line, tmc2_argument
from .idle import ActivityTracker, IdleStop, stop_when_idle
from .monitor import (
    DEFAULT_INITQ,
    EXIT_ERROR,
    EXIT_NOT_RUN,
    EXIT_STOPPED,
    MonitorStats,
    TriggerMonitor,
)
from .undeliverable import exception_report, reject

__all__ = [
    "DEFAULT_INITQ",
    "EXIT_ERROR",
    "EXIT_NOT_RUN",
    "EXIT_STOPPED",
    "SUPPORTED_APPL_TYPES",
    "ActivityTracker",
    "ChildRecord",
    "CommandError",
    "IdleStop",
    "MonitorStats",
    "TriggerMonitor",
    "command_line",
    "exception_report",
    "reject",
    "stop_when_idle",
    "tmc2_argument",
]
