"""MQINQMP of ``Root.MQMD.<Field>`` on a message handle a get filled: the field of the
message's MQMD, as IBM MQ's "Message descriptor fields as properties" says. It was 2471
MQRC_PROPERTY_NOT_AVAILABLE, so a program reading the descriptor through the handle (as
a get that passes no MQMD of its own must) found nothing.
"""

from __future__ import annotations

import calendar
import time
from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def _got_handle(mq: ModuleType, qmgr: object, md: object) -> object:
    handle = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    assert mq.Queue(qmgr, Q).get(None, md, gmo) == b"body"
    return handle


def test_the_mqmd_fields_read_as_properties(mq: ModuleType, env: MQEnv, qmgr) -> None:
    put_md = mq.MD(Format=mq.CMQC.MQFMT_STRING, Priority=7, CorrelId=b"C" * 24)
    put_md.ReplyToQ = b"DEV.QUEUE.2"
    mq.Queue(qmgr, Q).put(b"body", put_md)
    md = mq.MD()
    handle = _got_handle(mq, qmgr, md)
    props = handle.properties
    assert props.get(b"Root.MQMD.Priority") == 7
    assert props.get(b"Root.MQMD.BackoutCount") == 0
    assert props.get(b"Root.MQMD.MsgId") == md.MsgId
    assert props.get(b"Root.MQMD.CorrelId") == b"C" * 24
    assert props.get(b"Root.MQMD.Format") == "MQSTR   "  # the MQCHAR8 as the MQMD holds it
    assert props.get(b"Root.MQMD.ReplyToQ", max_value_length=48).rstrip() == "DEV.QUEUE.2"


def test_the_descriptor_is_that_of_the_last_message_got(mq: ModuleType, env: MQEnv, qmgr) -> None:
    queue = mq.Queue(qmgr, Q)
    queue.put(b"body", mq.MD(Priority=2))  # got first: the higher priority
    queue.put(b"body", mq.MD(Priority=1))
    handle = _got_handle(mq, qmgr, mq.MD())
    assert handle.properties.get(b"Root.MQMD.Priority") == 2
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).get(None, mq.MD(), gmo)
    assert handle.properties.get(b"Root.MQMD.Priority") == 1


@pytest.mark.parametrize("name", [b"Root.MQMD.StrucId", b"Root.MQMD.Version", b"Root.MQMD.Nope"])
def test_no_such_descriptor_property(mq: ModuleType, env: MQEnv, qmgr, name: bytes) -> None:
    mq.Queue(qmgr, Q).put(b"body")
    handle = _got_handle(mq, qmgr, mq.MD())
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.get(name)
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE


def test_the_jms_names_are_synonyms_of_mqmd_fields(mq: ModuleType, env: MQEnv, qmgr) -> None:
    # IBM's "Property name restrictions": JMSMessageID is Root.MQMD.MsgId, and so on
    mq.Queue(qmgr, Q).put(b"body", mq.MD(Priority=4, Persistence=mq.CMQC.MQPER_PERSISTENT))
    md = mq.MD()
    props = _got_handle(mq, qmgr, md).properties
    assert props.get(b"JMSMessageID") == md.MsgId
    assert props.get(b"JMSPriority") == 4
    assert props.get(b"JMSDeliveryMode") == 2  # JMS's PERSISTENT, not MQPER_PERSISTENT (1)
    assert props.get(b"JMSXDeliveryCount") == 0
    assert props.get(b"JMSXAppID", max_value_length=28) == md.PutApplName.decode()
    with pytest.raises(mq.MQMIError) as failure:
        props.get(b"JMSDestination")  # an RFH2 place alone, and the message has no RFH2
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE


def test_a_jms_synonym_reads_the_rfh2_first(mq: ModuleType, env: MQEnv, qmgr) -> None:
    handle = mq.MessageHandle(qmgr)
    handle.properties.set(b"JMSCorrelationID", b"order-7")
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).put(b"body", mq.MD(CorrelId=b"C" * 24), pmo)
    props = _got_handle(mq, qmgr, mq.MD()).properties
    assert props.get(b"JMSCorrelationID") == "order-7"
    if env.url.startswith("stomp"):
        return  # STOMP has one correlation-id header: the JMS one is the MQMD's CorrelId too
    assert props.get(b"Root.MQMD.CorrelId") == b"C" * 24


