"""MQPUT and MQPUT1 as pymqi and ibmmq programs use them.

The MQPMO's options become a transport put: syncpoint (MQ's distributed default is none),
a new MsgId (also whenever the MQMD's is none) and CorrelId, the context option (the
``PASS_*`` ones copy the context of the last message got on the handle MQPMO.Context
names into the message), a message handle's properties as an RFH2 (MQPMO version 3
OriginalMsgHandle, :mod:`.properties`). MQPMO_RETAIN on a topic handle keeps the
publication as its topic's retained one where the transport keeps them.
MQPMO_ASYNC_RESPONSE puts report their failures at MQSTAT instead of at the put. The
program's MQMD gets MQ's output fields back: MsgId, CorrelId when generated, the context
fields the queue manager set, ReplyToQMgr; its MQPMO the resolved names.
"""

from __future__ import annotations

import uuid
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.md import MQMD
from mqjms.mq.pmo import MQPMO
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Connection, Context, Handle, put_destination, put_warning

from . import command_server, fields, option_rules, properties, segments, subscribing
from .hconn import Hconn, Hobj

_PMO_SPECS = {spec.name: spec for spec in MQPMO.SPECS}
_CONTEXTS = (
    (CMQC.MQPMO_SET_ALL_CONTEXT, Context.SET_ALL),
    (CMQC.MQPMO_PASS_ALL_CONTEXT, Context.PASS_ALL),
    (CMQC.MQPMO_SET_IDENTITY_CONTEXT, Context.SET_IDENTITY),
    (CMQC.MQPMO_PASS_IDENTITY_CONTEXT, Context.PASS_IDENTITY),
    (CMQC.MQPMO_NO_CONTEXT, Context.NONE),
)
# The MQMD fields a put returns, by its context option (besides MsgId and ReplyToQMgr).
_CONTEXT_OUTPUT = {
    Context.DEFAULT: fields.IDENTITY_FIELDS + fields.ORIGIN_FIELDS,
    Context.NONE: fields.IDENTITY_FIELDS + fields.ORIGIN_FIELDS,
    Context.PASS_IDENTITY: fields.IDENTITY_FIELDS + fields.ORIGIN_FIELDS,
    Context.SET_IDENTITY: fields.ORIGIN_FIELDS,
    Context.PASS_ALL: fields.IDENTITY_FIELDS + fields.ORIGIN_FIELDS,
    Context.SET_ALL: (),
}


def put(hconn: Hconn, number: int, md: Any, pmo: Any, data: bytes) -> None:
    """MQPUT to object ``number``; ``md`` and ``pmo`` updated in place."""
    option_rules.check_put(fields.option(pmo, "Options"))
    with hconn.call() as conn:
        obj = hconn.object(number)
        _put(hconn, conn, obj.queue, md, pmo, data, obj)


def put1(hconn: Hconn, od: Any, md: Any, pmo: Any, data: bytes) -> None:
    """MQPUT1 to the queue (or topic) ``od`` names; ``md`` and ``pmo`` updated in place."""
    option_rules.check_put(fields.option(pmo, "Options"), put1=True)
    subscribing.refuse_selection_string(od, "MQPUT1", selecting=False)
    with hconn.call() as conn:
        name = fields.text(getattr(od, "ObjectName", b""))
        object_type = fields.option(od, "ObjectType", CMQC.MQOT_Q)
        if object_type not in (CMQC.MQOT_Q, CMQC.MQOT_TOPIC):
            raise failed(C.MQRC_OBJECT_TYPE_ERROR, f"MQPUT1 to an object of type {object_type}")
        if object_type == CMQC.MQOT_TOPIC:  # publishes
            topic_string = subscribing.vs_text(od, "ObjectString")
            topic = subscribing.publisher(conn).open_topic(topic_string, C.MQOO_OUTPUT, topic=name)
            try:
                _put(hconn, conn, topic, md, pmo, data)
            finally:
                conn.close(topic)
            return
        qmgr = hconn.remote_qmgr(fields.text(getattr(od, "ObjectQMgrName", b"")))
        if not qmgr:
            _put(hconn, conn, name, md, pmo, data)
            return
        # another queue manager's queue: MQPUT1 is MQOPEN, MQPUT and MQCLOSE
        handle = conn.open(name, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT, qmgr=qmgr)
        try:
            _put(hconn, conn, handle, md, pmo, data)
        finally:
            conn.close(handle)


