"""The JMSX and JMS_IBM_* properties of a received message, as IBM MQ classes for JMS give
them: ``get_property``, ``property_names`` and ``property_exists`` answer them from the
MQMD (IBM's "Mapping IBM MQ fields onto JMS fields (incoming messages)", Tables 2 and 3;
mq-reference §7.3 [S36]). They were not there at all: a listener could read the
BackoutCount only as ``message.md.BackoutCount`` and the put date not by IBM's names.
"""

from __future__ import annotations

from typing import Any

import pytest

from mqjms.jms import message as message_module
from mqjms.jms.message import from_mq, make_message
from mqjms.mq import MQMD, RFH2, C, build_chain, jms_descriptor, parse_chain

Q = "PROPS.Q"
NOW = 1_750_000_000.0


def _jms_message(md: MQMD, body: bytes = b"hello") -> tuple[MQMD, bytes]:
    """A message as a JMS producer writes it: an RFH2 (big-endian, CCSID 1208) describing
    an MQSTR body in CCSID 819, little-endian."""
    header = RFH2(
        Encoding=C.MQENC_NATIVE,
        CodedCharSetId=819,
        Format=C.MQFMT_STRING,
        NameValueCCSID=1208,
        folders=["<mcd><Msd>jms_text</Msd></mcd>", "<usr><Colour>red</Colour></usr>"],
    )
    md.Format, md.CodedCharSetId, md.Encoding = C.MQFMT_RF_HEADER_2, 1208, C.MQENC_NORMAL
    return md, build_chain([header], body, C.MQENC_NORMAL)


def _descriptor(**fields: Any) -> MQMD:
    base: dict[str, Any] = {
        "PutDate": "20260102",
        "PutTime": "03040506",
        "PutApplName": "orders-app",
        "PutApplType": C.MQAT_JAVA,
        "UserIdentifier": "alice",
        "MsgType": C.MQMT_DATAGRAM,
        "BackoutCount": 2,
    }
    return MQMD(**{**base, **fields})


@pytest.mark.parametrize("lazy", [False, True])
def test_a_received_message_has_ibm_s_provider_properties(lazy: bool) -> None:
    md, data = _jms_message(_descriptor())
    message = from_mq(md, data, NOW, lazy=lazy)
    assert message.get_property("JMSXDeliveryCount") == 3  # BackoutCount + 1
    assert message.get_property("JMSXAppID") == "orders-app".ljust(28)
    assert message.get_property("JMSXUserID") == "alice".ljust(12)
    assert message.get_property("JMS_IBM_PutDate") == "20260102"
    assert message.get_property("JMS_IBM_PutTime") == "03040506"
    assert message.get_property("JMS_IBM_PutApplType") == C.MQAT_JAVA
    assert message.get_property("JMS_IBM_MsgType") == C.MQMT_DATAGRAM
    # the body's description, from the RFH2, not the MQMD's (which describes the RFH2)
    assert message.get_property("JMS_IBM_Format") == "MQSTR   "
    assert message.get_property("JMS_IBM_Character_Set") == "ISO-8859-1"
    assert message.get_property("JMS_IBM_Encoding") == C.MQENC_NATIVE
    assert message.get_property("Colour") == "red"
    assert message.property_names() == [
        "Colour",
        "JMSXAppID",
        "JMSXDeliveryCount",
        "JMSXUserID",
        "JMS_IBM_Character_Set",
        "JMS_IBM_Encoding",
        "JMS_IBM_Format",
        "JMS_IBM_MsgType",
        "JMS_IBM_PutApplType",
        "JMS_IBM_PutDate",
        "JMS_IBM_PutTime",
    ]
    assert message.properties == {"Colour": "red"}  # the application's, to send on
    assert message.property_exists("JMS_IBM_PutDate")
    assert not message.property_exists("JMS_IBM_Feedback")  # the MQMD has none
    assert message.get_property("JMS_IBM_Feedback") is None


