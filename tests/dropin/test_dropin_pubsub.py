"""Publish/subscribe through the drop-in, both flavours, every transport that declares it
(issue 14, issue 10): pymqi's and ibmmq's ``Topic`` (open, pub, sub) and ``Subscription``
(MQSUB from an SD, get, close with MQCO_KEEP_SUB / MQCO_REMOVE_SUB, durable resume), and
seed 002 on the managed queue for gets through the drop-in.
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

from mqjms.mq.rfh2 import parse_chain
from tests.support.mqenv import MQEnv

BOQ = "DEV.QUEUE.2"
_names = itertools.count(1)


@pytest.fixture
def topic(env: MQEnv) -> str:
    """A topic string of this test's own (a broker is shared between tests)."""
    return f"dropin/t{id(env)}/{next(_names)}"


def sd(mq: ModuleType, options: int, topic_string: str = "", **fields: Any) -> Any:
    desc = mq.SD(Options=options)
    if topic_string:
        desc.set_vs("ObjectString", topic_string)
    if "SubName" in fields:
        desc.set_vs("SubName", fields.pop("SubName"))
    for name, value in fields.items():
        desc[name] = value
    return desc


def gmo(mq: ModuleType, options: int = 0, wait_ms: int = 0) -> Any:
    return mq.GMO(Options=options | (mq.CMQC.MQGMO_WAIT if wait_ms else 0), WaitInterval=wait_ms)


def no_message(mq: ModuleType, sub: Any) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        sub.get(None, mq.MD(), gmo(mq))
    assert failure.value.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE


def managed(mq: ModuleType, *more: int) -> int:
    options = mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED
    for option in more:
        options |= option
    return options


def test_a_publication_reaches_every_managed_subscription(mq, env: MQEnv, qmgr, topic) -> None:
    first = mq.Subscription(qmgr)
    first.sub(sub_desc=sd(mq, managed(mq), topic))
    second = mq.Topic(qmgr, topic_string=topic).sub()  # no SD: managed, non-durable
    publisher = mq.Topic(qmgr, topic_string=topic)
    publisher.open(open_opts=mq.CMQC.MQOO_OUTPUT)
    md = mq.MD()
    publisher.pub("price 42", md)
    publisher.close()
    for sub in (first, second):
        got = mq.MD()
        assert sub.get(None, got, gmo(mq, wait_ms=5000)) == b"price 42"
        assert got.Format.strip() == b"MQSTR"
        assert got.BackoutCount == 0
        no_message(mq, sub)
        sub.close()
    with pytest.raises(mq.PYIFError):
        first.close()  # closed already


