"""Where poison messages go: BOTHRESH and BOQNAME, inquired once per underlying queue and
cached (seed 002), and the queue manager's dead-letter queue, inquired every time.

IBM MQ classes for JMS inquire the attributes the first time they see a message with
BackoutCount > 0, on the *underlying* local queue (an alias's target), opening it for
inquire only, and cache them. The cache is keyed by the queue a handle resolved to, so
consumers on two aliases of one local queue share an entry. MQOPEN tells us that queue
(ResolvedQName), so finding it costs no inquiry.

How long a value lives: at most as long as a connection. Entries belong to a *scope*: the
JMS Connection for sessions (its sessions share them; a new connection of the same
factory inquires afresh) and the listener thread's MQ connection for a Worker (a
reconnect is a new connection, so it inquires afresh). The handler re-inquires once when a
put to the cached BOQNAME fails with 2085 or 2052 (see :meth:`AttributeCache.refresh`),
so a long-running process never keeps routing to a backout queue that was deleted.

The queue manager's DEADQ is not cached at all (:func:`dead_letter_queue`): it is inquired
each time it is needed, so an ``ALTER QMGR DEADQ`` takes effect for the next message. Every
part of mqjms that dead-letters through the transport contract (poison handling, the
trigger monitor) finds it here.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics import Connection

log = get_logger("mqjms.backout")


@dataclass(frozen=True, slots=True)
class BackoutAttributes:
    """A queue's poison settings. ``threshold`` 0 disables poison handling."""

    queue: str  # the underlying local queue
    threshold: int  # BOTHRESH
    backout_queue: str  # BOQNAME, "" when not set


class AttributeCache:
    """Thread-safe cache of BackoutAttributes per scope and underlying queue.

    One instance serves a connection factory or a worker; each scope (by default the MQ
    connection that asks) has entries of its own, dropped with the scope. :meth:`clear`
    drops every scope's entries.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scopes: weakref.WeakKeyDictionary[object, dict[str, BackoutAttributes]] = (
            weakref.WeakKeyDictionary()
        )
        self.inquiries = 0  # how many queue inquiries were made: for tests and metrics

    def get(self, conn: Connection, queue: str, *, scope: object = None) -> BackoutAttributes:
        """The attributes of ``queue`` (an underlying local queue), inquired on first use
        in ``scope`` (default: ``conn``)."""
        key = conn if scope is None else scope
        with self._lock:
            found = self._scopes.get(key, {}).get(queue)
        if found is not None:
            return found
        return self._inquire(conn, queue, key, reason="first_use")

    def peek(
        self, conn: Connection, queue: str, *, scope: object = None
    ) -> BackoutAttributes | None:
        """The cached attributes of ``queue`` in ``scope`` (default: ``conn``), or None when
        they were not inquired yet: never inquires (seed 002 inquires only once a message
        with BackoutCount > 0 is seen)."""
        key = conn if scope is None else scope
        with self._lock:
            return self._scopes.get(key, {}).get(queue)

    def refresh(self, conn: Connection, queue: str, *, scope: object = None) -> BackoutAttributes:
        """Inquire ``queue`` again and replace the cached entry (a put to the cached
        BOQNAME failed: the definitions may have changed)."""
        return self._inquire(conn, queue, conn if scope is None else scope, reason="refresh")

    def _inquire(self, conn: Connection, queue: str, key: object, reason: str) -> BackoutAttributes:
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
            entries = self._scopes.setdefault(key, {})
            if reason == "refresh":
                entries[queue] = found
            else:
                found = entries.setdefault(queue, found)
            self.inquiries += 1
        log.info(
            "backout.attributes_inquired",
            queue=queue,
            bothresh=found.threshold,
            boqname=found.backout_queue,
            reason=reason,
        )
        return found

    def forget(self, scope: object) -> None:
        """Drop the entries of one scope (e.g. a JMS connection that closed)."""
        with self._lock:
            self._scopes.pop(scope, None)

    def clear(self) -> None:
        with self._lock:
            self._scopes.clear()


def dead_letter_queue(conn: Connection, *, needed_by: str = "poison") -> str:
    """The queue manager's DEADQ now, or "" when none is set or it cannot be inquired
    (logged as ``<needed_by>.dead_letter_queue_unknown``). Never cached."""
    try:
        name = conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]).get(C.MQCA_DEAD_LETTER_Q_NAME, "")
    except MQError as exc:
        log.warning(
            f"{needed_by}.dead_letter_queue_unknown", reason=exc.reason_name, detail=exc.detail
        )
        return ""
    return str(name).strip()