def test_report_feedback_and_group_properties_only_when_set() -> None:
    report = C.MQRO_COA_WITH_DATA | C.MQRO_EXCEPTION | C.MQRO_PASS_CORREL_ID
    md = _descriptor(
        Report=report,
        Feedback=C.MQFB_EXPIRATION,
        MsgType=C.MQMT_REPORT,
        GroupId=b"\x07" * 24,
        MsgSeqNumber=4,
        MsgFlags=C.MQMF_LAST_MSG_IN_GROUP,
    )
    md.Format, md.CodedCharSetId = C.MQFMT_STRING, 1208
    message = from_mq(md, b"x", NOW)
    assert message.get_property("JMS_IBM_Report_COA") == C.MQRO_COA_WITH_DATA
    assert message.get_property("JMS_IBM_Report_Exception") == C.MQRO_EXCEPTION
    assert message.get_property("JMS_IBM_Report_Pass_Correl_ID") == C.MQRO_PASS_CORREL_ID
    assert not message.property_exists("JMS_IBM_Report_COD")
    assert message.get_property("JMS_IBM_Feedback") == C.MQFB_EXPIRATION
    assert message.get_property("JMS_IBM_MsgType") == C.MQMT_REPORT
    # IBM: JMSXGroupID/Seq from the MQMD only for a message in a group
    assert message.get_property("JMSXGroupID") == "ID:" + "07" * 24
    assert message.get_property("JMSXGroupSeq") == 4
    assert message.get_property("JMS_IBM_Last_Msg_In_Group") is True
    # a message without an RFH2: the MQMD describes the body
    assert message.get_property("JMS_IBM_Format") == "MQSTR   "
    assert message.get_property("JMS_IBM_Character_Set") == "UTF-8"


def test_the_rfh2_group_wins_and_no_group_has_no_group_properties() -> None:
    md, data = _jms_message(_descriptor())
    assert not from_mq(md, data, NOW).property_exists("JMSXGroupID")
    header = RFH2(
        Format=C.MQFMT_STRING,
        folders=["<mcd><Msd>jms_text</Msd></mcd>", "<jms><Gid>g1</Gid><Seq>2</Seq></jms>"],
    )
    md = _descriptor(GroupId=b"\x07" * 24, MsgSeqNumber=9, MsgFlags=C.MQMF_MSG_IN_GROUP)
    md.Format, md.Encoding = C.MQFMT_RF_HEADER_2, C.MQENC_NORMAL
    message = from_mq(md, build_chain([header], b"x", C.MQENC_NORMAL), NOW)
    assert (message.get_property("JMSXGroupID"), message.get_property("JMSXGroupSeq")) == (
        "g1",
        2,
    )
    assert message.property_names().count("JMSXGroupID") == 1
    assert message.get_property("JMS_IBM_Last_Msg_In_Group") is False


def test_a_message_made_to_send_has_only_its_own_properties() -> None:
    message = make_message("x", {"a": 1})
    assert message.property_names() == ["a"]
    assert message.get_property("JMSXDeliveryCount") is None


@pytest.mark.parametrize("name", ["JMS_IBM_PutDate", "JMSXDeliveryCount", "JMSXUserID"])
def test_the_provider_properties_are_read_only(name: str) -> None:
    # IBM's outgoing mapping: set by the send method or receive-only, never by the message
    with pytest.raises(ValueError, match="reserved"):
        make_message("x", {name: "1"})


def test_a_listener_that_reads_no_property_does_not_compute_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("provider properties computed for a message nobody asked")

    monkeypatch.setattr(jms_descriptor, "provider_properties", refuse)
    md, data = _jms_message(_descriptor())
    message = from_mq(md, data, NOW, lazy=True)
    assert message.body == "hello"
    assert message.jms_delivery_mode == message_module.NON_PERSISTENT  # MQMD default
    assert message.properties == {"Colour": "red"}


def test_delivery_count_of_a_received_message_follows_the_backout_count(env: Any) -> None:
    # mq-reference §7.3: JMSXDeliveryCount = BackoutCount + 1; the other properties are
    # those of the MQMD the message came with, on any transport
    env.define_queue(Q)
    env.send(Q, "again")
    session = env.connect().session(transacted=True)
    consumer = session.consumer(Q)
    for attempt in range(2):
        message = consumer.receive(timeout=1.0)
        assert message is not None
        assert message.get_property("JMSXDeliveryCount") == attempt + 1
        assert message.get_property("JMS_IBM_PutDate") == message.md.PutDate.ljust(8)
        assert message.get_property("JMS_IBM_MsgType") == message.md.MsgType
        assert message.get_property("JMS_IBM_Format") == "MQSTR   "
        assert "JMSXDeliveryCount" in message.property_names()
        session.rollback()


def test_the_java_character_set_of_a_ccsid() -> None:
    assert jms_descriptor.java_charset(1208) == "UTF-8"
    assert jms_descriptor.java_charset(37) == "IBM037"
    assert jms_descriptor.java_charset(99999) == "99999"  # none known: the number


