"""The transport contract: one MQI-shaped interface over every broker mqjms speaks.

IBM MQ is the reference semantics. A connection is one hconn with at most one unit of
work at a time; a message is an MQMD plus bytes (any RFH2 or DLH chain included); a
failure is an :class:`~mqjms.mq.errors.MQError` carrying IBM's reason code. A transport
that lacks a feature natively emulates it and documents how.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Protocol, runtime_checkable

from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD


class Browse(Enum):
    """Where a browse get reads from: the first message, or the one after the cursor."""

    FIRST = "first"
    NEXT = "next"


class Context(Enum):
    """MQPMO context options: who fills the MQMD's identity and origin fields on put."""

    DEFAULT = "default"  # the queue manager sets PutApplName, PutDate, PutTime, UserIdentifier
    PASS_ALL = "pass_all"  # keep the context of the md given (a message being moved)
    SET_ALL = "set_all"  # the caller sets every context field itself
    NONE = "none"  # context fields blank


@dataclass(frozen=True, slots=True)
class Handle:
    """An open queue (hobj). ``resolved_name`` is the local queue an alias resolves to."""

    name: str
    resolved_name: str
    options: int
    hobj: int


@runtime_checkable
class Connection(Protocol):
    """One connection to a queue manager (an hconn); not shared between threads."""

    @property
    def qmgr_name(self) -> str: ...

    def open(self, queue: str, options: int) -> Handle:
        """MQOPEN with MQOO_* options; MQRC 2085 when the queue does not exist."""
        ...

    def close(self, handle: Handle) -> None:
        """MQCLOSE. A temporary dynamic queue is deleted."""
        ...

    def get(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        syncpoint: bool = False,
        browse: Browse | None = None,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET: the next message, or None when none arrived within ``wait`` seconds.

        ``wait=None`` waits without limit. The returned MQMD's Expiry is the remaining
        lifetime and its BackoutCount the number of earlier backouts.
        """
        ...

    def put(
        self,
        target: str | Handle,
        md: MQMD,
        data: bytes,
        *,
        syncpoint: bool = False,
        context: Context = Context.DEFAULT,
        new_msg_id: bool = True,
    ) -> MQMD:
        """MQPUT (to a handle) or MQPUT1 (to a name). Returns the MQMD as put.

        A put that completes with MQCC_WARNING has put the message, so it returns
        normally; the warning is then :func:`put_warning` of the connection.
        """
        ...

    def inquire(self, queue: str | Handle, selectors: Sequence[int]) -> dict[int, int | str]:
        """MQINQ on a queue: MQIA_* selectors give int, MQCA_* give str (blanks removed)."""
        ...

    def inquire_qmgr(self, selectors: Sequence[int]) -> dict[int, int | str]:
        """MQINQ on the queue manager object (e.g. MQCA_DEAD_LETTER_Q_NAME)."""
        ...

    def commit(self) -> None:
        """MQCMIT: make the unit of work's gets and puts permanent."""
        ...

    def backout(self) -> None:
        """MQBACK: undo the unit of work; every message got in it has BackoutCount + 1."""
        ...

    def disconnect(self) -> None:
        """MQDISC. An uncommitted unit of work is backed out."""
        ...


def put_warning(conn: Connection) -> MQError | None:
    """The MQCC_WARNING the connection's last MQPUT/MQPUT1 completed with, or None.

    The MQI returns CompCode MQCC_WARNING with a reason when a put succeeded with a
    remark, e.g. 2049 MQRC_PRIORITY_EXCEEDS_MAXIMUM (Priority above 9: the message is
    queued at priority 9 and its MQMD keeps the Priority given). Raising would suggest the
    message was not put, so a transport that can warn keeps the warning of its last put in
    ``last_warning`` (None after MQCC_OK) instead; a transport without it never warns.
    """
    warning = getattr(conn, "last_warning", None)
    return warning if isinstance(warning, MQError) else None


def commit_and_get(
    conn: Connection,
    handle: Handle,
    *,
    wait: float | None,
    committed: Callable[[], None] | None = None,
) -> tuple[MQMD, bytes] | None:
    """MQCMIT, then MQGET under syncpoint: a consumer loop's step between two messages.

    ``committed`` is called once the commit is done, before any waiting. A transport may
    commit and get a waiting message in one round trip (the embedded queue manager does
    both in one database transaction: ``conn.commit_and_get(handle)``); the outcome is that
    of the two calls in turn, which is what any other transport does here.
    """
    combined = getattr(conn, "commit_and_get", None)
    got: tuple[MQMD, bytes] | None = None
    if combined is not None:
        got = combined(handle)
    else:
        conn.commit()
    if committed is not None:
        committed()
    if got is None and (combined is None or wait != 0):
        got = conn.get(handle, wait=wait, syncpoint=True)
    return got
