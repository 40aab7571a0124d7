"""Get with wait, browse first/next, match on MsgId/CorrelId, MsgId generation and the
put context (issue 2, MQI semantics). Written against the transport contract only."""

from __future__ import annotations

import threading
import time

import pytest

from mqjms.mq import MQMD, C
from mqjms.transport import Browse, Connection, Context

IN = C.MQOO_INPUT_SHARED
BROWSE = C.MQOO_BROWSE


def ident(text: str) -> bytes:
    return text.encode().ljust(24, b"\0")


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


# --------------------------------------------------------------------------- waiting


def _put_later(connections, queue: str, body: bytes, started: threading.Event) -> threading.Thread:
    producer = connections()  # made here: a connection is not shared between threads

    def run() -> None:
        started.wait(5)
        time.sleep(0.2)
        producer.put(queue, MQMD(), body)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_get_with_wait_returns_when_a_message_arrives_from_another_thread(
    connections, queue: str
) -> None:
    consumer = connections()
    handle = consumer.open(queue, IN)
    started = threading.Event()
    producer = _put_later(connections, queue, b"late", started)
    started.set()
    got = consumer.get(handle, wait=10.0)
    assert got is not None and got[1] == b"late"
    producer.join(5)


def test_get_with_wait_under_syncpoint_sees_a_commit_from_another_thread(
    connections, queue: str
) -> None:
    consumer, producer = connections(), connections()
    handle = consumer.open(queue, IN)

    def run() -> None:
        time.sleep(0.2)
        producer.put(queue, MQMD(), b"committed later", syncpoint=True)
        time.sleep(0.1)
        producer.commit()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    got = consumer.get(handle, wait=10.0, syncpoint=True)
    thread.join(5)
    assert got is not None and got[1] == b"committed later"
    consumer.commit()


def test_get_wait_times_out_with_none(conn: Connection, queue: str) -> None:
    handle = conn.open(queue, IN)
    assert conn.get(handle, wait=0.2) is None
    assert conn.get(handle, wait=0) is None


def test_get_wait_none_waits_without_limit(connections, queue: str) -> None:
    consumer = connections()
    handle = consumer.open(queue, IN)
    result: list[object] = []
    waiter = threading.Thread(
        target=lambda: result.append(consumer.get(handle, wait=None)), daemon=True
    )
    waiter.start()
    waiter.join(0.4)
    assert waiter.is_alive() and not result  # still waiting, no timeout
    connections().put(queue, MQMD(), b"finally")
    waiter.join(10)
    assert not waiter.is_alive()
    assert result and result[0] is not None and result[0][1] == b"finally"


# --------------------------------------------------------------------------- browse


def test_browse_first_and_next_do_not_remove(conn: Connection, queue: str) -> None:
    for body in (b"b1", b"b2", b"b3"):
        conn.put(queue, MQMD(), body)
    handle = conn.open(queue, BROWSE | IN)
    seen = [conn.get(handle, browse=Browse.FIRST)[1]]
    while (got := conn.get(handle, browse=Browse.NEXT)) is not None:
        seen.append(got[1])
    assert seen == [b"b1", b"b2", b"b3"]
    assert depth(conn, queue) == 3
    # browse first starts again from the beginning
    assert conn.get(handle, browse=Browse.FIRST)[1] == b"b1"
    assert conn.get(handle, browse=Browse.NEXT)[1] == b"b2"
    # a destructive get still sees every message
    assert [conn.get(handle)[1] for _ in range(3)] == [b"b1", b"b2", b"b3"]


def test_browse_next_without_first_starts_at_the_beginning(conn: Connection, queue: str) -> None:
    conn.put(queue, MQMD(), b"only")
    handle = conn.open(queue, BROWSE)
    assert conn.get(handle, browse=Browse.NEXT)[1] == b"only"
    assert conn.get(handle, browse=Browse.NEXT) is None


