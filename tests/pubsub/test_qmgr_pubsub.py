"""Publish/subscribe on the embedded queue manager itself: TOPIC objects, managed queues,
the lives of durable and non-durable subscriptions, and what a publication is.

The contract-level behaviour every transport shares is in
tests/conformance/test_contract_pubsub.py; these tests look at the queue manager's own
objects (DISPLAY SUB, queue names, restarts, a subscriber process killed).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.mq.dlh import parse_dlh
from mqjms.qmgr import RECOVERY_INTERVAL, QueueManager
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor
from mqjms.transport import Connection, connect, embedded
from tests.qmgr.qmgr_child import Child

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED
DURABLE = MANAGED | C.MQSO_RESUME | C.MQSO_DURABLE


def sd(topic: str, options: int = MANAGED, **fields: object) -> SubscriptionDescriptor:
    return SubscriptionDescriptor(options=options, object_string=topic, **fields)


def publish(
    conn: Connection, topic: str, body: bytes, *, syncpoint: bool = False, **md: object
) -> MQMD:
    handle = conn.open_topic(topic, C.MQOO_OUTPUT)
    try:
        return conn.put(handle, MQMD(Format=C.MQFMT_STRING, **md), body, syncpoint=syncpoint)
    finally:
        conn.close(handle)


def bodies(conn: Connection, sub: Subscription) -> list[bytes]:
    out = []
    while (got := conn.get(sub.handle)) is not None:
        out.append(got[1])
    return out


def test_managed_queues_are_named_as_mq_names_them_and_made_from_the_model(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    # seed 002: the managed queue is created from the model queue of the topic (MDURMDL for
    # durable subscriptions, default SYSTEM.DURABLE.MODEL.QUEUE; MNDURMDL for non-durable,
    # default SYSTEM.NDURABLE.MODEL.QUEUE) and inherits BOTHRESH and BOQNAME from it
    qm.alter_queue("SYSTEM.DURABLE.MODEL.QUEUE", {"BOTHRESH": 4, "BOQNAME": "D.BO"})
    qm.alter_queue("SYSTEM.NDURABLE.MODEL.QUEUE", {"BOTHRESH": 6, "BOQNAME": "N.BO"})
    conn = conns()
    durable = conn.subscribe(sd("a/b", DURABLE, sub_name="keep"))
    transient = conn.subscribe(sd("a/b"))
    assert durable.handle.resolved_name.startswith("SYSTEM.MANAGED.DURABLE.")
    assert transient.handle.resolved_name.startswith("SYSTEM.MANAGED.NDURABLE.")
    [row] = qm.display_queues(durable.handle.resolved_name, "QLOCAL", ["BOTHRESH", "BOQNAME"])
    assert (row["BOTHRESH"], row["BOQNAME"]) == (4, "D.BO")
    [row] = qm.display_queues(transient.handle.resolved_name, "QLOCAL", ["BOTHRESH", "BOQNAME"])
    assert (row["BOTHRESH"], row["BOQNAME"]) == (6, "N.BO")
    # inherited at creation: a later change of the model does not reach the managed queue
    qm.alter_queue("SYSTEM.DURABLE.MODEL.QUEUE", {"BOTHRESH": 9})
    [row] = qm.display_queues(durable.handle.resolved_name, "QLOCAL", ["BOTHRESH"])
    assert row["BOTHRESH"] == 4
    types = conn.inquire(durable.handle.resolved_name, [C.MQIA_DEFINITION_TYPE])
    assert types[C.MQIA_DEFINITION_TYPE] == C.MQQDT_PERMANENT_DYNAMIC
    types = conn.inquire(transient.handle.resolved_name, [C.MQIA_DEFINITION_TYPE])
    assert types[C.MQIA_DEFINITION_TYPE] == C.MQQDT_TEMPORARY_DYNAMIC


def test_the_topics_mdurmdl_and_mnddurmdl_choose_the_model_inherited_asparent(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    # seed 002: the model queue is the one associated with the Topic object subscribed to
    qm.define_queue("QMODEL", "ORDERS.DMODEL", {"BOTHRESH": 2, "BOQNAME": "ORDERS.BO"})
    qm.define_queue("QMODEL", "ORDERS.NMODEL", {"BOTHRESH": 3, "BOQNAME": "ORDERS.NBO"})
    qm.define_topic(
        "ORDERS", {"TOPICSTR": "orders", "MDURMDL": "ORDERS.DMODEL", "MNDURMDL": "ORDERS.NMODEL"}
    )
    qm.define_topic("ORDERS.EU", {"TOPICSTR": "orders/eu"})  # ASPARENT: ORDERS's models
    conn = conns()
    durable = conn.subscribe(sd("orders/eu/#", DURABLE, sub_name="d"))
    transient = conn.subscribe(sd("eu", object_name="ORDERS"))
    assert transient.topic_string == "orders/eu"
    assert conn.inquire(durable.handle.resolved_name, [C.MQIA_BACKOUT_THRESHOLD]) == {
        C.MQIA_BACKOUT_THRESHOLD: 2
    }
    assert conn.inquire(transient.handle.resolved_name, [C.MQCA_BACKOUT_REQ_Q_NAME]) == {
        C.MQCA_BACKOUT_REQ_Q_NAME: "ORDERS.NBO"
    }
    # a topic object that does not exist, or a model that is not one: clear errors
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("x", object_name="NO.SUCH.TOPIC"))
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    qm.define_topic("BROKEN", {"TOPICSTR": "broken", "MNDURMDL": "NOT.A.MODEL"})
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("broken"))
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert "NOT.A.MODEL" in failure.value.detail and "MNDURMDL" in failure.value.detail


def test_a_non_durable_subscription_ends_with_its_subscriber_and_takes_its_queue(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    conn, publisher = conns(), conns()
    sub = conn.subscribe(sd("t/x"))
    publish(publisher, "t/x", b"one")
    managed = sub.handle.resolved_name
    assert qm.queue_depth(managed) == 1
    conn.close_subscription(sub)
    assert managed not in qm.queue_names()
    assert qm.display_subscriptions("*") == []
    # ... and when the connection ends without closing it
    other = conns()
    sub = other.subscribe(sd("t/x"))
    publish(publisher, "t/x", b"two")
    other.disconnect()
    assert sub.handle.resolved_name not in qm.queue_names()
    assert qm.display_subscriptions("*") == []


@pytest.mark.slow
def test_a_non_durable_subscription_ends_when_its_process_dies(
    embedded_url: str, tmp_path: Path
) -> None:
    qm = embedded.queue_manager(embedded_url)
    child = Child(tmp_path / "child.log", "subscribe", embedded_url, "t/dies")
    try:
        managed = child.expect("HELD")
        assert managed in qm.queue_names() and len(qm.display_subscriptions("*")) == 1
        publish(connect(embedded_url), "t/dies", b"for the dead")
        child.kill()
        deadline = time.monotonic() + RECOVERY_INTERVAL + 5
        while qm.display_subscriptions("*") and time.monotonic() < deadline:
            connect(embedded_url).disconnect()  # the next user notices the dead connection
            time.sleep(0.1)
        assert qm.display_subscriptions("*") == []
        assert managed not in qm.queue_names()
    finally:
        child.kill()


def test_a_durable_subscription_keeps_publications_while_nobody_consumes_and_over_a_restart(
    qm: QueueManager, embedded_url: str, conns: Callable[[], Connection]
) -> None:
    conn, publisher = conns(), conns()
    sub = conn.subscribe(sd("t/d", DURABLE, sub_name="keeper"))
    conn.close_subscription(sub)
    publish(publisher, "t/d", b"while away", Persistence=C.MQPER_PERSISTENT)
    publish(publisher, "t/d", b"lost at restart", Persistence=C.MQPER_NOT_PERSISTENT)
    embedded.close_all()
    qm = embedded.queue_manager(embedded_url)
    qm.restart()
    conn = connect(embedded_url)
    try:
        again = conn.subscribe(sd("t/d", DURABLE, sub_name="keeper"))
        assert not again.created and again.handle.resolved_name == sub.handle.resolved_name
        assert bodies(conn, again) == [b"while away"]  # a non-persistent one ends at restart
        conn.close_subscription(again, remove=True)
        assert again.handle.resolved_name not in qm.queue_names()
    finally:
        conn.disconnect()


def test_a_restart_ends_every_non_durable_subscription(qm: QueueManager, embedded_url: str) -> None:
    conn = connect(embedded_url)
    sub = conn.subscribe(sd("t/r"))
    embedded.close_all()
    qm = embedded.queue_manager(embedded_url)
    qm.restart()
    assert qm.display_subscriptions("*") == []
    assert sub.handle.resolved_name not in qm.queue_names()


def test_a_queue_manager_made_before_pubsub_gains_its_tables_at_open(tmp_path: Path) -> None:
    with QueueManager(tmp_path / "old") as qm:
        qm.define_queue("QLOCAL", "KEPT.Q")
    db = sqlite3.connect(tmp_path / "old" / "qmgr.db")
    with db:  # as a version without publish/subscribe left it
        for table in ("topics", "subscriptions", "subscribers"):
            db.execute(f"DROP TABLE {table}")
    db.close()
    with QueueManager(tmp_path / "old") as qm:
        assert qm.display_topics("SYSTEM.BASE.TOPIC")[0]["TOPICSTR"] == ""
        assert "KEPT.Q" in qm.queue_names()
        conn = qm.connect()
        try:
            sub = conn.subscribe(sd("t/old"))
            publish(conn, "t/old", b"after the upgrade")
            assert bodies(conn, sub) == [b"after the upgrade"]
        finally:
            conn.disconnect()


def test_each_copy_has_its_own_msgid_and_the_subscriptions_correlid(
    conns: Callable[[], Connection],
) -> None:
    conn, publisher = conns(), conns()
    first = conn.subscribe(sd("t/c"))
    second = conn.subscribe(sd("t/+"))
    own = conn.subscribe(sd("t/#", MANAGED | C.MQSO_SET_CORREL_ID, sub_correl_id=C.MQCI_NONE))
    published = publish(publisher, "t/c", b"x", CorrelId=b"mine".ljust(24, b"\0"))
    got = [conn.get(s.handle) for s in (first, second, own)]
    assert all(g is not None for g in got)
    mds = [g[0] for g in got if g is not None]
    assert len({md.MsgId for md in mds} | {published.MsgId}) == 4
    assert mds[0].CorrelId != mds[1].CorrelId  # each subscription's own (DESTCORL)
    assert mds[2].CorrelId == b"mine".ljust(24, b"\0")  # MQSO_SET_CORREL_ID + MQCI_NONE


def test_persistence_and_priority_as_topic_default_come_from_defpsist_and_defprty(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    qm.define_topic("PERSIST", {"TOPICSTR": "p", "DEFPSIST": "YES", "DEFPRTY": 7})
    conn, publisher = conns(), conns()
    sub = conn.subscribe(sd("p/#"))
    publish(publisher, "p/inherits", b"default")  # MQPER_PERSISTENCE_AS_TOPIC_DEF
    publish(publisher, "p/given", b"given", Persistence=C.MQPER_NOT_PERSISTENT, Priority=2)
    publish(publisher, "other", b"base")
    first, second = conn.get(sub.handle), conn.get(sub.handle)
    assert first is not None and second is not None
    by_body = {first[1]: first[0], second[1]: second[0]}
    assert by_body[b"default"].Persistence == C.MQPER_PERSISTENT
    assert by_body[b"default"].Priority == 7
    assert by_body[b"given"].Persistence == C.MQPER_NOT_PERSISTENT
    assert by_body[b"given"].Priority == 2


def test_pub_and_sub_disabled_and_dursub_no_are_enforced(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    qm.define_topic("QUIET", {"TOPICSTR": "quiet", "PUB": "DISABLED"})
    qm.define_topic("CLOSED", {"TOPICSTR": "closed", "SUB": "DISABLED", "DURSUB": "NO"})
    conn = conns()
    with pytest.raises(MQError) as failure:
        publish(conn, "quiet/inherits", b"x")
    assert failure.value.reason == C.MQRC_PUT_INHIBITED
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("closed/x"))
    assert failure.value.reason == C.MQRC_SUB_INHIBITED
    qm.alter_topic("CLOSED", {"SUB": "ENABLED"})
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("closed/x", DURABLE, sub_name="d"))
    assert failure.value.reason == C.MQRC_DURABILITY_NOT_ALLOWED
    conn.subscribe(sd("closed/x"))


def test_a_copy_its_queue_refuses_is_dead_lettered(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    qm.define_queue("QMODEL", "TINY.MODEL", {"MAXDEPTH": 1})
    qm.define_topic("TINY", {"TOPICSTR": "tiny", "MNDURMDL": "TINY.MODEL"})
    conn, publisher = conns(), conns()
    sub = conn.subscribe(sd("tiny"))
    publish(publisher, "tiny", b"fits")
    before = qm.queue_depth("SYSTEM.DEAD.LETTER.QUEUE")
    publish(publisher, "tiny", b"does not")  # the queue is full: dead-lettered, MQRC_Q_FULL
    assert qm.queue_depth(sub.handle.resolved_name) == 1
    assert qm.queue_depth("SYSTEM.DEAD.LETTER.QUEUE") == before + 1
    dlq = publisher.open("SYSTEM.DEAD.LETTER.QUEUE", C.MQOO_INPUT_SHARED)
    got = publisher.get(dlq)
    assert got is not None
    dlh, _rest = parse_dlh(got[1], got[0].Encoding)
    assert dlh.Reason == C.MQRC_Q_FULL and dlh.DestQName == sub.handle.resolved_name


def test_a_persistent_publication_no_durable_subscription_can_take_fails_whole(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    # PMSGDLV(ALLDUR): nothing is delivered when a durable subscriber cannot have it
    qm.define_queue("QMODEL", "SHUT.MODEL", {"PUT": "DISABLED", "DEFTYPE": "PERMDYN"})
    qm.define_topic("SHUT", {"TOPICSTR": "shut", "MDURMDL": "SHUT.MODEL"})
    qm.alter_qmgr({"DEADQ": ""})
    conn, publisher = conns(), conns()
    other = conn.subscribe(sd("shut"))
    conn.subscribe(sd("shut", DURABLE, sub_name="closed"))
    with pytest.raises(MQError) as failure:
        publish(publisher, "shut", b"p", Persistence=C.MQPER_PERSISTENT)
    assert failure.value.reason == C.MQRC_PUBLICATION_FAILURE
    assert qm.queue_depth(other.handle.resolved_name) == 0  # none delivered
    publish(publisher, "shut", b"np", Persistence=C.MQPER_NOT_PERSISTENT)  # skipped, delivered
    assert qm.queue_depth(other.handle.resolved_name) == 1


def test_a_provided_destination_receives_publications(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    qm.define_queue("QLOCAL", "MY.SUBQ")
    conn, publisher = conns(), conns()
    queue = conn.open("MY.SUBQ", C.MQOO_INPUT_SHARED)
    sub = conn.subscribe(sd("t/p", C.MQSO_CREATE), queue)
    assert sub.handle is queue and not sub.managed
    publish(publisher, "t/p", b"to my queue")
    assert bodies(conn, sub) == [b"to my queue"]
    conn.close_subscription(sub)
    assert "MY.SUBQ" in qm.queue_names()  # a provided queue is the application's
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("t/p", C.MQSO_CREATE))
    assert failure.value.reason == C.MQRC_HOBJ_ERROR


def test_resume_alone_takes_the_subscription_as_it_was_made(
    qm: QueueManager, conns: Callable[[], Connection]
) -> None:
    # MQSO_RESUME without MQSO_CREATE or MQSO_ALTER asks for the subscription as it is:
    # its durability and destination class apply (IBM's pymqi/ibmmq tests resume
    # administrative subscriptions so), and a provided one still needs its queue
    conn, publisher = conns(), conns()
    made = conn.subscribe(sd("t/r", DURABLE, sub_name="managed"))
    conn.close_subscription(made)
    resumed = conn.subscribe(sd("", C.MQSO_RESUME, sub_name="managed"))
    assert resumed.durable and resumed.managed
    assert resumed.handle.resolved_name == made.handle.resolved_name
    conn.close_subscription(resumed, remove=True)
    qm.define_queue("QLOCAL", "MY.SUBQ")
    qm.define_subscription("provided", topic_string="t/r", dest="MY.SUBQ")
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd("", C.MQSO_RESUME, sub_name="provided"))
    assert failure.value.reason == C.MQRC_HOBJ_ERROR
    queue = conn.open("MY.SUBQ", C.MQOO_INPUT_SHARED)
    provided = conn.subscribe(sd("", C.MQSO_RESUME, sub_name="provided"), queue)  # not held
    assert provided.durable and not provided.managed and provided.handle is queue
    publish(publisher, "t/r", b"to MY.SUBQ")
    assert bodies(conn, provided) == [b"to MY.SUBQ"]
    conn.close_subscription(provided, remove=True)


def test_subscription_options_create_resume_and_in_use(conns: Callable[[], Connection]) -> None:
    one, two = conns(), conns()
    with pytest.raises(MQError) as failure:
        one.subscribe(sd("t", C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED, sub_name="s"))
    assert failure.value.reason == C.MQRC_NO_SUBSCRIPTION
    made = one.subscribe(sd("t", C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, sub_name="s"))
    with pytest.raises(MQError) as failure:
        two.subscribe(sd("t", C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED, sub_name="s"))
    assert failure.value.reason == C.MQRC_SUB_ALREADY_EXISTS
    with pytest.raises(MQError) as failure:
        two.subscribe(sd("t", DURABLE, sub_name="s"))
    assert failure.value.reason == C.MQRC_SUBSCRIPTION_IN_USE
    one.close_subscription(made)
    resumed = two.subscribe(sd("ignored/on/resume", DURABLE, sub_name="s"))
    assert resumed.topic_string == "t"
    with pytest.raises(MQError) as failure:
        one.subscribe(sd("t", MANAGED | C.MQSO_RESUME, sub_name="s"))
    assert failure.value.reason == C.MQRC_DURABILITY_NOT_ALTERABLE
    with pytest.raises(MQError) as failure:  # a durable subscription needs a name
        one.subscribe(sd("t", DURABLE))
    assert failure.value.reason == C.MQRC_SUB_NAME_ERROR


def test_opening_a_topic_is_for_output_only(conns: Callable[[], Connection]) -> None:
    conn = conns()
    with pytest.raises(MQError) as failure:
        conn.open_topic("t", C.MQOO_INPUT_SHARED)
    assert failure.value.reason == C.MQRC_OPTION_NOT_VALID_FOR_TYPE
    with pytest.raises(MQError) as failure:
        conn.open_topic("t/#", C.MQOO_OUTPUT)
    assert failure.value.reason == C.MQRC_TOPIC_STRING_ERROR


def test_a_topic_named_by_neither_field_is_2085_and_an_empty_topicstr_alone_2425(
    conns: Callable[[], Connection],
) -> None:
    # "If neither field has a value, the call fails with reason code
    # MQRC_UNKNOWN_OBJECT_NAME, or MQRC_TOPIC_STRING_ERROR if the full topic name is not
    # valid" (IBM MQ, Using topic strings); opening with neither succeeded
    conn = conns()
    for topic_string in ("", " "):
        with pytest.raises(MQError) as failure:
            conn.open_topic(topic_string, C.MQOO_OUTPUT)
        assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(MQError) as failure:
        conn.subscribe(sd(""))
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(MQError) as failure:  # its TOPICSTR is empty
        conn.open_topic("", C.MQOO_OUTPUT, topic="SYSTEM.BASE.TOPIC")
    assert failure.value.reason == C.MQRC_TOPIC_STRING_ERROR
    conn.open_topic("prices", C.MQOO_OUTPUT, topic="SYSTEM.BASE.TOPIC")  # ObjectString alone
