"""What the queue manager reports about itself and resets: DISPLAY QMSTATUS's start time and
connection count, and RESET QSTATS (:mod:`.qstats`) over the queues a name matches."""

from __future__ import annotations

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics.attributes import LOCAL

from . import meta, qstats
from .admin import Administration
from .failures import translating
from .naming import matches


@translating
class QueueManagerStatus(Administration):
    """DISPLAY QMSTATUS and RESET QSTATS on a QueueManager."""

    def started_at(self) -> float | None:
        """When the queue manager last started (epoch seconds); None for one started by
        an mqjms that did not record it."""
        with self._database() as db:
            value = meta.get(db, "started")
        return float(value) if value else None

    def connection_count(self) -> int:
        """CONNS: the connections to the queue manager now, of every process."""
        self._live()
        with self._database() as db:
            return int(db.execute("SELECT COUNT(*) FROM connections").fetchone()[0])

    def reset_queue_stats(self, pattern: str) -> list[qstats.QueueStats]:
        """RESET QSTATS(pattern): each local queue's statistics since the last reset, reset
        (all in one transaction). 2085 when nothing matches, MQRCCF_OBJECT_WRONG_TYPE for a
        queue of another type named exactly."""
        generic = any(ch in pattern for ch in "*?")
        with self._writing() as tx:
            if not qstats.available(tx.db):
                raise failed(
                    C.MQRC_FUNCTION_NOT_SUPPORTED,
                    "this queue manager keeps no queue statistics until it is upgraded: "
                    "restart it when no other process has it open",
                )
            rows = tx.db.execute("SELECT name, qtype FROM queues ORDER BY name").fetchall()
            found = [(str(n), str(t)) for n, t in rows if matches(pattern, str(n))]
            if not generic and found and found[0][1] != LOCAL:
                raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, f"queue {pattern!r} is a {found[0][1]}")
            out = [qstats.reset(tx.db, name) for name, qtype in found if qtype == LOCAL]
        stats = [s for s in out if s is not None]
        if not stats:
            raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no local queue matches {pattern!r}")
        return stats


__all__ = ["QueueManagerStatus"]
