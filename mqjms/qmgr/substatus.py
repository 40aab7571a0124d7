"""A subscription's run-time status, as DISPLAY SBSTATUS shows it (MQCMD_INQUIRE_SUB_STATUS).

IBM MQ keeps, for each subscription: when an MQSUB last connected to it (RESMDATE,
RESMTIME; its creation for one no MQSUB has resumed), how many messages were put to its
destination since it was made or the queue manager started, whichever is later (NUMMSGS),
and when the last one was (LMSGDATE, LMSGTIME; blank before the first). ACTCONN names the
connection holding it open (48 zeros when none does). The table ``substatus`` keeps them,
a row per subscription, added at open to a queue manager made before it (:func:`ensure`).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable

from .store import Database

SCHEMA = """
CREATE TABLE IF NOT EXISTS substatus (
    name TEXT PRIMARY KEY,        -- subscriptions.name
    resumed TEXT NOT NULL,        -- 'YYYY-MM-DD HH.MM.SS' of the last MQSUB (or creation)
    nummsgs INTEGER NOT NULL,     -- messages put to its destination since made or restart
    lastmsg TEXT NOT NULL         -- 'YYYY-MM-DD HH.MM.SS' of the last one, '' for none
);
"""

#: ACTCONN of a subscription nobody holds open.
NO_CONNECTION = "0" * 48


def _stamp() -> str:
    return time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())


def present(db: sqlite3.Connection) -> bool:
    """Whether the table exists; once seen, remembered on the connection (it is made at
    open and never dropped), so a publication does not look it up each time."""
    if isinstance(db, Database) and db.substatus_present:
        return True
    found = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'substatus'").fetchone()
    if found is not None and isinstance(db, Database):
        db.substatus_present = True
    return found is not None


def ensure(db: sqlite3.Connection) -> bool:
    """Create the table in the caller's write transaction if it is missing; True if made
    (not remembered as present: the transaction may yet roll back)."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'substatus'").fetchone():
        return False
    db.execute(SCHEMA)
    return True


def made(db: sqlite3.Connection, name: str, stamp: str) -> None:
    """A subscription was made at ``stamp`` (nothing put to it yet)."""
    if present(db):
        db.execute(
            "INSERT OR REPLACE INTO substatus (name, resumed, nummsgs, lastmsg)"
            " VALUES (?, ?, 0, '')",
            (name, stamp),
        )


def resumed(db: sqlite3.Connection, name: str) -> None:
    """An MQSUB connected to the subscription now."""
    if present(db):
        db.execute(
            "INSERT INTO substatus (name, resumed, nummsgs, lastmsg) VALUES (?, ?, 0, '')"
            " ON CONFLICT(name) DO UPDATE SET resumed = excluded.resumed",
            (name, _stamp()),
        )


def put_to(db: sqlite3.Connection, names: Iterable[str]) -> None:
    """A message was put to the destination of each subscription of ``names``."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    if not counts or not present(db):
        return
    stamp = _stamp()
    db.executemany(
        "INSERT INTO substatus (name, resumed, nummsgs, lastmsg) VALUES (?, ?, ?, ?)"
        " ON CONFLICT(name) DO UPDATE SET nummsgs = nummsgs + excluded.nummsgs,"
        " lastmsg = excluded.lastmsg",
        [(name, stamp, n, stamp) for name, n in counts.items()],
    )


def removed(db: sqlite3.Connection, name: str) -> None:
    if present(db):
        db.execute("DELETE FROM substatus WHERE name = ?", (name,))


def on_restart(db: sqlite3.Connection) -> None:
    """Queue manager start: NUMMSGS counts from now."""
    if present(db):
        db.execute("UPDATE substatus SET nummsgs = 0")


def load(db: sqlite3.Connection) -> dict[str, tuple[str, int, str]]:
    """name -> (resumed, nummsgs, lastmsg) for every subscription with a row."""
    if not present(db):
        return {}
    rows = db.execute("SELECT name, resumed, nummsgs, lastmsg FROM substatus").fetchall()
    return {str(r[0]): (str(r[1]), int(r[2]), str(r[3])) for r in rows}


def active_connections(db: sqlite3.Connection) -> dict[str, str]:
    """subscription name -> the id of the connection that holds it open (the latest)."""
    rows = db.execute("SELECT sub, conn FROM subscribers ORDER BY hsub").fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


def actconn(qmgr_name: str, conn_id: str | None) -> str:
    """ACTCONN: MQ's 24-byte ConnectionId in hex, 'AMQC' and the queue manager's first
    four characters (EXTCONN) then the connection's id (DISPLAY QSTATUS's CONN)."""
    if not conn_id:
        return NO_CONNECTION
    ext = ("AMQC" + qmgr_name[:4].ljust(4)).encode("ascii", "replace").hex()
    return (ext + conn_id).upper()[:48].ljust(48, "0")
