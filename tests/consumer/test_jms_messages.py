"""JMS messages on the wire: bodies, typed properties and headers round trip, and the
MQMD + RFH2 are written exactly as IBM MQ classes for JMS write them (mq-reference
§2.4-2.5, §7.3; issue 3 item 1)."""

from __future__ import annotations

import struct
import time
from typing import Any

import pytest

import mqjms
from mqjms.mq import MQMD, RFH2, C, build_chain, parse_chain
from mqjms.transport import Context

Q, REPLY = "MSG.Q", "MSG.REPLY"

PROPERTIES: dict[str, Any] = {
    "text": "a <b> & 'c' \"d\" é €",
    "empty": "",
    "spaces": "  padded  ",
    "control": "cr\rlf\ntab\t",
    "astral": "emoji \U0001f600",
    "small": 42,
    "negative": -7,
    "big": 2**40,
    "flag": True,
    "off": False,
    "ratio": 0.1,
    "blob": b"\x00\x01\xfe\xff",
    "nothing": None,
}


def _receive_one(env: Any, queue: str = Q) -> mqjms.Message:
    session = env.connect().session()
    message = session.consumer(queue).receive(timeout=1.0)
    assert message is not None
    return message


def _rfh2_header(struc_length: int, fmt: bytes) -> bytes:
    """The fixed part IBM's JMS client writes: big-endian (MQMD Encoding 273), CCSID
    1208 for what follows, NameValueCCSID 1208 (mq-reference §2.4)."""
    return struct.pack(">4sii ii 8s ii", b"RFH ", 2, struc_length, 273, 1208, fmt.ljust(8), 0, 1208)


def _folder(text: str) -> bytes:
    data = text.encode("utf-8")
    data += b" " * (-len(data) % 4)
    return struct.pack(">i", len(data)) + data


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("héllo wörld €", mqjms.TextMessage),
        ("", mqjms.TextMessage),
        (b"\x00\x01binary\xff", mqjms.BytesMessage),
        (b"", mqjms.BytesMessage),
        (None, mqjms.Message),
    ],
    ids=["text", "empty-text", "bytes", "empty-bytes", "no-body"],
)
def test_body_and_typed_properties_round_trip(env: Any, body: Any, kind: type) -> None:
    # issue 3: TextMessage, BytesMessage and Message with typed properties in usr
    env.define_queue(Q)
    env.send(Q, body, properties=PROPERTIES)
    message = _receive_one(env)
    assert type(message) is kind
    assert message.body == body
    assert message.properties == PROPERTIES
    for name, value in PROPERTIES.items():
        assert type(message.properties[name]) is type(value), name


def test_a_stream_message_round_trips_its_typed_values_in_order(env: Any) -> None:
    # mq-reference 2.5: <mcd><Msd>jms_stream</Msd></mcd>, a JMS StreamMessage: a list body
    values = ["TEA", 42, 2**40, 2.5, True, b"\x00\xff", None, "", "<&>"]
    env.define_queue(Q)
    env.send(Q, values)
    message = _receive_one(env)
    assert type(message) is mqjms.StreamMessage
    assert message.body == values
    assert [type(v) for v in message.body] == [type(v) for v in values]


