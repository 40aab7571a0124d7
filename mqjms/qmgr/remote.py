"""Remote queues: where a put to another queue manager's queue goes, and the MQXQH it
goes in.

mqjms has no channels, but it queues for them as IBM MQ does (seeds 000/001/004 note 9,
first point): a put to a remote queue is placed on a local transmission queue
(USAGE(XMITQ)), its data prefixed with an MQXQH that names the destination and embeds the
message's own MQMD, the two Expiry fields the same. A channel, or a program, takes it
from there.

Name resolution, as the queue manager does it at MQOPEN and MQPUT1:

- A QREMOTE names a queue (RNAME) on another queue manager (RQMNAME; blank or this one's
  is 2087), reached through XMITQ (blank: the local queue named after RQMNAME, else the
  queue manager's DEFXMITQ). Its PUT counts, as every definition on the way does.
- An ObjectQMgrName that is not this queue manager: a queue manager alias (a QREMOTE of
  that name with a blank RNAME) first, then the transmission queue named after it, then
  DEFXMITQ; none is 2087 MQRC_UNKNOWN_REMOTE_Q_MGR. An alias of this queue manager names
  a local queue, opened for output only (as IBM MQ opens it).
- A ReplyToQ naming a QREMOTE with ReplyToQMgr blank is a reply-to queue alias: the
  MQPUT puts its RNAME and RQMNAME in their place.
- A transmission queue named on purpose (XMITQ) that is missing is 2196, not a local queue
  is 2091, not USAGE(XMITQ) 2092; the same faults of DEFXMITQ are 2197, 2198 and 2199.

The MQMD the message has on the transmission queue is made as MQ makes it: Format
MQXMIT, the queue manager's encoding and CCSID, a new MsgId, the embedded MsgId as its
CorrelId, BackoutCount 0, no COA or COD request (the message is not yet where it is
going), the queue manager's origin context (PutApplType MQAT_QMGR, its name), the rest
copied. The embedded MQMD is version 1: a message with group fields
carries them in an MQMDE after the MQXQH, as MQ does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.md import MQMD
from mqjms.mq.mde import MQMDE, MQMDE_LENGTH_2
from mqjms.mq.xqh import MQXQH, MQXQH_LENGTH_1
from mqjms.semantics.attributes import LOCAL, REMOTE
from mqjms.semantics.definitions import enabled

from . import catalog, messages
from .catalog import QueueRow
from .transaction import Transaction

_V2_FIELDS = ("GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength")
_V2_DEFAULTS = MQMD()
#: What a handle opened on a remote queue may do: put.
OPEN_OPTIONS = (
    C.MQOO_OUTPUT
    | C.MQOO_PASS_IDENTITY_CONTEXT
    | C.MQOO_PASS_ALL_CONTEXT
    | C.MQOO_SET_IDENTITY_CONTEXT
    | C.MQOO_SET_ALL_CONTEXT
    | C.MQOO_ALTERNATE_USER_AUTHORITY
    | C.MQOO_FAIL_IF_QUIESCING
    | C.MQOO_BIND_ON_OPEN
    | C.MQOO_BIND_NOT_FIXED
    | C.MQOO_BIND_ON_GROUP
    | C.MQOO_RESOLVE_NAMES
)
#: What a QREMOTE definition opened by its name may do besides: inquire and set it
#: (opened without MQOO_OUTPUT, no route is needed).
DEFINITION_OPTIONS = (
    C.MQOO_INQUIRE | C.MQOO_SET | C.MQOO_ALTERNATE_USER_AUTHORITY | (C.MQOO_FAIL_IF_QUIESCING)
)


@dataclass(frozen=True, slots=True)
class Route:
    """A put to queue ``queue`` on queue manager ``qmgr``, through transmission queue
    ``xmitq``."""

    queue: str
    qmgr: str
    xmitq: QueueRow


class Resolved(NamedTuple):
    """Where a put goes. ``named`` is the first definition on the way (its PUT, DEFPRTY
    and DEFPSIST apply); ``base`` the local queue the message is stored on (the
    transmission queue when ``route`` is set)."""

    named: QueueRow
    base: QueueRow
    route: Route | None = None


def is_local(tx: Transaction, qmgr: str) -> bool:
    return not qmgr or qmgr == tx.qmgr_name


def definition(tx: Transaction, named: QueueRow, remote: QueueRow) -> Resolved:
    """Where QREMOTE ``remote`` (reached by naming ``named``: itself, or an alias of it)
    leads: RNAME on RQMNAME, which must be another queue manager (2087 for a blank one or
    this one's name, whatever XMITQ says, as on IBM MQ)."""
    rname, rqmname = _text(remote, "RNAME"), _text(remote, "RQMNAME")
    if not rname:
        raise failed(
            C.MQRC_REMOTE_Q_NAME_ERROR,
            f"QREMOTE {remote.name!r} has a blank RNAME: it is a queue manager alias, named "
            "as ObjectQMgrName, not a queue (set RNAME to the queue it stands for)",
        )
    if is_local(tx, rqmname):
        raise failed(
            C.MQRC_UNKNOWN_REMOTE_Q_MGR,
            f"QREMOTE {remote.name!r} has RQMNAME({rqmname}): it must name another queue "
            "manager (a queue of this one is named directly, or through a QALIAS)",
        )
    if not enabled(remote, "PUT"):  # every definition on the way counts (2051)
        raise failed(C.MQRC_PUT_INHIBITED, f"queue {remote.name!r} is PUT(DISABLED)")
    return Resolved(named, *_transmission(tx, rname, rqmname, _text(remote, "XMITQ")))


def to_qmgr(tx: Transaction, queue: str, qmgr: str) -> Resolved:
    """Where queue ``queue`` of queue manager ``qmgr`` (an ObjectQMgrName, not this
    one's) is reached; ``route`` None when ``qmgr`` is an alias of this queue manager."""
    alias = catalog.load(tx.db, qmgr)
    if alias is not None and alias.qtype == REMOTE and not _text(alias, "RNAME"):
        # a queue manager alias: another name (or route) for a queue manager, whose PUT
        # counts as every definition's on the way does (2051)
        if not enabled(alias, "PUT"):
            raise failed(
                C.MQRC_PUT_INHIBITED, f"queue manager alias {alias.name!r} is PUT(DISABLED)"
            )
        target = _text(alias, "RQMNAME")
        if is_local(tx, target):
            named, base = catalog.resolve(tx.db, queue)
            return Resolved(named, base)
        return Resolved(alias, *_transmission(tx, queue, target, _text(alias, "XMITQ")))
    base, route = _transmission(tx, queue, qmgr, "")
    return Resolved(base, base, route)


def resolve_here(tx: Transaction, name: str, what: str) -> tuple[QueueRow, QueueRow]:
    """``name`` resolved to a queue of this queue manager, for the queue manager's own
    puts that must stay here (the dead-letter queue): a remote one is 2057."""
    named, base = catalog.resolve(tx.db, name)
    if base.qtype == REMOTE:
        raise failed(
            C.MQRC_Q_TYPE_ERROR,
            f"{what} {name!r} is a remote queue: it must be a queue of this queue manager",
        )
    return named, base


def to_reply(tx: Transaction, queue: str, qmgr: str) -> Resolved:
    """Where a report or reply to ``queue`` at ReplyToQMgr ``qmgr`` goes: here when
    ``qmgr`` is blank or this queue manager, else routed as an ObjectQMgrName is."""
    if is_local(tx, qmgr):
        return Resolved(*catalog.resolve(tx.db, queue))
    return to_qmgr(tx, queue, qmgr)


def reply_to_alias(tx: Transaction, md: MQMD) -> None:
    """A reply-to queue alias: a ReplyToQ naming a QREMOTE, its ReplyToQMgr blank, is
    replaced at MQPUT by the definition's RNAME and RQMNAME (blank: this queue manager),
    so that the reply goes where the definition says, as on IBM MQ."""
    found = catalog.load_of_type(tx.db, md.ReplyToQ.strip(), REMOTE)  # mostly none: cheap
    if found is None or not (rname := _text(found, "RNAME")):
        return
    md.ReplyToQ = rname
    md.ReplyToQMgr = _text(found, "RQMNAME") or tx.qmgr_name


def _text(row: QueueRow, name: str) -> str:
    return str(row.attrs.get(name, "")).strip()


def _transmission(tx: Transaction, queue: str, qmgr: str, xmitq: str) -> tuple[QueueRow, Route]:
    """The transmission queue to ``qmgr``: ``xmitq`` when named, else the local queue
    named ``qmgr``, else DEFXMITQ."""
    named = (C.MQRC_UNKNOWN_XMIT_Q, C.MQRC_XMIT_Q_TYPE_ERROR, C.MQRC_XMIT_Q_USAGE_ERROR)
    if xmitq:
        row = _xmitq(tx, xmitq, named, f"XMITQ({xmitq})")
    elif (same_name := catalog.load(tx.db, qmgr)) is not None:
        if same_name.qtype != LOCAL:  # not a route: the name is not a queue manager's
            raise failed(
                C.MQRC_UNKNOWN_REMOTE_Q_MGR,
                f"queue manager {qmgr!r}: the object of that name is a {same_name.qtype}, "
                "neither a transmission queue nor a queue manager alias",
            )
        row = _xmitq(tx, qmgr, named, f"the queue named after queue manager {qmgr!r}")
    else:
        default = str(tx.qmgr_attr("DEFXMITQ") or "").strip()
        if not default:
            raise failed(
                C.MQRC_UNKNOWN_REMOTE_Q_MGR,
                f"queue manager {qmgr!r} is not this one ({tx.qmgr_name!r}), and there is "
                f"no route to it: define a transmission queue named {qmgr!r} (DEFINE "
                f"QLOCAL({qmgr}) USAGE(XMITQ)) or the queue manager's DEFXMITQ; if {qmgr!r} "
                f"is another name for this queue manager, define it as an alias (DEFINE "
                f"QREMOTE({qmgr}) RQMNAME({tx.qmgr_name})) or name it in the URL (?qmgr=)",
            )
        faults = (
            C.MQRC_UNKNOWN_DEF_XMIT_Q,
            C.MQRC_DEF_XMIT_Q_TYPE_ERROR,
            C.MQRC_DEF_XMIT_Q_USAGE_ERROR,
        )
        row = _xmitq(tx, default, faults, f"the queue manager's DEFXMITQ({default})")
    return row, Route(queue, qmgr, row)


def _xmitq(tx: Transaction, name: str, faults: tuple[int, int, int], what: str) -> QueueRow:
    unknown, wrong_type, wrong_usage = faults
    row = catalog.load(tx.db, name)
    if row is None:
        raise failed(unknown, f"{what}: transmission queue {name!r} is not defined")
    if row.qtype != LOCAL:
        raise failed(wrong_type, f"{what}: {name!r} is a {row.qtype}, not a local queue")
    if row.attrs.get("USAGE") != "XMITQ":
        raise failed(
            wrong_usage,
            f"{what}: {name!r} is not a transmission queue (ALTER QLOCAL({name}) USAGE(XMITQ))",
        )
    return row


def check_open(options: int, name: str, *, definition: bool) -> None:
    """A queue of another queue manager opens for output only (2045 for anything else);
    a QREMOTE definition opened by its name (or an alias's) for inquire and set too."""
    allowed = OPEN_OPTIONS | DEFINITION_OPTIONS if definition else OPEN_OPTIONS
    if options & ~allowed:
        raise failed(
            C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
            f"open options {options:#x}: {name!r} is a queue of another queue manager, "
            + (
                "opened to put to, or to inquire and set its definition"
                if definition
                else "opened to put to"
            )
            + " (get from it on the queue manager that owns it)",
        )


def header_length(md: MQMD) -> int:
    """The bytes :func:`wrap` puts in front of the message's data."""
    return MQXQH_LENGTH_1 + (MQMDE_LENGTH_2 if _has_v2_fields(md) else 0)


def wrap(tx: Transaction, route: Route, md: MQMD, data: bytes) -> tuple[MQMD, bytes]:
    """The MQMD and data of the message ``md``/``data`` (as put, its defaults resolved)
    on the transmission queue."""
    inner = md.copy()
    extension = b""
    if _has_v2_fields(md):
        mde = MQMDE(
            Encoding=md.Encoding,
            CodedCharSetId=md.CodedCharSetId,
            Format=md.Format,
            GroupId=md.GroupId,
            MsgSeqNumber=md.MsgSeqNumber,
            Offset=md.Offset,
            MsgFlags=md.MsgFlags,
            OriginalLength=md.OriginalLength,
        )
        extension = mde.pack(C.MQENC_NATIVE)
        inner.Encoding = C.MQENC_NATIVE
        inner.CodedCharSetId = int(tx.qmgr_attr("CCSID"))
        inner.Format = C.MQFMT_MD_EXTENSION
        for field in _V2_FIELDS:
            setattr(inner, field, getattr(_V2_DEFAULTS, field))
    header = MQXQH(RemoteQName=route.queue, RemoteQMgrName=route.qmgr, MsgDesc=inner)
    outer = md.copy()
    outer.Report = md.Report & ~C.MQRO_ACCEPT_UNSUP_IF_XMIT_MASK
    outer.Encoding = C.MQENC_NATIVE
    outer.CodedCharSetId = int(tx.qmgr_attr("CCSID"))
    outer.Format = C.MQFMT_XMIT_Q_HEADER
    outer.MsgId = messages.make_msg_id(tx.qmgr_name)
    outer.CorrelId = md.MsgId
    outer.BackoutCount = 0
    outer.PutApplType = C.MQAT_QMGR  # origin context: the queue manager put it there
    outer.PutApplName = tx.qmgr_name[:28]
    outer.ApplOriginData = ""
    return outer, header.pack(C.MQENC_NATIVE) + extension + data


def _has_v2_fields(md: MQMD) -> bool:
    return any(getattr(md, name) != getattr(_V2_DEFAULTS, name) for name in _V2_FIELDS)
