"""MQGET on the embedded queue manager: a get, a get under syncpoint, a browse, and the wait
for a message across threads and processes.

A get is one write transaction; a browse one read transaction (so it works on a full disk
and on a read-only copy) unless it must discard an expired message. A get with wait looks
again whenever this process's doorbell rings (:mod:`.wakeup`), which the other processes'
commits ring through this process's bell (:mod:`.bells`), and, as a fallback, when
SQLite's ``data_version`` has moved, checked every ``BELL_POLL_INTERVAL`` and less often
while nothing changes (every ``POLL_INTERVAL`` without a bell). Another thread may end the
wait: ``interrupt_wait``, a disconnect, the queue manager's close.
"""

from __future__ import annotations

import time

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Handle, TruncatedMessage, definitions
from mqjms.semantics.checks import check_get_allowed
from mqjms.semantics.emulated import GetRequest

from . import bells, catalog, expiry, messages, reporting, store, wakeup, xmitq
from .connection_state import ConnectionState
from .delivery import Cursor, Row, next_message, queue_and_head
from .failures import translating
from .transaction import Transaction

# Seconds between checks for messages put by other processes: often when this process
# has no bell (see bells.py); with one, only as a fallback, backing off from
# BELL_POLL_INTERVAL to BELL_POLL_MAX while nothing changes, so that an idle consumer
# sleeps. The fallback serves a writer that does not ring: an older mqjms, or one that
# cannot reach the bell (another network namespace: it removes the bell's file, which the
# next look finds, and the bell is polled at BELL_POLL_INTERVAL from then on). A dead
# process's units of work are noticed by the queue manager's recovery (see
# QueueManager.recovery_wait), not by these looks.
POLL_INTERVAL = 0.02
BELL_POLL_INTERVAL = 0.5
BELL_POLL_MAX = 5.0


class NeedsDurability(Exception):
    """A non-durable attempt met a persistent message: redo the call durably."""


class _NeedsWrite(Exception):
    """A browse in a read transaction met an expired message: redo it in a write one, which
    discards the message (seed 000)."""


def release_lock(tx: Transaction, conn_id: str, message_id: int) -> bool:
    """Make ``message_id`` available again if ``conn_id`` holds its MQGMO_LOCK."""
    done = tx.db.execute(
        "UPDATE messages SET state = ?, uow = NULL WHERE id = ? AND uow = ? AND state = ?",
        (store.AVAILABLE, message_id, conn_id, store.LOCKED),
    ).rowcount
    if done:
        tx.wake_getters()
    return bool(done)