def test_a_stream_message_from_ibm_mq_classes_for_jms_is_read(env: Any) -> None:
    # the body as the JMS client writes a StreamMessage: one <elt> a value, typed by dt;
    # it was a BytesMessage holding the XML
    body = "<stream><elt dt='i4'>1</elt><elt>two</elt><elt dt='boolean'>1</elt></stream>"
    header = RFH2(
        Encoding=273,
        CodedCharSetId=1208,
        Format=C.MQFMT_STRING,
        NameValueCCSID=1208,
        folders=["<mcd><Msd>jms_stream</Msd></mcd>", "<jms><Dst>queue:///Q</Dst></jms>"],
    )
    env.define_queue(Q)
    data = build_chain([header], body.encode(), 273)
    env.put_raw(Q, data, Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    message = _receive_one(env)
    assert type(message) is mqjms.StreamMessage and message.body == [1, "two", True]


def test_a_stream_value_that_cannot_be_sent_is_named_by_its_place(env: Any) -> None:
    env.define_queue(Q)
    with pytest.raises(TypeError, match="StreamMessage value 1"):
        env.send(Q, mqjms.StreamMessage(["ok", [1, 2]]))
    assert env.depth(Q) == 0


def test_text_message_with_null_body_round_trips(env: Any) -> None:
    # mq-reference §2.5: a TextMessage with a null body is written with
    # <msgbody xsi:nil="true"></msgbody> in mcd and comes back with a null body.
    env.define_queue(Q)
    env.send(Q, mqjms.TextMessage(None))
    md, data = env.browse_one(Q)
    folders = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    assert folders[0] == '<mcd><Msd>jms_text</Msd><msgbody xsi:nil="true"></msgbody></mcd>'
    message = _receive_one(env)
    assert isinstance(message, mqjms.TextMessage)
    assert message.body is None


@pytest.mark.parametrize("name", ["JMSXCustom", "has.dot", "has:colon", "AND", "null", "1abc"])
def test_invalid_property_names_are_refused(env: Any, name: str) -> None:
    # mq-reference §2.5 usr restrictions: not JMS*, no '.' or ':', no selector keyword,
    # a valid XML name.
    env.define_queue(Q)
    session = env.connect().session()
    with pytest.raises(ValueError):
        session.producer(Q).send("x", properties={name: 1})
    assert env.depth(Q) == 0


@pytest.mark.parametrize(
    ("arguments", "error", "text"),
    [
        ({"properties": [1]}, TypeError, "properties must be a mapping"),
        ({"correlation_id": 5}, TypeError, "correlation_id must be a str"),
        ({"reply_to": 5}, TypeError, "reply_to must be a queue name"),
        ({"message_or_body": "\ud800"}, ValueError, "text body must be valid Unicode"),
    ],
)
def test_wrong_arguments_to_send_say_which_and_send_nothing(
    env: Any, arguments: dict[str, Any], error: type[Exception], text: str
) -> None:
    env.define_queue(Q)
    producer = env.connect().session().producer(Q)
    arguments = dict(arguments)  # shared by every transport's run
    body = arguments.pop("message_or_body", "x")
    with pytest.raises(error, match=text):
        producer.send(body, **arguments)
    assert env.depth(Q) == 0


def test_message_object_with_properties_round_trips(env: Any) -> None:
    env.define_queue(Q)
    outgoing = mqjms.BytesMessage(b"abc", {"count": 1})
    env.send(Q, outgoing, properties={"extra": "yes"})
    message = _receive_one(env)
    assert message.body == b"abc"
    assert message.properties == {"count": 1, "extra": "yes"}


# --------------------------------------------------------------------------- JMS headers
def test_jms_headers_set_on_send_and_read_on_receive(env: Any) -> None:
    # issue 3 + mq-reference §2.5/§7.3: jms_message_id "ID:" + 48 hex digits of the MsgId,
    # timestamp, expiration = timestamp + time to live, priority, delivery mode,
    # reply-to, destination "queue:///Q", redelivered, delivery_count = BackoutCount + 1.
    env.define_queue(Q)
    before = int(time.time() * 1000)
    sent = env.send(
        Q,
        "hdr",
        priority=7,
        time_to_live=60_000,
        delivery_mode=mqjms.NON_PERSISTENT,
        reply_to=REPLY,
    )
    after = int(time.time() * 1000)
    assert sent.jms_message_id is not None and sent.jms_message_id.startswith("ID:")
    assert len(sent.jms_message_id) == 51
    assert sent.jms_message_id == "ID:" + sent.md.MsgId.hex()
    assert before <= sent.jms_timestamp <= after
    assert sent.jms_expiration == sent.jms_timestamp + 60_000
    message = _receive_one(env)
    assert message.jms_message_id == sent.jms_message_id
    assert message.jms_message_id == "ID:" + message.md.MsgId.hex()
    assert message.jms_timestamp == sent.jms_timestamp
    assert message.jms_expiration == sent.jms_timestamp + 60_000
    assert message.jms_priority == 7
    assert message.jms_delivery_mode == mqjms.NON_PERSISTENT
    assert message.md.Persistence == C.MQPER_NOT_PERSISTENT
    assert message.jms_reply_to == f"queue:///{REPLY}"
    assert message.md.ReplyToQ.strip() == REPLY
    assert message.jms_destination == f"queue:///{Q}"
    assert message.jms_redelivered is False
    assert message.delivery_count == 1
    assert message.jms_correlation_id is None


def test_default_headers(env: Any) -> None:
    # JMS defaults: priority 4, PERSISTENT, no expiration (0), MQMD Expiry unlimited
    env.define_queue(Q)
    env.send(Q, "defaults")
    message = _receive_one(env)
    assert message.jms_priority == mqjms.DEFAULT_PRIORITY == 4
    assert message.jms_delivery_mode == mqjms.PERSISTENT
    assert message.md.Persistence == C.MQPER_PERSISTENT
    assert message.jms_expiration == 0
    assert message.md.Expiry == C.MQEI_UNLIMITED


def test_correlation_id_as_message_id(env: Any) -> None:
    # mq-reference §2.5: a correlation id "ID:<48 hex>" is the MQMD CorrelId's bytes
    env.define_queue(Q)
    request = env.send(Q, "request")
    env.send(Q, "reply", correlation_id=request.jms_message_id)
    session = env.connect().session()
    consumer = session.consumer(Q)
    assert consumer.receive(timeout=1.0) is not None
    reply = consumer.receive(timeout=1.0)
    assert reply is not None
    assert reply.jms_correlation_id == request.jms_message_id
    assert reply.md.CorrelId == request.md.MsgId


def test_a_message_id_as_correlation_id_travels_in_jms_cid_too(env: Any) -> None:
    # mq-reference §2.5: Cid is written whenever a correlation id is set, "ID:" ones
    # included, so a publication (whose MQMD CorrelId is the subscription's) keeps it
    env.define_queue(Q)
    cid = "ID:" + "41" * 24
    env.send(Q, "x", correlation_id=cid)
    md, data = env.browse_one(Q)
    folders = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    assert f"<Cid>{cid}</Cid>" in folders[1]
    assert md.CorrelId == b"A" * 24


@pytest.mark.parametrize("cid", ["order-77", "a much longer correlation id, more than 24 bytes"])
def test_free_text_correlation_id(env: Any, cid: str) -> None:
    # mq-reference §2.5: a free-text JMSCorrelationID travels in jms.Cid (the RFH2 value
    # wins over the MQMD's on receive); the MQMD CorrelId holds its first 24 bytes.
    env.define_queue(Q)
    env.send(Q, "x", correlation_id=cid)
    md, data = env.browse_one(Q)
    folders = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    assert f"<Cid>{cid}</Cid>" in folders[1]
    assert md.CorrelId == cid.encode()[:24].ljust(24, b"\0")
    message = _receive_one(env)
    assert message.jms_correlation_id == cid


def test_redelivered_and_delivery_count_follow_backout_count(env: Any) -> None:
    # mq-reference §7.3: JMSXDeliveryCount = BackoutCount + 1,
    # JMSRedelivered = BackoutCount > 0
    env.define_queue(Q)
    env.send(Q, "again")
    session = env.connect().session(transacted=True)
    consumer = session.consumer(Q)
    for attempt in range(3):
        message = consumer.receive(timeout=1.0)
        assert message is not None
        assert message.md.BackoutCount == attempt
        assert message.delivery_count == attempt + 1
        assert message.jms_redelivered is (attempt > 0)
        session.rollback()


# --------------------------------------------------------------------------- exact bytes
def test_text_message_rfh2_is_written_as_ibm_jms_writes_it(env: Any) -> None:
    # mq-reference §2.4/§2.5: MQMD Format MQHRF2, Encoding 273, CCSID 1208; RFH2 fixed
    # part big-endian; folders mcd, jms, usr in that order, space padded; Pri absent
    # at priority 4; no Exp without a time to live; MQMD Expiry unlimited.
    env.define_queue(Q)
    sent = env.send(Q, "hello", properties={"Count": 42, "Name": "x"})
    md, data = env.browse_one(Q)
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert md.Encoding == 273
    assert md.CodedCharSetId == 1208
    assert md.Expiry == C.MQEI_UNLIMITED
    assert md.Priority == 4
    folders = (
        _folder("<mcd><Msd>jms_text</Msd></mcd>")
        + _folder(f"<jms><Dst>queue:///{Q}</Dst><Tms>{sent.jms_timestamp}</Tms><Dlv>2</Dlv></jms>")
        + _folder("<usr><Count dt='i4'>42</Count><Name>x</Name></usr>")
    )
    expected = _rfh2_header(36 + len(folders), b"MQSTR") + folders + b"hello"
    assert data == expected
    # the mcd folder of a TextMessage is exactly 30 characters + 2 spaces (§2.4)
    assert data[36:72] == b"\x00\x00\x00\x20<mcd><Msd>jms_text</Msd></mcd>  "


def test_rfh2_with_priority_expiry_reply_to_and_correlation(env: Any) -> None:
    # mq-reference §2.5: jms folder order Dst, Rto, Tms, Exp, Cid, Pri, Dlv; Exp is the
    # absolute expiration in ms; the MQMD Expiry the relative time to live in tenths.
    env.define_queue(Q)
    sent = env.send(
        Q,
        b"\x01\x02",
        priority=9,
        time_to_live=5_000,
        reply_to=REPLY,
        correlation_id="cid-1",
        delivery_mode=mqjms.NON_PERSISTENT,
    )
    md, data = env.browse_one(Q)
    assert md.Expiry <= 50 and md.Expiry > 40  # relative, in tenths, decreasing on the queue
    assert md.Priority == 9
    assert md.Persistence == C.MQPER_NOT_PERSISTENT
    assert md.ReplyToQ.strip() == REPLY
    folders = _folder("<mcd><Msd>jms_bytes</Msd></mcd>") + _folder(
        f"<jms><Dst>queue:///{Q}</Dst><Rto>queue:///{REPLY}</Rto>"
        f"<Tms>{sent.jms_timestamp}</Tms><Exp>{sent.jms_timestamp + 5000}</Exp>"
        "<Cid>cid-1</Cid><Pri>9</Pri><Dlv>1</Dlv></jms>"
    )
    expected = _rfh2_header(36 + len(folders), b"") + folders + b"\x01\x02"
    assert data == expected


@pytest.mark.parametrize("priority", [0, 3, 5, 9])
def test_priority_written_to_rfh2_only_when_not_4(env: Any, priority: int) -> None:
    # mq-reference §2.5: "Pri ... written when priority != 4"
    env.define_queue(Q)
    env.send(Q, "p", priority=priority)
    env.send(Q, "p4")
    found = {}
    for md, data in env.browse(Q):
        jms_folder = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders[1]
        found[md.Priority] = jms_folder
    assert f"<Pri>{priority}</Pri>" in found[priority]
    assert "<Pri>" not in found[4]


def test_message_without_body_writes_jms_none(env: Any) -> None:
    # mq-reference §2.5: Message (no body) -> <mcd><Msd>jms_none</Msd></mcd>
    env.define_queue(Q)
    env.send(Q, None)
    md, data = env.browse_one(Q)
    chain = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format)
    assert chain.folders[0] == "<mcd><Msd>jms_none</Msd></mcd>"
    assert chain.body == b""


