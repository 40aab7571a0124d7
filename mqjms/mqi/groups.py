"""MQGMO_ALL_MSGS_AVAILABLE: a group's messages are got only once every one of them is on
the queue. IBM MQ: "messages in a group become available for retrieval only when all
messages in the group are available"; a message in no group always is.

No transport has such a get, so the drop-in looks first: it browses the queue through a
handle of its own (the program's browse cursor stays where it was), finds the first
message that is in no group or in a complete one (its MQMF_LAST_MSG_IN_GROUP message has
MsgSeqNumber N, and 1..N are all there), and the get then takes that message by its
MsgId. Under MQGMO_LOGICAL_ORDER a complete group is begun with MsgSeqNumber 1, and the
option has no effect while a group is being got (the caller's rule). The look reads the
queue once per get: groups are for small batches of related messages, not deep queues.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import Browse, Connection, Handle

IN_A_GROUP = CMQC.MQMF_MSG_IN_GROUP | CMQC.MQMF_LAST_MSG_IN_GROUP
#: The flags of a message whose GroupId is its group's or its segmented message's.
HAS_GROUP_ID = IN_A_GROUP | CMQC.MQMF_SEGMENT | CMQC.MQMF_LAST_SEGMENT


@dataclass
class _Group:
    """What one browse of the queue saw of a group."""

    numbers: set[int] = field(default_factory=set)
    last: int = 0  # MsgSeqNumber of its MQMF_LAST_MSG_IN_GROUP message, 0 if not seen
    first: MQMD | None = None  # its first message in queue order
    opening: MQMD | None = None  # its message with MsgSeqNumber 1

    @property
    def complete(self) -> bool:
        return self.last > 0 and self.numbers >= set(range(1, self.last + 1))


def first_available(
    conn: Connection,
    queue: Handle,
    *,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None,
    logical_order: bool,
) -> MQMD | None:
    """The MQMD of the first message a get with MQGMO_ALL_MSGS_AVAILABLE may take now
    (among those ``msg_id``, ``correl_id`` and ``group_id`` match), or None."""
    seen: list[MQMD] = []
    groups: dict[bytes, _Group] = {}
    browser = conn.open(queue.name, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING, qmgr=queue.qmgr)
    try:
        where = Browse.FIRST
        while (got := _browse(conn, browser, where, msg_id, correl_id, group_id)) is not None:
            where = Browse.NEXT
            md = got
            if not md.MsgFlags & IN_A_GROUP and not groups:
                return md  # in no group, before any group: the first the get may take
            seen.append(md)
            if md.MsgFlags & IN_A_GROUP:
                group = groups.setdefault(md.GroupId, _Group())
                group.numbers.add(md.MsgSeqNumber)
                group.first = group.first or md
                if md.MsgSeqNumber == 1:
                    group.opening = group.opening or md
                if md.MsgFlags & CMQC.MQMF_LAST_MSG_IN_GROUP:
                    group.last = md.MsgSeqNumber
    finally:
        conn.close(browser)
    for md in seen:
        if not md.MsgFlags & IN_A_GROUP:
            return md
        group = groups[md.GroupId]
        if group.complete:
            return group.opening if logical_order else group.first
    return None


def _browse(
    conn: Connection,
    browser: Handle,
    where: Browse,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None,
) -> MQMD | None:
    got = browse(conn, browser, where, msg_id, correl_id, group_id)
    return None if got is None else got[0]


def browse(
    conn: Connection,
    browser: Handle,
    where: Browse,
    msg_id: bytes | None,
    correl_id: bytes | None,
    group_id: bytes | None,
) -> tuple[MQMD, bytes] | None:
    """The next message ``browser`` browses (matching the ids given), or None."""
    try:
        return conn.get(
            browser, browse=where, msg_id=msg_id, correl_id=correl_id, group_id=group_id
        )
    except MQError as exc:
        if exc.reason == C.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
