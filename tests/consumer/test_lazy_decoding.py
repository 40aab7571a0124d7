"""A lazily decoded message (what every listener receives) reads exactly like an eagerly
decoded one: same type, body, headers, properties, whatever is or is not in the RFH2.

Hardening issue item 1: ``msg.jms_reply_to`` on a lazy message without a reply-to raised
KeyError (then AttributeError), so a listener doing ``if msg.jms_reply_to:`` failed every
plain message and sent good messages to the backout queue.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mqjms
from mqjms.jms.message import Queue, from_mq, make_message, to_mq
from mqjms.mq import MQMD, RFH2, C, JmsHeaders, build_chain, build_jms_folders, ccsid
from mqjms.mq.errors import MQError
from mqjms.mq.jms import SELECTOR_KEYWORDS

NOW = 1_750_000_000.25  # a fixed "now", so MQMD Expiry -> JMSExpiration is comparable
ABSENT_HEADERS = ("jms_reply_to", "jms_correlation_id", "jms_expiration", "jms_type")

# --------------------------------------------------------------------------- strategies
xml_text = st.text(
    st.characters(exclude_categories=["Cs"], exclude_characters="\ufffe\uffff").filter(
        lambda c: c in "\t\n\r" or ord(c) >= 0x20
    ),
    max_size=20,
)
names = st.from_regex(r"[A-Za-z_\u00c0-\u00d6][A-Za-z0-9_\-\u00c0-\u00d6]{0,12}", fullmatch=True)
property_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False),
    st.binary(max_size=16),
    xml_text,
)
user_properties = st.dictionaries(
    names.filter(lambda n: not n.startswith("JMS") and n.upper() not in SELECTOR_KEYWORDS),
    property_values,
    max_size=6,
)
queue_uri = st.builds(
    lambda qm, q: f"queue://{qm}/{q}",
    st.sampled_from(["", "QM1"]),
    st.sampled_from(["REPLY.Q", "ORDERS.IN"]),
)
jms_headers = st.builds(
    JmsHeaders,
    msd=st.none() | st.sampled_from(["jms_text", "jms_bytes", "jms_map", "jms_none"]),
    type=st.none() | xml_text,
    destination=st.none() | queue_uri,
    reply_to=st.none() | queue_uri | st.just(""),
    timestamp=st.none() | st.integers(0, 2**62),
    expiration=st.none() | st.integers(0, 2**62),
    correlation_id=st.none() | xml_text,
    priority=st.none() | st.integers(0, 9),
    delivery_mode=st.none() | st.sampled_from([1, 2]),
    group_id=st.none() | xml_text,
    group_seq=st.none() | st.integers(1, 2**31 - 1),
    null_body=st.booleans(),
)
# Folders other JMS clients or applications add: the JMS mapping ignores them, and a
# second folder of a name is ignored too (the first wins).
extra_folders = st.lists(
    st.sampled_from(
        [
            "<mqext><Exp>5000</Exp></mqext>",
            "<other a='1'>x</other>",
            "<jms><Rto>queue:///SECOND</Rto><Exp>1</Exp></jms>",
            "<mcd><Msd>jms_bytes</Msd></mcd>",
            "<usr><second>1</second></usr>",
            "<mcd.x><Msd>jms_none</Msd></mcd.x>",
        ]
    ),
    max_size=3,
)
# How a well-formed folder may start before its root element.
folder_prefixes = st.sampled_from(["", "", "", "  ", "\n", '<?xml version="1.0"?>', "<!-- c -->"])
TEXT_CCSIDS = [1208, 819, 37, 500, 1047, 1140, 1141, 1148, 1200, 850, 1252]
text_alphabet = st.characters(codec="latin-1") | st.sampled_from("€[]^¬|!\n")


@st.composite
def mqmds(draw: st.DrawFn) -> MQMD:
    put_time = draw(st.sampled_from([("20260301", "12345678"), ("", ""), ("2026", "x")]))
    return MQMD(
        MsgId=draw(st.binary(min_size=24, max_size=24)),
        CorrelId=draw(st.just(C.MQCI_NONE) | st.binary(min_size=24, max_size=24)),
        Expiry=draw(st.sampled_from([C.MQEI_UNLIMITED, 0]) | st.integers(1, 2**31 - 1)),
        Priority=draw(st.integers(-1, 12)),
        Persistence=draw(st.sampled_from([0, 1, 2])),
        BackoutCount=draw(st.integers(0, 5)),
        ReplyToQ=draw(st.sampled_from(["", "REPLY.Q", "  "])),
        ReplyToQMgr=draw(st.sampled_from(["", "QM1"])),
        PutDate=put_time[0],
        PutTime=put_time[1],
        Encoding=draw(st.sampled_from([C.MQENC_NORMAL, C.MQENC_REVERSED])),
    )


@st.composite
def body_parts(draw: st.DrawFn, encoding: int) -> tuple[bytes, str, int]:
    """(bytes, Format, CCSID): text in a CCSID, or bytes in any Format."""
    fmt = draw(st.sampled_from([C.MQFMT_STRING, C.MQFMT_STRING, C.MQFMT_NONE, "MQADMIN"]))
    body_ccsid = draw(st.sampled_from(TEXT_CCSIDS))
    if fmt == C.MQFMT_STRING and draw(st.booleans()):
        chars = draw(st.lists(text_alphabet, max_size=30))
        text = "".join(c for c in chars if _encodable(c, body_ccsid, encoding))
        return ccsid.encode(text, body_ccsid, encoding), fmt, body_ccsid
    return draw(st.binary(max_size=40)), fmt, body_ccsid


def _encodable(char: str, body_ccsid: int, encoding: int) -> bool:
    try:
        ccsid.encode(char, body_ccsid, encoding)
    except UnicodeEncodeError:
        return False
    return True


@st.composite
def received_messages(draw: st.DrawFn) -> tuple[MQMD, bytes]:
    """What an MQGET returns: an MQMD and bytes, with or without an RFH2 chain."""
    md = draw(mqmds())
    body, fmt, body_ccsid = draw(body_parts(md.Encoding))
    if not draw(st.booleans()):
        md.Format, md.CodedCharSetId = fmt, body_ccsid
        return md, body
    headers = draw(st.none() | jms_headers)
    folders = build_jms_folders(headers, draw(user_properties)) + draw(extra_folders)
    folders = [draw(folder_prefixes) + folder for folder in draw(st.permutations(folders))]
    nvccsid = draw(st.sampled_from([1208, 1200]))
    last = RFH2(Encoding=md.Encoding, CodedCharSetId=body_ccsid, Format=fmt,
                NameValueCCSID=nvccsid, folders=folders)  # fmt: skip
    chain = [last]
    if draw(st.booleans()):  # two RFH2s, the folders split between them
        split = draw(st.integers(0, len(folders)))
        first = RFH2(Encoding=C.MQENC_NORMAL, CodedCharSetId=1208,
                     Format=C.MQFMT_RF_HEADER_2, NameValueCCSID=nvccsid,
                     folders=folders[:split])  # fmt: skip
        last.folders = folders[split:]
        chain = [first, last]
    md.Format, md.CodedCharSetId = C.MQFMT_RF_HEADER_2, 1208
    return md, build_chain(chain, body, md.Encoding)


# --------------------------------------------------------------------------- comparing
def _decode(md: MQMD, data: bytes, *, lazy: bool) -> mqjms.Message | MQError:
    try:
        return from_mq(md, data, NOW, lazy=lazy)
    except MQError as exc:  # the body does not decode in its CCSID: both must say so
        return exc


def _public_names(message: mqjms.Message) -> list[str]:
    return sorted(name for name in dir(message) if not name.startswith("_"))


def _read(message: mqjms.Message, name: str) -> Any:
    value = getattr(message, name)
    if name in ("get_property", "property_exists"):  # of each name the message lists
        return ("method", [_typed(value(each)) for each in message.property_names()])
    if callable(value):
        return ("method", value())  # acknowledge(): a no-op on a message not from a session
    return value


def _typed(value: Any) -> Any:
    """A value with its type, so that 1 == True or 1 == 1.0 cannot hide a difference."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}, list(value)
    return type(value), value


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(received=received_messages(), data=st.data())
def test_lazy_and_eager_decoding_agree(received: tuple[MQMD, bytes], data: st.DataObject) -> None:
    # Hardening issue item 1: lazy and eager decoding must agree on every header and
    # property, read in any order, whatever the RFH2 holds or lacks.
    md, raw = received
    eager = _decode(md, raw, lazy=False)
    lazy = _decode(md, raw, lazy=True)
    if isinstance(eager, MQError) or isinstance(lazy, MQError):
        assert (type(eager), getattr(eager, "reason", None)) == (
            type(lazy),
            getattr(lazy, "reason", None),
        )
        return
    assert type(lazy) is type(eager)
    names = _public_names(eager)
    assert {"body", "properties", "md", "delivery_count", *ABSENT_HEADERS} <= set(names)
    for name in data.draw(st.permutations(names), label="lazy reading order"):
        assert _typed(_read(lazy, name)) == _typed(_read(eager, name)), name
    assert sorted(lazy.properties) == sorted(eager.properties)  # property names
    assert repr(lazy) == repr(eager)
    assert _public_names(lazy) == names
    assert {k: v for k, v in vars(lazy).items() if k != "_lazy"} == vars(eager)