# An ActiveMQ browser also sees messages another consumer holds in an open transaction.
@pytest.mark.requires("browse_skips_locked")
def test_browse_returns_backout_count_and_skips_locked_messages(connections, queue: str) -> None:
    holder, browser = connections(), connections()
    for body in (b"x", b"y"):
        holder.put(queue, MQMD(), body)
    hin = holder.open(queue, IN)
    holder.get(hin, syncpoint=True)  # x locked in holder's unit of work
    hb = browser.open(queue, BROWSE)
    assert browser.get(hb, browse=Browse.FIRST)[1] == b"y"
    holder.backout()
    md, data = browser.get(hb, browse=Browse.FIRST)
    assert (data, md.BackoutCount) == (b"x", 1)


def test_browse_next_returns_a_message_that_arrived_after_the_cursor_message_was_got(
    connections, queue: str
) -> None:
    browser, getter = connections(), connections()
    browser.put(queue, MQMD(), b"A")
    hb = browser.open(queue, BROWSE)
    assert browser.get(hb, browse=Browse.FIRST)[1] == b"A"
    assert getter.get(getter.open(queue, IN))[1] == b"A"  # the message under the cursor goes
    getter.put(queue, MQMD(), b"B")
    getter.put(queue, MQMD(), b"C")
    assert browser.get(hb, browse=Browse.NEXT)[1] == b"B"
    assert browser.get(hb, browse=Browse.NEXT)[1] == b"C"


