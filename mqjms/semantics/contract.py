"""The transport contract: one MQI-shaped interface over every broker mqjms speaks.

IBM MQ is the reference semantics. A connection is one hconn with at most one unit of
work at a time; a message is an MQMD plus bytes (any RFH2 or DLH chain included); a
failure is an :class:`~mqjms.mq.errors.MQError` carrying IBM's reason code. A transport
that lacks a feature natively emulates it and documents how; what it offers beyond the
core calls it declares in ``capabilities`` (:class:`~.capabilities.Capability`), and each
optional call has its protocol here (:class:`CommitsAndGets`, :class:`BacksOutAndGets`,
:class:`WarnsOnPut`,
:class:`Reserves`, :class:`LocksMessages`).

A transport over IBM MQ itself (``mq://``, :mod:`mqjms.transport.ibmmq`) implements it
directly, with no emulation; the embedded queue manager and the STOMP transport share the
MQ rules they emulate through the rest of :mod:`mqjms.semantics`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple, Protocol, cast, runtime_checkable

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD

from .capabilities import Capability


class Browse(Enum):
    """Where a browse get reads from: the first message, the one after the cursor, or the
    one under the cursor again (MQGMO_BROWSE_MSG_UNDER_CURSOR: read from the queue, so an
    expired or vanished message is 2034 and Expiry shows what remains now)."""

    FIRST = "first"
    NEXT = "next"
    CURSOR = "cursor"


class Context(Enum):
    """MQPMO context options: who fills the MQMD's identity and origin fields on put.

    Identity context is UserIdentifier, AccountingToken and ApplIdentityData; origin
    context is PutApplType, PutApplName, PutDate, PutTime and ApplOriginData. The
    ``PASS_*`` options keep what the MQMD given holds (the caller copied it from the
    message it got, as MQ passes the context of a handle's last message); each needs its
    own MQOO_* option on a handle (2093-2096 without it)."""

    DEFAULT = "default"  # the queue manager sets PutApplName, PutDate, PutTime, UserIdentifier
    PASS_ALL = "pass_all"  # keep the context of the md given (a message being moved)
    SET_ALL = "set_all"  # the caller sets every context field itself
    PASS_IDENTITY = "pass_identity"  # keep the md's identity; the queue manager sets origin
    SET_IDENTITY = "set_identity"  # the caller sets identity; the queue manager sets origin
    NONE = "none"  # context fields blank


#: MQOD.DynamicQName's default: AMQ. and a unique suffix (opening a model queue).
DEFAULT_DYNAMIC_NAME = "AMQ.*"


class TruncatedMessage(MQError):
    """MQGET's MQCC_WARNING 2080 (MQRC_TRUNCATED_MSG_FAILED): the message is longer than
    the ``max_length`` the get allowed, so it was not got (it stays on the queue; a
    browse cursor stays where it was). Carries what MQ returns with it: the message's
    MQMD, as much of its data as fits and its ``original_length``."""

    def __init__(self, md: MQMD, data: bytes, original_length: int, max_length: int) -> None:
        super().__init__(
            C.MQCC_WARNING,
            C.MQRC_TRUNCATED_MSG_FAILED,
            f"the message has {original_length} bytes, more than the {max_length} the get "
            "allows: it stays on the queue",
        )
        self.md = md
        self.data = data
        self.original_length = original_length


@dataclass(frozen=True, slots=True)
class Handle:
    """An open queue (hobj). ``resolved_name`` is the local queue an alias resolves to.

    A topic opened for publishing (:mod:`.pubsub`) is a handle too: ``topic`` is its full
    topic string, and a put to it publishes.

    A remote queue (opened with another queue manager's name, or through a QREMOTE
    definition) is opened to put to: ``qmgr`` is the queue manager named at the open
    (blank: the one connected to), and ``resolved_name`` and ``resolved_qmgr`` where its
    messages are going (``resolved_qmgr`` blank: here)."""

    name: str
    resolved_name: str
    options: int
    hobj: int
    topic: str | None = None
    qmgr: str = ""
    resolved_qmgr: str = ""


@runtime_checkable
class Connection(Protocol):
    """One connection to a queue manager (an hconn); not shared between threads."""

    @property
    def qmgr_name(self) -> str: ...

    @property
    def capabilities(self) -> frozenset[Capability]:
        """What this connection offers beyond the calls below (see :class:`Capability`)."""
        ...

    def open(
        self,
        queue: str,
        options: int,
        *,
        dynamic_name: str = DEFAULT_DYNAMIC_NAME,
        qmgr: str = "",
    ) -> Handle:
        """MQOPEN with MQOO_* options; MQRC 2085 when the queue does not exist. Opening a
        model queue (:attr:`Capability.MODEL_QUEUES`) creates a dynamic queue named from
        ``dynamic_name`` (a trailing ``*`` is replaced by a unique suffix); the handle's
        ``name`` and ``resolved_name`` are the new queue's. ``qmgr`` is the MQOD's
        ObjectQMgrName: another queue manager's queue is opened to put to, and the
        transport routes the puts (MQRC_UNKNOWN_REMOTE_Q_MGR 2087 where it cannot)."""
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
        group_id: bytes | None = None,
        under_cursor: bool = False,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET: the next message, or None when none arrived within ``wait`` seconds.

        ``wait=None`` waits without limit. The returned MQMD's Expiry is the remaining
        lifetime and its BackoutCount the number of earlier backouts. ``msg_id``,
        ``correl_id`` and ``group_id`` select messages with those ids (MQMO_MATCH_*).
        ``under_cursor`` gets the message under the handle's browse cursor
        (MQGMO_MSG_UNDER_CURSOR; 2034 when there is none). A message longer than
        ``max_length`` bytes is not got: :class:`TruncatedMessage` (2080).
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

    def set(self, handle: Handle, attrs: Mapping[int, int | str]) -> None:
        """MQSET on a queue opened with MQOO_SET (2040 otherwise): MQIA_*/MQCA_* selectors
        MQSET may change (the trigger attributes, MQIA_INHIBIT_GET/PUT; 2067 for others)."""
        ...

    def commit(self) -> None:
        """MQCMIT: make the unit of work's gets and puts permanent."""
        ...

    def backout(self) -> None:
        """MQBACK: undo the unit of work; every message got in it has BackoutCount + 1."""
        ...

    def disconnect(self, *, commit: bool = False) -> None:
        """MQDISC. An uncommitted unit of work is backed out (JMS ``Connection.close``);
        with ``commit`` it is committed first, as IBM MQ's MQDISC does for an MQI
        application (a commit that fails backs it out and raises)."""
        ...


class SyncpointPut(NamedTuple):
    """An MQPUT1 under syncpoint that a step makes in its unit of work before the step's
    MQCMIT: what a listener sent with its message (default context, a new MsgId), or the
    requeue of a poison message (all context passed, its own MsgId)."""

    queue: str
    md: MQMD
    data: bytes
    context: Context = Context.DEFAULT
    new_msg_id: bool = True


class PutFailed(MQError):
    """A step's put failed, with that put's MQError (same reason and detail): the unit of
    work was not committed and may hold the step's earlier puts, so the caller backs it
    out, as after a failed MQPUT."""

    def __init__(self, comp: int, reason: int, detail: str, put: SyncpointPut) -> None:
        super().__init__(comp, reason, detail)
        self.put = put

    @classmethod
    def of(cls, exc: Exception, put: SyncpointPut) -> PutFailed:
        """The PutFailed of ``put`` failing with ``exc`` (an error that is no MQError is
        MQRC_UNEXPECTED_ERROR); raise it ``from exc``, which stays its ``__cause__``."""
        if isinstance(exc, MQError):
            return cls(exc.comp, exc.reason, exc.detail, put)
        return cls(C.MQCC_FAILED, C.MQRC_UNEXPECTED_ERROR, f"{type(exc).__name__}: {exc}", put)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.comp, self.reason, self.detail, self.put))