# --------------------------------------------------------------------------- examples
@pytest.mark.parametrize("name", ABSENT_HEADERS)
def test_absent_header_reads_as_on_an_eager_message(name: str) -> None:
    # Hardening issue item 1: the first read of a header the message lacks raised
    # KeyError, and every later read AttributeError; eager decoding gives None / 0.
    md, data = to_mq(make_message("order-1"), Queue("ORDERS.IN"), now=NOW)
    md.MsgId = b"\x01" * 24
    lazy = from_mq(md, data, NOW, lazy=True)
    eager = from_mq(md, data, NOW)
    expected = 0 if name == "jms_expiration" else None
    assert getattr(lazy, name) == getattr(eager, name) == expected
    assert getattr(lazy, name) == expected  # a second read, after the folders were mapped


def test_values_set_before_the_first_read_are_kept() -> None:
    # A listener may set a header before reading any: the lazy mapping must not undo it.
    md, data = to_mq(make_message("order-1", {"n": 1}), Queue("ORDERS.IN"), now=NOW)
    lazy = from_mq(md, data, NOW, lazy=True)
    lazy.jms_correlation_id = "mine"
    assert lazy.properties == {"n": 1}
    assert lazy.jms_correlation_id == "mine"
    assert lazy.jms_reply_to is None


