"""TOPIC objects and model queues in the STOMP transport's configuration.

A broker has topics but no TOPIC objects, model queues or BOTHRESH; as for queues, the
transport keeps them in its configuration (profile, TOML file, URL) and applies IBM MQ's
rules to them (:mod:`mqjms.semantics.topics`): ASPARENT inheritance up to
SYSTEM.BASE.TOPIC, and the model queue (MDURMDL for a durable subscription, MNDURMDL for a
non-durable one) whose attributes a subscription's managed queue takes (seed 002: its
BOTHRESH and BOQNAME).

::

    [queues."ORDERS.MODEL"]
    type = "QMODEL"
    BOTHRESH = 3
    BOQNAME = "ORDERS.SUB.BACKOUT"
    [topics."ORDERS"]
    TOPICSTR = "orders"
    MDURMDL = "ORDERS.MODEL"

URL parameters keyed like the attributes set the default models:
``?mdurmdl.bothresh=3&mdurmdl.boqname=SUB.BO`` (SYSTEM.DURABLE.MODEL.QUEUE),
``?mndurmdl.bothresh=2`` (SYSTEM.NDURABLE.MODEL.QUEUE).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics import topics as rules
from mqjms.semantics.attributes import MODEL, normalize_queue_attrs
from mqjms.semantics.definitions import QueueDefinition

Attrs = dict[str, int | str | bool]
#: URL parameter prefixes and the default model queue each configures.
_MODEL_PREFIXES = {"mdurmdl.": rules.DURABLE_MODEL, "mndurmdl.": rules.NON_DURABLE_MODEL}


def is_model_param(key: str) -> bool:
    return key.lower().startswith(tuple(_MODEL_PREFIXES))


def model_param(query: Mapping[str, str]) -> dict[str, Attrs]:
    """``mdurmdl.<attribute>=value`` URL parameters: attributes of the default models."""
    out: dict[str, dict[str, object]] = {}
    for key, value in query.items():
        for prefix, model in _MODEL_PREFIXES.items():
            if key.lower().startswith(prefix):
                out.setdefault(model, {})[key[len(prefix) :].upper()] = value
    return {model: normalize_queue_attrs(MODEL, attrs) for model, attrs in out.items()}


@dataclass(frozen=True, slots=True)
class ModelQueue:
    """A model queue as configured (a :class:`~mqjms.semantics.definitions.QueueDefinition`)."""

    name: str
    qtype: str
    attrs: Attrs


class TopicObjects:
    """The TOPIC objects of a :class:`~.config.StompConfig` (mixed into it)."""

    _lock: threading.Lock
    _queues: Mapping[str, QueueDefinition]  # the configuration's queues (QMODEL ones too)
    _topics: dict[str, rules.Topic]

    def _init_topics(self) -> None:
        self._topics = {}

    def define_topic(self, name: str, **attrs: object) -> None:
        """DEFINE TOPIC(name) TOPICSTR(...) with MQSC attributes (REPLACE semantics)."""
        rules.validate_topic_name(name)
        given = rules.normalize_topic_attrs(attrs)
        if "TOPICSTR" not in given and name != rules.BASE_TOPIC:
            raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"topic {name!r} needs TOPICSTR")
        merged = (
            dict(rules.BASE_TOPIC_ATTRS)
            if name == rules.BASE_TOPIC
            else rules.default_topic_attrs()
        )
        merged.update(given)
        with self._lock:
            for other in self._topics.values():
                if other.name != name and other.attrs.get("TOPICSTR") == merged["TOPICSTR"]:
                    raise failed(
                        C.MQRCCF_TOPICSTR_ALREADY_EXISTS,
                        f"topic string {merged['TOPICSTR']!r} is topic {other.name!r}'s",
                    )
            self._topics[name] = rules.Topic(name, merged)

    def delete_topic(self, name: str) -> None:
        with self._lock:
            self._topics.pop(name, None)

    def topic(self, name: str) -> rules.Topic | None:
        with self._lock:
            return self._topics.get(name)

    def topic_at(self, topic_string: str) -> rules.Topic | None:
        """The TOPIC object administering exactly ``topic_string`` (the tree's lookup)."""
        with self._lock:
            for found in self._topics.values():
                if found.attrs.get("TOPICSTR") == topic_string:
                    return found
        return None

    def model(self, name: str, overrides: Mapping[str, Attrs]) -> ModelQueue | None:
        """The model queue ``name``: a configured QMODEL, or one of the two defaults
        (which always exist, as on a queue manager), with the URL's overrides."""
        with self._lock:
            found = self._queues.get(name)
        if found is not None and found.qtype != MODEL:
            return None
        if found is None and name not in (rules.DURABLE_MODEL, rules.NON_DURABLE_MODEL):
            return None
        attrs: Attrs = dict(found.attrs) if found is not None else {}
        if name in overrides:
            attrs.update(overrides[name])
        return ModelQueue(name, MODEL, attrs)
