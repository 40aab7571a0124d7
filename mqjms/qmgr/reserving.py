"""Reservations through a connection: the calls the Spark source stages messages with
(:mod:`.reservations` says what a reservation is and keeps it in the database)."""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.semantics import Handle
from mqjms.semantics.checks import check_get, check_get_allowed

from . import catalog, expiry, messages, reporting, reservations
from .connection_state import ConnectionState
from .failures import translating
from .transaction import Transaction


@translating
class Reserving(ConnectionState):
    """Reserve, re-read, renumber, take and release messages for an owner."""

    def reserve(self, handle: Handle, owner: str, limit: int) -> int:
        """Reserve up to ``limit`` messages of the queue for ``owner`` (see
        :mod:`.reservations`); returns the owner's last number. Needs an input handle."""
        self._handle(handle)
        check_get(handle, wait=0, syncpoint=True, browse=None)
        self._refuse_if_read_only("no message can be reserved")

        def attempt(wanted: int) -> tuple[int, bool, int]:
            with self._writing() as tx:
                base = catalog.require(tx.db, handle.resolved_name)
                check_get_allowed(base, base)
                taken, expired = reservations.reserve(
                    tx.db, base.name, owner, wanted, tx.now, expiry.DISCARD_BATCH
                )
                if expired:  # seed 000: never returned; discarded as a get would
                    expiry.discard(tx, expired, bodies_read=False)
                more = len(expired) >= expiry.DISCARD_BATCH
                return taken, more, reservations.last_seq(tx.db, owner)

        wanted = limit
        with self._session():
            while True:  # a batch of expired messages a transaction, as a get
                taken, more, last = self._with_room(functools.partial(attempt, wanted))
                wanted -= taken
                if not more or wanted <= 0:
                    return last

    def reserved(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, MQMD, bytes]]:
        """``(seq, tag, md, data)`` of the messages reserved for ``owner`` in ``(lo, hi]``."""
        self._check_open()
        now = time.time()
        with self._session(), self._reading() as tx:
            found = reservations.reserved(tx.db, owner, lo, hi)
        return [(r.seq, r.tag, r.message.descriptor(now), r.message.data) for r in found]

    def reserved_packed(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, bytes, bytes]]:
        """:meth:`reserved` with each MQMD packed, never unpacked (a Spark task's read)."""
        self._check_open()
        now = time.time()
        with self._session(), self._reading() as tx:
            return reservations.packed(tx.db, owner, lo, hi, now)

    def reserved_numbers(
        self, owner: str, lo: int, hi: int, limit: int | None = None
    ) -> list[tuple[int, int, int]]:
        """``(seq, tag, BackoutCount)`` reserved for ``owner`` in ``(lo, hi]``: no bytes."""
        self._check_open()
        with self._session(), self._reading() as tx:
            return reservations.numbers(tx.db, owner, lo, hi, limit)

    def reservation_end(self, owner: str) -> int:
        """The last number given to ``owner`` (0 before its first reservation)."""
        self._check_open()
        with self._session(), self._reading() as tx:
            return reservations.last_seq(tx.db, owner)

    def reservation_count(self, owner: str) -> int:
        """How many messages are reserved for ``owner`` now."""
        self._check_open()
        with self._session(), self._reading() as tx:
            return reservations.count(tx.db, owner)

    def release_reserved(self, owner: str, upto: int) -> int:
        """Remove ``owner``'s messages numbered ``<= upto`` (its destructive get)."""
        self._check_open()

        def attempt() -> int:
            with self._writing() as tx:
                return reservations.release(tx.db, owner, upto)

        with self._session():
            return self._with_room(attempt)

    def renumber_reserved(
        self, owner: str, seqs: Sequence[int], *, tag: int, backout: int = 0
    ) -> list[int]:
        """New numbers at the tail for ``seqs`` (see :func:`.reservations.renumber`)."""
        self._check_open()

        def attempt() -> list[int]:
            with self._writing() as tx:
                return reservations.renumber(tx.db, owner, seqs, tag, backout)

        with self._session():
            return self._with_room(attempt)

    def get_reserved(self, owner: str, seq: int) -> tuple[MQMD, bytes] | None:
        """MQGET under syncpoint of the message reserved as ``seq`` (None: not reserved)."""
        self._check_open()
        self._refuse_if_read_only("no message can be removed from it")

        def take(tx: Transaction) -> messages.StoredMessage | None:
            msg = reservations.take(tx.db, owner, seq, self.id)
            if msg is not None:
                md = msg.descriptor(tx.now)
                if md.Report & C.MQRO_COD_MASK and reporting.confirm(
                    tx, md, msg.data, reporting.COD, uow=self.id
                ):
                    self._uow.put(msg.persistent)  # sent with the commit, as a get's
            return msg

        def attempt() -> messages.StoredMessage | None:
            return self._taking(take)

        with self._session():
            msg = self._with_room(attempt)
            if msg is None:
                return None
            self._uow.got(msg.persistent, msg.id)
        return msg.descriptor(time.time()), msg.data

    def give_back_reserved(self, owner: str, after: int = 0, *, untagged_only: bool = False) -> int:
        """Give back ``owner``'s messages numbered above ``after`` (all by default): they
        are available again, in place; ``untagged_only`` keeps the tagged ones."""
        self._check_open()

        def attempt() -> int:
            with self._writing() as tx:
                tx.wake_getters()
                return reservations.give_back(tx.db, owner, after, untagged_only=untagged_only)

        with self._session():
            return self._with_room(attempt)
