"""PCFExecute's subset on the embedded queue manager, results as each library returns them
(issue 14): PING_Q_MGR, INQUIRE_Q, INQUIRE_Q_NAMES, INQUIRE_Q_STATUS, CREATE_Q, CHANGE_Q,
DELETE_Q, CLEAR_Q, INQUIRE_Q_MGR; parameters as a dict or a list of CF* structures."""

from __future__ import annotations

import getpass
import os
from types import ModuleType

import pytest

from mqjms.mq import C
from mqjms.mq.pcf import parse_pcf
from tests.support.mqenv import MQEnv

ADMIN = "PCF maps onto the embedded queue manager's administration"
pytestmark = pytest.mark.embedded_only(ADMIN)


def text(mq: ModuleType, value: bytes) -> bytes:
    """How each flavour returns strings: pymqi blank-padded, ibmmq 2.1 stripped."""
    return value if mq.__name__.endswith("ibmmq") else value.ljust(48)


def no_parameters(mq: ModuleType) -> list[dict[int, object]]:
    """A reply without parameters (ping, create...): pymqi lists it as {}, ibmmq drops it."""
    return [] if mq.__name__.endswith("ibmmq") else [{}]


def test_ping(mq: ModuleType, env: MQEnv, qmgr) -> None:
    assert mq.PCFExecute(qmgr).MQCMD_PING_Q_MGR() == no_parameters(mq)


def test_create_inquire_change_and_delete_a_queue_with_a_dict(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    pcf = mq.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_Q(
        {
            mq.CMQC.MQCA_Q_NAME: "MYQUEUE.1",
            mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_LOCAL,
            mq.CMQC.MQIA_MAX_Q_DEPTH: 123456,
            mq.CMQC.MQIA_BACKOUT_THRESHOLD: 3,
        }
    )
    [found] = pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: "MYQUEUE.1"})
    assert found[mq.CMQC.MQCA_Q_NAME] == text(mq, b"MYQUEUE.1")
    assert found[mq.CMQC.MQIA_MAX_Q_DEPTH] == 123456
    assert found[mq.CMQC.MQIA_BACKOUT_THRESHOLD] == 3
    assert found[mq.CMQC.MQIA_Q_TYPE] == mq.CMQC.MQQT_LOCAL
    pcf.MQCMD_CHANGE_Q(
        {
            mq.CMQC.MQCA_Q_NAME: "MYQUEUE.1",
            mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_LOCAL,
            mq.CMQC.MQIA_INHIBIT_PUT: mq.CMQC.MQQA_PUT_INHIBITED,
        }
    )
    queue = mq.Queue(qmgr, "MYQUEUE.1")
    with pytest.raises(mq.MQMIError) as failure:
        queue.put(b"m")
    assert failure.value.reason == C.MQRC_PUT_INHIBITED
    queue.close()
    pcf.MQCMD_DELETE_Q(
        {mq.CMQC.MQCA_Q_NAME: "MYQUEUE.1", mq.CMQCFC.MQIACF_PURGE: mq.CMQCFC.MQPO_YES}
    )
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: "MYQUEUE.1"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_create_with_a_list_of_parameters_and_replace(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    args = [
        mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=b"MYQUEUE.2"),
        mq.CFIN(Parameter=mq.CMQC.MQIA_Q_TYPE, Value=mq.CMQC.MQQT_LOCAL),
        mq.CFIN(Parameter=mq.CMQC.MQIA_MAX_Q_DEPTH, Value=1000),
    ]
    pcf.MQCMD_CREATE_Q(args)
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_CREATE_Q(args)
    assert failure.value.reason == C.MQRCCF_OBJECT_ALREADY_EXISTS
    replace = mq.CFIN(Parameter=mq.CMQCFC.MQIACF_REPLACE, Value=mq.CMQCFC.MQRP_YES)
    pcf.MQCMD_CREATE_Q([*args[:2], mq.CFIN(Parameter=mq.CMQC.MQIA_MAX_Q_DEPTH, Value=7), replace])
    [found] = pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: "MYQUEUE.2"})
    assert found[mq.CMQC.MQIA_MAX_Q_DEPTH] == 7


