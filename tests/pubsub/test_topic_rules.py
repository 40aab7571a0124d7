"""Topic strings, wildcards and ASPARENT inheritance (mqjms.semantics.topics): the rules
both emulating transports share, checked on their own."""

from __future__ import annotations

import pytest

from mqjms.mq import C, MQError
from mqjms.semantics import topics
from mqjms.semantics.topics import Topic


@pytest.mark.parametrize(
    ("pattern", "topic", "expected"),
    [
        ("prices/eu", "prices/eu", True),
        ("prices/eu", "prices/us", False),
        ("prices/#", "prices", True),  # '#' matches no level too
        ("prices/#", "prices/eu", True),
        ("prices/#", "prices/eu/fx", True),
        ("prices/#", "pricesx/eu", False),
        ("prices/+", "prices/eu", True),
        ("prices/+", "prices", False),  # '+' is exactly one level
        ("prices/+", "prices/eu/fx", False),
        ("+/eu", "prices/eu", True),
        ("#", "anything/at/all", True),
        ("#", "", True),
        ("#/fx", "prices/eu/fx", True),
        ("#/fx", "fx", True),
        ("prices/#/fx", "prices/fx", True),
        ("prices/#/fx", "prices/eu/gb/fx", True),
        ("prices/#/fx", "prices/eu/gb", False),
        ("a+b/#", "a+b/c", True),  # a '+' inside a level is an ordinary character
        ("a+b/#", "axb/c", False),
    ],
)
def test_topic_based_wildcards(pattern: str, topic: str, expected: bool) -> None:
    assert topics.matches(pattern, topic) is expected


def test_many_multi_level_wildcards_match_in_polynomial_time() -> None:
    # a legal subscription to #/#/.../x on a deep topic: the backtracking match this
    # replaced took seconds per publication here (inside the publisher's write
    # transaction), and grew exponentially with each '#'; the answers stay the rules'
    deep = "/".join(["a"] * 24)
    assert topics.matches("/".join(["#"] * 7 + ["x"]), deep) is False
    assert topics.matches("/".join(["#"] * 7 + ["a"]), deep) is True
    assert topics.matches("/".join(["#", "+"] * 12), deep) is True
    assert topics.matches("/".join(["#", "+"] * 25), deep) is False


def test_a_publication_names_one_topic() -> None:
    topics.check_topic_string("prices/eu", wildcards=False)
    for bad in ("prices/#", "+/eu"):
        with pytest.raises(MQError) as failure:
            topics.check_topic_string(bad, wildcards=False)
        assert failure.value.reason == C.MQRC_TOPIC_STRING_ERROR
    assert topics.check_topic_string("prices/#", wildcards=True) == "prices/#"


def test_object_string_is_joined_to_the_topic_objects_string() -> None:
    assert topics.join("prices", "eu/fx") == "prices/eu/fx"
    assert topics.join("prices", "") == "prices"
    assert topics.join("", "eu") == "eu"


def test_asparent_takes_the_closest_administered_value_up_to_the_base_topic() -> None:
    tree = {
        "": Topic(topics.BASE_TOPIC, topics.BASE_TOPIC_ATTRS),
        "orders": Topic("ORDERS", {"TOPICSTR": "orders", "MDURMDL": "ORDERS.MODEL"}),
        "orders/eu": Topic(
            "ORDERS.EU", {"TOPICSTR": "orders/eu", "DEFPSIST": "YES", "MDURMDL": ""}
        ),
    }
    resolved = topics.resolved("orders/eu/fr", tree.get)
    assert resolved["MDURMDL"] == "ORDERS.MODEL"  # blank: inherited from 'orders'
    assert resolved["DEFPSIST"] == "YES"  # from 'orders/eu'
    assert resolved["MNDURMDL"] == topics.NON_DURABLE_MODEL  # from SYSTEM.BASE.TOPIC
    # a wildcard subscription's node is the part before its first wildcard
    assert topics.model_queue("orders/#", tree.get, durable=True) == "ORDERS.MODEL"
    assert topics.model_queue("#", tree.get, durable=True) == topics.DURABLE_MODEL
    assert topics.model_queue("orders/eu", tree.get, durable=False) == topics.NON_DURABLE_MODEL


def test_a_tree_without_a_base_topic_uses_mqs_defaults() -> None:
    # seed 002: MDURMDL defaults to SYSTEM.DURABLE.MODEL.QUEUE, MNDURMDL to
    # SYSTEM.NDURABLE.MODEL.QUEUE
    empty: dict[str, Topic] = {}
    assert topics.model_queue("a/b", empty.get, durable=True) == "SYSTEM.DURABLE.MODEL.QUEUE"
    assert topics.model_queue("a/b", empty.get, durable=False) == "SYSTEM.NDURABLE.MODEL.QUEUE"


def test_topic_attributes_are_validated_with_clear_errors() -> None:
    good = topics.normalize_topic_attrs({"topicstr": "a/b", "defprty": 5, "pub": "disabled"})
    assert good == {"TOPICSTR": "a/b", "DEFPRTY": "5", "PUB": "DISABLED"}
    with pytest.raises(MQError) as failure:
        topics.normalize_topic_attrs({"DEFPSIST": "MAYBE"})
    assert failure.value.reason == C.MQRCCF_ATTR_VALUE_ERROR
    assert "DEFPSIST" in failure.value.detail
    with pytest.raises(MQError):
        topics.normalize_topic_attrs({"NOSUCH": 1})
