"""What MQPUT does to a message before any transport stores or sends it.

The checks on the MQMD (seed 000 note 1: Expiry 0 fails), on the queue (PUT inhibited,
too big, full), the defaults taken from the queue named (Priority and Persistence "as
queue default"), the fields the queue manager fills (MsgId, ReplyToQMgr, CodedCharSetId,
BackoutCount) and the putter's context (PutApplName, PutDate/PutTime, UserIdentifier, by
:class:`~.contract.Context`): written once for every transport that emulates a queue
manager.
"""

from __future__ import annotations

import math
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD, MQMD_STRUC_ID, MQMD_VERSION_1, MQMD_VERSION_2

from .contract import Context
from .definitions import QueueDefinition, attr, enabled

MAX_EXPIRY = 999_999_999
MAX_PRIORITY = 9  # the queue manager's MaxPriority (MQIA_MAX_PRIORITY)
# Report options whose reports go to the ReplyToQ (MQRO_PASS_*, DISCARD and the like do not).
REPORTS_NEEDING_REPLY_Q = (
    C.MQRO_EXCEPTION_MASK
    | C.MQRO_EXPIRATION_MASK
    | C.MQRO_COA_MASK
    | C.MQRO_COD_MASK
    | C.MQRO_PAN
    | C.MQRO_NAN
    | C.MQRO_ACTIVITY
)


# --------------------------------------------------------------------------- context


#: the second last formatted by :func:`put_date_time`, with its date and HHMMSS: the puts
#: of one second format it once (gmtime and two strftimes cost a put several microseconds)
_last_second: tuple[int, str, str] = (-1, "", "")


def put_date_time(now: float) -> tuple[str, str]:
    """PutDate ``YYYYMMDD`` and PutTime ``HHMMSSTH`` in GMT, as MQ sets them."""
    global _last_second
    floor = math.floor(now)
    hundredths = int((now - floor) * 100)
    second, date, hhmmss = _last_second  # one tuple: read whole, whatever other threads do
    if second != floor:
        t = time.gmtime(now)
        date, hhmmss = time.strftime("%Y%m%d", t), time.strftime("%H%M%S", t)
        _last_second = (floor, date, hhmmss)
    return date, f"{hhmmss}{hundredths:02d}"


#: IBM MQ's environment variable naming the application of the connections a program
#: makes without an application name of its own (MQCNO ApplName, ``appl_name=``).
APPL_NAME_VAR = "MQAPPLNAME"


def _named_by_environment() -> str:
    return os.environ.get(APPL_NAME_VAR, "").strip()


def _program_name() -> str:
    if named := _named_by_environment():
        return named
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return (name or "python")[-28:]


def process_name() -> str:
    """The application name IBM MQ gives a program on Linux: ``MQAPPLNAME``, else the
    process's name as the kernel keeps it (its first 15 bytes: ``python3`` for a Python
    script), as the MQI drop-in's connections are named."""
    if named := _named_by_environment():
        return named
    try:
        with open("/proc/self/comm", encoding="utf-8", errors="replace") as comm:
            name = comm.read().strip()
    except OSError:
        name = os.path.basename(sys.executable or "")
    return (name or "python")[:15]


def _user_name() -> str:
    import getpass  # with the first put: it loads termios, milliseconds at import

    try:
        return getpass.getuser()[:12]
    except Exception:
        return str(os.getuid())[:12]


def unix_accounting_token(uid: int) -> bytes:
    """The AccountingToken IBM MQ on UNIX gives a default-context put: a length byte, the
    numeric user id in ASCII, binary zeros, MQACTT_UNIX_NUMERIC_ID in the last byte."""
    digits = str(uid).encode("ascii")[:30]
    return (bytes([len(digits)]) + digits).ljust(31, b"\x00") + C.MQACTT_UNIX_NUMERIC_ID


def _accounting_token() -> bytes:
    getuid = getattr(os, "getuid", None)  # none on Windows, whose token is a SID
    return unix_accounting_token(getuid()) if getuid else C.MQACT_NONE


@dataclass(frozen=True, slots=True)
class PutIdentity:
    """Who a connection puts as: PutApplName (28), UserIdentifier (12), AccountingToken."""

    appl_name: str
    user: str
    accounting_token: bytes = C.MQACT_NONE

    @classmethod
    def of(cls, appl_name: str | None = None) -> PutIdentity:
        """``appl_name``, else ``MQAPPLNAME``, else the program's (script's) name; the
        user running it."""
        return cls((appl_name or _program_name())[:28], _user_name(), _accounting_token())