class CommitsAndGets(Protocol):
    """The calls a connection declaring :attr:`Capability.COMMIT_AND_GET` has (``puts``
    and :meth:`put_and_commit` with :attr:`Capability.PUTS_IN_STEP` only)."""

    def commit_and_get(
        self, handle: Handle, puts: Sequence[SyncpointPut] = ()
    ) -> tuple[MQMD, bytes] | None:
        """The MQPUTs of ``puts`` under syncpoint, MQCMIT, then MQGET under syncpoint
        without waiting, with the outcome of the calls in turn (in one step: the embedded
        queue manager uses one database transaction); None when no message is there, or
        when the MQGET failed after the commit (the next get says why). A put that fails
        raises :class:`PutFailed`, and nothing is committed."""
        ...

    def put_and_commit(self, puts: Sequence[SyncpointPut]) -> None:
        """The MQPUTs of ``puts`` under syncpoint, then MQCMIT, in one step (a put that
        fails raises :class:`PutFailed`, and nothing is committed)."""
        ...


class BacksOutAndGets(Protocol):
    """The call a connection declaring :attr:`Capability.BACKOUT_AND_GET` has."""

    def backout_and_get(self, handle: Handle) -> tuple[MQMD, bytes] | None:
        """MQBACK, then MQGET under syncpoint without waiting, with the outcome of the
        calls in turn (in one step: one database transaction on the embedded queue
        manager); None when no message is there, or when the MQGET failed after the
        backout (the next get says why)."""
        ...


