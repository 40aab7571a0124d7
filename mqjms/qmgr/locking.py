"""MQGMO_LOCK and MQGMO_UNLOCK: a handle locks the message its browse cursor is on.

A locked message is in state LOCKED with ``uow`` the connection's id, so it has left the
delivery-order index: every other handle's gets and browses, in any process, step over
it, while CURDEPTH still counts it. The connection remembers which message each handle
locked (``_locks``); the lock ends with MQGMO_UNLOCK, when the handle's browse cursor moves
to another message, when the handle gets the message (MQGMO_MSG_UNDER_CURSOR), closes, or
its connection ends (a dead process's locks are released by recovery, a restart releases
all). A lock is no unit of work: MQCMIT and MQBACK leave it, and BackoutCount never moves.

Seed 000 note 6: a locked message that expires meanwhile is discarded by the get under
the cursor that would have returned it, which then fails with MQRC_NO_MSG_UNDER_CURSOR.
"""

from __future__ import annotations

from mqjms.semantics import Handle

from . import store
from .failures import translating
from .getting import Getting, release_lock


@translating
class Locking(Getting):
    """Lock and unlock the message under a handle's browse cursor."""

    def lock_browsed(self, handle: Handle) -> bool:
        """MQGMO_LOCK for the message the browse just returned (see
        :class:`~mqjms.semantics.LocksMessages`)."""
        self._handle(handle)
        self._refuse_if_read_only("no message can be locked")
        cursor = self._cursors.get(handle.hobj)
        if cursor is None:
            return False

        def attempt() -> bool:
            previous = self._locks.get(handle.hobj)
            if previous == cursor.id:
                return True
            with self._writing(durable=False) as tx:
                if previous is not None:
                    release_lock(tx, self.id, previous)
                locked = tx.db.execute(
                    "UPDATE messages SET state = ?, uow = ? WHERE id = ? AND state = ?",
                    (store.LOCKED, self.id, cursor.id, store.AVAILABLE),
                ).rowcount
            # the connection's memory changes once the transaction is committed
            if locked:
                self._locks[handle.hobj] = cursor.id
            else:
                self._locks.pop(handle.hobj, None)
            return bool(locked)

        with self._session():
            return self._with_room(attempt)

    def unlock(self, handle: Handle) -> bool:
        """MQGMO_UNLOCK: False when ``handle`` holds no lock (MQRC_NO_MSG_LOCKED)."""
        self._handle(handle)
        if handle.hobj not in self._locks:
            return False
        with self._session():
            return self._with_room(lambda: self._unlock(handle.hobj))