# --------------------------------------------------------------------------- plain MQ
@pytest.mark.parametrize(
    "destination",
    [mqjms.Queue(Q, target_client=mqjms.TARGET_MQ), f"queue:///{Q}?targetClient=1"],
    ids=["Queue-target-client", "uri"],
)
def test_plain_mq_destination_gets_no_rfh2(env: Any, destination: Any) -> None:
    # issue 3: "or no RFH2 when the destination is marked as a plain MQ application"
    env.define_queue(Q)
    env.send(destination, "plain text", priority=6, time_to_live=30_000)
    md, data = env.browse_one(Q)
    assert md.Format == C.MQFMT_STRING
    assert data == b"plain text"
    assert md.Priority == 6
    assert 0 < md.Expiry <= 300
    message = _receive_one(env)
    assert isinstance(message, mqjms.TextMessage)
    assert message.body == "plain text"


def test_plain_mq_destination_bytes(env: Any) -> None:
    env.define_queue(Q)
    env.send(mqjms.Queue(Q, target_client=mqjms.TARGET_MQ), b"\x00raw")
    md, data = env.browse_one(Q)
    assert md.Format.strip() == C.MQFMT_NONE.strip()
    assert data == b"\x00raw"
    message = _receive_one(env)
    assert isinstance(message, mqjms.BytesMessage) and message.body == b"\x00raw"