@pytest.mark.parametrize("name", [b"JMSPriority", b"Root.MQMD.Priority"])
def test_inq_next_on_a_synonym_ends(mq: ModuleType, env: MQEnv, qmgr, name: bytes) -> None:
    """MQIMPO_INQ_NEXT on a JMS synonym or a Root.MQMD name moves on, and finds no more
    (2471) after the one property, as any other name: it returned the same value forever,
    so a program's INQ_NEXT loop never ended."""
    C = mq.CMQC
    mq.Queue(qmgr, Q).put(b"body", mq.MD(Priority=3))
    props = _got_handle(mq, qmgr, mq.MD()).properties
    assert props.get(name, impo_options=C.MQIMPO_INQ_NEXT) == 3
    with pytest.raises(mq.MQMIError) as failure:
        props.get(name, impo_options=C.MQIMPO_INQ_NEXT)
    assert failure.value.reason == C.MQRC_PROPERTY_NOT_AVAILABLE
    assert props.get(name) == 3  # MQIMPO_INQ_FIRST: from the start again


@pytest.mark.parametrize(
    ("persistence", "delivery_mode"), [("MQPER_PERSISTENT", 2), ("MQPER_NOT_PERSISTENT", 1)]
)
def test_jms_delivery_mode_from_the_mqmd_is_jms_s(
    mq: ModuleType, env: MQEnv, qmgr, persistence: str, delivery_mode: int
) -> None:
    """IBM's incoming mapping: JMSDeliveryMode is Persistence as JMS's DeliveryMode
    (PERSISTENT 2, NON_PERSISTENT 1); it was the MQPER_ value (1 for persistent)."""
    mq.Queue(qmgr, Q).put(b"body", mq.MD(Persistence=getattr(mq.CMQC, persistence)))
    props = _got_handle(mq, qmgr, mq.MD()).properties
    assert props.get(b"JMSDeliveryMode") == delivery_mode
    assert props.get(b"Root.MQMD.Persistence") == getattr(mq.CMQC, persistence)


def test_jms_reply_to_and_timestamp_from_the_mqmd(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """IBM's incoming mapping: a message without an RFH2 has JMSReplyTo from ReplyToQ and
    ReplyToQMgr (a queue:// URI) and JMSTimestamp from PutDate and PutTime (ms since the
    epoch, GMT); both were 2471 MQRC_PROPERTY_NOT_AVAILABLE."""
    put_md = mq.MD(ReplyToQ=b"DEV.QUEUE.2", ReplyToQMgr=b"QM9")
    mq.Queue(qmgr, Q).put(b"body", put_md)
    md = mq.MD()
    props = _got_handle(mq, qmgr, md).properties
    assert props.get(b"JMSReplyTo") == "queue://QM9/DEV.QUEUE.2"
    date, clock = _text(md.PutDate), _text(md.PutTime)
    put_at = calendar.timegm(time.strptime(date + clock[:6], "%Y%m%d%H%M%S"))
    assert props.get(b"JMSTimestamp") == put_at * 1000 + int(clock[6:8]) * 10


def test_no_reply_to_queue_is_no_jms_reply_to(mq: ModuleType, env: MQEnv, qmgr) -> None:
    mq.Queue(qmgr, Q).put(b"body")
    props = _got_handle(mq, qmgr, mq.MD()).properties
    with pytest.raises(mq.MQMIError) as failure:
        props.get(b"JMSReplyTo")
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_NOT_AVAILABLE


def test_the_rfh2_reply_to_wins_over_the_mqmd(mq: ModuleType, env: MQEnv, qmgr) -> None:
    handle = mq.MessageHandle(qmgr)
    handle.properties.set(b"JMSReplyTo", b"queue:///REPLIES")
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).put(b"body", mq.MD(ReplyToQ=b"DEV.QUEUE.2"), pmo)
    props = _got_handle(mq, qmgr, mq.MD()).properties
    assert props.get(b"JMSReplyTo") == "queue:///REPLIES"


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def test_the_jms_folder_s_integers_read_as_integers(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """IBM's JMS writes jms.Pri, jms.Dlv, jms.Tms, jms.Exp and jms.Seq without a ``dt``;
    they are a Java int or long, so MQINQMP of JMSPriority on a JMS message is 7, as on a
    message whose MQMD alone has it (it was the string '7')."""
    env.send(Q, "x", priority=7, time_to_live=60_000, properties={"JMSXGroupSeq": 3})
    props = _got_handle_of_any(mq, qmgr).properties
    assert props.get(b"JMSPriority") == 7
    assert props.get(b"JMSDeliveryMode") == 2
    assert props.get(b"JMSXGroupSeq") == 3
    timestamp = props.get(b"JMSTimestamp")
    assert isinstance(timestamp, int) and props.get(b"JMSExpiration") == timestamp + 60_000
    assert props.get(b"jms.Pri") == 7


def _got_handle_of_any(mq: ModuleType, qmgr: object) -> object:
    handle = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).get(None, mq.MD(), gmo)
    return handle