class WarnsOnPut(Protocol):
    """The attribute a connection declaring :attr:`Capability.PUT_WARNINGS` has."""

    @property
    def last_warning(self) -> MQError | None:
        """The MQCC_WARNING the last MQPUT/MQPUT1 completed with, None after MQCC_OK."""
        ...


class ResolvesPuts(Protocol):
    """The attribute a connection declaring :attr:`Capability.REMOTE_QUEUES` has."""

    @property
    def last_resolved(self) -> tuple[str, str] | None:
        """Where the last MQPUT/MQPUT1 went: the queue and queue manager the names
        resolved to (an alias's base queue, a remote queue's RNAME and RQMNAME), as MQ
        returns them in the MQPMO's ResolvedQName and ResolvedQMgrName; None before."""
        ...


class Reserves(Protocol):
    """The calls a connection declaring :attr:`Capability.RESERVE` has: messages of a
    queue reserved for an owner (invisible to every other getter, numbered in the order
    reserved) until the owner removes, renumbers or gives them back (the Spark source
    stages on the queue this way)."""

    def reserve(self, handle: Handle, owner: str, limit: int) -> int:
        """Reserve up to ``limit`` more messages; the owner's last number."""
        ...

    def reserved(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, MQMD, bytes]]:
        """``(seq, tag, md, data)`` reserved for ``owner`` in ``(lo, hi]``."""
        ...

    def reserved_packed(self, owner: str, lo: int, hi: int) -> list[tuple[int, int, bytes, bytes]]:
        """:meth:`reserved` with each MQMD packed (native encoding), for a reader of many
        that needs few of its fields."""
        ...

    def reserved_numbers(
        self, owner: str, lo: int, hi: int, limit: int | None = None
    ) -> list[tuple[int, int, int]]:
        """``(seq, tag, BackoutCount)`` reserved for ``owner`` in ``(lo, hi]``."""
        ...

    def reservation_end(self, owner: str) -> int:
        """The last number given to ``owner`` (0 before its first reservation)."""
        ...

    def reservation_count(self, owner: str) -> int:
        """How many messages are reserved for ``owner`` now."""
        ...

    def release_reserved(self, owner: str, upto: int) -> int:
        """Remove ``owner``'s messages numbered ``<= upto``."""
        ...

    def renumber_reserved(
        self, owner: str, seqs: Sequence[int], *, tag: int, backout: int = 0
    ) -> list[int]:
        """New numbers at the tail for ``seqs``."""
        ...

    def get_reserved(self, owner: str, seq: int) -> tuple[MQMD, bytes] | None:
        """MQGET under syncpoint of the message reserved as ``seq``."""
        ...

    def give_back_reserved(self, owner: str, after: int = 0, *, untagged_only: bool = False) -> int:
        """Give back ``owner``'s messages numbered above ``after`` (all by default): they
        are available again, in place. ``untagged_only`` keeps the tagged ones (a
        consumer's suspects) reserved."""
        ...


