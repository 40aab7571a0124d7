"""MQGMO_COMPLETE_MSG: a segmented logical message is got whole. IBM MQ: "If the logical
message is segmented, the queue manager reassembles the segments and returns the complete
logical message to the application"; a logical message some of whose segments are not on
the queue is not returned (the option implies MQGMO_ALL_SEGMENTS_AVAILABLE), and the
MQMD returned is its first segment's, but for MsgFlags, which say the message is its
own only (last) segment, and Offset 0.

No transport has such a get, so the drop-in looks first, as for MQGMO_ALL_MSGS_AVAILABLE
(:mod:`.groups`): it browses the queue through a handle of its own (the program's browse
cursor stays where it was), finds the first message that is no segment, or the first
segment (Offset 0) of a logical message whose last segment (MQMF_LAST_SEGMENT) is there
with every offset between, and then gets the segments one by one by their MsgIds, all in
the connection's unit of work, which must hold nothing else: left there with
MQGMO_SYNCPOINT, else committed once every segment is got; backed out as a whole when
one has gone meanwhile (another consumer's get, expiry), so the message stays whole on
the queue (its segments' BackoutCount + 1), and a process killed part-way leaves an
uncommitted unit of work, which the queue manager backs out. A program whose unit of
work holds other work cannot have that: a segmented message is then not got, 2072
MQRC_SYNCPOINT_NOT_AVAILABLE (:mod:`.get_attempts`); MQCMIT or MQBACK first. The segments
are not screened for poison messages.

A segmented put by the queue manager (:func:`put_segmented`) is all or nothing the same
way: every segment under syncpoint in a unit of work that held nothing else, backed out
if one put fails; with other work in the program's unit of work the put is not
segmented (its 2030 or 2031 stands, :mod:`.putting`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Browse, Connection, Context, Handle
from mqjms.semantics.contract import one_trigger_event

from . import groups

SEGMENTED = CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT


@dataclass
class _Logical:
    """What one browse of the queue saw of a segmented logical message."""

    parts: dict[int, tuple[MQMD, bytes]] = field(default_factory=dict)  # by Offset

    def whole(self) -> list[tuple[MQMD, bytes]] | None:
        """Its segments in offset order, or None while some are not on the queue: the
        first at Offset 0, each next one where the one before ends (or before: the first
        may also carry properties, an RFH2 the put added after it was numbered), the last
        with MQMF_LAST_SEGMENT."""
        ordered = [self.parts[offset] for offset in sorted(self.parts)]
        if not ordered or ordered[0][0].Offset != 0:
            return None
        for (before, data), (md, _) in itertools.pairwise(ordered):
            if before.MsgFlags & CMQC.MQMF_LAST_SEGMENT or md.Offset > before.Offset + len(data):
                return None
        return ordered if ordered[-1][0].MsgFlags & CMQC.MQMF_LAST_SEGMENT else None


def first_whole(
    conn: Connection,
    queue: Handle,
    *,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None,
) -> list[tuple[MQMD, bytes]] | None:
    """The first message a get with MQGMO_COMPLETE_MSG may take now, as browsed: one
    message that is no segment, or a complete logical message's segments in offset
    order; None when there is none. ``msg_id`` is matched on a logical message's first
    segment; ``correl_id`` and ``group_id`` on every message."""
    order: list[tuple[MQMD, bytes] | tuple[bytes, int]] = []
    logical: dict[tuple[bytes, int], _Logical] = {}
    browser = conn.open(queue.name, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING, qmgr=queue.qmgr)
    try:
        where = Browse.FIRST
        while (got := _browse(conn, browser, where, correl_id, group_id)) is not None:
            where = Browse.NEXT
            md = got[0]
            if not md.MsgFlags & SEGMENTED:
                if msg_id is not None and md.MsgId != msg_id:
                    continue
                if not logical:
                    return [got]  # before any segment: the first the get may take
                order.append(got)
                continue
            key = (md.GroupId, md.MsgSeqNumber)
            if key not in logical:
                logical[key] = _Logical()
                order.append(key)
            logical[key].parts.setdefault(md.Offset, got)
    finally:
        conn.close(browser)
    for entry in order:
        if isinstance(entry[0], MQMD):
            return [entry]
        whole = logical[entry].whole()
        if whole is not None and (msg_id is None or whole[0][0].MsgId == msg_id):
            return whole
    return None


class PartlyTaken(Exception):
    """Some segments of a logical message were got into a unit of work holding other work
    when another was found gone: they cannot be backed out alone."""


def take(
    conn: Connection,
    queue: Handle,
    found: list[tuple[MQMD, bytes]],
    *,
    syncpoint: bool,
    alone: bool = True,
) -> tuple[MQMD, bytes] | None:
    """Get the segments ``found`` and return the logical message they make, with its first
    segment's MQMD (MsgFlags its last one's, Offset 0), all under syncpoint in the
    connection's unit of work: left there with ``syncpoint``, else committed. None when
    one was got meanwhile by another handle (or expired): when the unit of work holds
    nothing else (``alone``) it is backed out, every segment got before it back on the
    queue; otherwise :class:`PartlyTaken` is raised (the caller dooms the unit of work,
    so its MQCMIT backs everything out)."""
    parts: list[tuple[MQMD, bytes]] = []
    try:
        for md, _ in found:
            got = conn.get(
                queue,
                wait=0.0,
                syncpoint=True,
                msg_id=md.MsgId,
                correl_id=None if md.CorrelId == C.MQCI_NONE else md.CorrelId,
                group_id=md.GroupId,
            )
            if got is None:
                break
            parts.append(got)
    except BaseException:
        if alone:
            conn.backout()
        raise  # not alone: the caller dooms the unit of work
    if len(parts) < len(found):
        if not alone:
            if parts:
                raise PartlyTaken
            return None
        if parts:
            conn.backout()
        return None
    if not syncpoint:
        conn.commit()
    whole = parts[0][0].copy()
    whole.MsgFlags = parts[-1][0].MsgFlags | CMQC.MQMF_LAST_SEGMENT
    whole.Offset = 0
    return whole, b"".join(data for _, data in parts)


def put_segmented(
    conn: Connection,
    target: str | Handle,
    md: MQMD,
    data: bytes,
    *,
    size: int,
    syncpoint: bool,
    context: Context,
    new_msg_id: bool,
) -> MQMD:
    """Segmentation by the queue manager: ``data`` put as segments of at most ``size``
    bytes (the queue's MAXMSGL), of ``md``'s GroupId and MsgSeqNumber, at Offsets from
    ``md``'s, all under syncpoint in the connection's unit of work, which holds nothing
    else: left there with ``syncpoint``, else committed once every segment is put; backed
    out, and the failure raised, when one put fails (a 2053 queue full part-way), so no
    part of the message stays. The first segment's MQMD."""
    size = max(size, 1)
    first: MQMD | None = None
    try:
        with one_trigger_event(conn):  # seed 003 note 2
            for start in range(0, len(data), size):
                part = md.copy()
                part.Offset = md.Offset + start
                last = start + size >= len(data)
                part.MsgFlags |= SEGMENTED if last else CMQC.MQMF_SEGMENT
                put = conn.put(
                    target,
                    part,
                    data[start : start + size],
                    syncpoint=True,
                    context=context,
                    new_msg_id=new_msg_id,
                )
                first = first or put
            if not syncpoint:  # inside: a commit that fails is no trigger event either
                conn.commit()
    except BaseException:
        conn.backout()
        raise
    assert first is not None
    return first


def _browse(
    conn: Connection,
    browser: Handle,
    where: Browse,
    correl_id: bytes | None,
    group_id: bytes | None,
) -> tuple[MQMD, bytes] | None:
    return groups.browse(conn, browser, where, None, correl_id, group_id)
