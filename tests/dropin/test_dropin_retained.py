"""Retained publications as a pymqi / ibmmq program uses them (both flavours): MQPMO_RETAIN,
a later subscription sent the retained publication with the MQIsRetained property,
MQSO_NEW_PUBLICATIONS_ONLY, ``Subscription.subrq`` (MQSUBRQ, MQSRO NumPubs), replacement,
CLEAR TOPICSTR, a restart, and MQPMO_SYNCPOINT.

IBM MQ, MQSUBRQ: "If the queue manager has a retained publication for the topic, this is
sent to the subscriber. If not, the call fails. If an application is sent a publication
which was retained, this is indicated by the MQIsRetained message property of that
publication." Over STOMP the option is accepted and nothing is retained (docs/pymqi.md).
"""

from __future__ import annotations

import itertools
from types import ModuleType
from typing import Any

import pytest

from tests.support.mqenv import MQEnv

_names = itertools.count(1)
pytestmark = pytest.mark.embedded_only("retained publications are the embedded queue manager's")


@pytest.fixture
def topic(env: MQEnv) -> str:
    return f"retained/t{id(env)}/{next(_names)}"


def publish(mq: ModuleType, qmgr: Any, topic: str, body: bytes, *more: int, **md: Any) -> None:
    options = mq.CMQC.MQPMO_RETAIN
    for option in more:
        options |= option
    mq.Topic(qmgr, topic_string=topic).pub(body, mq.MD(**md), mq.PMO(Options=options))


def subscribe(mq: ModuleType, qmgr: Any, topic: str, *more: int) -> Any:
    options = mq.CMQC.MQSO_CREATE | mq.CMQC.MQSO_MANAGED
    for option in more:
        options |= option
    sd = mq.SD(Options=options)
    sd.set_vs("ObjectString", topic)
    return mq.Subscription(qmgr, sub_desc=sd)


def get(mq: ModuleType, qmgr: Any, sub: Any) -> tuple[bytes, bool] | None:
    """The next publication's body and its MQIsRetained property (False when not set)."""
    handle = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)
    gmo.Options = mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE
    gmo.MsgHandle = handle.msg_handle
    try:
        body = sub.get(None, mq.MD(), gmo)
    except mq.MQMIError as exc:
        if exc.reason == mq.CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    try:
        retained = bool(handle.properties.get("MQIsRetained"))
    except mq.MQMIError as exc:
        assert exc.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE
        retained = False
    return body, retained


def test_a_later_subscriber_gets_the_retained_publication_marked_retained(
    mq, env: MQEnv, qmgr, topic
) -> None:
    publish(mq, qmgr, topic, b"42")
    sub = subscribe(mq, qmgr, topic)
    assert get(mq, qmgr, sub) == (b"42", True)
    assert get(mq, qmgr, sub) is None
    mq.Topic(qmgr, topic_string=topic).pub(b"43")  # a live one is not marked
    assert get(mq, qmgr, sub) == (b"43", False)
    sub.close()


def test_a_plain_get_sees_the_body_as_published(mq, env: MQEnv, qmgr, topic) -> None:
    # PROPCTL(COMPAT): the mqps folder alone is not delivered in the data
    publish(mq, qmgr, topic, b"plain", Format=mq.CMQC.MQFMT_STRING)
    sub = subscribe(mq, qmgr, topic)
    md = mq.MD()
    assert sub.get(None, md, mq.GMO()) == b"plain"
    assert md.Format.strip() == mq.CMQC.MQFMT_STRING.strip()
    sub.close()


def test_new_publications_only_gets_none_and_subrq_sends_them(mq, env: MQEnv, qmgr, topic) -> None:
    publish(mq, qmgr, f"{topic}/a", b"a")
    publish(mq, qmgr, f"{topic}/b", b"b")
    sub = subscribe(mq, qmgr, f"{topic}/#", mq.CMQC.MQSO_NEW_PUBLICATIONS_ONLY)
    assert get(mq, qmgr, sub) is None
    sro = mq.SRO()
    sub.subrq(mq.CMQC.MQSR_ACTION_PUBLICATION, sro)
    assert sro.NumPubs == 2
    assert [get(mq, qmgr, sub), get(mq, qmgr, sub)] == [(b"a", True), (b"b", True)]
    sub.close()


def test_a_new_retained_publication_replaces_the_old_and_clear_removes_it(
    mq, env: MQEnv, qmgr, topic
) -> None:
    publish(mq, qmgr, topic, b"old")
    publish(mq, qmgr, topic, b"new")
    sub = subscribe(mq, qmgr, topic)
    assert get(mq, qmgr, sub) == (b"new", True)
    assert get(mq, qmgr, sub) is None
    [cleared] = env.broker.qm.mqsc(  # type: ignore[attr-defined]
        f"CLEAR TOPICSTR('{topic}') CLRTYPE(RETAINED)"
    )
    assert cleared.ok
    with pytest.raises(mq.MQMIError) as failure:
        sub.subrq(mq.CMQC.MQSR_ACTION_PUBLICATION, mq.SRO())
    assert failure.value.reason == mq.CMQC.MQRC_NO_RETAINED_MSG
    sub.close()


def test_a_persistent_retained_publication_survives_a_restart(mq, env: MQEnv, qmgr, topic) -> None:
    publish(mq, qmgr, f"{topic}/kept", b"kept", Persistence=mq.CMQC.MQPER_PERSISTENT)
    publish(mq, qmgr, f"{topic}/lost", b"lost", Persistence=mq.CMQC.MQPER_NOT_PERSISTENT)
    qmgr.disconnect()
    env.broker.restart()
    again = mq.connect("QM1")
    try:
        sub = subscribe(mq, again, f"{topic}/#")
        assert get(mq, again, sub) == (b"kept", True)
        assert get(mq, again, sub) is None
        sub.close()
    finally:
        again.disconnect()