class GetsIfPersistent(Protocol):
    """The call a connection declaring :attr:`Capability.SYNCPOINT_IF_PERSISTENT` has."""

    def get_if_persistent(
        self,
        handle: Handle,
        *,
        wait: float | None = 0.0,
        msg_id: bytes | None = None,
        correl_id: bytes | None = None,
        group_id: bytes | None = None,
        under_cursor: bool = False,
        max_length: int | None = None,
    ) -> tuple[MQMD, bytes] | None:
        """MQGET with MQGMO_SYNCPOINT_IF_PERSISTENT: a persistent message is got in the
        connection's unit of work, any other outside it (for good), whatever the unit
        of work already holds; otherwise as :meth:`Connection.get`."""
        ...


class LocksMessages(Protocol):
    """The calls a connection declaring :attr:`Capability.MESSAGE_LOCK` has: MQGMO_LOCK
    and MQGMO_UNLOCK. A handle locks at most one message, the one its browse cursor is on:
    invisible to every other handle (gets and browses) until it is unlocked, got by the
    handle (MQGMO_MSG_UNDER_CURSOR), or the handle's cursor moves to another message, the
    handle is closed or the connection ends. A lock is no unit of work: MQCMIT and MQBACK
    leave it."""

    def lock_browsed(self, handle: Handle) -> bool:
        """Lock the message under ``handle``'s browse cursor (releasing the handle's
        previous lock); False when that message is no longer available (got, expired)."""
        ...

    def unlock(self, handle: Handle) -> bool:
        """Release ``handle``'s lock; False when it held none (MQRC_NO_MSG_LOCKED)."""
        ...


class InterruptsWait(Protocol):
    """The call a connection declaring :attr:`Capability.INTERRUPT_WAIT` has."""

    def interrupt_wait(self) -> None:
        """From any thread: the get with wait the connection is in returns now, with None
        (no message) unless it found one meanwhile; when it is in none, its next get with
        wait returns None once it has looked and found nothing, instead of waiting."""
        ...


def interrupt_wait(conn: Connection) -> bool:
    """End the get with wait ``conn`` is in (another thread's), if its transport can
    (:attr:`Capability.INTERRUPT_WAIT`); False when it cannot, and the get ends when its
    wait does."""
    if Capability.INTERRUPT_WAIT not in conn.capabilities:
        return False
    cast(InterruptsWait, conn).interrupt_wait()
    return True


class MakesOneTriggerEvent(Protocol):
    """The call a connection declaring :attr:`Capability.ONE_TRIGGER_EVENT` has."""

    def one_trigger_event(self) -> AbstractContextManager[None]:
        """A block whose puts are one trigger event: at most one trigger message per
        queue, written once the block ends without an error."""
        ...


def one_trigger_event(conn: Connection) -> AbstractContextManager[None]:
    """The puts made in the block are one trigger event where ``conn``'s transport
    triggers itself (:attr:`Capability.ONE_TRIGGER_EVENT`); a block like any other where
    it does not (IBM MQ segments a message itself, a STOMP broker does not trigger)."""
    if Capability.ONE_TRIGGER_EVENT not in conn.capabilities:
        return nullcontext()
    return cast(MakesOneTriggerEvent, conn).one_trigger_event()


def put_warning(conn: Connection, *, no_subs_matched: bool = False) -> MQError | None:
    """The MQCC_WARNING the connection's last MQPUT/MQPUT1 completed with, or None.

    The MQI returns CompCode MQCC_WARNING with a reason when a put succeeded with a
    remark, e.g. 2049 MQRC_PRIORITY_EXCEEDS_MAXIMUM (Priority above 9: the message is
    queued at priority 9 and its MQMD keeps the Priority given). Raising would suggest the
    message was not put, so a connection that can warn declares
    :attr:`Capability.PUT_WARNINGS` and keeps the warning of its last put in
    ``last_warning`` (None after MQCC_OK) instead; a transport without it never warns.
    A publication that reached no subscription is 2550 (MQRC_NO_SUBS_MATCHED) only for a
    caller that asks, as MQPMO_WARN_IF_NO_SUBS_MATCHED does (``no_subs_matched``).
    """
    if Capability.PUT_WARNINGS not in conn.capabilities:
        return None
    warning = cast(WarnsOnPut, conn).last_warning
    if warning is not None and warning.reason == C.MQRC_NO_SUBS_MATCHED and not no_subs_matched:
        return None
    return warning