def test_a_publications_msgid_is_returned_only_when_a_new_one_is_asked_for(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # IBM MQ, MsgId: "If the message is being put to a topic ... If MQMI_NONE is specified
    # by the application, the value of the MsgId field in the MQMD is unchanged on return
    # from the call"; with MQPMO_NEW_MSG_ID one is returned. Each copy has its own.
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    publisher = mq.Topic(qmgr, topic_string=topic)
    publisher.open(open_opts=mq.CMQC.MQOO_OUTPUT)
    none = mq.MD()
    publisher.pub(b"first", none)
    assert none.MsgId == mq.CMQC.MQMI_NONE
    fresh = mq.MD()
    publisher.pub(b"second", fresh, mq.PMO(Options=mq.CMQC.MQPMO_NEW_MSG_ID))
    assert fresh.MsgId != mq.CMQC.MQMI_NONE
    publisher.close()
    ids = []
    for _ in range(2):
        got = mq.MD()
        sub.get(None, got, gmo(mq, wait_ms=5000))
        ids.append(got.MsgId)
    assert mq.CMQC.MQMI_NONE not in ids and fresh.MsgId not in ids and len(set(ids)) == 2
    sub.close()


def test_a_put_to_a_topic_opened_as_an_od_publishes(mq, env: MQEnv, qmgr, topic) -> None:
    sub = mq.Subscription(qmgr, sub_desc=sd(mq, managed(mq), topic))
    od = mq.OD(ObjectType=mq.CMQC.MQOT_TOPIC, Version=mq.CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    queue = mq.Queue(qmgr, od, mq.CMQC.MQOO_OUTPUT)
    queue.put(b"via a Queue")
    queue.close()
    assert sub.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"via a Queue"
    sub.close()


def test_publications_follow_the_publishers_unit_of_work(mq, env: MQEnv, qmgr, topic) -> None:
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    publisher = mq.Topic(qmgr, topic_string=topic)
    syncpoint = mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT)
    publisher.pub(b"backed out", mq.MD(), syncpoint)
    qmgr.backout()
    publisher.pub(b"committed", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    no_message(mq, sub)  # not yet committed
    qmgr.commit()
    assert sub.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"committed"
    no_message(mq, sub)
    sub.close()


def test_a_durable_subscription_keeps_publications_until_removed(
    mq, env: MQEnv, qmgr, topic
) -> None:
    name = f"dropin-durable-{next(_names)}"
    durable = mq.CMQC.MQSO_DURABLE
    sub = mq.Subscription(qmgr, sub_desc=sd(mq, managed(mq, durable), topic, SubName=name))
    sub.close(sub_close_options=mq.CMQC.MQCO_KEEP_SUB)
    mq.Topic(qmgr, topic_string=topic).pub(b"while away")
    resume = mq.CMQC.MQSO_RESUME | mq.CMQC.MQSO_MANAGED | durable
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=sd(mq, resume, topic, SubName=name))
    assert sub.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"while away"
    sub.close(sub_close_options=mq.CMQC.MQCO_REMOVE_SUB, close_sub_queue=True)
    with pytest.raises(mq.MQMIError) as failure:
        mq.Subscription(qmgr).sub(sub_desc=sd(mq, resume, topic, SubName=name))
    assert failure.value.reason == mq.CMQC.MQRC_NO_SUBSCRIPTION  # 2428


def test_a_durable_subscription_needs_a_name(mq, env: MQEnv, qmgr, topic) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        mq.Subscription(qmgr).sub(sub_desc=sd(mq, managed(mq, mq.CMQC.MQSO_DURABLE), topic))
    assert failure.value.reason == mq.CMQC.MQRC_SUB_NAME_ERROR  # 2440


def test_a_provided_queue_receives_the_publications(mq, env: MQEnv, qmgr, topic) -> None:
    queue = mq.Queue(qmgr, "DEV.QUEUE.3", mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=sd(mq, mq.CMQC.MQSO_CREATE, topic), sub_queue=queue)
    assert sub.get_sub_queue() is queue
    mq.Topic(qmgr, topic_string=topic).pub(b"to my queue")
    assert queue.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"to my queue"
    sub.close(close_sub_queue=True)
    assert queue.get_handle() is None  # closed with the subscription, as asked


@pytest.mark.embedded_only("SubCorrelId is the embedded queue manager's (DESTCORL)")
def test_mqsub_returns_the_subcorrelid_that_tells_subscriptions_on_one_queue_apart(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # IBM MQ, MQSD SubCorrelId: without MQSO_SET_CORREL_ID "the correlation identifier is
    # generated by the queue manager" and returned here; a program sharing one queue
    # between subscriptions gets each one's publications by it
    queue = mq.Queue(qmgr, "DEV.QUEUE.3", mq.CMQC.MQOO_INPUT_AS_Q_DEF)
    descs, subs = [], []
    for leaf in ("one", "two"):
        desc = sd(mq, mq.CMQC.MQSO_CREATE, f"{topic}/{leaf}")
        sub = mq.Subscription(qmgr)
        sub.sub(sub_desc=desc, sub_queue=queue)
        descs.append(desc)
        subs.append(sub)
    ids = [bytes(desc.SubCorrelId) for desc in descs]
    assert all(len(i) == 24 and i != bytes(24) for i in ids) and ids[0] != ids[1]
    for leaf in ("one", "two"):
        mq.Topic(qmgr, topic_string=f"{topic}/{leaf}").pub(f"for {leaf}".encode())
    md = mq.MD(CorrelId=ids[1])
    options = gmo(mq, wait_ms=5000)
    options.MatchOptions = mq.CMQC.MQMO_MATCH_CORREL_ID
    assert queue.get(None, md, options) == b"for two"
    md = mq.MD(CorrelId=ids[0])
    assert queue.get(None, md, options) == b"for one"
    mine = sd(mq, mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_SET_CORREL_ID, f"{topic}/mine")
    mine.SubCorrelId = b"MY.OWN.ID".ljust(24, b"\0")
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=mine, sub_queue=queue)
    assert bytes(mine.SubCorrelId) == b"MY.OWN.ID".ljust(24, b"\0")  # the program's own
    for each in (*subs, sub):
        each.close()
    queue.close()


def test_a_subscription_without_a_managed_queue_or_its_own_is_refused(
    mq, env: MQEnv, qmgr, topic
) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        mq.Subscription(qmgr).sub(sub_desc=sd(mq, mq.CMQC.MQSO_CREATE, topic))
    assert failure.value.reason == mq.CMQC.MQRC_HOBJ_ERROR


def test_a_poison_publication_moves_to_the_models_backout_queue(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # seed 002: the managed queue is created from the topic's model queue (MNDURMDL) and
    # inherits BOTHRESH and BOQNAME; BackoutCount is counted on the managed queue
    model = env.define_model("DROPIN.SUB.MODEL", BOTHRESH=2, BOQNAME=BOQ)
    env.define_topic("DROPIN.POISON", topic, MNDURMDL=model, MDURMDL=model)
    desc = sd(mq, managed(mq), ObjectName=b"DROPIN.POISON")
    sub = mq.Subscription(qmgr, sub_desc=desc)
    mq.Topic(qmgr, topic_name="DROPIN.POISON").pub(b"poison")
    under_syncpoint = mq.CMQC.MQGMO_SYNCPOINT
    for backouts in (0, 1):
        md = mq.MD()
        assert sub.get(None, md, gmo(mq, under_syncpoint, wait_ms=5000)) == b"poison"
        assert md.BackoutCount == backouts  # seed 002: BackoutCount < BOTHRESH: delivered
        qmgr.backout()
    # seed 002: BackoutCount >= BOTHRESH: moved to BOQNAME, the program sees no message
    no_message(mq, sub)
    qmgr.commit()
    [(moved_md, moved_data)] = env.browse(BOQ)
    assert moved_md.BackoutCount == 0  # seed 002: the MQMD is reset
    assert (
        parse_chain(moved_data, moved_md.Encoding, moved_md.CodedCharSetId, moved_md.Format).body
        == b"poison"
    )
    sub.close()


def test_subrq_has_no_retained_publication_to_send(mq, env: MQEnv, qmgr, topic) -> None:
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    sro = mq.SRO()
    with pytest.raises(mq.MQMIError) as failure:
        sub.subrq(mq.CMQC.MQSR_ACTION_PUBLICATION, sro)
    assert failure.value.reason == mq.CMQC.MQRC_NO_RETAINED_MSG
    assert sro.NumPubs == 0
    sub.close()


def test_put1_to_a_topic_publishes(mq, env: MQEnv, qmgr, topic) -> None:
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    od = mq.OD(ObjectType=mq.CMQC.MQOT_TOPIC, Version=mq.CMQC.MQOD_VERSION_4)
    od.set_vs("ObjectString", topic)
    qmgr.put1(od, b"one shot")
    assert sub.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"one shot"
    sub.close()


@pytest.mark.embedded_only("a STOMP broker does not say whether a publication matched")
def test_warn_if_no_subs_matched_warns_2550_and_only_when_asked(
    mq, env: MQEnv, qmgr, topic
) -> None:
    publisher = mq.Topic(qmgr, topic_string=topic)
    publisher.pub(b"unheard")  # no subscription, no option: no warning
    warn = mq.PMO(Options=mq.CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED)
    with pytest.raises(mq.MQMIError) as failure:
        publisher.pub(b"unheard", mq.MD(), warn)
    assert failure.value.comp == mq.CMQC.MQCC_WARNING
    assert failure.value.reason == mq.CMQC.MQRC_NO_SUBS_MATCHED
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    publisher.pub(b"heard", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_WARN_IF_NO_SUBS_MATCHED))
    assert sub.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"heard"
    sub.close()


@pytest.mark.embedded_only("MQTopicString on the STOMP transport's copies is not checked here")
def test_a_copy_carries_its_topic_string_for_a_message_handle_and_only_there(
    mq, env: MQEnv, qmgr, topic
) -> None:
    """IBM MQ gives every copy of a publication the property MQTopicString: a subscriber
    on a wildcard reads which topic it came from with MQGMO_PROPERTIES_IN_HANDLE (2471
    before: only JMS subscribers' copies had it). A plain get (PROPCTL(COMPAT)) still
    returns the body alone, and a buffer that fits the body fits the message."""
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=sd(mq, mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED, topic + "/#"))
    publisher = mq.Topic(qmgr, topic_string=topic + "/eu")
    publisher.pub(b"x" * 50)
    publisher.pub(b"y" * 50)
    handle = mq.MessageHandle(qmgr)
    options = mq.GMO(Version=4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    options.MsgHandle = handle.msg_handle
    md = mq.MD()
    assert sub.get(None, md, options) == b"x" * 50
    assert md.Format.strip() == b""  # the body's, as published
    value = handle.properties.get("MQTopicString")
    assert (value.decode() if isinstance(value, bytes) else value) == topic + "/eu"
    md = mq.MD()
    assert sub.get(50, md) == b"y" * 50  # the RFH2 of mqps alone is not in the data
    assert md.Format.strip() == b""
    sub.close()


@pytest.mark.requires("own_publications")
def test_not_own_subs_leaves_out_the_publishers_own_subscriptions(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # IBM MQ, MQPMO_NOT_OWN_SUBS: the publication is not sent to the subscriptions the
    # publishing connection holds (it was accepted and ignored: the publisher got its own)
    own = mq.Topic(qmgr, topic_string=topic).sub()
    other_qmgr = mq.connect("QM1")
    try:
        other = mq.Topic(other_qmgr, topic_string=topic).sub()
        publisher = mq.Topic(qmgr, topic_string=topic)
        publisher.pub(b"not for me", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_NOT_OWN_SUBS))
        publisher.pub(b"for all")
        assert other.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"not for me"
        assert other.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"for all"
        assert own.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"for all"
        no_message(mq, own)
        # another connection's publication with the option reaches this one's subscription
        mq.Topic(other_qmgr, topic_string=topic).pub(
            b"from the other", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_NOT_OWN_SUBS)
        )
        assert own.get(None, mq.MD(), gmo(mq, wait_ms=5000)) == b"from the other"
        no_message(mq, other)
        other.close()
    finally:
        other_qmgr.disconnect()
    own.close()