# --------------------------------------------------------------------------- sending
def test_jms_ibm_format_msg_type_and_feedback_set_the_mqmd(env: Any) -> None:
    # IBM's "Mapping JMS provider-specific fields": JMS_IBM_MsgType, JMS_IBM_Feedback and
    # JMS_IBM_Format map onto MsgType, Feedback and the body's Format, not RFH2 properties;
    # an explicit MsgType overrides the default (REQUEST for a reply-to queue). They were
    # refused as names starting with JMS.
    env.define_queue(Q)
    env.define_queue("PROPS.REPLY")
    settings = {  # 65541: MQFB_APPL_FIRST + 5
        "JMS_IBM_MsgType": C.MQMT_REPLY,
        "JMS_IBM_Feedback": 65541,
        "JMS_IBM_Format": "MYFMT",
    }
    env.send(Q, b"payload", properties={**settings, "a": 1}, reply_to="PROPS.REPLY")
    md, data = env.browse_one(Q)
    assert (md.MsgType, md.Feedback) == (C.MQMT_REPLY, 65541)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert chain.Format.rstrip() == "MYFMT"
    assert b"JMS_IBM" not in data
    received = env.connect().session().consumer(Q).receive(timeout=1.0)
    assert received is not None
    assert received.properties == {"a": 1}
    assert received.get_property("JMS_IBM_Format") == "MYFMT   "
    assert received.get_property("JMS_IBM_MsgType") == C.MQMT_REPLY
    assert received.get_property("JMS_IBM_Feedback") == 65541


def test_jms_ibm_format_of_a_plain_mq_destination_is_the_mqmd_s(env: Any) -> None:
    env.define_queue(Q)
    destination = f"queue:///{Q}?targetClient=1"
    env.send(destination, "text", properties={"JMS_IBM_Format": C.MQFMT_NONE})
    md, data = env.browse_one(Q)
    assert (md.Format, data) == (C.MQFMT_NONE, b"text")


@pytest.mark.parametrize(
    ("name", "value", "error", "said"),
    [
        ("JMS_IBM_Format", "TOOLONGNAME", ValueError, "must be at most 8 ASCII"),
        ("JMS_IBM_Format", 5, TypeError, "must be str"),
        ("JMS_IBM_MsgType", "8", TypeError, "must be int"),
        ("JMS_IBM_Feedback", True, TypeError, "must be int"),
        ("JMS_IBM_Feedback", 2**31, ValueError, "must be an MQLONG"),
    ],
)
def test_jms_ibm_mqmd_values_are_checked(
    env: Any, name: str, value: Any, error: type, said: str
) -> None:
    env.define_queue(Q)
    with pytest.raises(error, match=f"{name} {said}"):
        env.send(Q, "x", properties={name: value})
    assert env.depth(Q) == 0


def test_a_sent_message_has_the_properties_its_send_set(env: Any) -> None:
    # IBM's outgoing mapping: JMSXUserID, JMSXAppID, JMS_IBM_PutDate... are "Set by Send
    # Method"; JMS_IBM_Format is the body's (after the RFH2), not the MQMD's MQHRF2
    env.define_queue(Q)
    sent = env.send(Q, "x")
    assert sent.get_property("JMS_IBM_Format") == "MQSTR   "
    assert sent.get_property("JMS_IBM_Character_Set") == "UTF-8"
    assert sent.get_property("JMS_IBM_PutDate") == sent.md.PutDate.ljust(8)
    assert sent.get_property("JMSXAppID") == sent.md.PutApplName.ljust(28)


@pytest.mark.parametrize("target_client", ["0", "1"])
def test_a_received_message_made_into_a_send_still_describes_its_own_body(
    target_client: str,
) -> None:
    # a listener's mqjms.send(queue, message) of the message it received: to_mq gave the
    # message the new body's Format, Encoding and CCSID while it kept its received MQMD
    # (only a producer's send replaces it): JMS_IBM_Format read 'MQHRF2  ' after a
    # targetClient=1 send, and JMS_IBM_Encoding changed
    from mqjms.jms import Queue

    md, data = _jms_message(_descriptor())
    message = from_mq(md, data, NOW, lazy=True)
    before = {name: message.get_property(name) for name in _BODY_NAMES}
    message_module.to_mq(message, Queue.parse(f"queue:///OUT?targetClient={target_client}"))
    assert {name: message.get_property(name) for name in _BODY_NAMES} == before


_BODY_NAMES = ("JMS_IBM_Format", "JMS_IBM_Encoding", "JMS_IBM_Character_Set")