def test_mcd_found_after_an_xml_declaration() -> None:
    # The lazy path reads only the mcd folder up front; it must find the same one the
    # full mapping does, even when the folder does not start with its root element.
    header = RFH2(
        Encoding=C.MQENC_NORMAL,
        CodedCharSetId=1208,
        Format=C.MQFMT_STRING,
        folders=['<?xml version="1.0"?><mcd><Msd>jms_bytes</Msd></mcd>', "<mcd:x/>"],
    )
    md = MQMD(Format=C.MQFMT_RF_HEADER_2, CodedCharSetId=1208, Encoding=C.MQENC_NORMAL)
    data = build_chain([header], b"abc", C.MQENC_NORMAL)
    lazy, eager = from_mq(md, data, NOW, lazy=True), from_mq(md, data, NOW)
    assert type(lazy) is type(eager) is mqjms.BytesMessage
    assert lazy.body == eager.body == b"abc"


def test_a_message_without_rfh2_maps_its_mqmd_headers_when_one_is_read() -> None:
    # issue 9, target 2: the Worker's JMS view of a plain message decodes the body now and
    # maps the MQMD's headers (JMSTimestamp from PutDate/PutTime...) on the first read.
    md = MQMD(Format=C.MQFMT_STRING, CodedCharSetId=1208, PutDate="20250101", PutTime="12000000")
    md.MsgId = b"\x02" * 24
    lazy = from_mq(md, b"plain text", NOW, lazy=True)
    assert type(lazy) is mqjms.TextMessage and lazy.body == "plain text"
    assert "jms_timestamp" not in vars(lazy) and "properties" not in vars(lazy)
    assert lazy.jms_timestamp == from_mq(md, b"plain text", NOW).jms_timestamp > 0
    assert lazy.jms_message_id == "ID:" + "02" * 24 and lazy.properties == {}
