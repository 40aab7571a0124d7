"""JMS message selectors (JMS 2.0 section 3.8.1), as a subscription's SelectionString is
evaluated: the grammar, SQL's three-valued logic, and the header fields a selector reads."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics.selector import compile_selector, message_values

VALUES = {"price": 150, "region": "eu", "name": "it's", "rate": 1.5, "flag": True, "code": "a_1"}


@pytest.mark.parametrize(
    ("selector", "selected"),
    [
        ("", True),
        ("price > 100", True),
        ("price > 100 AND region IN ('eu', 'uk')", True),
        ("region NOT IN ('eu')", False),
        ("region LIKE 'e%'", True),
        ("code LIKE 'a\\_%' ESCAPE '\\'", True),
        ("code LIKE 'ab%'", False),
        ("name = 'it''s'", True),
        ("price BETWEEN 100 AND 200", True),
        ("price NOT BETWEEN 100 AND 200", False),
        ("rate * 2 = 3", True),
        ("-price < 0 AND price / 3 = 50", True),
        ("flag = TRUE", True),
        ("missing IS NULL AND price IS NOT NULL", True),
        ("missing = 1", False),  # unknown
        ("NOT missing = 1", False),  # NOT unknown is unknown
        ("missing = 1 OR price = 150", True),
        ("missing = 1 AND price = 150", False),
        ("region = 1", False),  # different types: false
        ("region > name", False),  # strings compare for equality only: unknown
        ("NOT region > name", False),  # ... so NOT of it is unknown too
        ("NOT flag > flag OR flag", True),
        ("price / 7 = 21", True),  # exact / exact divides as integers (150 / 7 = 21)
        ("-price / 7 = -21", True),  # toward zero, as Java does
        ("price / 7.0 = 21", False),
        ("NOT region", False),  # NOT, AND, OR of a non-boolean: unknown
        ("NOT (region AND price = 150)", False),
        ("region OR price = 1", False),
        ("NOT (price OR price = 1)", False),
        ("region OR price = 150", True),
        ("(price > 1000 OR region = 'eu') AND NOT flag = FALSE", True),
        ("Price > 100", False),  # identifiers are case-sensitive
        ("price > 100 and REGION is null", True),  # keywords are not
    ],
)
def test_a_selector_selects_what_it_says(selector: str, selected: bool) -> None:
    assert compile_selector(selector).matches(VALUES) is selected


@pytest.mark.parametrize(
    "selector",
    [
        "price >",
        "AND",
        "price IN 1",
        "x LIKE 3",
        "'a' ==",
        "x NOT = 1",
        "(a = 1",
        "region > 'a'",  # JMS: strings and booleans compare with = and <> only
        "'a' <= region",
        "flag >= TRUE",
        "FALSE < flag",
        # too deep to parse: 2459, never a RecursionError
        pytest.param("(" * 5000 + "a = 1" + ")" * 5000, id="deep-parentheses"),
        pytest.param("NOT " * 5000 + "a = 1", id="deep-not"),
    ],
)
def test_a_selector_that_is_not_one_is_2459(selector: str) -> None:
    with pytest.raises(MQError) as failure:
        compile_selector(selector)
    assert failure.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR


def test_header_fields_come_from_the_mqmd() -> None:
    md = MQMD(Priority=7, Persistence=C.MQPER_PERSISTENT, MsgId=b"\x01" * 24)
    values = message_values(md, b"plain")
    assert values["JMSPriority"] == 7
    assert values["JMSDeliveryMode"] == "PERSISTENT"
    assert values["JMSMessageID"] == "ID:" + "01" * 24
    assert compile_selector("JMSDeliveryMode = 'PERSISTENT' AND JMSPriority > 4").matches(values)


def test_integer_division_is_integer_and_the_jms_example_holds() -> None:
    assert compile_selector("x / 2 = 3").matches({"x": 7})
    assert compile_selector("x / 2 = 3.5").matches({"x": 7.0})
    assert compile_selector("x / -2 = -3").matches({"x": 7})


def test_string_ordering_at_run_time_is_unknown() -> None:
    values = {"a": "x", "b": "y", "t": True}
    for text in ("a < b", "NOT a < b", "t > t", "NOT t >= t"):
        assert not compile_selector(text).matches(values), text
