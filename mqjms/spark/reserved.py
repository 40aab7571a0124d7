"""Staging on the queue itself, for a transport that can reserve messages.

The embedded queue manager keeps a query's messages on their queue, reserved for it
(``QMConnection.reserve``): invisible to every other getter, numbered in the order they
were reserved, removed only when Spark commits their range. Nothing is copied, and a
poison move takes the message into the same unit of work as its put to BOQNAME.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import starmap
from pathlib import Path
from typing import Any

from mqjms.mq.md import MQMD
from mqjms.transport import Capability, Connection, Handle

from .staging import STEP, Meta, Staged, Staging


def can_reserve(conn: Connection) -> bool:
    """Whether ``conn`` offers reservations: it declares :attr:`Capability.RESERVE`."""
    return Capability.RESERVE in conn.capabilities


class ReservedStaging(Staging):
    """Staging as a reservation on the queue; ``conn`` is the caller's connection (the
    runner's, or one a task opens to read)."""

    def __init__(self, directory: Path, owner: str, queue: str, conn: Any) -> None:
        super().__init__(directory, owner, queue)
        self.conn = conn

    def stage(self, conn: Connection, handle: Handle, limit: int) -> int:
        before = int(self.conn.reservation_end(self.owner))
        return int(self.conn.reserve(handle, self.owner, limit)) - before

    def last(self) -> int:
        return int(self.conn.reservation_end(self.owner))

    def count(self) -> int:
        """One COUNT in the queue manager: the lag report asks every micro-batch, and
        reading every staged number to count them cost more than the batch's staging."""
        return int(self.conn.reservation_count(self.owner))

    def first(self) -> int | None:
        found = self.metas(0, self.last(), 1)
        return found[0].seq if found else None

    def metas(self, lo: int, hi: int, limit: int | None = None) -> list[Meta]:
        return list(starmap(Meta, self.conn.reserved_numbers(self.owner, lo, hi, limit)))

    def read(self, lo: int, hi: int) -> list[Staged]:
        return [Staged(s, t, md, data) for s, t, md, data in self.conn.reserved(self.owner, lo, hi)]

    def read_packed(self, lo: int, hi: int) -> list[tuple[int, bytes, bytes]]:
        return [(s, md, data) for s, _, md, data in self.conn.reserved_packed(self.owner, lo, hi)]

    def release(self, upto: int) -> None:
        """In transactions of at most :data:`~.staging.STEP` numbers (a crash between
        them leaves the rest for the next release)."""
        first = self.first()
        if first is not None:
            for bound in range(first + STEP - 1, upto, STEP):
                self.conn.release_reserved(self.owner, bound)
        self.conn.release_reserved(self.owner, upto)
        self.ledger.forget_attempts(upto)

    def renumber(self, seqs: Sequence[int], tag: int, backout: int) -> list[int]:
        return list(self.conn.renumber_reserved(self.owner, seqs, tag=tag, backout=backout))

    def take(self, conn: Connection, seq: int) -> tuple[MQMD, bytes] | None:
        found: tuple[MQMD, bytes] | None = self.conn.get_reserved(self.owner, seq)
        return found

    def taken(self, seq: int) -> None:
        """Nothing to do: the commit of the move removed the message."""

    def give_back(self, conn: Connection, handle: Handle, after: int) -> int:
        """Available again in their place, BackoutCount kept; suspects stay reserved
        with their tags, as the log keeps them staged (given back untagged, they were
        planned beside innocent messages, whose BackoutCount each later failure raised
        until good messages reached BOTHRESH)."""
        return int(self.conn.give_back_reserved(self.owner, after, untagged_only=True))