def test_browse_sees_messages_put_later(connections, queue: str) -> None:
    conn = connections()
    handle = conn.open(queue, BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is None
    connections().put(queue, MQMD(), b"arrived")
    assert conn.get(handle, browse=Browse.FIRST, wait=5)[1] == b"arrived"


# --------------------------------------------------------------------------- matching


def test_get_matching_msg_id(conn: Connection, queue: str) -> None:
    ids = [conn.put(queue, MQMD(), f"m{i}".encode()).MsgId for i in range(3)]
    handle = conn.open(queue, IN | BROWSE)
    assert conn.get(handle, msg_id=ids[1], browse=Browse.FIRST)[1] == b"m1"
    md, data = conn.get(handle, msg_id=ids[1])
    assert (md.MsgId, data) == (ids[1], b"m1")
    assert conn.get(handle, msg_id=ids[1]) is None
    assert [conn.get(handle)[1] for _ in range(2)] == [b"m0", b"m2"]


def test_get_matching_correl_id(conn: Connection, queue: str) -> None:
    for body, correl in ((b"a1", "A"), (b"b1", "B"), (b"a2", "A"), (b"none", None)):
        md = MQMD() if correl is None else MQMD(CorrelId=ident(correl))
        conn.put(queue, md, body)
    handle = conn.open(queue, IN)
    assert conn.get(handle, correl_id=ident("A"))[1] == b"a1"
    assert conn.get(handle, correl_id=ident("A"))[1] == b"a2"
    assert conn.get(handle, correl_id=ident("A")) is None
    assert conn.get(handle, correl_id=ident("C"), wait=0.1) is None
    assert conn.get(handle, correl_id=ident("B"))[1] == b"b1"
    assert conn.get(handle)[1] == b"none"


def test_get_matching_msg_id_and_correl_id(conn: Connection, queue: str) -> None:
    m1 = conn.put(queue, MQMD(CorrelId=ident("C1")), b"1").MsgId
    m2 = conn.put(queue, MQMD(CorrelId=ident("C2")), b"2").MsgId
    handle = conn.open(queue, IN)
    assert conn.get(handle, msg_id=m1, correl_id=ident("C2")) is None
    assert conn.get(handle, msg_id=m2, correl_id=ident("C2"))[1] == b"2"
    assert conn.get(handle, msg_id=m1, correl_id=ident("C1"))[1] == b"1"


def test_match_on_a_short_id_pads_with_nulls(conn: Connection, queue: str) -> None:
    conn.put(queue, MQMD(CorrelId=ident("SHORT")), b"padded")
    handle = conn.open(queue, IN)
    assert conn.get(handle, correl_id=b"SHORT")[1] == b"padded"


# --------------------------------------------------------------------------- MsgId and context


def test_msg_id_generated_unique_when_not_given(conn: Connection, queue: str) -> None:
    put_ids = [conn.put(queue, MQMD(), b"x").MsgId for _ in range(50)]
    assert C.MQMI_NONE not in put_ids
    assert len(set(put_ids)) == 50
    handle = conn.open(queue, IN)
    got_ids = [conn.get(handle)[0].MsgId for _ in range(50)]
    assert got_ids == put_ids


def test_msg_id_unique_across_connections(connections, queue: str) -> None:
    ids = {connections().put(queue, MQMD(), b"x").MsgId for _ in range(5)}
    assert len(ids) == 5


def test_msg_id_kept_when_given_with_new_msg_id_false(conn: Connection, queue: str) -> None:
    mine = ident("MY.OWN.MSGID")
    put_md = conn.put(queue, MQMD(MsgId=mine), b"x", new_msg_id=False)
    assert put_md.MsgId == mine
    handle = conn.open(queue, IN)
    assert conn.get(handle)[0].MsgId == mine


def test_msg_id_replaced_when_new_msg_id_asked(conn: Connection, queue: str) -> None:
    mine = ident("MY.OWN.MSGID")
    put_md = conn.put(queue, MQMD(MsgId=mine), b"x")  # MQPMO_NEW_MSG_ID is the default
    assert put_md.MsgId not in (mine, C.MQMI_NONE)
    handle = conn.open(queue, IN)
    assert conn.get(handle)[0].MsgId == put_md.MsgId


def test_msg_id_generated_when_none_given_even_with_new_msg_id_false(
    conn: Connection, queue: str
) -> None:
    put_md = conn.put(queue, MQMD(), b"x", new_msg_id=False)
    assert put_md.MsgId != C.MQMI_NONE


def test_put_date_time_and_appl_name_are_set(connections, queue: str) -> None:
    conn = connections("conformance")
    before = time.gmtime(time.time() - 1)
    conn.put(queue, MQMD(PutApplName="IGNORED", PutDate="19990101"), b"x")
    after = time.gmtime(time.time() + 1)
    md, _ = conn.get(conn.open(queue, IN))
    assert md.PutApplName == "conformance"
    assert md.PutDate in {time.strftime("%Y%m%d", t) for t in (before, after)}
    assert len(md.PutTime) == 8 and md.PutTime.isdigit()  # HHMMSSTH
    stamp = time.strftime("%H%M%S", before), time.strftime("%H%M%S", after)
    if stamp[0] <= stamp[1]:  # not across midnight
        assert stamp[0] <= md.PutTime[:6] <= stamp[1]


def test_put_appl_name_defaults_to_something(conn: Connection, queue: str) -> None:
    conn.put(queue, MQMD(), b"x")
    md, _ = conn.get(conn.open(queue, IN))
    assert md.PutApplName.strip()
    assert md.PutDate.strip() and md.PutTime.strip()


def test_pass_all_context_keeps_the_given_context(conn: Connection, queue: str) -> None:
    original = MQMD(
        PutApplName="original.app",
        PutDate="20200102",
        PutTime="03040506",
        UserIdentifier="someone",
        ApplIdentityData="ident",
        PutApplType=C.MQAT_JAVA,
    )
    conn.put(queue, original, b"moved", context=Context.PASS_ALL)
    md, _ = conn.get(conn.open(queue, IN))
    assert (md.PutApplName, md.PutDate, md.PutTime) == ("original.app", "20200102", "03040506")
    assert (md.UserIdentifier, md.ApplIdentityData) == ("someone", "ident")
    assert md.PutApplType == C.MQAT_JAVA


def test_pass_all_context_needs_the_open_option(conn: Connection, queue: str, broker) -> None:
    from mqjms.mq import MQError

    handle = conn.open(queue, C.MQOO_OUTPUT)
    with pytest.raises(MQError) as err:
        conn.put(handle, MQMD(), b"x", context=Context.PASS_ALL)
    assert err.value.reason == C.MQRC_NOT_OPEN_FOR_PASS_ALL  # 2093
    if broker.name.startswith("mq-"):
        return  # IBM MQ passes the context of a message got, never an MQMD's (docs/ibmmq.md)
    passing = conn.open(queue, C.MQOO_OUTPUT | C.MQOO_PASS_ALL_CONTEXT)
    conn.put(passing, MQMD(PutApplName="kept"), b"x", context=Context.PASS_ALL)
    assert conn.get(conn.open(queue, IN))[0].PutApplName == "kept"