def set_context(md: MQMD, context: Context, identity: PutIdentity, now: float) -> None:
    """Fill the MQMD's context fields as MQPUT does for the put's context option."""
    if context is Context.DEFAULT:
        md.PutApplType = C.MQAT_DEFAULT
        md.PutApplName = identity.appl_name
        md.UserIdentifier = identity.user
        md.ApplIdentityData = ""
        md.ApplOriginData = ""
        md.AccountingToken = identity.accounting_token
        md.PutDate, md.PutTime = put_date_time(now)
    elif context is Context.NONE:
        md.PutApplType = C.MQAT_NO_CONTEXT
        md.PutApplName = md.UserIdentifier = md.ApplIdentityData = md.ApplOriginData = ""
        md.AccountingToken = C.MQACT_NONE
        md.PutDate, md.PutTime = put_date_time(now)
    elif context in (Context.SET_IDENTITY, Context.PASS_IDENTITY):
        # the identity (UserIdentifier, AccountingToken, ApplIdentityData) is the md's;
        # the origin is this putter's
        md.PutApplType = C.MQAT_DEFAULT
        md.PutApplName = identity.appl_name
        md.ApplOriginData = ""
        md.PutDate, md.PutTime = put_date_time(now)
    elif not md.PutDate.strip():
        md.PutDate, md.PutTime = put_date_time(now)


# --------------------------------------------------------------------------- MsgId


def _process_id() -> int:
    return os.getpid()


class MsgIdGenerator:
    """MsgIds unique within a queue manager without asking anyone.

    ``AMQ `` + the first 8 characters of the queue manager's name + a 4-byte node number
    + an 8-byte per-process counter that starts at the clock in microseconds. The node is
    the process id for a queue manager on one machine (a later process with a reused pid
    starts its counter later than the earlier one ended, unless that one made more than
    a message per microsecond; the counter never wraps) and a random number per process
    for a broker that processes on many machines share. A forked child starts again.
    """

    def __init__(self, node: Callable[[], int] = _process_id) -> None:
        self._node_of = node
        self._lock = threading.Lock()
        self._pid = -1
        self._node = 0
        self._next = 0

    def __call__(self, qmgr_name: str) -> bytes:
        with self._lock:
            pid = os.getpid()
            if pid != self._pid:  # a forked child must not continue its parent's sequence
                self._pid = pid
                self._node = self._node_of() & 0xFFFFFFFF
                self._next = max(self._next, time.time_ns() // 1000)
            self._next += 1
            seq, node = self._next, self._node
        head = b"AMQ " + qmgr_name.encode("latin-1", "replace")[:8].ljust(8, b" ")
        return head + node.to_bytes(4, "big") + seq.to_bytes(8, "big")


def random_node() -> int:
    """A node number for :class:`MsgIdGenerator` where processes of many machines put."""
    return int.from_bytes(os.urandom(4), "big")  # what SystemRandom reads, without loading random


# --------------------------------------------------------------------------- checks


def check_md_for_put(md: MQMD) -> None:
    """The MQMD checks MQPUT makes before anything else (seed 000 note 1: Expiry 0 fails)."""
    # an MQMD stored as given but unreadable would fail every get and browse of the queue
    struc_id: str | bytes = md.StrucId  # bytes too, as every character field packs them
    if isinstance(struc_id, bytes):
        struc_id = struc_id.decode("latin-1")
    if struc_id.rstrip(" ") != MQMD_STRUC_ID.rstrip():
        raise failed(C.MQRC_MD_ERROR, f"MQMD StrucId {md.StrucId!r} is not {MQMD_STRUC_ID!r}")
    if md.Version not in (MQMD_VERSION_1, MQMD_VERSION_2):
        raise failed(C.MQRC_MD_ERROR, f"MQMD Version {md.Version} is not 1 or 2")
    if md.Expiry == 0 or md.Expiry < C.MQEI_UNLIMITED:
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"Expiry {md.Expiry} is not valid: give tenths of a second > 0 or MQEI_UNLIMITED (-1)",
        )
    if md.Priority < C.MQPRI_PRIORITY_AS_Q_DEF:
        raise failed(
            C.MQRC_PRIORITY_ERROR,
            f"Priority {md.Priority} is not valid: give 0-9 or -1 (MQPRI_PRIORITY_AS_Q_DEF)",
        )
    if md.Persistence not in (
        C.MQPER_NOT_PERSISTENT,
        C.MQPER_PERSISTENT,
        C.MQPER_PERSISTENCE_AS_Q_DEF,
    ):
        raise failed(
            C.MQRC_PERSISTENCE_ERROR,
            f"Persistence {md.Persistence} is not valid (0, 1 or 2 = as queue default)",
        )
    if md.Expiry > MAX_EXPIRY and os.environ.get("AMQ_ENFORCE_MAX_EXPIRY_ERROR") is not None:
        raise failed(  # seed 004 note 1: enforced only when the variable is exported
            C.MQRC_EXPIRY_ERROR,
            f"Expiry {md.Expiry} is more than 999 999 999 and AMQ_ENFORCE_MAX_EXPIRY_ERROR is set",
        )
    if md.MsgType < 1:
        raise failed(C.MQRC_MSG_TYPE_ERROR, f"MsgType {md.MsgType} is not valid")
    if not C.MQFB_NONE <= md.Feedback <= C.MQFB_APPL_LAST:
        raise failed(
            C.MQRC_FEEDBACK_ERROR,
            f"Feedback {md.Feedback} is not valid: give 0 (MQFB_NONE), a system code "
            "1-65535 or an application code 65536-999999999",
        )
    if not md.ReplyToQ.strip():
        if md.MsgType == C.MQMT_REQUEST:
            raise failed(C.MQRC_MISSING_REPLY_TO_Q, "a request message needs a ReplyToQ")
        if md.Report & REPORTS_NEEDING_REPLY_Q:
            raise failed(
                C.MQRC_MISSING_REPLY_TO_Q,
                f"Report {md.Report:#x} asks for report messages, which need a ReplyToQ",
            )