# --------------------------------------------------------------------------- no RFH2
@pytest.mark.parametrize(
    ("fmt", "ccsid", "data", "kind", "body"),
    [
        (C.MQFMT_STRING, 819, b"caf\xe9", mqjms.TextMessage, "café"),
        (C.MQFMT_STRING, 1208, "café €".encode(), mqjms.TextMessage, "café €"),
        (C.MQFMT_STRING, 500, "HELLO".encode("cp500"), mqjms.TextMessage, "HELLO"),
        (C.MQFMT_NONE, 1208, b"\x00\x01", mqjms.BytesMessage, b"\x00\x01"),
        ("MQADMIN", 1208, b"pcf", mqjms.BytesMessage, b"pcf"),
    ],
    ids=["MQSTR-819", "MQSTR-1208", "MQSTR-500", "NONE", "other-format"],
)
def test_message_without_rfh2_is_text_when_mqstr_else_bytes(
    env: Any, fmt: str, ccsid: int, data: bytes, kind: type, body: Any
) -> None:
    # issue 3: "A message without an RFH2 is a TextMessage when its Format is MQSTR and a
    # BytesMessage otherwise."
    env.define_queue(Q)
    put = env.put_raw(
        Q, data, Format=fmt, CodedCharSetId=ccsid, Priority=2, Persistence=C.MQPER_PERSISTENT
    )
    message = _receive_one(env)
    assert type(message) is kind
    assert message.body == body
    assert message.properties == {}
    assert message.jms_message_id == "ID:" + put.MsgId.hex()
    assert message.jms_priority == 2
    assert message.jms_delivery_mode == mqjms.PERSISTENT


