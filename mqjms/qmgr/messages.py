"""Storing and restoring messages: MsgIds, put context, expiry and expiration reports."""

from __future__ import annotations

import math
import os
import sqlite3
import threading
import time
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD

log = get_logger("mqjms.qmgr")

WITH_DATA_LENGTH = 100  # MQRO_*_WITH_DATA reports carry the first 100 bytes


def put_date_time(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` in GMT, as MQ sets them."""
    t = time.gmtime(now)
    hundredths = int((now - math.floor(now)) * 100)
    return time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t) + f"{hundredths:02d}"


class MsgIdGenerator:
    """MsgIds unique within a queue manager without asking the database.

    ``AMQ `` + the first 8 characters of the queue manager's name + the 4-byte process
    id + an 8-byte per-process counter that starts at the clock in microseconds. A later
    process with a reused pid starts its counter later than the earlier one ended, unless
    that one made more than a message per microsecond; the counter never wraps.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = -1
        self._next = 0

    def __call__(self, qmgr_name: str) -> bytes:
        with self._lock:
            pid = os.getpid()
            if pid != self._pid:  # a forked child must not continue its parent's sequence
                self._pid = pid
                self._next = max(self._next, time.time_ns() // 1000)
            self._next += 1
            seq = self._next
        head = b"AMQ " + qmgr_name.encode("latin-1")[:8].ljust(8, b" ")
        return head + (pid & 0xFFFFFFFF).to_bytes(4, "big") + seq.to_bytes(8, "big")


make_msg_id = MsgIdGenerator()


def expires_at(expiry: int, now: float) -> float | None:
    """Absolute expiry time for a relative Expiry in tenths of a second."""
    return None if expiry == C.MQEI_UNLIMITED else now + expiry / 10.0


def remaining_tenths(expires: float | None, now: float) -> int:
    """The Expiry an MQGET returns: remaining tenths, rounded up so an unexpired message
    never shows 0 (seed 000: after a successful get Expiry is > 0 or MQEI_UNLIMITED)."""
    if expires is None:
        return C.MQEI_UNLIMITED
    return math.ceil((expires - now) * 10.0 - 1e-9)


def is_expired(expires: float | None, now: float) -> bool:
    return expires is not None and remaining_tenths(expires, now) <= 0


@dataclass(slots=True)
class StoredMessage:
    """A row of the messages table, enough to rebuild what MQGET returns."""

    id: int
    queue: str
    priority: int
    persistent: bool
    expires: float | None
    backout: int
    md_bytes: bytes
    data: bytes

    def descriptor(self, now: float) -> MQMD:
        md = MQMD.unpack(self.md_bytes)
        md.BackoutCount = self.backout
        md.Expiry = remaining_tenths(self.expires, now)
        return md


SELECT_COLUMNS = "id, queue, priority, persistent, expires, backout, md, data"


def from_row(row: tuple[object, ...]) -> StoredMessage:
    mid, queue, priority, persistent, expires, backout, md_bytes, data = row
    return StoredMessage(
        id=int(mid),  # type: ignore[call-overload]
        queue=str(queue),
        priority=int(priority),  # type: ignore[call-overload]
        persistent=bool(persistent),
        expires=None if expires is None else float(expires),  # type: ignore[arg-type]
        backout=int(backout),  # type: ignore[call-overload]
        md_bytes=bytes(md_bytes),  # type: ignore[call-overload]
        data=bytes(data),  # type: ignore[call-overload]
    )


def insert(
    db: sqlite3.Connection,
    queue: str,
    md: MQMD,
    data: bytes,
    *,
    state: int,
    uow: str | None,
    expires: float | None,
    release_on_backout: bool = False,
    priority: int | None = None,
) -> int:
    """Insert a fully resolved message (priority, persistence and MsgId already set).

    ``priority`` is the queue's view of the message when it differs from the MQMD's
    (a FIFO queue gives every message its default priority: seed 003 item 14).
    """
    cur = db.execute(
        "INSERT INTO messages (queue, priority, state, uow, persistent, expires, msg_id,"
        " correl_id, md, data, release_on_backout) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        (
            queue,
            md.Priority if priority is None else priority,
            state,
            uow,
            1 if md.Persistence == C.MQPER_PERSISTENT else 0,
            expires,
            md.MsgId,
            md.CorrelId,
            md.pack(),
            data,
            1 if release_on_backout else 0,
        ),
    )
    return int(cur.lastrowid or 0)


def expiration_report(msg: StoredMessage, now: float) -> tuple[MQMD, bytes] | None:
    """The report an expired message asked for (MQRO_EXPIRATION*), or None."""
    original = MQMD.unpack(msg.md_bytes)
    wanted = original.Report & C.MQRO_EXPIRATION_MASK
    if not wanted or not original.ReplyToQ.strip():
        return None
    report = MQMD(
        MsgType=C.MQMT_REPORT,
        Feedback=C.MQFB_EXPIRATION,
        Priority=original.Priority,
        Persistence=original.Persistence,
        Encoding=original.Encoding,
        CodedCharSetId=original.CodedCharSetId,
        Format=original.Format,
        PutApplType=C.MQAT_QMGR,
    )
    report.MsgId = original.MsgId if original.Report & C.MQRO_PASS_MSG_ID else C.MQMI_NONE
    report.CorrelId = (
        original.CorrelId if original.Report & C.MQRO_PASS_CORREL_ID else original.MsgId
    )
    if original.Report & C.MQRO_PASS_DISCARD_AND_EXPIRY:
        report.Report = original.Report & C.MQRO_DISCARD_MSG
    if wanted == C.MQRO_EXPIRATION_WITH_FULL_DATA:
        data = msg.data
    elif wanted == C.MQRO_EXPIRATION_WITH_DATA:
        data = msg.data[:WITH_DATA_LENGTH]
    else:
        data = b""
        report.Format = C.MQFMT_NONE
    return report, data
