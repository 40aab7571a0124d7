"""Units of work on the embedded queue manager: MQCMIT, MQBACK, and a consumer's commit and
next get in one database transaction.

A unit of work is *logical*: the rows a connection got or put under syncpoint carry its
id, so no SQLite transaction is held while the application works. MQCMIT deletes the
messages got and makes the ones put available; MQBACK does the opposite
(:func:`.recovery.backout_uow`). MQCMIT is durable (an fsync) when the unit of work
touched persistent messages; MQBACK only when it put some (see :meth:`UnitOfWork.backout`).
"""

from __future__ import annotations

from collections.abc import Callable

from mqjms.mq.md import MQMD
from mqjms.semantics import Handle
from mqjms.semantics.checks import check_get
from mqjms.semantics.emulated import GetRequest

from . import recovery, store
from .failures import translating
from .getting import Getting, NeedsDurability
from .transaction import Transaction

_NEXT_UNDER_SYNCPOINT = GetRequest(0, True, None, None, None)


@translating
class UnitOfWork(Getting):
    """MQCMIT and MQBACK of one connection."""

    @property
    def in_unit_of_work(self) -> bool:
        return self._uow.active

    def commit(self) -> None:
        """MQCMIT: gets become removals, puts become visible."""
        self._end_unit_of_work(self._commit_statements)

    def backout(self) -> None:
        """MQBACK: puts vanish; gets return to their places with BackoutCount + 1.

        A backout of gets alone needs no fsync of its own. Should an OS crash lose it,
        what the disk holds is the unit of work still in flight, and the start after the
        reboot backs that out the same way, BackoutCount + 1 (recovery at start); under
        NOHARDENBO the get's in-flight mark may be lost with it, and the count is lower,
        as IBM documents; with HARDENBO it is not: every get's mark, and so every backout
        before it, is on disk before the get returns. Nothing is lost either way: the
        log is replayed in order, so the message is on its queue, in flight or not. A
        backout of puts is durable when they were persistent (it releases FIRST/DEPTH
        trigger messages, which must not vanish)."""
        self._end_unit_of_work(self._backout_statements, durable=self._uow.puts)

    def _end_unit_of_work(
        self, statements: Callable[[Transaction], None], *, durable: bool = True
    ) -> None:
        """One transaction running ``statements``, durable when the unit of work touched
        persistent messages (and ``durable``); nothing when there is no unit of work."""
        self._check_open()
        with self._session():
            if not self._uow.active:
                return

            def attempt() -> None:
                with self._writing(durable=durable and self._uow.durable) as tx:
                    statements(tx)

            self._with_room(attempt)
            self._uow.end()

    def _commit_statements(self, tx: Transaction) -> None:
        if self._uow.gets:
            tx.db.execute(
                "DELETE FROM messages WHERE uow = ? AND state = ?",
                (self.id, store.GOT_IN_UOW),
            )
        if self._uow.puts:
            tx.db.execute(
                "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
                " WHERE uow = ? AND state = ?",
                (store.AVAILABLE, self.id, store.PUT_IN_UOW),
            )
        tx.wake_getters()

    def commit_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """MQCMIT, then MQGET under syncpoint without waiting: a consumer's step between
        two messages, in one database transaction where the two calls take two. The
        outcome is exactly that of the two calls in turn; None when no message is there."""
        self._check_open()
        self._handle(handle)
        with self._session():
            if not self._uow.active:
                return self.get(handle, wait=0, syncpoint=True)
            check_get(handle, wait=0, syncpoint=True, browse=None)
            saved = self._uow.copy()

            def attempt(durable: bool) -> tuple[MQMD, bytes] | None:
                try:
                    with self._writing(durable=durable) as tx:
                        self._commit_statements(tx)
                        self._uow.end()
                        return self._claim(tx, handle, _NEXT_UNDER_SYNCPOINT, durable)
                except BaseException:
                    self._uow.restore(saved)
                    raise

            # one fsync covers the commit and a HARDENBO get's in-flight mark alike
            durable = self._uow.durable or self._hardened.get(handle.hobj, False)
            try:
                return self._with_room(lambda: attempt(durable))
            except NeedsDurability:
                return self._with_room(lambda: attempt(True))

    def _backout_statements(self, tx: Transaction) -> None:
        recovery.backout_uow(tx.db, self.id, puts=self._uow.puts)
        tx.wake_getters()
