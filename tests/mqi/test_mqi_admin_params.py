"""PCF attribute parameters as the administration reads them, one implementation for
queues and topics (:mod:`mqjms.mqi.admin_params`): queue and queue manager strings are
latin-1 and stripped both sides; topic strings are UTF-8 and only right-trimmed of
blanks; MQ's integer values become their MQSC keywords; a topic's DEFPRTY number goes on
as its digits; an attribute mqjms does not keep is logged and left out. An attribute list
(MQIACF_TOPIC_ATTRS...) absent, empty or with MQIACF_ALL asks for every attribute."""

from __future__ import annotations

from typing import Any

from mqjms.mqi import admin_topics
from mqjms.mqi.admin_params import attributes_asked, mqsc_attrs, text
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.semantics.attributes import QUEUE_ATTR_BY_SELECTOR


def test_text_is_latin1_up_to_the_first_nul_and_stripped() -> None:
    assert text(b"  caf\xe9 \x00junk") == "café"
    assert text(" DEV.QUEUE.1 ") == "DEV.QUEUE.1"
    assert text(b"caf\xc3\xa9\x00", "utf-8") == "café"
    assert text(b"\xff\x00", "utf-8", "replace") == "\ufffd"


def test_queue_attributes_take_latin1_text_and_mqsc_keywords() -> None:
    attrs = mqsc_attrs(
        {
            CMQC.MQCA_Q_NAME: b"Q1",
            CMQC.MQCA_Q_DESC: b" caf\xe9  \x00",
            CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED,
            CMQC.MQIA_DEF_PRIORITY: 4,
        },
        QUEUE_ATTR_BY_SELECTOR,
        {CMQC.MQCA_Q_NAME},
    )
    assert attrs == {"DESCR": "café", "PUT": "DISABLED", "DEFPRTY": 4}


def test_topic_attributes_are_utf8_keep_leading_blanks_and_defprty_digits(
    events: list[dict[str, Any]],
) -> None:
    attrs = admin_topics._attrs(
        {
            CMQC.MQCA_TOPIC_NAME: "PRICES",
            CMQC.MQCA_TOPIC_STRING: b" caf\xc3\xa9/eu  \x00junk",
            CMQC.MQIA_DEF_PRIORITY: 4,
            CMQCFC.MQIACF_REPLACE: CMQCFC.MQRP_YES,
            CMQC.MQCA_Q_DESC: "not a topic attribute",
        }
    )
    assert attrs == {"TOPICSTR": " café/eu", "DEFPRTY": "4"}
    as_parent = admin_topics._attrs({CMQC.MQIA_DEF_PRIORITY: CMQC.MQPRI_PRIORITY_AS_PARENT})
    assert as_parent == {"DEFPRTY": "ASPARENT"}
    ignored = [e for e in events if e["event"] == "pcf.attribute_ignored"]
    assert [e["selector"] for e in ignored] == [CMQC.MQCA_Q_DESC]


def test_an_attribute_list_asks_for_its_selectors_or_all() -> None:
    selector = CMQCFC.MQIACF_TOPIC_ATTRS
    assert attributes_asked({selector: CMQC.MQCA_TOPIC_STRING}, selector) == {
        CMQC.MQCA_TOPIC_STRING
    }
    assert attributes_asked({selector: [1, 2]}, selector) == {1, 2}
    for everything in ({}, {selector: []}, {selector: [1, CMQCFC.MQIACF_ALL]}):
        assert attributes_asked(everything, selector) is None
