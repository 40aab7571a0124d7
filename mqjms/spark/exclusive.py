"""One running query per consumer: the source's runner holds the consumer's lock.

Two queries reading one queue as the same consumer (the default ``spark:<queue>`` when
neither names one) share one staging: each plans and reads the other's staged messages,
so messages are delivered twice, and each counts the other's uncommitted batches as failed
ones (the isolation of a poison message, BackoutCount + 1 for innocent messages). The
runner therefore takes an flock for the consumer before it stages anything: the kernel
drops it when the runner ends, even by SIGKILL, and a second query fails naming the
consumer and the option that separates them. A query restarted at once waits for the
runner of its previous run to finish stopping (it gives back what no batch holds).
"""

from __future__ import annotations

from pathlib import Path

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.qmgr.locks import FileLock
from mqjms.transport.url import embedded_path

from . import private
from .options import SourceOptions, safe_name

#: seconds a runner waits for the consumer's previous runner to finish stopping
WAIT = 20.0


def lock_path(options: SourceOptions) -> Path:
    """Where the consumer's lock lives: beside its reservations, which the embedded queue
    manager keys by consumer alone (whatever ``staging`` says), else in its staging."""
    if options.reserves:
        directory, _ = embedded_path(options.url)
        return directory / "spark" / f"{safe_name(options.owner)}.lock"
    return options.staging_dir() / "consumer.lock"


def hold(options: SourceOptions, wait: float = WAIT) -> FileLock:
    """The consumer's lock, held until released or the process ends; MQRC_OBJECT_IN_USE
    when another query keeps it longer than ``wait`` seconds."""
    path = lock_path(options)
    access = private.make_directory(path.parent)
    lock = FileLock(path, mode=access.file_mode, what=f"the consumer {options.owner!r}")
    try:
        lock.acquire(exclusive=True, timeout=wait)
    except MQError:
        raise failed(
            C.MQRC_OBJECT_IN_USE,
            f"another query reads queue {options.queue!r} as the consumer {options.owner!r} "
            f"({lock.holder()}); two queries on one queue need different consumers: "
            '.option("consumer", "...")',
        ) from None
    return lock