def test_under_syncpoint_the_retained_publication_changes_at_commit(
    mq, env: MQEnv, qmgr, topic
) -> None:
    syncpoint = mq.CMQC.MQPMO_SYNCPOINT
    publish(mq, qmgr, topic, b"old")
    publish(mq, qmgr, topic, b"backed out", syncpoint)
    qmgr.backout()
    publish(mq, qmgr, topic, b"committed", syncpoint)
    before = subscribe(mq, qmgr, topic)
    assert get(mq, qmgr, before) == (b"old", True)  # not yet committed
    qmgr.commit()
    after = subscribe(mq, qmgr, topic)
    assert get(mq, qmgr, after) == (b"committed", True)
    before.close()
    after.close()


def test_force_mqrfh2_keeps_the_mqps_folder(mq, env: MQEnv, qmgr, topic) -> None:
    # IBM MQ, MQGMO_PROPERTIES_FORCE_MQRFH2: the properties come in an MQRFH2 whatever
    # PROPCTL says, so the MQIsRetained mark is in the data
    publish(mq, qmgr, topic, b"body", Format=mq.CMQC.MQFMT_STRING)
    sub = subscribe(mq, qmgr, topic)
    md = mq.MD()
    data = sub.get(None, md, mq.GMO(Options=mq.CMQC.MQGMO_PROPERTIES_FORCE_MQRFH2))
    assert md.Format.strip() == mq.CMQC.MQFMT_RF_HEADER_2.strip()
    assert b"<Ret dt='boolean'>1</Ret>" in data and data.endswith(b"body")
    sub.close()


def test_as_q_def_with_a_message_handle_fills_the_handle(mq, env: MQEnv, qmgr, topic) -> None:
    # IBM MQ, MQGMO_PROPERTIES_AS_Q_DEF: "If a MsgHandle is provided this option is ignored
    # and the properties of the message are available using the MsgHandle"
    publish(mq, qmgr, topic, b"v", Format=mq.CMQC.MQFMT_STRING)
    sub = subscribe(mq, qmgr, topic)
    handle = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_CURRENT_VERSION)  # Options: AS_Q_DEF (0)
    gmo.MsgHandle = handle.msg_handle
    assert sub.get(None, mq.MD(), gmo) == b"v"
    assert bool(handle.properties.get("MQIsRetained"))
    sub.close()


def test_a_buffer_the_size_of_the_body_gets_a_marked_copy(mq, env: MQEnv, qmgr, topic) -> None:
    # the mqps-only RFH2 that PROPCTL(COMPAT) takes off does not count against the buffer
    body = b"0123456789" * 20
    publish(mq, qmgr, topic, body, Format=mq.CMQC.MQFMT_STRING)
    sub = subscribe(mq, qmgr, topic)
    assert sub.get(len(body), mq.MD(), mq.GMO()) == body
    sub.close()


def test_pcf_clear_topic_string_removes_the_retained_publication(mq, env, qmgr) -> None:
    # MQCMD_CLEAR_TOPIC_STRING, MQCLRT_RETAINED (it was 2298 "not supported")
    mq.Topic(qmgr, topic_string="pcfclear/x").pub(
        b"kept", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_RETAIN)
    )
    pcf = mq.PCFExecute(qmgr)
    [before] = pcf.MQCMD_INQUIRE_TOPIC_STATUS({mq.CMQC.MQCA_TOPIC_STRING: "pcfclear/x"})
    assert before[mq.CMQCFC.MQIACF_RETAINED_PUBLICATION] == mq.CMQCFC.MQQSO_YES
    pcf.MQCMD_CLEAR_TOPIC_STRING(
        {
            mq.CMQC.MQCA_TOPIC_STRING: "pcfclear/x",
            mq.CMQCFC.MQIACF_CLEAR_TYPE: mq.CMQCFC.MQCLRT_RETAINED,
        }
    )
    [after] = pcf.MQCMD_INQUIRE_TOPIC_STATUS({mq.CMQC.MQCA_TOPIC_STRING: "pcfclear/x"})
    assert after[mq.CMQCFC.MQIACF_RETAINED_PUBLICATION] == mq.CMQCFC.MQQSO_NO


def test_pcf_topic_strings_given_as_bytes_are_utf8(mq, env, qmgr) -> None:
    # as MQSUB's, DEFINE TOPIC's and the subscription commands' topic strings: "café" given
    # as its UTF-8 bytes is the topic "café", not "cafÃ©"
    topic = f"café/t{next(_names)}"
    mq.Topic(qmgr, topic_string=topic).pub(b"kept", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_RETAIN))
    pcf = mq.PCFExecute(qmgr)
    asked = {mq.CMQC.MQCA_TOPIC_STRING: topic.encode()}
    [before] = pcf.MQCMD_INQUIRE_TOPIC_STATUS(asked)
    assert before[mq.CMQCFC.MQIACF_RETAINED_PUBLICATION] == mq.CMQCFC.MQQSO_YES
    assert before[mq.CMQC.MQCA_TOPIC_STRING].rstrip(b" ") == topic.encode()
    pcf.MQCMD_CLEAR_TOPIC_STRING({**asked, mq.CMQCFC.MQIACF_CLEAR_TYPE: mq.CMQCFC.MQCLRT_RETAINED})
    [after] = pcf.MQCMD_INQUIRE_TOPIC_STATUS(asked)
    assert after[mq.CMQCFC.MQIACF_RETAINED_PUBLICATION] == mq.CMQCFC.MQQSO_NO
