"""Retained publications on the embedded queue manager (MQPMO_RETAIN, MQSUBRQ, CLEAR
TOPICSTR), through the transport contract's RetainsPublications.

IBM MQ, MQPMO_RETAIN: "The publication being sent is to be retained by the queue manager.
This retention allows a subscriber to request a copy of this publication after the time it
was published, by using the MQSUBRQ call. It also allows a publication to be sent to
applications which make their subscription after the time this publication was made
(unless they choose not to be sent it by using the option MQSO_NEW_PUBLICATIONS_ONLY)."
A retained publication sent to a subscriber carries the MQIsRetained property (mqps Ret).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.mq.rfh2 import parse_chain
from mqjms.qmgr import QueueManager
from mqjms.semantics import Capability
from mqjms.semantics.pubsub import RetainsPublications, Subscription, SubscriptionDescriptor
from mqjms.transport import Connection, connect, embedded

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE


def sd(topic: str, options: int = MANAGED, **fields: object) -> SubscriptionDescriptor:
    return SubscriptionDescriptor(options=options, object_string=topic, **fields)


def retains(conn: Connection) -> RetainsPublications:
    assert Capability.RETAINED_PUBLICATIONS in conn.capabilities
    return conn  # type: ignore[return-value]


def publish(
    conn: Connection,
    topic: str,
    body: bytes,
    *,
    retain: bool = True,
    syncpoint: bool = False,
    **md: object,
) -> MQMD:
    handle = conn.open_topic(topic, C.MQOO_OUTPUT)
    try:
        message = MQMD(Format=C.MQFMT_STRING, **md)
        if retain:
            return retains(conn).publish_retained(handle, message, body, syncpoint=syncpoint)
        return conn.put(handle, message, body, syncpoint=syncpoint)
    finally:
        conn.close(handle)


def received(conn: Connection, sub: Subscription) -> list[tuple[bytes, bool]]:
    """(body, marked MQIsRetained) of every message on the subscription's queue."""
    out = []
    while (got := conn.get(sub.handle)) is not None:
        md, data = got
        if md.Format.strip() == C.MQFMT_RF_HEADER_2:
            chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
            mqps = next((f for f in chain.folders if f.startswith("<mqps>")), "")
            out.append((chain.body, "<Ret dt='boolean'>1</Ret>" in mqps))
        else:
            out.append((data, False))
    return out