@pytest.mark.parametrize("capture", ["single_rfh2.dat", "multiple_rfh2.dat"])
def test_a_captured_broker_domain_message_with_an_mqstr_body_is_text(
    env: Any, capture: str
) -> None:
    # shared/testdata: RFH2s from a real queue manager, <mcd><Msd>xmlnsc</Msd></mcd> (a
    # broker's domain, no JMS type), the body Format MQSTR (the last header's, behind a
    # chain of two in multiple_rfh2). mq-reference 2.5: without a JMS type the Format
    # decides: "a TextMessage if the body Format is MQSTR"
    from tests.mqi.mqi_vendor import rfh2_testdata

    data = (rfh2_testdata() / capture).read_bytes()
    env.define_queue(Q)
    env.put_raw(Q, data, Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    message = _receive_one(env)
    assert type(message) is mqjms.TextMessage
    assert message.body == "<testData><testVar>testValue</testVar></testData>"


def test_jmsx_group_properties_travel_in_the_jms_folder(env: Any) -> None:
    # mq-reference 2.5, the jms folder: "Gid | JMSXGroupID | string", "Seq | JMSXGroupSeq
    # | int": an application sets and reads them as properties, by those names
    env.define_queue(Q)
    session = env.connect().session()
    group = {"JMSXGroupID": "order-7", "JMSXGroupSeq": 2}
    session.producer(Q).send(mqjms.TextMessage("part", properties={**group, "a": 1}))
    message = _receive_one(env)
    assert message.properties == {**group, "a": 1}


def test_jmsx_group_properties_of_a_java_message_are_read(env: Any) -> None:
    folders = [
        "<mcd><Msd>jms_text</Msd></mcd>",
        "<jms><Dst>queue:///Q</Dst><Gid>grp-1</Gid><Seq>3</Seq></jms>",
    ]
    header = RFH2(
        Encoding=273,
        CodedCharSetId=1208,
        Format=C.MQFMT_STRING,
        NameValueCCSID=1208,
        folders=folders,
    )
    env.define_queue(Q)
    env.put_raw(
        Q,
        build_chain([header], b"x", 273),
        Format=C.MQFMT_RF_HEADER_2,
        Encoding=273,
        CodedCharSetId=1208,
    )
    message = _receive_one(env)
    assert message.properties == {"JMSXGroupID": "grp-1", "JMSXGroupSeq": 3}


@pytest.mark.parametrize(
    ("group", "error"),
    [
        ({"JMSXGroupID": 7}, TypeError),
        ({"JMSXGroupSeq": "1"}, TypeError),
        ({"JMSXGroupSeq": 0}, ValueError),
    ],
)
def test_jmsx_group_property_values_are_checked(env: Any, group: dict, error: type) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    with pytest.raises(error, match="JMSXGroup"):
        session.producer(Q).send(mqjms.TextMessage("part", properties=group))
    assert env.depth(Q) == 0


def test_jms_ibm_report_properties_are_the_mqmd_report_options(env: Any) -> None:
    # IBM MQ classes for JMS ("Mapping JMS provider-specific fields"): JMS_IBM_Report_*
    # set on a message are its MQMD Report options, not RFH2 properties; the report
    # options seed 002 (MQRO_DISCARD_MSG) and seed 000 (MQRO_EXPIRATION_*) act on
    env.define_queue(Q)
    env.define_queue(REPLY)  # reports need a ReplyToQ (else MQPUT fails with 2027)
    options = {
        "JMS_IBM_Report_Expiration": C.MQRO_EXPIRATION_WITH_DATA,
        "JMS_IBM_Report_Exception": C.MQRO_EXCEPTION,
        "JMS_IBM_Report_COA": 0,  # not set
        "JMS_IBM_Report_Pass_Msg_ID": C.MQRO_PASS_MSG_ID,
        "JMS_IBM_Report_Discard_Msg": C.MQRO_DISCARD_MSG,
    }
    env.send(Q, "x", properties={**options, "a": 1}, reply_to=REPLY)
    [(md, data)] = env.browse(Q)
    assert md.Report == (
        C.MQRO_EXPIRATION_WITH_DATA | C.MQRO_EXCEPTION | C.MQRO_PASS_MSG_ID | C.MQRO_DISCARD_MSG
    )
    assert b"JMS_IBM" not in data
    assert _receive_one(env).properties == {"a": 1}


@pytest.mark.parametrize(
    ("value", "error"),
    [(C.MQRO_COA, ValueError), ("MQRO_EXPIRATION", TypeError), (True, TypeError)],
)
def test_jms_ibm_report_values_are_checked(env: Any, value: Any, error: type) -> None:
    env.define_queue(Q)
    session = env.connect().session()
    with pytest.raises(error, match="JMS_IBM_Report_Expiration"):
        session.producer(Q).send("x", properties={"JMS_IBM_Report_Expiration": value})
    assert env.depth(Q) == 0


@pytest.mark.requires("expiration_report")
def test_a_jms_sender_gets_the_expiration_report_it_asked_for(env: Any) -> None:
    # seed 000: "A report is generated when an expired message is discarded, if the
    # message specified one of the MQRO_EXPIRATION_* report options"
    env.define_queue(Q)
    env.define_queue(REPLY)
    report = {"JMS_IBM_Report_Expiration": C.MQRO_EXPIRATION}
    sent = env.send(Q, "short-lived", time_to_live=100, reply_to=REPLY, properties=report)
    time.sleep(0.3)
    session = env.connect().session()
    assert session.consumer(Q).receive_no_wait() is None  # expired: discarded
    [(md, _)] = env.browse(REPLY)
    assert md.MsgType == C.MQMT_REPORT and md.Feedback == C.MQFB_EXPIRATION
    assert md.CorrelId == sent.md.MsgId


def test_plain_mq_headers_map_from_the_mqmd(env: Any) -> None:
    # mq-reference §7.3: without jms.Exp, JMSExpiration = now + Expiry x 100 ms;
    # JMSTimestamp from PutDate/PutTime; reply-to from ReplyToQ.
    env.define_queue(Q)
    before = int(time.time() * 1000)
    env.put_raw(Q, b"x", Format=C.MQFMT_STRING, Expiry=600, ReplyToQ=REPLY, CorrelId=b"\x01" * 24)
    message = _receive_one(env)
    now = int(time.time() * 1000)
    assert before - 10 <= message.jms_timestamp <= now + 10
    assert now + 58_000 <= message.jms_expiration <= now + 60_100
    assert message.jms_reply_to is not None and message.jms_reply_to.endswith(f"/{REPLY}")
    assert message.jms_correlation_id == "ID:" + "01" * 24


# --------------------------------------------------------------------------- bad RFH2
def _malformed_rfh2_cases() -> dict[str, bytes]:
    good = _rfh2_header(36 + 8, b"MQSTR") + _folder("<mcd>") + b"body"
    bad_xml = _rfh2_header(36 + 12, b"MQSTR") + _folder("<mcd><Msd>") + b"body"
    return {
        "garbage": b"this is not an RFH2 at all",
        "short": b"RFH \x00\x00\x00\x02",
        "bad-struc-length": _rfh2_header(9999, b"MQSTR") + b"body",
        "unclosed-folder": good,
        "bad-xml": bad_xml,
        "bad-dt": _rfh2_header(36 + len(_folder("<usr><n dt='i4'>x</n></usr>")), b"MQSTR")
        + _folder("<usr><n dt='i4'>x</n></usr>")
        + b"body",
    }


@pytest.mark.parametrize("case", list(_malformed_rfh2_cases()))
def test_malformed_rfh2_is_delivered_as_bytes_not_lost(env: Any, case: str) -> None:
    # DESIGN: nothing is lost -- a message whose RFH2 does not parse is delivered as a
    # BytesMessage holding the bytes as they are.
    data = _malformed_rfh2_cases()[case]
    env.define_queue(Q)
    put = env.put_raw(Q, data, Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    message = _receive_one(env)
    assert isinstance(message, mqjms.BytesMessage)
    assert message.body == data
    assert message.jms_message_id == "ID:" + put.MsgId.hex()
    assert env.depth(Q) == 0  # delivered (and acknowledged), not left behind or dropped


def test_text_body_not_valid_in_its_ccsid_is_delivered_as_bytes(env: Any) -> None:
    env.define_queue(Q)
    env.put_raw(Q, b"\xff\xfe not utf-8", Format=C.MQFMT_STRING, CodedCharSetId=1208)
    message = _receive_one(env)
    assert isinstance(message, mqjms.BytesMessage)
    assert message.body == b"\xff\xfe not utf-8"


def test_message_with_malformed_put_time_is_delivered_not_lost(env: Any) -> None:
    # DESIGN: "nothing is lost: a message is either on a queue or delivered". A plain MQ
    # application that sets its own context (MQPMO_SET_ALL_CONTEXT) can put any PutTime.
    env.define_queue(Q)
    conn = env.raw_connection()
    odd = conn.put(
        Q,
        MQMD(Format=C.MQFMT_STRING, PutDate="20260101", PutTime="120000ab"),
        b"odd",
        context=Context.SET_ALL,
    )
    env.put_raw(Q, b"next", Format=C.MQFMT_STRING)
    session = env.connect().session()
    consumer = session.consumer(Q)
    delivered = []
    for _ in range(3):
        try:
            message = consumer.receive_no_wait()
        except Exception:
            continue
        if message is not None:
            delivered.append(message.md.MsgId)
    leftover = [md.MsgId for md, _ in env.browse(Q)]
    assert odd.MsgId in delivered + leftover


def test_reply_to_on_another_queue_manager_keeps_it(env: Any) -> None:
    # mq-reference §2.5: JMSReplyTo is a URI such as queue://QM/Q; IBM MQ classes for JMS
    # map it to MQMD ReplyToQ and ReplyToQMgr and write it to jms.Rto.
    env.define_queue(Q)
    env.send(Q, "x", reply_to="queue://OTHER.QM/REPLY.Q")
    md, data = env.browse_one(Q)
    assert md.ReplyToQ.strip() == "REPLY.Q"
    assert md.ReplyToQMgr.strip() == "OTHER.QM"
    folders = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders
    assert "<Rto>queue://OTHER.QM/REPLY.Q</Rto>" in folders[1]
    assert _receive_one(env).jms_reply_to == "queue://OTHER.QM/REPLY.Q"


@pytest.mark.parametrize("encoding", [546, 273], ids=["little-endian", "big-endian"])
def test_rfh2_from_another_mq_client_is_read(env: Any, encoding: int) -> None:
    # mq-reference §2.2: the RFH2's integers follow the MQMD's Encoding (a pymqi producer
    # on x86 writes 546); CodedCharSetId -2 (MQCCSI_INHERIT) means the body is in the
    # RFH2's own CCSID.
    env.define_queue(Q)
    header = RFH2(
        Encoding=encoding,
        CodedCharSetId=C.MQCCSI_INHERIT,
        Format=C.MQFMT_STRING,
        NameValueCCSID=1208,
        folders=["<mcd><Msd>jms_text</Msd></mcd>", "<usr><k dt='i4'>5</k></usr>"],
    )
    data = build_chain([header], "héllo €".encode(), encoding)
    env.put_raw(Q, data, Format=C.MQFMT_RF_HEADER_2, Encoding=encoding, CodedCharSetId=1208)
    message = _receive_one(env)
    assert isinstance(message, mqjms.TextMessage)
    assert message.body == "héllo €"
    assert message.properties == {"k": 5}


def test_rfh2_body_in_another_ccsid_is_decoded_with_it(env: Any) -> None:
    # JMS message body: "An incoming message is interpreted using the character set and
    # encoding specified in the last IBM MQ header" (here the RFH2 says 819).
    env.define_queue(Q)
    header = RFH2(
        Encoding=273,
        CodedCharSetId=819,
        Format=C.MQFMT_STRING,
        NameValueCCSID=1208,
        folders=["<mcd><Msd>jms_text</Msd></mcd>"],
    )
    data = build_chain([header], "café".encode("latin-1"), 273)
    env.put_raw(Q, data, Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)
    message = _receive_one(env)
    assert message.body == "café"


def test_time_to_live_beyond_an_mqlong_of_tenths(env: Any) -> None:
    # mq-reference §2.5: "if the TTL exceeds 214748364.7 s, MQMD.Expiry is MQEI_UNLIMITED
    # and only Exp carries it"
    env.define_queue(Q)
    ttl = 300_000_000_000
    sent = env.send(Q, "long", time_to_live=ttl)
    md, data = env.browse_one(Q)
    assert md.Expiry == C.MQEI_UNLIMITED
    jms_folder = parse_chain(data, md.Encoding, md.CodedCharSetId, md.Format).folders[1]
    assert f"<Exp>{sent.jms_timestamp + ttl}</Exp>" in jms_folder
    assert _receive_one(env).jms_expiration == sent.jms_timestamp + ttl


def test_time_to_live_is_rounded_up_to_tenths(env: Any) -> None:
    # MQMD Expiry is in tenths of a second; a time to live that is not a multiple of
    # 100 ms must not expire early (and never becomes 0, which MQPUT refuses: seed 000
    # note 1).
    env.define_queue(Q)
    sent = env.send(Q, "short", time_to_live=1)
    assert sent.md.Expiry == 1
    sent = env.send(Q, "short", time_to_live=150)
    assert sent.md.Expiry == 2


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("priority", "5"),
        ("priority", True),
        ("time_to_live", 1.5),
        ("time_to_live", "10"),
        ("delivery_mode", 2.0),
    ],
)
def test_send_options_of_the_wrong_type_are_named(option: str, value: Any) -> None:
    # a str priority gave "'<=' not supported between instances of 'int' and 'str'"
    from mqjms.jms.message import Queue, make_message, to_mq

    with pytest.raises(TypeError, match=f"^{option} must be an int, not {type(value).__name__}"):
        to_mq(make_message("x", None), Queue("Q"), **{option: value})


def test_send_options_take_any_integral_number() -> None:
    # a numpy or pandas integer (a DataFrame's column) is the int it holds
    import numbers

    from mqjms.jms.message import Queue, make_message, to_mq

    class Int64:  # an Integral that is not an int, as numpy.int64 is
        def __init__(self, value: int) -> None:
            self.value = value

        def __int__(self) -> int:
            return self.value

    numbers.Integral.register(Int64)
    md, _ = to_mq(make_message("x", None), Queue("Q"), priority=Int64(7))  # type: ignore[arg-type]
    assert md.Priority == 7
