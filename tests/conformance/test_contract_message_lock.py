"""MQGMO_LOCK and MQGMO_UNLOCK on the contract (:class:`mqjms.semantics.LocksMessages`),
and seed 000 note 6: a message under the browse cursor that expires is discarded by the
get under the cursor, which fails with MQRC_NO_MSG_UNDER_CURSOR."""

from __future__ import annotations

import time
from typing import cast

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics import LocksMessages
from mqjms.transport import Browse, Connection

IN = C.MQOO_INPUT_SHARED
BROWSE = C.MQOO_BROWSE

pytestmark = pytest.mark.requires("lock")


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


def locks(conn: Connection) -> LocksMessages:
    return cast(LocksMessages, conn)


def browsed(conn: Connection, queue: str) -> list[bytes]:
    handle = conn.open(queue, BROWSE)
    out, how = [], Browse.FIRST
    while (got := conn.get(handle, browse=how)) is not None:
        out.append(got[1])
        how = Browse.NEXT
    conn.close(handle)
    return out


def locked_first(conn: Connection, queue: str) -> object:
    handle = conn.open(queue, IN | BROWSE)
    got = conn.get(handle, browse=Browse.FIRST)
    assert got is not None
    assert locks(conn).lock_browsed(handle)
    return handle


def test_a_locked_message_is_invisible_to_every_other_handle(connections, queue: str) -> None:
    holder, other = connections(), connections()
    for body in (b"a", b"b"):
        holder.put(queue, MQMD(), body)
    locked_first(holder, queue)
    assert browsed(other, queue) == [b"b"]  # browses step over it
    handle = other.open(queue, IN)
    got = other.get(handle)
    assert got is not None and got[1] == b"b"  # so do gets
    assert other.get(handle) is None
    assert depth(other, queue) == 1  # CURDEPTH still counts it


def test_the_holder_gets_its_locked_message_under_the_cursor(connections, queue: str) -> None:
    holder, other = connections(), connections()
    holder.put(queue, MQMD(), b"mine")
    handle = locked_first(holder, queue)
    got = holder.get(handle, under_cursor=True, syncpoint=True)
    assert got is not None and got[1] == b"mine" and got[0].BackoutCount == 0
    assert not locks(holder).unlock(handle)  # the get ended the lock
    holder.commit()
    assert depth(other, queue) == 0


def test_unlock_makes_it_available_again_and_a_second_unlock_finds_none(
    connections, queue: str
) -> None:
    holder, other = connections(), connections()
    holder.put(queue, MQMD(), b"m")
    handle = locked_first(holder, queue)
    assert browsed(other, queue) == []
    assert locks(holder).unlock(handle)
    assert browsed(other, queue) == [b"m"]
    assert not locks(holder).unlock(handle)  # MQRC_NO_MSG_LOCKED


def test_the_lock_ends_when_the_cursor_moves_on(connections, queue: str) -> None:
    holder, other = connections(), connections()
    for body in (b"a", b"b", b"c"):
        holder.put(queue, MQMD(), body)
    handle = locked_first(holder, queue)
    assert holder.get(handle, browse=Browse.NEXT) is not None  # b, without a lock
    assert browsed(other, queue) == [b"a", b"b", b"c"]
    assert locks(holder).lock_browsed(handle)  # now b
    assert browsed(other, queue) == [b"a", b"c"]


def test_close_and_disconnect_end_the_lock(connections, queue: str) -> None:
    holder, other = connections(), connections()
    holder.put(queue, MQMD(), b"m")
    handle = locked_first(holder, queue)
    holder.close(handle)
    assert browsed(other, queue) == [b"m"]
    locked_first(holder, queue)
    assert browsed(other, queue) == []
    holder.disconnect()
    assert browsed(other, queue) == [b"m"]


def test_a_lock_is_no_unit_of_work(connections, queue: str) -> None:
    # MQCMIT and MQBACK leave the lock; BackoutCount never moves
    holder, other = connections(), connections()
    holder.put(queue, MQMD(), b"m")
    handle = locked_first(holder, queue)
    holder.put(queue, MQMD(), b"in a unit of work", syncpoint=True)
    holder.backout()
    assert browsed(other, queue) == []
    holder.commit()
    assert browsed(other, queue) == []
    assert locks(holder).unlock(handle)
    got = other.get(other.open(queue, IN))
    assert got is not None and got[1] == b"m" and got[0].BackoutCount == 0


def test_a_message_got_by_another_handle_meanwhile_cannot_be_locked(
    connections, queue: str
) -> None:
    holder, other = connections(), connections()
    holder.put(queue, MQMD(), b"m")
    handle = holder.open(queue, IN | BROWSE)
    assert holder.get(handle, browse=Browse.FIRST) is not None
    assert other.get(other.open(queue, IN)) is not None
    assert not locks(holder).lock_browsed(handle)


@pytest.mark.requires("lazy_expiry")
def test_a_locked_message_that_expires_is_2034_under_the_cursor(connections, queue: str) -> None:
    # seed 000 note 6: "If a nearly-expired message is locked by an MQGET call with
    # MQGMO_LOCK, the message might become eligible to be discarded before it can be
    # retrieved by an MQGET call with MQGMO_MSG_UNDER_CURSOR; reason code
    # MQRC_NO_MSG_UNDER_CURSOR is returned on this subsequent MQGET call if that happens."
    holder, other = connections(), connections()
    holder.put(queue, MQMD(Expiry=2), b"nearly expired")  # 0.2 s
    handle = locked_first(holder, queue)
    time.sleep(0.3)
    with pytest.raises(MQError) as failure:
        holder.get(handle, under_cursor=True)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR
    assert depth(other, queue) == 0  # seed 000: discarded by the get that reached it
    assert not locks(holder).unlock(handle)
