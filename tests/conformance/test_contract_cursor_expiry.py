"""Seed 000 at the browse cursor and behind a message too long: an expired message is never
returned, by a browse under the cursor either, and the Expiry a browse shows is what
remains now; the get that reaches expired messages discards them even when the message it
then finds is too long for it (2080)."""

from __future__ import annotations

import time

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics import TruncatedMessage
from mqjms.transport import Browse, Connection

IN_BROWSE = C.MQOO_INPUT_SHARED | C.MQOO_BROWSE


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


def test_a_browse_under_the_cursor_reads_the_queue_again(conn: Connection, queue: str) -> None:
    # seed 000: "When the message is retrieved ... the Expiry field represents the amount of
    # the original expiry time that still remains"
    conn.put(queue, MQMD(Expiry=600), b"m")
    handle = conn.open(queue, IN_BROWSE)
    first = conn.get(handle, browse=Browse.FIRST)
    assert first is not None
    time.sleep(0.25)
    again = conn.get(handle, browse=Browse.CURSOR)
    assert again is not None and again[1] == b"m" and again[0].MsgId == first[0].MsgId
    assert again[0].Expiry < first[0].Expiry
    following = conn.get(handle, browse=Browse.NEXT)  # the cursor did not move
    assert following is None


def test_a_browse_under_the_cursor_of_a_message_gone_is_2034(connections, queue: str) -> None:
    browser, other = connections(), connections()
    browser.put(queue, MQMD(), b"m")
    handle = browser.open(queue, IN_BROWSE)
    assert browser.get(handle, browse=Browse.FIRST) is not None
    assert other.get(other.open(queue, C.MQOO_INPUT_SHARED)) is not None
    with pytest.raises(MQError) as failure:
        browser.get(handle, browse=Browse.CURSOR)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR


@pytest.mark.requires("lazy_expiry")
def test_an_expired_message_is_never_browsed_under_the_cursor(conn: Connection, queue: str) -> None:
    # seed 000: "A message that has expired is never returned to an application (either by
    # a browse or a non-browse MQGET call)"; the call that would have returned it
    # discards it
    conn.put(queue, MQMD(Expiry=2), b"short-lived")  # 0.2 s
    handle = conn.open(queue, IN_BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is not None
    time.sleep(0.3)
    with pytest.raises(MQError) as failure:
        conn.get(handle, browse=Browse.CURSOR)
    assert failure.value.reason == C.MQRC_NO_MSG_UNDER_CURSOR
    assert depth(conn, queue) == 0


@pytest.mark.requires("lazy_expiry")
@pytest.mark.parametrize("browse", [None, Browse.FIRST], ids=["get", "browse"])
def test_expired_messages_are_discarded_by_a_get_that_then_finds_one_too_long(
    conn: Connection, queue: str, browse: Browse | None
) -> None:
    # seed 000: the expired messages up to the first unexpired one are discarded by the
    # call that reached them (note 4: never part of a unit of work), even when that call
    # then fails with 2080 on the message it found, which stays
    conn.put(queue, MQMD(Expiry=1), b"old")
    conn.put(queue, MQMD(), b"x" * 100)
    time.sleep(0.2)
    handle = conn.open(queue, IN_BROWSE)
    with pytest.raises(TruncatedMessage):
        conn.get(handle, browse=browse, max_length=10)
    assert depth(conn, queue) == 1
    got = conn.get(handle)
    assert got is not None and got[1] == b"x" * 100