def check_put_allowed(
    named: QueueDefinition, base: QueueDefinition, length: int, qmgr_maxmsgl: int
) -> None:
    """PUT inhibited on the queue named or its base (2051), message too big (2030/2031)."""
    for queue in (named, base):
        if not enabled(queue, "PUT"):
            raise failed(C.MQRC_PUT_INHIBITED, f"queue {queue.name!r} is PUT(DISABLED)")
    maxmsgl = int(attr(base, "MAXMSGL"))
    if length > maxmsgl:
        raise failed(
            C.MQRC_MSG_TOO_BIG_FOR_Q,
            f"{length} bytes is more than MAXMSGL({maxmsgl}) of {base.name!r} "
            "(send less, or raise the queue's MAXMSGL, up to the queue manager's)",
        )
    if length > qmgr_maxmsgl:
        raise failed(
            C.MQRC_MSG_TOO_BIG_FOR_Q_MGR,
            f"{length} bytes is more than the queue manager's MAXMSGL({qmgr_maxmsgl}) "
            "(send less, or raise the queue manager's MAXMSGL, at most 104857600)",
        )


def check_depth(base: QueueDefinition, depth: int) -> None:
    """MQRC_Q_FULL (2053) when ``depth`` messages leave no room under MAXDEPTH."""
    maxdepth = int(attr(base, "MAXDEPTH"))
    if depth >= maxdepth:
        raise failed(C.MQRC_Q_FULL, f"queue {base.name!r} is full: MAXDEPTH({maxdepth})")


# --------------------------------------------------------------------------- defaults


def resolve_defaults(
    md: MQMD,
    named: QueueDefinition,
    *,
    qmgr_name: str,
    qmgr_ccsid: int,
    new_msg_id: bool,
    msg_ids: Callable[[str], bytes],
) -> None:
    """The fields MQPUT fills: Priority and Persistence "as queue default" from the queue
    named (DEFPRTY, DEFPSIST), a blank ReplyToQMgr with the local name, MQCCSI_Q_MGR with
    the queue manager's CCSID, BackoutCount 0, and a new MsgId when asked or blank.

    Any other Priority stays in the MQMD as the putter gave it, even above MaxPriority:
    :func:`queue_priority` says where the message is placed.
    """
    if md.Priority == C.MQPRI_PRIORITY_AS_Q_DEF:
        md.Priority = int(attr(named, "DEFPRTY"))
    if md.Persistence == C.MQPER_PERSISTENCE_AS_Q_DEF:
        md.Persistence = (
            C.MQPER_PERSISTENT if attr(named, "DEFPSIST") == "YES" else C.MQPER_NOT_PERSISTENT
        )
    if not md.ReplyToQMgr.strip():
        # MQPUT fills a blank ReplyToQMgr with the local name, whether or not a ReplyToQ
        # is set ("otherwise the ReplyToQMgr field is set to the name of the queue manager
        # to which your application is connected")
        md.ReplyToQMgr = qmgr_name
    if md.CodedCharSetId == C.MQCCSI_Q_MGR:  # MQ stores the queue manager's CCSID instead
        md.CodedCharSetId = qmgr_ccsid
    md.BackoutCount = 0
    if new_msg_id or md.MsgId == C.MQMI_NONE:
        md.MsgId = msg_ids(qmgr_name)


def queue_priority(md: MQMD, base: QueueDefinition) -> int:
    """The priority the queue gives the message, for ordering and trigger conditions.

    On a FIFO queue that is the queue's DEFPRTY (seed 003 item 14: "The priority of the
    message is ignored and the default priority of the queue is assigned to the
    message"); above MaxPriority it is MaxPriority (MQRC_PRIORITY_EXCEEDS_MAXIMUM: "placed
    on the queue at the queue manager's maximum priority"). The MQMD's Priority is left as
    the putter set it either way ("The Priority field in the message descriptor retains
    the value specified by the application that put the message").
    """
    if attr(base, "MSGDLVSQ") == "FIFO":
        return int(attr(base, "DEFPRTY"))
    return min(md.Priority, MAX_PRIORITY)


def priority_warning(md: MQMD) -> MQError | None:
    """MQCC_WARNING 2049 when a put's Priority is above MaxPriority (the put succeeds)."""
    if md.Priority <= MAX_PRIORITY:
        return None
    return MQError(
        C.MQCC_WARNING,
        C.MQRC_PRIORITY_EXCEEDS_MAXIMUM,
        f"Priority {md.Priority} is above MaxPriority {MAX_PRIORITY}: the message was put at "
        f"priority {MAX_PRIORITY} and keeps Priority {md.Priority} in its MQMD",
    )
