"""Message property names as IBM MQ's MQSETMP checks them ("Property name restrictions").

A name MQ refuses fails the set with MQMIError 2442 MQRC_PROPERTY_NAME_ERROR, where the
program's ``except MQMIError`` is (it used to be accepted, and the put raised ValueError).
The JMS names the MQI may set (JMSCorrelationID, JMSReplyTo, JMSType, JMSXGroupID,
JMSXGroupSeq) are synonyms of their RFH2 places, where JMS consumers read them.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from mqjms.mq.jms import parse_jms_folders
from mqjms.mq.rfh2 import parse_chain
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"

REFUSED = [
    "JMSPriority",  # a JMS name the MQI may not set
    "JMSFoo",
    "usr.JMSFoo",
    "my-prop",  # not a Java identifier
    "my prop",
    "1abc",
    "NULL",  # selector keywords, in any case, with or without usr.
    "usr.between",
    "a..b",
    "trail.",
    "Body.x",
    "Root.Other",
    "mq.a.b",  # an mq name with two dots
]


@pytest.mark.parametrize("name", REFUSED)
def test_a_name_mq_refuses_is_2442_at_the_set(mq: ModuleType, env: MQEnv, qmgr, name: str) -> None:
    handle = mq.MessageHandle(qmgr)
    with pytest.raises(mq.MQMIError) as failure:
        handle.properties.set(name.encode(), b"x")
    assert (failure.value.comp, failure.value.reason) == (
        mq.CMQC.MQCC_FAILED,
        mq.CMQC.MQRC_PROPERTY_NAME_ERROR,
    )
    assert repr(name) in failure.value.detail  # str(e) is the library's text alone


def test_an_empty_name_is_2513(mq: ModuleType, env: MQEnv, qmgr) -> None:
    with pytest.raises(mq.MQMIError) as failure:
        mq.MessageHandle(qmgr).properties.set(b"", b"x")
    assert failure.value.reason == mq.CMQC.MQRC_PROPERTY_NAME_LENGTH_ERR


def _put(mq: ModuleType, qmgr: object, values: dict[str, object]) -> None:
    handle = mq.MessageHandle(qmgr)
    for name, value in values.items():
        kind = mq.CMQC.MQTYPE_INT32 if isinstance(value, int) else mq.CMQC.MQTYPE_STRING
        handle.properties.set(name.encode(), value, property_type=kind)
    pmo = mq.PMO(Version=mq.CMQC.MQPMO_VERSION_3)
    pmo.OriginalMsgHandle = handle.msg_handle
    mq.Queue(qmgr, Q).put(b"body", mq.MD(), pmo)


def test_the_settable_jms_names_reach_a_jms_consumer(mq: ModuleType, env: MQEnv, qmgr) -> None:
    _put(
        mq,
        qmgr,
        {
            "JMSCorrelationID": "order-7",
            "JMSType": "Order",
            "JMSXGroupID": "g1",
            "JMSXGroupSeq": 2,
            "Colour": "red",
        },
    )
    [(md, data)] = env.browse(Q)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    headers, usr = parse_jms_folders(chain.folders)
    assert headers is not None
    assert (headers.correlation_id, headers.type) == ("order-7", "Order")
    assert (headers.group_id, headers.group_seq) == ("g1", 2)
    assert usr == {"Colour": "red"}


def test_the_jms_names_read_back_from_a_message_handle(mq: ModuleType, env: MQEnv, qmgr) -> None:
    _put(mq, qmgr, {"JMSCorrelationID": "order-7", "Colour": "red"})
    got = mq.MessageHandle(qmgr)
    gmo = mq.GMO(Version=mq.CMQC.MQGMO_VERSION_4, Options=mq.CMQC.MQGMO_PROPERTIES_IN_HANDLE)
    gmo.MsgHandle = got.msg_handle
    assert mq.Queue(qmgr, Q).get(None, mq.MD(), gmo) == b"body"
    assert got.properties.get(b"JMSCorrelationID") == "order-7"
    assert got.properties.get(b"usr.Colour") == "red"


def test_the_jms_folder_s_integers_are_written_without_dt(mq: ModuleType, env: MQEnv, qmgr) -> None:
    """mq-reference §2.5: IBM's JMS writes no ``dt`` in the jms folder; a JMSXGroupSeq
    MQSETMP sets is written as JMS writes it (it had ``dt='i4'``)."""
    _put(mq, qmgr, {"JMSXGroupSeq": 2})
    [(md, data)] = env.browse(Q)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert "<jms><Seq>2</Seq></jms>" in chain.folders


def test_reading_typed_jms_values_leaves_the_shared_parsed_folder_alone() -> None:
    # fill_from typed the jms folder's integers by setting dt on the parsed element,
    # which rfh2.parse_folder's cache shares with every reader of the same text
    from mqjms.mq import rfh2
    from mqjms.mqi.constants import CMQC
    from mqjms.mqi.properties import MessageProperties

    text = "<jms><Pri>7</Pri><Tms>abc</Tms></jms>"
    properties = MessageProperties()
    properties.fill_from([text])
    assert rfh2.parse_folder(text).find("Pri").get("dt") is None  # type: ignore[union-attr]
    assert properties.items["jms.Pri"].value == 7
    tms = properties.items["jms.Tms"]  # not a number: its text, as a string
    assert (tms.value, tms.type) == ("abc", CMQC.MQTYPE_STRING)