def _put(
    hconn: Hconn,
    conn: Connection,
    target: str | Handle,
    md_opts: Any,
    pmo: Any,
    data: bytes,
    obj: Hobj | None = None,
) -> None:
    options = fields.option(pmo, "Options")
    md = fields.md_from(md_opts)
    reply_qmgr = md.ReplyToQMgr.strip()
    own_reply_qmgr = bool(reply_qmgr) and reply_qmgr != conn.qmgr_name
    own_reply_qmgr = own_reply_qmgr and not hconn.remote_qmgr(reply_qmgr)
    if own_reply_qmgr:
        # another name of this queue manager (the one connected with, say): stored as its
        # real name, so that replies and reports find the queue here, not down a route
        md.ReplyToQMgr = conn.qmgr_name
    if md.MsgFlags & CMQC.MQMF_SEGMENT and not md.MsgFlags & CMQC.MQMF_LAST_SEGMENT and not data:
        raise failed(
            CMQC.MQRC_SEGMENT_LENGTH_ZERO,
            "a first or intermediate segment (MQMF_SEGMENT) needs at least one byte of data",
        )
    logical = obj is not None and bool(options & CMQC.MQPMO_LOGICAL_ORDER)
    group: tuple[bytes, int] | None = None
    segment: tuple[bytes, int, int] | None = None
    if obj is not None and logical:
        group, segment = _logical_order(obj, md, conn.qmgr_name, len(data))
    # Without MQPMO_LOGICAL_ORDER a group's (or a segmented message's) first message asks
    # the queue manager for a new GroupId by giving MQGI_NONE, and the program puts the
    # rest with the one returned (MQMD GroupId: "applications must not generate their own
    # group identifiers").
    grouped = bool(md.MsgFlags & (_IN_GROUP | _SEGMENTED))
    new_group = not logical and grouped and md.GroupId == C.MQGI_NONE
    if new_group:
        md.GroupId = new_correl_id(conn.qmgr_name)
    # the copy sent with the message has MQMF_MSG_IN_GROUP with MQMF_LAST_MSG_IN_GROUP and
    # MQMF_SEGMENT with MQMF_LAST_SEGMENT (MQMD MsgFlags); the program's MQMD keeps its own
    if md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP:
        md.MsgFlags |= CMQC.MQMF_MSG_IN_GROUP
    if md.MsgFlags & CMQC.MQMF_LAST_SEGMENT:
        md.MsgFlags |= CMQC.MQMF_SEGMENT
    context = next((c for flag, c in _CONTEXTS if options & flag), Context.DEFAULT)
    if context in (Context.PASS_ALL, Context.PASS_IDENTITY):
        _pass_context(hconn, md, fields.option(pmo, "Context"), context)
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        md.CorrelId = new_correl_id(conn.qmgr_name)
    handle = fields.option(pmo, "OriginalMsgHandle") if fields.option(pmo, "Version", 1) >= 3 else 0
    if handle:
        data = properties.with_properties(md, data, hconn.properties.get(handle))
    syncpoint = bool(options & CMQC.MQPMO_SYNCPOINT)
    name = target.name if isinstance(target, Handle) else target
    try:
        retains = subscribing.retainer(conn, target, options)
        if retains is not None and isinstance(target, Handle):
            result = retains.publish_retained(
                target,
                md,
                data,
                syncpoint=syncpoint,
                context=context,
                new_msg_id=bool(options & CMQC.MQPMO_NEW_MSG_ID),
            )
        elif options & CMQC.MQPMO_NOT_OWN_SUBS and isinstance(target, Handle) and target.topic:
            result = subscribing.not_to_own(conn).publish_not_to_own(
                target,
                md,
                data,
                syncpoint=syncpoint,
                context=context,
                new_msg_id=bool(options & CMQC.MQPMO_NEW_MSG_ID),
            )
        else:
            result = _put_or_segment(
                hconn,
                conn,
                target,
                md,
                data,
                syncpoint=syncpoint,
                context=context,
                new_msg_id=bool(options & CMQC.MQPMO_NEW_MSG_ID),
            )
    except MQError as exc:
        if not options & CMQC.MQPMO_ASYNC_RESPONSE:
            raise
        hconn.async_puts.record(exc, name)  # reported at MQSTAT, as MQ does
        return
    if options & CMQC.MQPMO_ASYNC_RESPONSE:
        hconn.async_puts.record(None, name)
    if syncpoint:
        hconn.note_work()
    went = put_destination(conn)
    warning = put_warning(conn, no_subs_matched=bool(options & CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED))
    if not syncpoint and command_server.answers(conn, went):
        command_server.serve(conn, result.MsgId)  # as IBM MQ's command server would
    written = ["MsgId", *_CONTEXT_OUTPUT[context]]
    if not own_reply_qmgr:  # else the program's name stands, as MQ leaves a set one
        written.append("ReplyToQMgr")
    if obj is not None and logical:  # the queue manager numbers the group (output fields)
        if syncpoint:
            hconn.mark_groups(obj)
        obj.put_group, obj.put_segment = group, segment
        # MsgFlags is input only: the bits the queue manager adds are in its copy alone
        written += ["GroupId", "MsgSeqNumber", "Offset"]
    elif new_group:
        written.append("GroupId")
    if options & CMQC.MQPMO_NEW_CORREL_ID:
        written.append("CorrelId")
    fields.round_trip(md_opts)
    fields.md_into(md_opts, result, written)
    fields.round_trip(pmo)
    _pmo_into(pmo, target, conn.qmgr_name, went)  # the request's, not its replies'
    if warning is not None:
        raise warning