@translating
class Getting(ConnectionState):
    """MQGET: get, browse, wait."""

    def _get(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        wait = request.wait
        deadline = None if wait is None else time.monotonic() + wait
        # the bell first, the doorbell's reading next, the first look last: no ring
        # between them is missed
        directory = getattr(self._db, "directory", None) if wait != 0 else None
        belled = directory is not None and bells.listen(directory)
        rings = wakeup.rings()
        with self._session():
            # read before the first attempt, so a put that lands just after it is not missed
            seen_version = self._data_version() if wait != 0 else (0, 0)
            found = self._look(handle, request)
        if found is None and wait == 0 and self.qm.recover_abandoned():
            # a get that does not wait noticed a dead process (as a waiting one does): the
            # messages its unit of work held are back, and a program that only ever polls
            # finds them (before, they stayed out of its reach until another process
            # connected or waited)
            with self._session():
                found = self._look(handle, request)
        if found is None and (request.under_cursor or request.browse is Browse.CURSOR):
            # seed 000 note 6: the message under the cursor (locked or not) expired, and
            # this get discarded it
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR,
                f"the message under the browse cursor of {handle.name!r} had expired",
            )
        if found is not None or wait == 0:
            if found is not None and wait != 0:
                self._interrupted = False  # the wait it was for has ended
            return found
        fallback = BELL_POLL_INTERVAL
        while True:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None
            if self._closed or self.qm.closed:
                raise self._ended_error()
            if self._interrupted:
                self._interrupted = False
                return None
            if self.qm.recover_abandoned():
                seen_version = (-1, -1)
            interval = POLL_INTERVAL
            if belled and directory is not None:  # again: the queue manager object that
                belled = bells.listen(directory)  # put it up may have closed
                # back off only while the others ring this bell
                interval = fallback if bells.heard(directory) else BELL_POLL_INTERVAL
            timeout = min(interval, self.qm.recovery_wait())
            if remaining is not None:
                timeout = min(timeout, remaining)
            wakeup.wait(rings, timeout, self._interrupt_pending)
            rings = wakeup.rings()
            with self._session():  # fails cleanly if another thread ended the connection
                version = self._data_version()
                if version == seen_version:
                    fallback = min(fallback * 2, BELL_POLL_MAX)
                    continue
                if version[1] == seen_version[1]:  # a commit elsewhere that rang no bell:
                    self.qm.note_unrung_commit()  # a writer whose connections go unwatched
                # something changed: another process or thread wrote
                seen_version, fallback = version, BELL_POLL_INTERVAL
                found = self._look(handle, request)
                if found is not None:
                    self._interrupted = False  # the wait it was for has ended
                    return found

    def _interrupt_pending(self) -> bool:
        return self._interrupted

    def _look(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        """:meth:`_get_once`, skipped when it is known to find nothing: the last look of
        this handle for the same messages found none and the database has not changed
        since (no commit by any other connection, no change by this one, no ring). A
        consumer polling an empty queue then reads a counter, not a write transaction;
        one that finds messages pays nothing (the mark is read only after an empty look)."""
        if request.browse is not None or request.under_cursor:
            return self._get_once(handle, request)
        last = self._empty_looks.get(handle.hobj)
        if last is None:  # the last look found a message: this one likely does too
            found = self._get_once(handle, request)
            if found is None:
                self._empty_looks[handle.hobj] = ()  # the next look is marked
            return found
        # read before the look: a change made during it moves the mark, so is never skipped
        mark = (
            request.msg_id,
            request.correl_id,
            request.group_id,
            self._db.execute("PRAGMA data_version").fetchone()[0],
            self._db.total_changes,
            wakeup.rings(),
        )
        if last == mark:
            return None
        found = self._get_once(handle, request)
        if found is None:
            self._empty_looks[handle.hobj] = mark
        else:
            del self._empty_looks[handle.hobj]
        return found

    def _data_version(self) -> tuple[int, int]:
        """SQLite's ``data_version``, which moves when another connection commits (in any
        process), and the doorbell's rings: either moving is a change to look at."""
        return int(self._db.execute("PRAGMA data_version").fetchone()[0]), wakeup.rings()

    def _unlock(self, hobj: int) -> bool:
        """End ``hobj``'s MQGMO_LOCK, if any, in a transaction of its own (inside the
        session); see :mod:`.locking`."""
        message_id = self._locks.get(hobj)
        if message_id is None:
            return False
        with self._writing(durable=False) as tx:
            release_lock(tx, self.id, message_id)
        del self._locks[hobj]  # once committed
        return True

    def _get_once(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        """One look at the queue (inside the session)."""
        if request.browse is not None:
            found = self._browse_once(handle, request)
            locked = self._locks.get(handle.hobj)
            if found is not None and locked is not None:
                cursor = self._cursors.get(handle.hobj)
                if cursor is None or cursor.id != locked:
                    self._unlock(handle.hobj)  # the cursor moved on: MQGMO_LOCK's lock ends
            return found
        self._refuse_if_read_only("no message can be removed from it")
        # A get without syncpoint removes the message for good: durable when it is
        # persistent. Under syncpoint, the get's in-flight mark is durable when the queue
        # hardens BackoutCount (HARDENBO). Guess from the last get of this handle; retry if
        # wrong.
        if request.syncpoint:  # MQGMO_SYNCPOINT_IF_PERSISTENT too: durable as HARDENBO says
            durable = self._hardened.get(handle.hobj, False)
        else:
            durable = self._last_persistent.get(handle.hobj, True)
        try:
            return self._get_attempt(handle, request, durable)
        except NeedsDurability:
            return self._get_attempt(handle, request, True)

    def _get_attempt(
        self, handle: Handle, request: GetRequest, durable: bool
    ) -> tuple[MQMD, bytes] | None:
        def attempt() -> tuple[MQMD, bytes] | None:
            while True:
                found = self._taking(
                    lambda tx: self._claim_or_truncated(tx, handle, request, durable),
                    durable=durable,
                )
                if isinstance(found, TruncatedMessage):
                    raise found  # once the transaction committed (see _claim_or_truncated)
                if not isinstance(found, expiry.MoreExpired):
                    return found
                # the expired messages met so far are discarded: look on in a new one

        return self._with_room(attempt)

    def _browse_once(self, handle: Handle, request: GetRequest) -> tuple[MQMD, bytes] | None:
        """A browse reads without the write lock (so it works on a full disk and on a
        read-only copy), unless it must discard an expired message."""
        try:
            with self._reading() as tx:
                return self._claim(tx, handle, request, False)
        except _NeedsWrite:

            def attempt() -> tuple[MQMD, bytes] | None:
                while True:
                    with self._writing(durable=False) as tx:
                        found = self._claim_or_truncated(tx, handle, request, False)
                    if isinstance(found, TruncatedMessage):
                        raise found
                    if not isinstance(found, expiry.MoreExpired):
                        return found

            return self._with_room(attempt)

    def _claim_or_truncated(
        self, tx: Transaction, handle: Handle, request: GetRequest, durable: bool
    ) -> tuple[MQMD, bytes] | TruncatedMessage | expiry.MoreExpired | None:
        """:meth:`_claim` in a write transaction, the message found too long for the
        caller (2080 leaves it where it is) returned rather than raised, so that the
        transaction commits: the expired messages the get discarded on its way stay
        discarded, their reports sent (seed 000: discarded by the get that reached them,
        never part of a unit of work); the caller raises it after the commit. So is
        :class:`~.expiry.MoreExpired`: the caller looks again in a new transaction."""
        try:
            return self._claim(tx, handle, request, durable)
        except (TruncatedMessage, expiry.MoreExpired) as exc:
            return exc

    def _claim(
        self, tx: Transaction, handle: Handle, request: GetRequest, durable: bool
    ) -> tuple[MQMD, bytes] | None:
        """The body of MQGET, inside the caller's transaction (a read one only for a
        browse)."""
        db = tx.db
        head: Row | None = None
        plain = (  # the head of a local queue: read with the queue's row, one statement
            request.browse is None
            and not request.under_cursor
            and request.msg_id is None
            and request.correl_id is None
            and request.group_id is None
            and handle.name == handle.resolved_name
        )
        if plain:
            queue_row, head = queue_and_head(db, handle.name)
            named = definitions.require(handle.name, lambda _: catalog.from_row(queue_row))
            base = named
        else:
            named = catalog.require(db, handle.name)
            base = (
                catalog.require(db, handle.resolved_name)
                if named.name != handle.resolved_name
                else named
            )
        check_get_allowed(named, base)
        after = self._cursors.get(handle.hobj) if request.browse is Browse.NEXT else None
        discarded, until = 0, 0.0
        while True:
            if plain:
                row, plain = head, False  # the next look (past an expired one) reads again
            elif request.under_cursor or request.browse is Browse.CURSOR:
                row = self._under_cursor(tx, handle, base.name)
            else:
                row = next_message(
                    db,
                    base.name,
                    after,
                    request.msg_id,
                    request.correl_id,
                    request.group_id,
                )
            if row is None:
                return None
            msg = messages.from_row(row)
            if not messages.is_expired(msg.expires, tx.now):
                break
            # seed 000: an expired message is never returned; the get that would have
            # returned it discards it (outside any unit of work) and looks further.
            if tx.writable:
                # a bounded number a transaction: the caller commits them and looks again
                if discarded == 0:
                    until = time.monotonic() + expiry.DISCARD_SECONDS
                elif discarded >= expiry.DISCARD_BATCH or time.monotonic() > until:
                    raise expiry.MoreExpired
                expiry.discard(tx, [msg])
                discarded += 1
            elif not self.qm.read_only:
                raise _NeedsWrite
            else:  # a read-only copy cannot discard it: step over it
                after = Cursor(msg.priority, msg.id, MQMD.unpack(msg.md_bytes).MsgId)
            if request.under_cursor or request.browse is Browse.CURSOR:  # _get says 2034
                self._locks.pop(handle.hobj, None)
                return None
        md = msg.descriptor(tx.now)
        data = xmitq.on_get(md, msg.data, msg.md_bytes, tx.now)  # seed 000 note 9
        if request.max_length is not None and len(data) > request.max_length:
            if request.browse is Browse.FIRST:  # MQ: the cursor goes before the first message
                self._cursors[handle.hobj] = None
            raise TruncatedMessage(md, data[: request.max_length], len(data), request.max_length)
        if request.browse is not None:
            self._cursors[handle.hobj] = Cursor(
                msg.priority, msg.id, MQMD.unpack(msg.md_bytes).MsgId
            )
        elif request.syncpoint and (msg.persistent or not request.if_persistent):
            # HARDENBO: the in-flight mark, which a restart turns into BackoutCount + 1,
            # is on disk before the get returns, so a power cut cannot undo the count
            hardened = msg.persistent and bool(base.attrs.get("HARDENBO", False))
            self._hardened[handle.hobj] = hardened
            if hardened and not durable:
                raise NeedsDurability
            db.execute(
                "UPDATE messages SET state = ?, uow = ? WHERE id = ?",
                (store.GOT_IN_UOW, self.id, msg.id),
            )
            self._uow.got(msg.persistent, msg.id)
            if md.Report & C.MQRO_COD_MASK and reporting.confirm(
                tx, md, data, reporting.COD, uow=self.id
            ):  # sent with the commit, withdrawn by a backout
                self._uow.put(msg.persistent)
        else:
            self._last_persistent[handle.hobj] = msg.persistent
            if msg.persistent and not durable:
                raise NeedsDurability
            db.execute("DELETE FROM messages WHERE id = ?", (msg.id,))
            if md.Report & C.MQRO_COD_MASK:
                reporting.confirm(tx, md, data, reporting.COD, uow=None)
        if request.browse is None and self._locks.get(handle.hobj) == msg.id:
            del self._locks[handle.hobj]  # got under the cursor: its lock ends with it
        return md, data

    def _under_cursor(self, tx: Transaction, handle: Handle, queue: str) -> Row | None:
        """MQGMO_MSG_UNDER_CURSOR: the message the handle's browse cursor is on, if it is
        still there (MQRC_NO_MSG_UNDER_CURSOR when the handle never browsed)."""
        cursor = self._cursors.get(handle.hobj)
        if cursor is None:
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR, f"the browse cursor of {handle.name!r} is on no message"
            )
        mine = self._locks.get(handle.hobj) == cursor.id  # locked by this handle (MQGMO_LOCK)
        row: Row | None = tx.db.execute(
            f"SELECT {messages.SELECT_COLUMNS} FROM messages"
            " WHERE id = ? AND msg_id = ? AND queue = ? AND (state = ? OR (state = ? AND uow = ?))",
            (
                cursor.id,
                cursor.msg_id,
                queue,
                store.AVAILABLE,
                store.LOCKED if mine else -1,
                self.id,
            ),
        ).fetchone()
        if row is None:
            raise failed(
                C.MQRC_NO_MSG_UNDER_CURSOR,
                f"the message under the browse cursor of {handle.name!r} is no longer there",
            )
        return row
