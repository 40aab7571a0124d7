"""Units of work that end without a commit: backed out, the messages got returned to their
places with BackoutCount + 1, the messages put gone.

A connection ends by MQDISC, by being dropped without one (its lock is let go when it is
collected), or with its process (even by SIGKILL): its lock file then has no holder,
which the next user of the directory notices (``QueueManager.recover_abandoned``) and
ends the connection for it with :func:`end_connection`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from mqjms.mq import constants as C

from . import catalog, queues, retained, store, subscriptions, triggers
from .transaction import Transaction


def backout_uow(
    db: sqlite3.Connection,
    uow: str,
    *,
    puts: bool = True,
    got_ids: Sequence[int] | None = None,
) -> tuple[int, int]:
    """Undo a unit of work: its puts vanish, its gets return with BackoutCount + 1 in
    their original position (rows keep their id, which is their place in the queue).
    ``puts=False``: the caller knows it put nothing (a connection's own MQBACK), so
    only its gets are looked for. ``got_ids``: the row ids of every message the unit of
    work got (a connection's own, which it tracks), each then returned by its id, which
    costs a fraction of an UPDATE through messages_uow. Returns (messages got, messages
    put)."""
    put = withdraw_puts(db, uow) if puts else 0
    got = 0
    if got_ids is not None:
        for message_id in got_ids:  # each only if still in flight in this unit of work
            got += db.execute(
                "UPDATE messages SET state = ?, uow = NULL, backout = backout + 1"
                " WHERE id = ? AND uow = ? AND state = ?",
                (store.AVAILABLE, message_id, uow, store.GOT_IN_UOW),
            ).rowcount
        # a get noted nowhere would stay in flight until the connection ends: look for one
        # (an index seek that finds nothing when every get was noted)
        if not db.execute(
            "SELECT 1 FROM messages INDEXED BY messages_uow WHERE uow = ? AND state = ? LIMIT 1",
            (uow, store.GOT_IN_UOW),
        ).fetchone():
            return got, int(put)
    got += db.execute(
        "UPDATE messages SET state = ?, uow = NULL, backout = backout + 1"
        " WHERE uow = ? AND state = ?",
        (store.AVAILABLE, uow, store.GOT_IN_UOW),
    ).rowcount
    return int(got), int(put)


def withdraw_puts(db: sqlite3.Connection, uow: str) -> int:
    """The puts of unit of work ``uow`` vanish (a FIRST or DEPTH trigger message is
    released instead, seed 003 item 10), its retained publications with them; how many
    messages vanished."""
    retained.withdraw(db, uow)
    put = db.execute(
        "DELETE FROM messages WHERE uow = ? AND state = ? AND release_on_backout = 0",
        (uow, store.PUT_IN_UOW),
    ).rowcount
    db.execute(
        "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
        " WHERE uow = ? AND state = ?",
        (store.AVAILABLE, uow, store.PUT_IN_UOW),
    )
    return int(put)


def end_connection(tx: Transaction, conn_id: str) -> tuple[int, int] | None:
    """Back out a connection's unit of work and drop its handles and temporary dynamic
    queues; (messages got, messages put) backed out, None when it had ended already."""
    db = tx.db
    if not db.execute("SELECT 1 FROM connections WHERE id = ?", (conn_id,)).fetchone():
        return None
    got, put = backout_uow(db, conn_id)
    # its MQGMO_LOCKs end with it (no unit of work: BackoutCount stays)
    db.execute(
        "UPDATE messages SET state = ?, uow = NULL WHERE uow = ? AND state = ?",
        (store.AVAILABLE, conn_id, store.LOCKED),
    )
    closed = [
        r[0]
        for r in db.execute(
            "SELECT DISTINCT queue FROM handles WHERE conn = ? AND options & ? != 0",
            (conn_id, C.MQOO_INPUT_MASK),
        ).fetchall()
    ]
    db.execute("DELETE FROM handles WHERE conn = ?", (conn_id,))
    for qname in closed:
        # seed 003 item 12 note 2: an application that ends (or abends) after backing
        # out leaves its messages to trigger a new server
        queues.write_trigger_messages(tx, triggers.on_close(tx, qname))
    temporary = db.execute(
        "SELECT name FROM queues WHERE deftype = 'TEMPDYN' AND owner = ?", (conn_id,)
    ).fetchall()
    for (qname,) in temporary:
        catalog.delete(db, qname)
    subscriptions.on_connection_end(db, conn_id)  # its non-durable subscriptions
    db.execute("DELETE FROM connections WHERE id = ?", (conn_id,))
    if got or put:
        tx.wake_getters()
    return got, put