#: The smallest segment IBM MQ's queue manager makes (2030/2031's explanation).
SMALLEST_SEGMENT = 16


def _put_or_segment(
    hconn: Hconn,
    conn: Connection,
    target: str | Handle,
    md: MQMD,
    data: bytes,
    *,
    syncpoint: bool,
    context: Context,
    new_msg_id: bool,
) -> MQMD:
    """The transport's put; a message too long for its queue or queue manager (2030,
    2031) that allows segmentation (MQMF_SEGMENTATION_ALLOWED) is put in segments of the
    lesser MAXMSGL instead (at least 16 bytes), as the queue manager segments it
    (:func:`.segments.put_segmented`), all or nothing: only while the program's unit of
    work holds no work (else the 2030 or 2031 stands)."""
    try:
        return conn.put(
            target, md, data, syncpoint=syncpoint, context=context, new_msg_id=new_msg_id
        )
    except MQError as exc:
        allowed = md.MsgFlags & CMQC.MQMF_SEGMENTATION_ALLOWED
        too_big = (C.MQRC_MSG_TOO_BIG_FOR_Q, C.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
        if exc.reason not in too_big or not allowed:
            raise
        refused = exc
    if hconn.work:
        # the segments could not be backed out apart from the program's other work in its
        # unit of work, and a failed MQPUT must leave nothing: not segmented then
        raise refused
    # MQPUT1 names the queue: open it (an alias resolves to its base queue, whose
    # MAXMSGL counts), as MQPUT1 is MQOPEN, MQPUT and MQCLOSE
    handle = (
        target
        if isinstance(target, Handle)
        else conn.open(target, CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    )
    try:
        found = conn.inquire(handle.resolved_name, [C.MQIA_MAX_MSG_LENGTH])
        qmgr = conn.inquire_qmgr([C.MQIA_MAX_MSG_LENGTH])
        size = min(int(found[C.MQIA_MAX_MSG_LENGTH]), int(qmgr[C.MQIA_MAX_MSG_LENGTH]))
        if size < SMALLEST_SEGMENT:  # MQ makes no segment smaller: the refusal stands
            raise refused
        if md.GroupId == C.MQGI_NONE:
            md.GroupId = new_correl_id(conn.qmgr_name)
        return segments.put_segmented(
            conn,
            handle,
            md,
            data,
            size=size,
            syncpoint=syncpoint,
            context=context,
            new_msg_id=new_msg_id,
        )
    finally:
        if handle is not target:
            conn.close(handle)


_IN_GROUP = CMQC.MQMF_MSG_IN_GROUP | CMQC.MQMF_LAST_MSG_IN_GROUP
_SEGMENTED = CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT


def _logical_order(
    obj: Hobj, md: MQMD, qmgr: str, length: int
) -> tuple[tuple[bytes, int] | None, tuple[bytes, int, int] | None]:
    """MQPMO_LOGICAL_ORDER: the GroupId, MsgSeqNumber and Offset the queue manager gives
    the message (a new group at its first message, the next number after; a segment the
    next offset of its logical message); the handle's group and segmented message once the
    put is made (None: no group is open, after MQMF_LAST_MSG_IN_GROUP; no segmented
    message, after MQMF_LAST_SEGMENT). MQRC_INCOMPLETE_MSG (2242) for a message that is no
    segment while a segmented one lacks its last, MQRC_INCOMPLETE_GROUP (2241) for one in
    no group while a group lacks its last."""
    segment = md.MsgFlags & _SEGMENTED
    last_segment = md.MsgFlags & CMQC.MQMF_LAST_SEGMENT
    if obj.put_segment is not None:  # the next segment of the logical message being put
        if not segment:
            raise failed(
                CMQC.MQRC_INCOMPLETE_MSG,
                f"a segmented message put to {obj.name!r} in logical order is not complete: "
                "its last segment must have MQMF_LAST_SEGMENT before a message that is not "
                "a segment",
            )
        group_id, seq, offset = obj.put_segment
        if obj.put_group is not None or md.MsgFlags & _IN_GROUP:
            md.MsgFlags |= CMQC.MQMF_MSG_IN_GROUP
    else:
        offset = 0
        if md.MsgFlags & _IN_GROUP:
            group_id, seq = obj.put_group or (new_correl_id(qmgr), 0)
            seq += 1
            md.MsgFlags |= CMQC.MQMF_MSG_IN_GROUP
        elif obj.put_group is not None:
            raise failed(
                CMQC.MQRC_INCOMPLETE_GROUP,
                f"a group put to {obj.name!r} in logical order is not complete: its last "
                "message must have MQMF_LAST_MSG_IN_GROUP before a message not in a group",
            )
        else:  # a segmented message in no group still has a GroupId of its own
            group_id, seq = (new_correl_id(qmgr) if segment else C.MQGI_NONE), 1
    md.GroupId, md.MsgSeqNumber, md.Offset = group_id, seq, offset
    if segment and not last_segment:  # the logical message goes on
        in_group = md.MsgFlags & CMQC.MQMF_MSG_IN_GROUP
        return ((group_id, seq) if in_group else None), (group_id, seq, offset + length)
    ends_group = not md.MsgFlags & CMQC.MQMF_MSG_IN_GROUP or (
        md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP
    )
    return (None if ends_group else (group_id, seq)), None


def _pass_context(hconn: Hconn, md: MQMD, number: int, context: Context) -> None:
    """Copy the context of the last message got on handle ``number`` into ``md``."""
    source = hconn.object(number).context if number else None
    if source is None:
        source = MQMD()
    names: tuple[str, ...] = fields.IDENTITY_FIELDS
    if context is Context.PASS_ALL:
        names = names + fields.ORIGIN_FIELDS
    for name in names:
        setattr(md, name, getattr(source, name))


def _pmo_into(pmo: Any, target: str | Handle, qmgr: str, went: tuple[str, str] | None) -> None:
    """MQPMO's output fields: where the put went, as the transport says (``went``), else
    as the handle was resolved at MQOPEN (or the name given, for MQPUT1)."""
    if pmo is None:
        return
    if went is not None:
        resolved, remote = went[0], "" if went[1] == qmgr else went[1]
    elif isinstance(target, Handle):
        resolved, remote = target.resolved_name, target.resolved_qmgr
    else:
        resolved, remote = target, ""
    values: dict[str, object] = {
        "ResolvedQName": resolved,
        "ResolvedQMgrName": remote or qmgr,
        "KnownDestCount": 0 if remote else 1,  # a remote queue's message is "unknown"
        "UnknownDestCount": 1 if remote else 0,
        "InvalidDestCount": 0,
    }
    for name, value in values.items():
        if hasattr(pmo, name):
            fields.assign(pmo, _PMO_SPECS[name], value)


def new_correl_id(qmgr_name: str) -> bytes:
    """A CorrelId as MQPMO_NEW_CORREL_ID generates one: unique, 24 bytes."""
    head = b"AMQ " + qmgr_name.encode("latin-1", "replace")[:8].ljust(8, b" ")
    return head + uuid.uuid4().bytes[:12]
