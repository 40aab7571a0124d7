"""Units of work on the embedded queue manager: MQCMIT, MQBACK, and a consumer's commit and
next get in one database transaction.

A unit of work is *logical*: the rows a connection got or put under syncpoint carry its
id, so no SQLite transaction is held while the application works. MQCMIT deletes the
messages got and makes the ones put available; MQBACK does the opposite
(:func:`.recovery.backout_uow`). MQCMIT is durable (an fsync) when the unit of work
touched persistent messages; MQBACK only when it put some (see :meth:`UnitOfWork.backout`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.semantics import Handle, PutFailed, SyncpointPut
from mqjms.semantics.checks import check_get, check_put
from mqjms.semantics.emulated import GetRequest, PutRequest

from . import expiry, recovery, retained, store
from .failures import StorageError, translating
from .getting import Getting, NeedsDurability
from .putting import Putting
from .transaction import Transaction

_NEXT_UNDER_SYNCPOINT = GetRequest(0, True, None, None, None)
# a message of a unit of work still in a state (GOT_IN_UOW, PUT_IN_UOW) after its commit by
# row id (an index seek: the messages committed have left messages_uow, so it finds nothing)
_LEFT = "SELECT 1 FROM messages INDEXED BY messages_uow WHERE uow = ? AND state = ? LIMIT 1"


@translating
class UnitOfWork(Getting, Putting):
    """MQCMIT and MQBACK of one connection, and the steps that combine them with the puts
    before and the get after."""

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
        backout of a unit of work that put messages is durable when it touched persistent
        ones (it releases FIRST/DEPTH trigger messages, which must not vanish)."""
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

            try:
                self._with_room(attempt)
            except StorageError as exc:
                if exc.unsynced:  # it ended all the same: only its durability is in doubt
                    self._uow.end()
                raise
            self._uow.end()

    def _commit_statements(self, tx: Transaction) -> None:
        if self._uow.gets:
            self._commit_gets(tx)
        if self._uow.puts:
            # seed 004: a message whose expiry ended before the commit "is discarded
            # shortly after the commit": now, outside the unit of work (note 4)
            expired: list[int] | None = None
            if self._uow.expires is not None and self._uow.expires <= tx.now:
                expired = self._uow.tracked_puts() or expiry.expired_puts(tx, self.id)
            self._commit_puts(tx)
            if expired is not None:
                expiry.discard_expired_puts(tx, expired)
        if self._uow.retains:  # its retained publications replace the ones before
            retained.commit(tx.db, self.id)
        tx.wake_getters()

    def _commit_gets(self, tx: Transaction) -> None:
        """Remove the messages got in the unit of work: by row id when they are few, then,
        should the unit of work's index still hold a get of it (one noted nowhere, which
        would otherwise stay in flight and be redelivered: a duplicate), by unit of work."""
        ids = self._uow.tracked_gets()
        if ids is not None:  # each by its row id, still in flight in this unit of work
            tx.db.executemany(
                "DELETE FROM messages WHERE id = ? AND uow = ? AND state = ?",
                [(message_id, self.id, store.GOT_IN_UOW) for message_id in ids],
            )
            if not tx.db.execute(_LEFT, (self.id, store.GOT_IN_UOW)).fetchone():
                return
        tx.db.execute(
            "DELETE FROM messages WHERE uow = ? AND state = ?", (self.id, store.GOT_IN_UOW)
        )

    def _commit_puts(self, tx: Transaction) -> None:
        """Make the messages put in the unit of work available: by row id when they are
        few, then, should the unit of work's index still hold a put of it (a put noted
        nowhere), by unit of work as well."""
        ids = self._uow.tracked_puts()
        if ids is not None:
            tx.db.executemany(
                "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
                " WHERE id = ? AND uow = ? AND state = ?",
                [(store.AVAILABLE, message_id, self.id, store.PUT_IN_UOW) for message_id in ids],
            )
            if not tx.db.execute(_LEFT, (self.id, store.PUT_IN_UOW)).fetchone():
                return
        tx.db.execute(
            "UPDATE messages SET state = ?, uow = NULL, release_on_backout = 0"
            " WHERE uow = ? AND state = ?",
            (store.AVAILABLE, self.id, store.PUT_IN_UOW),
        )

    def commit_and_get(
        self, handle: Handle, puts: Sequence[SyncpointPut] = ()
    ) -> tuple[MQMD, bytes] | None:
        """``puts`` under syncpoint, MQCMIT, then MQGET under syncpoint without waiting: a
        consumer's step between two messages, with what the last one sent, in one database
        transaction where the calls take one each. The outcome is exactly that of the
        calls in turn; None when no message is there. A put that fails raises
        :class:`~mqjms.semantics.PutFailed` and the transaction is rolled back."""
        self._check_open()
        self._handle(handle)
        with self._session():
            if not self._uow.active and not puts:
                return self.get(handle, wait=0, syncpoint=True)
            return self._then_get(handle, lambda then, hardened: self._step(puts, then, hardened))

    def backout_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """MQBACK, then MQGET under syncpoint without waiting: a consumer's step after a
        failed delivery, in one database transaction where the calls take one each (the
        message backed out is usually the one got again, BackoutCount + 1). The outcome
        is exactly that of the calls in turn; None when no message is there."""
        self._check_open()
        self._handle(handle)
        with self._session():
            if not self._uow.active:
                return self.get(handle, wait=0, syncpoint=True)
            return self._then_get(
                handle, lambda then, hardened: self._step((), then, hardened, backout=True)
            )

    def _then_get(
        self,
        handle: Handle,
        step: Callable[
            [Callable[[Transaction, bool], tuple[MQMD, bytes] | None], bool],
            tuple[MQMD, bytes] | None,
        ],
    ) -> tuple[MQMD, bytes] | None:
        """``step`` (a :meth:`_step`) ending with MQGET under syncpoint without waiting."""
        check_get(handle, wait=0, syncpoint=True, browse=None)
        more_expired = False

        def get_next(tx: Transaction, durable: bool) -> tuple[MQMD, bytes] | None:
            nonlocal more_expired
            more_expired = False  # a step retried (a full disk at COMMIT) starts over
            try:
                return self._claim(tx, handle, _NEXT_UNDER_SYNCPOINT, durable)
            except expiry.MoreExpired:  # those met so far are discarded with the step
                more_expired = True
                return None

        # one fsync covers the step and a HARDENBO get's in-flight mark alike
        found = step(get_next, self._hardened.get(handle.hobj, False))
        if more_expired:  # the get goes on alone, past the rest, a batch a transaction
            try:
                return self.get(handle, wait=0, syncpoint=True)
            except MQError:  # the step is done all the same: the next get says why
                return None
        return found

    def put_and_commit(self, puts: Sequence[SyncpointPut]) -> None:
        """``puts`` under syncpoint, then MQCMIT, in one database transaction (a put that
        fails raises :class:`~mqjms.semantics.PutFailed` and nothing changes)."""
        self._check_open()
        with self._session():
            self._step(puts, lambda tx, durable: None, False)

    def _step(
        self,
        puts: Sequence[SyncpointPut],
        then: Callable[[Transaction, bool], tuple[MQMD, bytes] | None],
        hardened: bool,
        *,
        backout: bool = False,
    ) -> tuple[MQMD, bytes] | None:
        """One transaction: ``puts`` (each checked and made as MQPUT1 makes it), the
        unit of work's commit (its backout when ``backout``), then ``then``, a get (inside
        the session). Durable when the unit of work or a put touched persistent messages
        (a backout: when it put persistent ones, as :meth:`backout`), or ``hardened``. A
        get that fails by MQ's rules (2016, 2085...) leaves the commit (or backout) done
        and returns None, as the calls in turn would: the caller's next get meets the
        same rule."""
        for put in puts:
            try:
                self._refuse_if_read_only("no message can be put")
                check_put(put.queue, put.data, put.context)
            except MQError as exc:
                raise PutFailed.of(exc, put) from exc
        if puts and self.qm.reserve is not None:
            try:  # the space kept for draining is not for puts
                self.qm.reserve.check_for_put(self._db, sum(len(p.data) for p in puts))
            except MQError as exc:
                raise PutFailed.of(exc, puts[0]) from exc
        saved = self._uow.copy()
        made: list[tuple[str, MQMD]] = []

        def attempt(durable: bool) -> tuple[MQMD, bytes] | None:
            made.clear()
            try:
                with self._writing(durable=durable, putting=bool(puts)) as tx:
                    for put in puts:
                        try:
                            # not under syncpoint: the step's transaction commits it, as
                            # MQCMIT commits a put under syncpoint
                            request = PutRequest(False, put.context, put.new_msg_id)
                            result = self._put_in(tx, put.queue, put.md, bytes(put.data), request)
                        except MQError as exc:
                            raise PutFailed.of(exc, put) from exc
                        if result.Persistence == C.MQPER_PERSISTENT and not durable:
                            raise NeedsDurability
                        made.append((put.queue, result))
                    if self._uow.active:
                        end = self._backout_statements if backout else self._commit_statements
                        end(tx)
                    self._uow.end()
                    try:
                        return then(tx, durable)
                    except (NeedsDurability, StorageError):
                        raise
                    except MQError:
                        return None  # committed all the same
            except StorageError as exc:
                if exc.unsynced:
                    self._unsynced_step()
                    raise
                self._uow.restore(saved)
                if puts and exc.disk_full:  # no room for the puts (2056): theirs to report
                    raise PutFailed.of(exc, puts[0]) from exc
                raise
            except BaseException:
                self._uow.restore(saved)
                raise

        # a step with puts never uses the space kept for draining: it fails instead (2056)
        run: Callable[[Callable[[], tuple[MQMD, bytes] | None]], tuple[MQMD, bytes] | None] = (
            (lambda step: step()) if puts else self._with_room
        )
        ended_durably = self._uow.durable and (bool(self._uow.puts) or not backout)
        durable = ended_durably or hardened
        try:
            outcome = run(lambda: attempt(durable))
        except NeedsDurability:
            outcome = run(lambda: attempt(True))
        for queue, result in made:
            self._warn_if(queue, result)
        return outcome

    def _unsynced_step(self) -> None:
        """A step's transaction committed but its fsync failed: the commit stands (the
        caller hears of the failure, as from MQCMIT), and the message its get took is
        released, as if that get had not been made: BackoutCount unchanged, never counted
        against a message nobody was given. Should the release fail too, the message
        stays in flight in this unit of work, and MQBACK or the connection's end returns
        it (BackoutCount + 1): never lost."""
        if not self._uow.active:
            return
        try:
            with self._writing(durable=False) as tx:
                tx.db.execute(
                    "UPDATE messages SET state = ?, uow = NULL WHERE uow = ? AND state = ?",
                    (store.AVAILABLE, self.id, store.GOT_IN_UOW),
                )
                # what that get sent (a COD report) goes with it
                recovery.withdraw_puts(tx.db, self.id)
                tx.wake_getters()
        except StorageError:
            return
        self._uow.end()

    def _backout_statements(self, tx: Transaction) -> None:
        recovery.backout_uow(tx.db, self.id, puts=self._uow.puts, got_ids=self._uow.tracked_gets())
        tx.wake_getters()