@pytest.mark.embedded_only("character-based wildcards are the embedded queue manager's")
def test_character_based_wildcards_match_across_levels(mq, env: MQEnv, qmgr, topic) -> None:
    # IBM MQ, MQSO_WILDCARD_CHAR: * any characters ('/' too), ? exactly one, % escapes;
    # # and + are plain characters (it was refused with 2046)
    def subscribe(pattern: str, *more: int) -> Any:
        sub = mq.Subscription(qmgr)
        sub.sub(sub_desc=sd(mq, managed(mq, *more), pattern))
        return sub

    def bodies(sub: Any) -> list[bytes]:
        out = []
        while True:
            try:
                out.append(sub.get(None, mq.MD(), gmo(mq, wait_ms=500)))
            except mq.MQMIError:
                return out

    mq.Topic(qmgr, topic_string=f"{topic}/fruit/apple").pub(
        b"kept", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_RETAIN)
    )
    star = subscribe(f"{topic}/*", mq.CMQC.MQSO_WILDCARD_CHAR)
    one = subscribe(f"{topic}/fruit/?pple", mq.CMQC.MQSO_WILDCARD_CHAR)
    plain = subscribe(f"{topic}/a#%*", mq.CMQC.MQSO_WILDCARD_CHAR)
    for leaf in ("fruit/apple", "veg", "a#*", "fruit/apples"):
        mq.Topic(qmgr, topic_string=f"{topic}/{leaf}").pub(leaf.encode())
    mq.Topic(qmgr, topic_string=topic).pub(b"the node itself")
    assert bodies(star) == [b"kept", b"fruit/apple", b"veg", b"a#*", b"fruit/apples"]
    assert bodies(one) == [b"kept", b"fruit/apple"]
    assert bodies(plain) == [b"a#*"]
    with pytest.raises(mq.MQMIError) as failure:
        subscribe(f"{topic}/*", mq.CMQC.MQSO_WILDCARD_CHAR, mq.CMQC.MQSO_WILDCARD_TOPIC)
    assert failure.value.reason == mq.CMQC.MQRC_OPTIONS_ERROR
    for sub in (star, one, plain):
        sub.close()


