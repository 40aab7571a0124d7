"""Reservations: messages set aside for one consumer, re-read at will, removed on release."""

from __future__ import annotations

import time

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.transport import Browse, connect, embedded


def test_reserve_read_renumber_release(qm: QueueManager, embedded_url: str) -> None:
    qm.define_queue("QLOCAL", "Q")
    conn = connect(embedded_url)
    for i in range(5):
        conn.put("Q", MQMD(Format=C.MQFMT_STRING, Persistence=1), f"m{i}".encode())
    handle = conn.open("Q", C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    assert conn.reserve(handle, "spark:Q", 3) == 3
    assert [d for _, _, _, d in conn.reserved("spark:Q", 0, 3)] == [b"m0", b"m1", b"m2"]
    # invisible to gets and browses, counted in CURDEPTH
    assert conn.get(handle, browse=Browse.FIRST)[1] == b"m3"
    assert qm.queue_depth("Q") == 5
    # renumbered at the tail with a tag and BackoutCount + 1; repeating does nothing
    assert conn.renumber_reserved("spark:Q", [2], tag=7, backout=1) == [4]
    assert conn.renumber_reserved("spark:Q", [2], tag=7, backout=1) == []
    assert conn.reserved_numbers("spark:Q", 0, 10) == [(1, 0, 0), (3, 0, 0), (4, 7, 1)]
    assert conn.reservation_count("spark:Q") == 3  # the lag report's count, in one query
    assert conn.reservation_count("other") == 0
    # a reservation outlives the process's connections and a restart
    conn.disconnect()
    embedded.close_all()
    qm2 = embedded.queue_manager(embedded_url)
    qm2.restart()
    conn = connect(embedded_url)
    assert [s for s, _, _, _ in conn.reserved("spark:Q", 0, 10)] == [1, 3, 4]
    assert conn.release_reserved("spark:Q", 3) == 2  # seqs 1 and 3 (m0, m2) removed
    assert embedded.queue_manager(embedded_url).queue_depth("Q") == 3
    assert conn.reservation_count("spark:Q") == 1
    # a reserved message taken into a unit of work: backout makes it available again
    got = conn.get_reserved("spark:Q", 4)
    assert got is not None and got[1] == b"m1"
    conn.backout()
    handle = conn.open("Q", C.MQOO_INPUT_SHARED)
    again = conn.get(handle, msg_id=got[0].MsgId)
    assert again is not None and again[0].BackoutCount == 2
    assert conn.give_back_reserved("spark:Q") == 0
    conn.disconnect()


def test_reserve_in_delivery_order_skipping_expired_and_give_back_a_tail(
    qm: QueueManager, embedded_url: str
) -> None:
    qm.define_queue("QLOCAL", "Q")  # MSGDLVSQ(PRIORITY)
    conn = connect(embedded_url)
    for i, priority in enumerate([1, 5, 1, 9, 5]):
        conn.put("Q", MQMD(Format=C.MQFMT_STRING, Priority=priority), f"m{i}".encode())
    conn.put("Q", MQMD(Format=C.MQFMT_STRING, Expiry=1), b"expires")
    time.sleep(0.2)
    handle = conn.open("Q", C.MQOO_INPUT_SHARED)
    # one walk of the index: priority first, then arrival; the expired message is
    # discarded on the way, as a get would (seed 000: an expired message is never returned)
    assert conn.reserve(handle, "o", 10) == 5
    assert [d for _, _, _, d in conn.reserved("o", 0, 5)] == [b"m3", b"m1", b"m4", b"m0", b"m2"]
    assert qm.queue_depth("Q") == 5
    # a stopping consumer gives back what it never used: available again, in place
    assert conn.give_back_reserved("o", after=2) == 3
    assert [s for s, _, _, _ in conn.reserved("o", 0, 10)] == [1, 2]
    assert conn.get(handle)[1] == b"m4"
    conn.disconnect()