def test_a_new_subscription_is_sent_the_retained_publication_marked_retained(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    live = conn.subscribe(sd("prices/eu"))
    publish(publisher, "prices/eu", b"1.08")
    assert received(conn, live) == [(b"1.08", False)]  # the live copy is not marked
    later = conn.subscribe(sd("prices/eu"))
    assert received(conn, later) == [(b"1.08", True)]
    assert received(conn, live) == []  # a subscription made before is sent nothing more


def test_it_is_kept_when_no_subscription_matched_and_a_new_one_replaces_it(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "prices/us", b"first")
    assert publisher.last_warning is not None
    assert publisher.last_warning.reason == C.MQRC_NO_SUBS_MATCHED  # as before
    publish(publisher, "prices/us", b"second")
    publish(publisher, "prices/us", b"not retained", retain=False)  # leaves it as it is
    sub = conn.subscribe(sd("prices/us"))
    assert received(conn, sub) == [(b"second", True)]


def test_wildcard_subscriptions_get_every_matching_one_and_new_only_gets_none(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    for topic in ("fx/eu/EURUSD", "fx/eu/EURGBP", "fx/us/USDJPY", "fxother"):
        publish(publisher, topic, topic.encode())
    every = conn.subscribe(sd("fx/#"))
    assert sorted(body for body, _ in received(conn, every)) == [
        b"fx/eu/EURGBP",
        b"fx/eu/EURUSD",
        b"fx/us/USDJPY",
    ]
    one_level = conn.subscribe(sd("fx/+/EURUSD"))
    assert received(conn, one_level) == [(b"fx/eu/EURUSD", True)]
    new_only = conn.subscribe(sd("fx/#", MANAGED | C.MQSO_NEW_PUBLICATIONS_ONLY))
    assert received(conn, new_only) == []


def test_a_resumed_subscription_is_not_sent_them_again(conns: Callable[[], Connection]) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "state/a", b"on", Persistence=C.MQPER_PERSISTENT)
    sub = conn.subscribe(sd("state/a", DURABLE, sub_name="watcher"))
    assert received(conn, sub) == [(b"on", True)]
    conn.close_subscription(sub)
    again = conn.subscribe(sd("state/a", DURABLE, sub_name="watcher"))
    assert not again.created
    assert received(conn, again) == []
    conn.close_subscription(again, remove=True)


def test_the_copy_follows_the_rules_of_a_live_one(conns: Callable[[], Connection]) -> None:
    conn, publisher = conns(), conns()
    published = publish(publisher, "rules/x", b"p", Priority=7, Persistence=C.MQPER_PERSISTENT)
    sub = conn.subscribe(sd("rules/x", pub_priority=2))
    got = conn.get(sub.handle)
    assert got is not None
    md, _ = got
    assert md.CorrelId == sub.correl_id != C.MQCI_NONE  # the subscription's CorrelId
    assert md.MsgId != published.MsgId  # a MsgId of its own
    assert md.Priority == 2  # PubPriority
    assert md.Persistence == C.MQPER_PERSISTENT


def test_a_jms_subscribers_copy_has_its_topic_string_and_the_mark(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "jms/t", b"body")
    sub = conn.subscribe(sd("jms/t", properties=True))
    got = conn.get(sub.handle)
    assert got is not None
    md, data = got
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert chain.folders == ["<mqps><Top>jms/t</Top><Ret dt='boolean'>1</Ret></mqps>"]
    assert chain.body == b"body"


def test_request_publications_sends_them_again_or_fails_2437(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    sub = conn.subscribe(sd("req/#", MANAGED | C.MQSO_NEW_PUBLICATIONS_ONLY))
    with pytest.raises(MQError) as failure:
        retains(conn).request_publications(sub)
    assert failure.value.reason == C.MQRC_NO_RETAINED_MSG
    publish(publisher, "req/a", b"a")
    publish(publisher, "req/b", b"b")
    assert [body for body, _ in received(conn, sub)] == [b"a", b"b"]  # live, unmarked
    assert retains(conn).request_publications(sub) == 2
    assert received(conn, sub) == [(b"a", True), (b"b", True)]


def test_under_syncpoint_it_changes_at_commit_and_a_backout_keeps_the_old_one(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "uow/t", b"old")
    publish(publisher, "uow/t", b"backed out", syncpoint=True)
    assert received(conn, conn.subscribe(sd("uow/t"))) == [(b"old", True)]  # not yet
    publisher.backout()
    assert received(conn, conn.subscribe(sd("uow/t"))) == [(b"old", True)]
    publish(publisher, "uow/t", b"committed", syncpoint=True)
    publisher.commit()
    assert received(conn, conn.subscribe(sd("uow/t"))) == [(b"committed", True)]


def test_a_connection_that_ends_without_commit_leaves_the_old_one(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "end/t", b"old")
    publish(publisher, "end/t", b"in flight", syncpoint=True)
    publisher.disconnect(commit=False)
    assert received(conn, conn.subscribe(sd("end/t"))) == [(b"old", True)]


def test_persistent_ones_survive_a_restart_and_non_persistent_ones_do_not(
    qm: QueueManager, embedded_url: str, conns: Callable[[], Connection]
) -> None:
    publisher = conns()
    publish(publisher, "restart/kept", b"kept", Persistence=C.MQPER_PERSISTENT)
    publish(publisher, "restart/lost", b"lost", Persistence=C.MQPER_NOT_PERSISTENT)
    embedded.close_all()
    qm = embedded.queue_manager(embedded_url)
    qm.restart()
    conn = connect(embedded_url)
    try:
        assert received(conn, conn.subscribe(sd("restart/#"))) == [(b"kept", True)]
    finally:
        conn.disconnect()


def test_clear_topicstr_removes_it_and_tpstatus_shows_it(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    conn, publisher = conns(), conns()
    publish(publisher, "clear/me", b"x")
    [status] = qm.topic_status("clear/me")
    assert status["RETAINED"] == "YES"
    assert [n["TOPICSTR"] for n in qm.topic_status("clear/#")] == ["clear/me"]
    [result] = qm.mqsc("CLEAR TOPICSTR('clear/me') CLRTYPE(RETAINED)")
    assert result.ok, result.error
    [status] = qm.topic_status("clear/me")
    assert status["RETAINED"] == "NO"
    assert received(conn, conn.subscribe(sd("clear/me"))) == []
    [again] = qm.mqsc("CLEAR TOPICSTR('clear/me') CLRTYPE(RETAINED)")  # none: no error
    assert again.ok
    [shown] = qm.mqsc("DISPLAY TPSTATUS('clear/me') RETAINED")
    assert shown.ok and shown.objects[0]["RETAINED"] == "NO"
    [missing] = qm.mqsc("CLEAR TOPICSTR('clear/me')")
    assert not missing.ok  # CLRTYPE(RETAINED) is required


def test_a_retained_one_no_queue_can_take_fails_the_subscription_2526(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    qm.define_queue("QLOCAL", "FULL.DEST", {"PUT": "DISABLED"})
    qm.alter_qmgr({"DEADQ": ""})
    conn, publisher = conns(), conns()
    publish(publisher, "refused/t", b"x")
    dest = conn.open("FULL.DEST", C.MQOO_OUTPUT)
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("refused/t", C.MQSO_CREATE), dest)
    assert failure.value.reason == C.MQRC_RETAINED_NOT_DELIVERED
    assert qm.display_subscriptions("*") == []  # not made


def test_a_queue_manager_made_before_retained_publications_gains_the_table(
    tmp_path: Path,
) -> None:
    with QueueManager(tmp_path / "old") as qm:
        conn = qm.connect()
        conn.subscribe(sd("kept/sub", DURABLE, sub_name="kept"))
        conn.disconnect()
    db = sqlite3.connect(tmp_path / "old" / "qmgr.db")
    with db:  # as a version without retained publications left it
        db.execute("DROP TABLE retained")
    db.close()
    with QueueManager(tmp_path / "old") as qm:
        assert [s["SUBNAME"] for s in qm.display_subscriptions("*")] == ["kept"]
        conn = qm.connect()
        try:
            publish(conn, "t/old", b"after the upgrade")
            assert received(conn, conn.subscribe(sd("t/old"))) == [(b"after the upgrade", True)]
        finally:
            conn.disconnect()


def test_an_expired_one_is_not_sent_and_a_copy_carries_the_expiry_left(
    conns: Callable[[], Connection], qm: QueueManager
) -> None:
    # IBM MQ: the MQMD's Expiry is the retained publication's expiry interval
    conn, publisher = conns(), conns()
    publish(publisher, "exp/short", b"short-lived", Expiry=3)  # 0.3 s
    publish(publisher, "exp/long", b"long-lived", Expiry=36_000)  # an hour
    time.sleep(0.6)
    sub = conn.subscribe(sd("exp/#"))
    got = []
    while (message := conn.get(sub.handle)) is not None:
        got.append(message[0].Expiry)
    assert len(got) == 1 and 35_000 < got[0] <= 36_000  # the long one, with what is left
    [status] = qm.topic_status("exp/short")
    assert status["RETAINED"] == "NO"


def test_request_publications_of_a_copy_dead_lettered_is_no_2437(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    # the retained publication is there: its copy went to the dead-letter queue
    qm.define_queue("QLOCAL", "SUBRQ.DEST")
    qm.define_queue("QLOCAL", "SUBRQ.DLQ")
    qm.alter_qmgr({"DEADQ": "SUBRQ.DLQ"})
    conn, publisher = conns(), conns()
    dest = conn.open("SUBRQ.DEST", C.MQOO_OUTPUT)
    sub = conn.subscribe(sd("subrq/t", C.MQSO_CREATE | C.MQSO_NEW_PUBLICATIONS_ONLY), dest)
    publish(publisher, "subrq/t", b"kept", retain=True)  # delivered live
    qm.alter_queue("SUBRQ.DEST", {"PUT": "DISABLED"})
    assert retains(conn).request_publications(sub) == 0  # NumPubs: none reached the queue
    assert qm.queue_depth("SUBRQ.DLQ") == 1