@pytest.mark.embedded_only("PubPriority's AS_Q_DEF is the embedded queue manager's")
def test_pub_priority_as_q_def_takes_the_managed_queues_default_priority(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # IBM MQ, MQSD PubPriority MQPRI_PRIORITY_AS_Q_DEF (pymqi's SD default): "the priority
    # for the message is taken from the DefPriority attribute of the model queue" (it was
    # ignored: the publisher's priority stood); MQPRI_PRIORITY_AS_PUBLISHED keeps it
    env.broker.alter_queue("SYSTEM.NDURABLE.MODEL.QUEUE", DEFPRTY=3)
    as_q_def = mq.Subscription(qmgr)
    as_q_def.sub(sub_desc=sd(mq, managed(mq), topic))
    as_published = mq.Subscription(qmgr)
    desc = sd(mq, managed(mq), topic)
    desc["PubPriority"] = mq.CMQC.MQPRI_PRIORITY_AS_PUBLISHED
    as_published.sub(sub_desc=desc)
    mq.Topic(qmgr, topic_string=topic).pub(b"urgent", mq.MD(Priority=8))
    for sub, priority in ((as_q_def, 3), (as_published, 8)):
        md = mq.MD()
        assert sub.get(None, md, gmo(mq, wait_ms=5000)) == b"urgent"
        assert md.Priority == priority
        sub.close()


@pytest.mark.embedded_only("MQSO_ALTER's changes are the embedded queue manager's")
def test_mqso_alter_changes_the_subscriptions_user_data_and_priority(
    mq, env: MQEnv, qmgr, topic
) -> None:
    # IBM MQ, MQSO_ALTER: "the subscription is altered to match the MQSD" (SubUserData,
    # PubPriority among what may change); it was taken as MQSO_RESUME, changing nothing
    made = sd(mq, managed(mq, mq.CMQC.MQSO_DURABLE), topic, SubName="alterable")
    made.set_vs("SubUserData", "first")
    made["PubPriority"] = mq.CMQC.MQPRI_PRIORITY_AS_PUBLISHED
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=made)
    sub.close()
    altered = sd(mq, mq.CMQC.MQSO_ALTER | mq.CMQC.MQSO_DURABLE, topic, SubName="alterable")
    altered.set_vs("SubUserData", "second")
    altered["PubPriority"] = 7
    sub = mq.Subscription(qmgr)
    sub.sub(sub_desc=altered)
    mq.Topic(qmgr, topic_string=topic).pub(b"after", mq.MD(Priority=2))
    md = mq.MD()
    assert sub.get(None, md, gmo(mq, wait_ms=5000)) == b"after"
    assert md.Priority == 7
    shown = env.broker.qm.display_subscriptions("alterable", ["USERDATA", "PUBPRTY"])
    assert (shown[0]["USERDATA"], shown[0]["PUBPRTY"]) == ("second", 7)
    sub.close(sub_close_options=mq.CMQC.MQCO_REMOVE_SUB)


def test_pub_rfh2_publishes_its_headers_in_front_of_the_body(mq, env: MQEnv, qmgr, topic) -> None:
    sub = mq.Topic(qmgr, topic_string=topic).sub()
    header = mq.RFH2(Format=mq.CMQC.MQFMT_STRING, NameValueCCSID=1208)
    header.add_folder(b"<usr><colour>blue</colour></usr>")
    md = mq.MD(Format=mq.CMQC.MQFMT_RF_HEADER_2)
    mq.Topic(qmgr, topic_string=topic).pub_rfh2("price 42", md, mq.PMO(), [header])
    got = mq.MD()
    data = sub.get(None, got, gmo(mq, wait_ms=5000))
    chain = parse_chain(data, got.Encoding, got.CodedCharSetId, got.Format.decode())
    assert chain.body == b"price 42" and "<usr><colour>blue</colour></usr>" in chain.folders
    sub.close()
