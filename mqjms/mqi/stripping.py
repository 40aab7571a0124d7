"""How long the data a get returns is once it takes a message's RFH2 properties off
(MQGMO_NO_PROPERTIES, a message handle, or an RFH2 of ``mqps`` alone under
PROPCTL(COMPAT)): IBM MQ checks a get's buffer against that, not against the message as
stored. ``mode`` is the get's properties mode (:class:`.get_request.Request`'s
``properties``: "as_q_def", "handle", "none" or "rfh2")."""

from __future__ import annotations

from typing import Literal

from mqjms.mq import constants as C
from mqjms.mq import rfh2
from mqjms.mq.md import MQMD
from mqjms.semantics import Browse, Capability, Connection, Handle, TruncatedMessage

from . import groups, properties


def ids_of(md: MQMD) -> tuple[bytes, bytes | None, bytes | None]:
    """The ids to get this message again by: its MsgId, and its CorrelId and GroupId
    where it has them (a transport matches a null one as an id, not as none)."""
    correl_id = None if md.CorrelId == C.MQCI_NONE else md.CorrelId
    grouped = md.MsgFlags & groups.HAS_GROUP_ID
    return md.MsgId, correl_id, md.GroupId if grouped else None


def headers_cut(mode: str, exc: TruncatedMessage) -> bool:
    """Whether a 2080's data ends inside the first RFH2 of a message whose headers a get
    may take off (so that the length once they are off cannot be read from it)."""
    md, data = exc.md, exc.data
    if md is None or mode == "rfh2" or not rfh2.is_rfh2(md.Format):
        return False
    if len(data) < 36:
        return True
    big = md.Encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL
    return len(data) < int.from_bytes(data[8:12], "big" if big else "little", signed=True)


def browsed_whole(conn: Connection, queue: Handle, md: MQMD | None) -> bytes | None:
    """The whole of the message ``md`` describes, browsed by its ids through a handle of
    the drop-in's own (None where a browse does not show the queue at once, or the message
    is gone)."""
    if md is None or Capability.BROWSE_AT_ONCE not in conn.capabilities:
        return None
    msg_id, correl_id, group_id = ids_of(md)
    browser = conn.open(queue.name, C.MQOO_BROWSE, qmgr=queue.qmgr)
    try:
        got = groups.browse(conn, browser, Browse.FIRST, msg_id, correl_id, group_id)
    finally:
        conn.close(browser)
    return None if got is None else got[1]


def length_once_stripped(
    mode: str, md: MQMD | None, data: bytes, original_length: int
) -> int | None:
    """The length of the data a get would return once it takes the message's RFH2
    properties off (MQGMO_NO_PROPERTIES, a message handle, or an RFH2 of ``mqps`` alone
    under PROPCTL(COMPAT)); None when it takes nothing off, or when the headers are not
    all in the part of the message the 2080 returned."""
    if md is None or mode == "rfh2" or not rfh2.is_rfh2(md.Format):
        return None
    offset, fmt, encoding = 0, md.Format, md.Encoding
    while rfh2.is_rfh2(fmt):
        if offset + 36 > len(data):
            return None
        order: Literal["big", "little"] = (
            "big" if encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL else "little"
        )
        length = int.from_bytes(data[offset + 8 : offset + 12], order, signed=True)
        if length < 36 or offset + length > len(data):
            return None
        encoding = int.from_bytes(data[offset + 12 : offset + 16], order, signed=True)
        fmt = data[offset + 20 : offset + 28].decode("latin-1")
        offset += length
    if mode == "as_q_def":
        probe = md.copy()
        properties.without_qmgr_properties(probe, bytes(data[:offset]))
        if rfh2.is_rfh2(probe.Format):
            return None  # COMPAT keeps this RFH2 in the data
    return original_length - offset
