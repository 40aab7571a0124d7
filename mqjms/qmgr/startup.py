"""Queue manager start (``strmqm``): at its first use after the machine boots (the kernel's
boot id changes) and at an administrator's restart, with nobody else on the directory. As
IBM MQ's start: non-persistent messages are dropped, every unit of work left behind is
backed out (BackoutCount + 1), temporary dynamic queues and non-durable subscriptions end,
trigger intervals and queue statistics reset."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from mqjms.logs import get_logger

from . import defaults, integrity, meta, qstats, retained, store, subscriptions
from .locks import owner_is_dead

log = get_logger("mqjms.qmgr")


def boot_id() -> str:
    """Identifies this boot of the machine; a new value means the queue manager restarts."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:  # not Linux: only an explicit restart starts the queue manager anew
        return "unknown"


def start(path: Path, db: sqlite3.Connection) -> None:
    """Start the queue manager of directory ``path`` on its database ``db``. A damaged
    database stops it (a check that reads every page, as MQ replays its log at start)."""
    integrity.check_pages(path, db)
    with store.write(db) as tx:
        dropped = tx.execute("DELETE FROM messages WHERE persistent = 0").rowcount
        tx.execute("DELETE FROM messages WHERE state = ?", (store.PUT_IN_UOW,))
        backed = tx.execute(
            "UPDATE messages SET state = ?, uow = NULL, backout = backout + 1 WHERE state = ?",
            (store.AVAILABLE, store.GOT_IN_UOW),
        ).rowcount
        tx.execute(  # MQGMO_LOCKs end with the connections that held them
            "UPDATE messages SET state = ?, uow = NULL WHERE state = ?",
            (store.AVAILABLE, store.LOCKED),
        )
        subscriptions.on_restart(tx)  # non-durable subscriptions end with their queues
        retained.on_restart(tx)  # non-persistent retained publications are lost, as on MQ
        tx.execute("DELETE FROM queues WHERE deftype = 'TEMPDYN'")
        tx.execute("DELETE FROM handles")
        tx.execute("DELETE FROM connections")
        tx.execute("DELETE FROM trigger_times")  # seed 003 item 11: restart resets TRIGINT
        defaults.add_new(tx)
        tx.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'incarnation'")
        meta.put(tx, "boot_id", boot_id())
        # depth counters are rebuilt from the rows, so a crash can never skew them
        tx.execute(store.RECOUNT_DEPTHS)
        qstats.reset_all(tx)  # as MQ's start resets RESET QSTATS's statistics
        meta.put(tx, "started", str(time.time()))  # DISPLAY QMSTATUS's STARTDA/STARTTI
    for stale in (path / "conn").glob("*.lock"):
        if owner_is_dead(stale):
            stale.unlink(missing_ok=True)
    log.info(
        "qmgr.started",
        qmgr=meta.get(db, "qmgr_name"),
        nonpersistent_dropped=dropped,
        units_of_work_backed_out=backed,
    )


__all__ = ["boot_id", "start"]