def put_destination(conn: Connection) -> tuple[str, str] | None:
    """The queue and queue manager the connection's last MQPUT/MQPUT1 resolved to, where
    the transport says (:attr:`Capability.REMOTE_QUEUES`); None where it does not."""
    if Capability.REMOTE_QUEUES not in conn.capabilities:
        return None
    return cast(ResolvesPuts, conn).last_resolved


def commit_and_get(
    conn: Connection,
    handle: Handle,
    *,
    wait: float | None,
    committed: Callable[[], None] | None = None,
    puts: Sequence[SyncpointPut] = (),
) -> tuple[MQMD, bytes] | None:
    """``puts`` under syncpoint, MQCMIT, then MQGET under syncpoint: a consumer loop's
    step between two messages, with what the last one sent.

    ``committed`` is called once the commit is done, before any waiting. A connection
    declaring :attr:`Capability.COMMIT_AND_GET` puts, commits and gets a waiting message
    in one step (``conn.commit_and_get(handle, puts)``); the outcome is that of the calls
    in turn, which is what any other transport does here. A put that fails raises
    :class:`PutFailed`; nothing is committed then.
    """
    capabilities = conn.capabilities
    combined = Capability.COMMIT_AND_GET in capabilities
    got: tuple[MQMD, bytes] | None = None
    if puts and Capability.PUTS_IN_STEP in capabilities:
        got = cast(CommitsAndGets, conn).commit_and_get(handle, puts)
    else:
        _put_each(conn, puts)
        if combined:
            got = cast(CommitsAndGets, conn).commit_and_get(handle)
        else:
            conn.commit()
    if committed is not None:
        committed()
    if got is None and (not combined or wait != 0):
        got = conn.get(handle, wait=wait, syncpoint=True)
    return got


def backout_and_get(
    conn: Connection,
    handle: Handle,
    *,
    wait: float | None,
    backed_out: Callable[[], None] | None = None,
) -> tuple[MQMD, bytes] | None:
    """MQBACK, then MQGET under syncpoint: a consumer loop's step after a failed delivery.

    ``backed_out`` is called once the backout is done, before any waiting. A connection
    declaring :attr:`Capability.BACKOUT_AND_GET` backs out and gets a waiting message in
    one step; the outcome is that of the calls in turn, which is what any other transport
    does here.
    """
    combined = Capability.BACKOUT_AND_GET in conn.capabilities
    got: tuple[MQMD, bytes] | None = None
    if combined:
        got = cast(BacksOutAndGets, conn).backout_and_get(handle)
    else:
        conn.backout()
    if backed_out is not None:
        backed_out()
    if got is None and (not combined or wait != 0):
        got = conn.get(handle, wait=wait, syncpoint=True)
    return got


def put_and_commit(conn: Connection, puts: Sequence[SyncpointPut]) -> None:
    """``puts`` under syncpoint, then MQCMIT: in one step where the connection declares
    :attr:`Capability.COMMIT_AND_GET`, the calls in turn elsewhere. A put that fails
    raises :class:`PutFailed`; nothing is committed then."""
    if puts and Capability.PUTS_IN_STEP in conn.capabilities:
        cast(CommitsAndGets, conn).put_and_commit(puts)
        return
    _put_each(conn, puts)
    conn.commit()


def _put_each(conn: Connection, puts: Sequence[SyncpointPut]) -> None:
    for put in puts:
        try:
            conn.put(
                put.queue,
                put.md,
                put.data,
                syncpoint=True,
                context=put.context,
                new_msg_id=put.new_msg_id,
            )
        except Exception as exc:  # whatever failed, the put was not made: PutFailed says so
            raise PutFailed.of(exc, put) from exc
