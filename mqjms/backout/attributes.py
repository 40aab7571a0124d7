"""BOTHRESH and BOQNAME, inquired once per underlying queue and cached (seed 002).

IBM MQ classes for JMS inquire the attributes the first time they see a message with
BackoutCount > 0, on the *underlying* local queue (an alias's target), opening it for
inquire only, and cache them. The cache is keyed by the queue a handle resolved to, so
consumers on two aliases of one local queue share an entry. MQOPEN tells us that queue
(ResolvedQName), so finding it costs no inquiry.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.transport.base import Connection

log = get_logger("mqjms.backout")


@dataclass(frozen=True, slots=True)
class BackoutAttributes:
    """A queue's poison settings. ``threshold`` 0 disables poison handling."""

    queue: str  # the underlying local queue
    threshold: int  # BOTHRESH
    backout_queue: str  # BOQNAME, "" when not set


class AttributeCache:
    """Thread-safe cache of BackoutAttributes per underlying queue, plus the DLQ name.

    Shared by every consumer of one connection factory or worker. :meth:`clear` drops it
    after a reconnect, since the queue manager's definitions may have changed.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: dict[str, BackoutAttributes] = {}
        self._dead_letter_queue: str | None = None
        self.inquiries = 0  # how many queue inquiries were made: for tests and metrics

    def get(self, conn: Connection, queue: str) -> BackoutAttributes:
        """The attributes of ``queue`` (an underlying local queue), inquired on first use."""
        with self._lock:
            found = self._queues.get(queue)
        if found is not None:
            return found
        handle = conn.open(queue, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
        try:
            values = conn.inquire(handle, [C.MQIA_BACKOUT_THRESHOLD, C.MQCA_BACKOUT_REQ_Q_NAME])
        finally:
            conn.close(handle)
        found = BackoutAttributes(
            queue=queue,
            threshold=int(values[C.MQIA_BACKOUT_THRESHOLD]),
            backout_queue=str(values[C.MQCA_BACKOUT_REQ_Q_NAME]).strip(),
        )
        with self._lock:
            self._queues.setdefault(queue, found)
            self.inquiries += 1
        log.info(
            "backout.attributes_inquired",
            queue=queue,
            bothresh=found.threshold,
            boqname=found.backout_queue,
        )
        return found

    def dead_letter_queue(self, conn: Connection) -> str:
        """The queue manager's DEADQ ("" when none is set)."""
        with self._lock:
            if self._dead_letter_queue is not None:
                return self._dead_letter_queue
        name = str(conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME])[C.MQCA_DEAD_LETTER_Q_NAME])
        with self._lock:
            self._dead_letter_queue = name.strip()
            return self._dead_letter_queue

    def clear(self) -> None:
        with self._lock:
            self._queues.clear()
            self._dead_letter_queue = None