def test_create_and_inquire_a_remote_queue_definition(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_Q(
        {
            mq.CMQC.MQCA_Q_NAME: "ORDERS.AT.QM2",
            mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_REMOTE,
            mq.CMQC.MQCA_REMOTE_Q_NAME: "ORDERS",
            mq.CMQC.MQCA_REMOTE_Q_MGR_NAME: "QM2",
            mq.CMQC.MQCA_XMIT_Q_NAME: "TO.QM2",
        }
    )
    [found] = pcf.MQCMD_INQUIRE_Q(
        {mq.CMQC.MQCA_Q_NAME: "ORDERS.AT.*", mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_REMOTE}
    )
    assert found[mq.CMQC.MQIA_Q_TYPE] == mq.CMQC.MQQT_REMOTE
    assert found[mq.CMQC.MQCA_REMOTE_Q_NAME] == text(mq, b"ORDERS")
    assert found[mq.CMQC.MQCA_REMOTE_Q_MGR_NAME] == text(mq, b"QM2")
    assert found[mq.CMQC.MQCA_XMIT_Q_NAME] == text(mq, b"TO.QM2")
    assert mq.CMQC.MQIA_BACKOUT_THRESHOLD not in found  # a local queue's attribute


def test_generic_names_types_and_attribute_lists(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    found = pcf.MQCMD_INQUIRE_Q(
        {
            mq.CMQC.MQCA_Q_NAME: "SYSTEM.*",
            mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_MODEL,
            mq.CMQCFC.MQIACF_Q_ATTRS: [mq.CMQC.MQCA_Q_NAME, mq.CMQC.MQIA_DEF_PRIORITY],
        }
    )
    names = [item[mq.CMQC.MQCA_Q_NAME].strip() for item in found]
    assert b"SYSTEM.DEFAULT.MODEL.QUEUE" in names
    assert all(set(item) <= {mq.CMQC.MQCA_Q_NAME, mq.CMQC.MQIA_Q_TYPE, 6} for item in found)
    [names_response] = pcf.MQCMD_INQUIRE_Q_NAMES({mq.CMQC.MQCA_Q_NAME: "DEV.QUEUE.*"})
    listed = [name.strip() for name in names_response[mq.CMQCFC.MQCACF_Q_NAMES]]
    assert listed == [b"DEV.QUEUE.1", b"DEV.QUEUE.2", b"DEV.QUEUE.3"]
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: "NOTHING.LIKE.THIS*"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_queue_status_and_clear(mq: ModuleType, env: MQEnv, qmgr) -> None:
    env.put_raw("DEV.QUEUE.3", b"a")
    env.put_raw("DEV.QUEUE.3", b"b")
    pcf = mq.PCFExecute(qmgr)
    attrs = [
        mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=b"DEV.QUEUE.3"),
        mq.CFIL(Parameter=mq.CMQCFC.MQIACF_Q_STATUS_ATTRS, Values=[mq.CMQCFC.MQIACF_ALL]),
    ]
    [status] = pcf.MQCMD_INQUIRE_Q_STATUS(attrs)
    assert status[mq.CMQC.MQIA_CURRENT_Q_DEPTH] == 2
    assert mq.CMQCFC.MQCACF_LAST_PUT_DATE in status
    pcf.MQCMD_CLEAR_Q({mq.CMQC.MQCA_Q_NAME: "DEV.QUEUE.3"})
    assert env.depth("DEV.QUEUE.3") == 0


def test_queue_status_counts_uncommitted_messages_and_lists_handles(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # DISPLAY QSTATUS: UNCOM counts the puts and gets of units of work in flight, and
    # TYPE(HANDLE) (MQIACF_Q_STATUS_TYPE MQIACF_Q_HANDLE) has one record per open handle
    name = "DEV.QUEUE.3"
    reader = mq.Queue(qmgr, name, mq.CMQC.MQOO_INPUT_SHARED | mq.CMQC.MQOO_BROWSE)
    writer = mq.Queue(qmgr, name, mq.CMQC.MQOO_OUTPUT)
    writer.put(b"pending", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    pcf = mq.PCFExecute(qmgr)
    [status] = pcf.MQCMD_INQUIRE_Q_STATUS({mq.CMQC.MQCA_Q_NAME: name})
    assert status[mq.CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 1
    handles = pcf.MQCMD_INQUIRE_Q_STATUS(
        {
            mq.CMQC.MQCA_Q_NAME: name,
            mq.CMQCFC.MQIACF_Q_STATUS_TYPE: mq.CMQCFC.MQIACF_Q_HANDLE,
        }
    )
    assert {h[mq.CMQCFC.MQIACF_Q_STATUS_TYPE] for h in handles} == {mq.CMQCFC.MQIACF_Q_HANDLE}
    opened = sorted(
        (
            h[mq.CMQCFC.MQIACF_OPEN_INPUT_TYPE],
            h[mq.CMQCFC.MQIACF_OPEN_OUTPUT],
            h[mq.CMQCFC.MQIACF_OPEN_BROWSE],
        )
        for h in handles
    )
    no, yes, shared = mq.CMQCFC.MQQSO_NO, mq.CMQCFC.MQQSO_YES, mq.CMQCFC.MQQSO_SHARED
    assert opened == [(no, yes, no), (shared, no, yes)]
    assert all(h[mq.CMQCFC.MQIACF_PROCESS_ID] > 0 for h in handles)
    # what monitoring scripts read besides (a KeyError before), as a bindings connection
    # with monitoring off has them; strings as long as the command server writes them
    cf = mq.CMQCFC
    assert status[cf.MQIACF_Q_TIME_INDICATOR] == [mq.CMQC.MQMON_NOT_AVAILABLE] * 2
    assert status[mq.CMQC.MQIA_MONITORING_Q] == mq.CMQC.MQMON_OFF
    assert status[cf.MQCACF_MEDIA_LOG_EXTENT_NAME] == text(mq, b"")[:24]
    for handle in handles:
        assert handle[cf.MQIACF_HANDLE_STATE] == cf.MQHSTATE_INACTIVE
        assert handle[cf.MQCACH_CHANNEL_NAME] == text(mq, b"")[:20]
        assert handle[cf.MQCACH_CONNECTION_NAME] == b"".ljust(
            0 if mq.__name__.endswith("ibmmq") else 264
        )
        assert len(handle[cf.MQCACF_APPL_TAG]) in (28, len(handle[cf.MQCACF_APPL_TAG].strip()))
    qmgr.backout()
    [status] = pcf.MQCMD_INQUIRE_Q_STATUS({mq.CMQC.MQCA_Q_NAME: name})
    assert status[mq.CMQCFC.MQIACF_UNCOMMITTED_MSGS] == 0
    reader.close()
    writer.close()


def test_inquire_and_change_the_queue_manager(mq: ModuleType, env: MQEnv, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    [found] = pcf.MQCMD_INQUIRE_Q_MGR()
    assert found[mq.CMQC.MQCA_DEAD_LETTER_Q_NAME].strip() == b"DEV.DEAD.LETTER.QUEUE"
    assert found[mq.CMQC.MQIA_COMMAND_LEVEL] == 940
    pcf.MQCMD_CHANGE_Q_MGR({mq.CMQC.MQCA_DEAD_LETTER_Q_NAME: "DEV.QUEUE.3"})
    [found] = pcf.MQCMD_INQUIRE_Q_MGR(
        {mq.CMQCFC.MQIACF_Q_MGR_ATTRS: [mq.CMQC.MQCA_DEAD_LETTER_Q_NAME]}
    )
    assert found[mq.CMQC.MQCA_DEAD_LETTER_Q_NAME].strip() == b"DEV.QUEUE.3"


def test_channels_there_are_none_and_others_are_not_supported(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    pcf = mq.PCFExecute(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_CHANNEL({mq.CMQCFC.MQCACH_CHANNEL_NAME: "SYSTEM.*"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_SET_AUTH_REC({mq.CMQCFC.MQCACF_AUTH_PROFILE_NAME: "Q1"})
    assert failure.value.reason == C.MQRC_FUNCTION_NOT_SUPPORTED
    assert "MQCMD_INQUIRE_Q" in failure.value.detail  # the error lists what is supported


def test_responses_list_gives_each_response_with_its_cfh(env: MQEnv) -> None:
    import mqjms.ibmmq as ibmmq

    qmgr = ibmmq.connect("QM1")
    try:
        responses: list[object] = []
        ibmmq.PCFExecute(qmgr).MQCMD_INQUIRE_Q(
            {ibmmq.CMQC.MQCA_Q_NAME: "DEV.QUEUE.*"}, responses=responses
        )
        assert len(responses) == 3
        body, cfh = responses[0]  # type: ignore[misc]
        assert body[ibmmq.CMQC.MQCA_Q_NAME] == b"DEV.QUEUE.1" and cfh.Reason == 0
        # as the command server numbers its replies: 1, 2, 3, the last one marked last,
        # each with its count of parameters (every header said 1, LAST and 0)
        cfhs = [cfh for _, cfh in responses]  # type: ignore[misc]
        assert [c.MsgSeqNumber for c in cfhs] == [1, 2, 3]
        assert [c.Control for c in cfhs] == [ibmmq.CMQCFC.MQCFC_NOT_LAST] * 2 + [
            ibmmq.CMQCFC.MQCFC_LAST
        ]
        assert cfh.ParameterCount == len(body) > 10
    finally:
        qmgr.disconnect()


def test_pcf_execute_can_make_its_own_connection(mq: ModuleType, env: MQEnv) -> None:
    pcf = mq.PCFExecute("QM1")
    try:
        assert pcf.MQCMD_PING_Q_MGR() == no_parameters(mq)
    finally:
        pcf.disconnect()


def test_subscriptions_are_created_inquired_and_deleted(mq, env, qmgr) -> None:
    pcf = mq.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_SUBSCRIPTION(
        {
            mq.CMQCFC.MQCACF_SUB_NAME: "PCF.SUB",
            mq.CMQC.MQCA_TOPIC_STRING: "pcf/made",
            mq.CMQCFC.MQIACF_DESTINATION_CLASS: mq.CMQC.MQDC_MANAGED,
        }
    )
    [found] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.*"})
    assert found[mq.CMQCFC.MQCACF_SUB_NAME] == b"PCF.SUB"  # MQCHARV-sized: not padded
    assert found[mq.CMQC.MQCA_TOPIC_STRING] == b"pcf/made"
    assert found[mq.CMQCFC.MQIACF_DURABLE_SUBSCRIPTION] == mq.CMQC.MQSUB_DURABLE_YES
    assert found[mq.CMQCFC.MQIACF_DESTINATION_CLASS] == mq.CMQC.MQDC_MANAGED
    assert found[mq.CMQCFC.MQIACF_SUB_TYPE] == mq.CMQCFC.MQSUBTYPE_ADMIN
    # an administrative subscription is resumed with MQSO_RESUME alone, as MQ allows
    sd = mq.SD(Options=mq.CMQC.MQSO_RESUME)
    sd.set_vs("SubName", "PCF.SUB")
    sub = mq.Subscription(qmgr, sub_desc=sd)
    assert sd.Options & mq.CMQC.MQSO_DURABLE and sd.Options & mq.CMQC.MQSO_MANAGED  # MQSD out
    mq.Topic(qmgr, topic_string="pcf/made").pub(b"to an admin sub")
    assert sub.get(None, mq.MD(), mq.GMO()) == b"to an admin sub"
    sub.close()
    subid = mq.ByteString(found[mq.CMQCFC.MQBACF_SUB_ID])
    pcf.MQCMD_DELETE_SUBSCRIPTION({mq.CMQCFC.MQBACF_SUB_ID: subid})
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_SUBSCRIPTION({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.SUB"})
    assert failure.value.reason == mq.CMQC.MQRC_NO_SUBSCRIPTION
    assert pcf.MQCMD_INQUIRE_SUBSCRIPTION({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.*"}) == no_parameters(mq)


def test_subscription_status_wildcard_schema_and_pub_priority(mq, env, qmgr) -> None:
    # MQCMD_INQUIRE_SUB_STATUS (DISPLAY SBSTATUS; it was 'not a command'), and CREATE's
    # WildcardSchema and PubPriority (they were ignored)
    pcf = mq.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_SUBSCRIPTION(
        {
            mq.CMQCFC.MQCACF_SUB_NAME: "PCF.CHAR",
            mq.CMQC.MQCA_TOPIC_STRING: "pcfc/*",
            mq.CMQCFC.MQIACF_DESTINATION_CLASS: mq.CMQC.MQDC_MANAGED,
            mq.CMQCFC.MQIACF_WILDCARD_SCHEMA: mq.CMQC.MQWS_CHAR,
            mq.CMQCFC.MQIACF_PUB_PRIORITY: 6,
        }
    )
    [found] = pcf.MQCMD_INQUIRE_SUBSCRIPTION({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.CHAR"})
    assert found[mq.CMQCFC.MQIACF_WILDCARD_SCHEMA] == mq.CMQC.MQWS_CHAR
    assert found[mq.CMQCFC.MQIACF_PUB_PRIORITY] == 6
    mq.Topic(qmgr, topic_string="pcfc/a/b").pub(b"one")
    [status] = pcf.MQCMD_INQUIRE_SUB_STATUS({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.CHAR"})
    assert status[mq.CMQCFC.MQIACF_MESSAGE_COUNT] == 1
    assert status[mq.CMQCFC.MQBACF_SUB_ID] == found[mq.CMQCFC.MQBACF_SUB_ID]
    assert status[mq.CMQCFC.MQBACF_CONNECTION_ID] == bytes(24)  # nobody holds it
    assert status[mq.CMQCFC.MQIACF_SUB_TYPE] == mq.CMQCFC.MQSUBTYPE_ADMIN
    pcf.MQCMD_DELETE_SUBSCRIPTION({mq.CMQCFC.MQCACF_SUB_NAME: "PCF.CHAR"})


def test_topics_are_created_changed_inquired_and_deleted(mq, env, qmgr) -> None:
    # MQCMD_CREATE/CHANGE/DELETE/INQUIRE_TOPIC, INQUIRE_TOPIC_NAMES, INQUIRE_TOPIC_STATUS
    # (each was 2298 "not supported"): DEFINE/ALTER/DELETE/DISPLAY TOPIC and TPSTATUS
    cmqc = mq.CMQC
    pcf = mq.PCFExecute(qmgr)
    pcf.MQCMD_CREATE_TOPIC(
        {
            cmqc.MQCA_TOPIC_NAME: "PCF.TOPIC",
            cmqc.MQCA_TOPIC_STRING: "pcft",
            cmqc.MQIA_TOPIC_DEF_PERSISTENCE: cmqc.MQPER_PERSISTENT,
            cmqc.MQIA_INHIBIT_PUB: cmqc.MQTA_PUB_INHIBITED,
        }
    )
    [found] = pcf.MQCMD_INQUIRE_TOPIC({cmqc.MQCA_TOPIC_NAME: "PCF.*"})
    assert found[cmqc.MQCA_TOPIC_NAME].strip() == b"PCF.TOPIC"
    assert found[cmqc.MQCA_TOPIC_STRING].strip() == b"pcft"
    assert found[cmqc.MQIA_TOPIC_DEF_PERSISTENCE] == cmqc.MQPER_PERSISTENT
    assert found[cmqc.MQIA_INHIBIT_PUB] == cmqc.MQTA_PUB_INHIBITED
    assert found[cmqc.MQIA_INHIBIT_SUB] == cmqc.MQTA_SUB_AS_PARENT
    assert found[cmqc.MQIA_DEF_PRIORITY] == cmqc.MQPRI_PRIORITY_AS_PARENT
    with pytest.raises(mq.MQMIError) as inhibited:
        mq.Topic(qmgr, topic_string="pcft/x").pub(b"x")
    assert inhibited.value.reason == cmqc.MQRC_PUT_INHIBITED
    pcf.MQCMD_CHANGE_TOPIC(
        {cmqc.MQCA_TOPIC_NAME: "PCF.TOPIC", cmqc.MQIA_INHIBIT_PUB: cmqc.MQTA_PUB_AS_PARENT}
    )
    mq.Topic(qmgr, topic_string="pcft/x").pub(b"x")
    [names] = pcf.MQCMD_INQUIRE_TOPIC_NAMES({cmqc.MQCA_TOPIC_NAME: "PCF.*"})
    assert [n.strip() for n in names[mq.CMQCFC.MQCACF_TOPIC_NAMES]] == [b"PCF.TOPIC"]
    [status] = pcf.MQCMD_INQUIRE_TOPIC_STATUS({cmqc.MQCA_TOPIC_STRING: "pcft/x"})
    assert status[cmqc.MQCA_ADMIN_TOPIC_NAME].strip() == b""
    assert status[cmqc.MQIA_TOPIC_DEF_PERSISTENCE] == cmqc.MQPER_PERSISTENT  # inherited
    assert status[cmqc.MQIA_INHIBIT_PUB] == cmqc.MQTA_PUB_ALLOWED
    pcf.MQCMD_DELETE_TOPIC({cmqc.MQCA_TOPIC_NAME: "PCF.TOPIC"})
    with pytest.raises(mq.MQMIError) as gone:
        pcf.MQCMD_INQUIRE_TOPIC({cmqc.MQCA_TOPIC_NAME: "PCF.TOPIC"})
    assert gone.value.reason == cmqc.MQRC_UNKNOWN_OBJECT_NAME


def test_filters_keep_the_responses_that_pass_them(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # as pymqi's own test_pcf.py: pcf.MQCMD_INQUIRE_Q(attrs, [Filter(...).greater(0)])
    mq.Queue(qmgr, "DEV.QUEUE.2", mq.CMQC.MQOO_OUTPUT).put(b"one")
    pcf = mq.PCFExecute(qmgr)
    names = {mq.CMQC.MQCA_Q_NAME: b"DEV.*", mq.CMQC.MQIA_Q_TYPE: mq.CMQC.MQQT_LOCAL}
    deep = pcf.MQCMD_INQUIRE_Q(names, [mq.Filter(mq.CMQC.MQIA_CURRENT_Q_DEPTH).greater(0)])
    assert [r[mq.CMQC.MQCA_Q_NAME].strip() for r in deep] == [b"DEV.QUEUE.2"]
    like = pcf.MQCMD_INQUIRE_Q(names, [mq.Filter(mq.CMQC.MQCA_Q_NAME).like(b"DEV.QUEUE.*")])
    assert [r[mq.CMQC.MQCA_Q_NAME].strip() for r in like] == [
        b"DEV.QUEUE.1",
        b"DEV.QUEUE.2",
        b"DEV.QUEUE.3",
    ]
    # an MQCFIF structure, and an attribute list without the filtered attribute
    only_names = {**names, mq.CMQCFC.MQIACF_Q_ATTRS: [mq.CMQC.MQCA_Q_NAME]}
    empty = mq.CFIF(
        Parameter=mq.CMQC.MQIA_CURRENT_Q_DEPTH,
        Operator=mq.CMQCFC.MQCFOP_EQUAL,
        FilterValue=0,
    )
    found = pcf.MQCMD_INQUIRE_Q(only_names, [empty])
    assert b"DEV.QUEUE.2" not in [r[mq.CMQC.MQCA_Q_NAME].strip() for r in found]
    assert b"DEV.QUEUE.1" in [r[mq.CMQC.MQCA_Q_NAME].strip() for r in found]
    assert all(mq.CMQC.MQIA_CURRENT_Q_DEPTH not in r for r in found)  # filtered, not asked


def test_a_filter_on_an_attribute_mqjms_does_not_keep_is_a_filter_error(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # neither every queue nor none: say so (IBM MQ keeps MAXFSIZE, mqjms does not)
    pcf = mq.PCFExecute(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_Q(
            {mq.CMQC.MQCA_Q_NAME: b"DEV.*"}, [mq.Filter(mq.CMQC.MQIA_MAX_Q_FILE_SIZE).equal(0)]
        )
    assert failure.value.reason == mq.CMQCFC.MQRCCF_FILTER_ERROR
    # CLUSTER is answered with MQ's default (blank: in no cluster), so it filters
    found = pcf.MQCMD_INQUIRE_Q(
        {mq.CMQC.MQCA_Q_NAME: b"DEV.QUEUE.*"}, [mq.Filter(mq.CMQC.MQCA_CLUSTER_NAME).equal(b"")]
    )
    assert len(found) == 3


def test_an_unknown_filter_operator_is_the_flavours_error(mq: ModuleType) -> None:
    # as both libraries: Filter(...).<name> for no MQCFOP_* operator raises their Error
    with pytest.raises(mq.Error, match="not supported"):
        mq.Filter(mq.CMQC.MQIA_CURRENT_Q_DEPTH).bigger(0)


def test_pcf_execute_takes_ibmmq_arguments_and_defaults(mq: ModuleType, env: MQEnv, qmgr) -> None:
    assert mq.PCFExecute(qmgr).convert is (mq.__name__.endswith("ibmmq"))  # ibmmq's: True
    if not mq.__name__.endswith("ibmmq"):
        with pytest.raises(TypeError):  # pymqi 1.12's PCFExecute has no such arguments
            mq.PCFExecute(qmgr, command_timeout=30, max_length=65536)
        return
    pcf = mq.PCFExecute(qmgr, command_timeout=30, max_length=65536)
    assert (pcf.command_timeout, pcf.max_length) == (30, 65536)
    with pytest.raises(mq.PYIFError, match="model_queue_name and a reply_queue_name"):
        mq.PCFExecute(qmgr, reply_queue_name="MY.REPLIES")  # the model is a default too


def test_responses_list_keeps_no_empty_response_of_a_failed_command(env: MQEnv) -> None:
    # ibmmq appends a (dict, CFH) pair only for a response with parameters
    import mqjms.ibmmq as ibmmq

    qmgr = ibmmq.connect("QM1")
    try:
        responses: list[object] = [("stale", None)]
        with pytest.raises(ibmmq.MQMIError) as failure:
            ibmmq.PCFExecute(qmgr).MQCMD_INQUIRE_Q(
                {ibmmq.CMQC.MQCA_Q_NAME: "NO.SUCH.QUEUE"}, responses=responses
            )
        assert failure.value.reason == ibmmq.CMQC.MQRC_UNKNOWN_OBJECT_NAME
        assert responses == []
    finally:
        qmgr.disconnect()


def _request(mq: ModuleType, command: int, *parameters: object) -> bytes:
    header = mq.CFH(
        Version=mq.CMQCFC.MQCFH_VERSION_1,
        Type=mq.CMQCFC.MQCFT_COMMAND,
        Command=command,
        ParameterCount=len(parameters),
    )
    return bytes(header.pack() + b"".join(p.pack() for p in parameters))


def _responses(mq: ModuleType, queue: object, request_id: bytes) -> list[tuple[object, bytes]]:
    """Every response to the request ``request_id`` (matched by CorrelId), in order."""
    out = []
    while True:
        md = mq.MD(CorrelId=request_id)
        options = mq.GMO(
            Options=mq.CMQC.MQGMO_NO_WAIT,
            Version=mq.CMQC.MQGMO_VERSION_2,
            MatchOptions=mq.CMQC.MQMO_MATCH_CORREL_ID,
        )
        try:
            body = queue.get(None, md, options)
        except mq.MQMIError as exc:
            assert exc.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE
            return out
        header = mq.CFH()
        header.unpack(body[:36])
        out.append((header, body))


def _queue_name(body: bytes) -> bytes:
    _, parameters = parse_pcf(body)
    [name] = [p.String for p in parameters if getattr(p, "Parameter", 0) == C.MQCA_Q_NAME]
    return bytes(name).rstrip()


def test_a_hand_built_pcf_command_is_answered_on_its_reply_queue(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # monitoring scripts build PCF messages themselves and put them to the command queue
    # (MQINQ names SYSTEM.ADMIN.COMMAND.QUEUE): it was 2085, and nothing answered
    cf = mq.CMQCFC
    od = mq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"PCF.REPLY.*")
    replies = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_EXCLUSIVE)
    reply_queue = od.ObjectName  # the dynamic queue made
    inquire = _request(
        mq,
        cf.MQCMD_INQUIRE_Q,
        mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=b"DEV.QUEUE.*"),
        mq.CFIN(Parameter=mq.CMQC.MQIA_Q_TYPE, Value=mq.CMQC.MQQT_LOCAL),
    )
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=reply_queue)
    pmo = mq.PMO()
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", inquire, md, pmo)
    # the put's own resolved name, not that of the replies put for it
    assert pmo.ResolvedQName.strip() == b"SYSTEM.ADMIN.COMMAND.QUEUE"
    got = _responses(mq, replies, md.MsgId)
    headers = [header for header, _ in got]
    assert [h.Type for h in headers] == [cf.MQCFT_RESPONSE] * 3  # one a queue
    assert [h.MsgSeqNumber for h in headers] == [1, 2, 3]
    assert [h.Control for h in headers] == [cf.MQCFC_NOT_LAST, cf.MQCFC_NOT_LAST, cf.MQCFC_LAST]
    assert {(h.CompCode, h.Reason, h.Command) for h in headers} == {(0, 0, cf.MQCMD_INQUIRE_Q)}
    names = sorted(_queue_name(body) for _, body in got)
    assert names == [b"DEV.QUEUE.1", b"DEV.QUEUE.2", b"DEV.QUEUE.3"]
    # an error is one response without parameters, with its CompCode and Reason
    missing = _request(
        mq, cf.MQCMD_INQUIRE_Q, mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=b"NO.SUCH.Q")
    )
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=reply_queue)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", missing, md)
    [(header, _)] = _responses(mq, replies, md.MsgId)
    assert (header.CompCode, header.Reason, header.ParameterCount) == (
        mq.CMQC.MQCC_FAILED,
        mq.CMQC.MQRC_UNKNOWN_OBJECT_NAME,
        0,
    )
    # ids are byte strings (MQCFBS), as the command server sends them, not padded text
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=reply_queue)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", _request(mq, cf.MQCMD_INQUIRE_CONNECTION), md)
    connections = _responses(mq, replies, md.MsgId)
    assert connections
    for _, body in connections:
        _, parameters = parse_pcf(body)
        [ident] = [p for p in parameters if p.Parameter == cf.MQBACF_CONNECTION_ID]
        assert type(ident).__name__ == "MQCFBS" and len(ident.String) == 24
    # a message that is not PCF: one error response, the put itself succeeded
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=reply_queue)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", b"not a PCF message", md)
    [(header, _)] = _responses(mq, replies, md.MsgId)
    assert header.CompCode == mq.CMQC.MQCC_FAILED and header.Reason > 3000  # an MQRCCF_*
    assert env.depth("SYSTEM.ADMIN.COMMAND.QUEUE") == 0  # taken off, answered
    replies.close()


@pytest.mark.parametrize(
    ("kind", "command", "reason"),
    [
        ("MQCFT_COMMAND", 9999, "MQRCCF_CFH_COMMAND_ERROR"),  # no MQCMD_* has that number
        ("MQCFT_RESPONSE", "MQCMD_INQUIRE_Q", "MQRCCF_CFH_TYPE_ERROR"),  # no request
    ],
)
def test_a_hand_built_message_that_is_no_command_is_answered_with_its_cfh_reason(
    mq: ModuleType, env: MQEnv, qmgr, kind: str, command: int | str, reason: str
) -> None:
    # IBM's command server names the CFH field in error; both were 3008 COMMAND_FAILED
    cf = mq.CMQCFC
    od = mq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"PCF.REPLY.*")
    replies = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_EXCLUSIVE)
    number = getattr(cf, command) if isinstance(command, str) else command
    request = mq.CFH(Type=getattr(cf, kind), Command=number, ParameterCount=0).pack()
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", request, md)
    [(header, _)] = _responses(mq, replies, md.MsgId)
    assert (header.CompCode, header.Reason) == (mq.CMQC.MQCC_FAILED, getattr(cf, reason))
    replies.close()


def test_topic_objects_are_created_inquired_changed_and_deleted(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    """CREATE/COPY/CHANGE/DELETE_TOPIC, INQUIRE_TOPIC and INQUIRE_TOPIC_NAMES (2298
    before), on the topic objects DEFINE TOPIC makes; ASPARENT as its *_AS_PARENT value."""
    C_, CF = mq.CMQC, mq.CMQCFC
    pcf = mq.PCFExecute(qmgr)
    created = pcf.MQCMD_CREATE_TOPIC(
        {
            C_.MQCA_TOPIC_NAME: "PRICES",
            C_.MQCA_TOPIC_STRING: "prices/eu",
            C_.MQCA_TOPIC_DESC: "EU prices",
            C_.MQIA_TOPIC_DEF_PERSISTENCE: C_.MQPER_PERSISTENT,
            C_.MQIA_DEF_PRIORITY: 4,
        }
    )
    assert created == no_parameters(mq)
    with pytest.raises(mq.MQMIError) as failure:  # no REPLACE
        pcf.MQCMD_CREATE_TOPIC({C_.MQCA_TOPIC_NAME: "PRICES", C_.MQCA_TOPIC_STRING: "prices/eu"})
    assert failure.value.reason == CF.MQRCCF_OBJECT_ALREADY_EXISTS
    (found,) = pcf.MQCMD_INQUIRE_TOPIC({C_.MQCA_TOPIC_NAME: "PRICES"})
    assert found[C_.MQCA_TOPIC_NAME] == text(mq, b"PRICES")
    assert found[C_.MQIA_TOPIC_TYPE] == C_.MQTOPT_LOCAL
    assert found[C_.MQCA_TOPIC_STRING] == b"prices/eu"  # a topic string has its own length
    assert found[C_.MQCA_TOPIC_DESC].rstrip() == b"EU prices"
    assert found[C_.MQIA_TOPIC_DEF_PERSISTENCE] == C_.MQPER_PERSISTENT
    assert found[C_.MQIA_DEF_PRIORITY] == 4
    assert found[C_.MQIA_INHIBIT_PUB] == C_.MQTA_PUB_AS_PARENT
    assert found[C_.MQCA_MODEL_DURABLE_Q].strip() == b""  # inherited from above
    pcf.MQCMD_CHANGE_TOPIC(
        {C_.MQCA_TOPIC_NAME: "PRICES", C_.MQIA_INHIBIT_PUB: C_.MQTA_PUB_INHIBITED}
    )
    topic = mq.Topic(qmgr, topic_name="PRICES")
    with pytest.raises(mq.MQMIError) as failure:
        topic.open(open_opts=C_.MQOO_OUTPUT)
        topic.pub(b"not now")
    assert failure.value.reason == C_.MQRC_PUT_INHIBITED
    pcf.MQCMD_COPY_TOPIC(
        {
            CF.MQCACF_FROM_TOPIC_NAME: "PRICES",
            CF.MQCACF_TO_TOPIC_NAME: "PRICES.US",
            C_.MQCA_TOPIC_STRING: "prices/us",
        }
    )
    (names,) = pcf.MQCMD_INQUIRE_TOPIC_NAMES({C_.MQCA_TOPIC_NAME: "PRICES*"})
    assert [name.strip() for name in names[CF.MQCACF_TOPIC_NAMES]] == [b"PRICES", b"PRICES.US"]
    (copy,) = pcf.MQCMD_INQUIRE_TOPIC(
        {C_.MQCA_TOPIC_NAME: "PRICES.US", CF.MQIACF_TOPIC_ATTRS: [C_.MQIA_INHIBIT_PUB]}
    )
    assert copy == {
        C_.MQCA_TOPIC_NAME: text(mq, b"PRICES.US"),
        C_.MQIA_TOPIC_TYPE: C_.MQTOPT_LOCAL,
        C_.MQIA_INHIBIT_PUB: C_.MQTA_PUB_INHIBITED,  # LIKE the one copied
    }
    for name in ("PRICES", "PRICES.US"):
        pcf.MQCMD_DELETE_TOPIC({C_.MQCA_TOPIC_NAME: name})
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_TOPIC({C_.MQCA_TOPIC_NAME: "PRICES"})
    assert failure.value.reason == C_.MQRC_UNKNOWN_OBJECT_NAME


def test_a_names_inquiry_that_matches_nothing_answers_an_empty_list(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    """IBM's Inquire Queue (Topic, Channel) Names response gives "zero or more names that
    match": none is an empty list, where it was 2085 (and INQUIRE_Q, by contrast, is 2085)."""
    pcf = mq.PCFExecute(qmgr)
    (queues,) = pcf.MQCMD_INQUIRE_Q_NAMES({mq.CMQC.MQCA_Q_NAME: "NO.SUCH.*"})
    assert queues[mq.CMQCFC.MQCACF_Q_NAMES] == [] and queues[mq.CMQCFC.MQIACF_Q_TYPES] == []
    (topics,) = pcf.MQCMD_INQUIRE_TOPIC_NAMES({mq.CMQC.MQCA_TOPIC_NAME: "NO.SUCH.*"})
    assert topics[mq.CMQCFC.MQCACF_TOPIC_NAMES] == []
    (channels,) = pcf.MQCMD_INQUIRE_CHANNEL_NAMES({mq.CMQCFC.MQCACH_CHANNEL_NAME: "*"})
    assert channels[mq.CMQCFC.MQCACH_CHANNEL_NAMES] == []
    with pytest.raises(mq.MQMIError) as failure:
        pcf.MQCMD_INQUIRE_Q({mq.CMQC.MQCA_Q_NAME: "NO.SUCH.*"})
    assert failure.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME


def test_a_hand_built_names_inquiry_matching_nothing_is_answered_with_an_empty_string_list(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # an empty list of names goes as an MQCFSL of no strings (it would have been an MQCFIL)
    od = mq.OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"PCF.REPLY.*")
    replies = mq.Queue(qmgr, od, mq.CMQC.MQOO_INPUT_EXCLUSIVE)
    names = _request(
        mq,
        mq.CMQCFC.MQCMD_INQUIRE_Q_NAMES,
        mq.CFST(Parameter=mq.CMQC.MQCA_Q_NAME, String=b"NO.SUCH.*"),
    )
    md = mq.MD(Format=mq.CMQC.MQFMT_ADMIN, MsgType=mq.CMQC.MQMT_REQUEST, ReplyToQ=od.ObjectName)
    qmgr.put1("SYSTEM.ADMIN.COMMAND.QUEUE", names, md)
    [(header, body)] = _responses(mq, replies, md.MsgId)
    assert (header.CompCode, header.Reason) == (0, 0)
    _, parameters = parse_pcf(body)
    [listed] = [p for p in parameters if p.Parameter == mq.CMQCFC.MQCACF_Q_NAMES]
    assert type(listed).__name__ == "MQCFSL" and list(listed.Strings) == []
    replies.close()


def test_inquire_connection_answers_what_monitoring_scripts_read(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    """Each connection's response has, besides its id, tag and process id, what a script
    listing connections reads (a KeyError before): the info type, ApplType, UserId, and
    the channel and connection names, blank for the local connections mqjms has."""
    cf = mq.CMQCFC
    found = mq.PCFExecute(qmgr).MQCMD_INQUIRE_CONNECTION(
        {
            cf.MQBACF_GENERIC_CONNECTION_ID: mq.ByteString(b""),
            cf.MQIACF_CONN_INFO_TYPE: cf.MQIACF_CONN_INFO_ALL,
        }
    )
    mine = [c for c in found if c[cf.MQIACF_PROCESS_ID] == os.getpid()]
    assert mine
    for conn in mine:
        assert conn[cf.MQIACF_CONN_INFO_TYPE] == cf.MQIACF_CONN_INFO_CONN
        assert conn[mq.CMQC.MQIA_APPL_TYPE] == mq.CMQC.MQAT_UNIX
        assert conn[cf.MQCACF_USER_IDENTIFIER].strip() == getpass.getuser()[:12].encode()
        assert conn[cf.MQCACH_CHANNEL_NAME].strip() == b""
        assert conn[cf.MQCACH_CONNECTION_NAME].strip() == b""
