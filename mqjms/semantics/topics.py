"""Topics as IBM MQ has them: topic strings, wildcards, TOPIC objects and the topic tree.

A topic string is levels separated by ``/`` (``prices/eu/fx``). A subscription's topic
string may use MQ's topic-based wildcards, each a whole level: ``#`` any number of levels
(none included), ``+`` exactly one. A publication's topic string has none.

Administered TOPIC objects attach attributes to a node of the tree (``TOPICSTR``); a
node's ``ASPARENT`` attribute takes the value of the closest administered node above it,
up to ``SYSTEM.BASE.TOPIC`` (topic string ``''``), which holds the final defaults: model
queues ``SYSTEM.DURABLE.MODEL.QUEUE`` (MDURMDL) and ``SYSTEM.NDURABLE.MODEL.QUEUE``
(MNDURMDL) for the managed queues of subscriptions (seed 002: their BOTHRESH and BOQNAME
are the managed queue's), DEFPSIST(NO), DEFPRTY(0), PUB/SUB(ENABLED), DURSUB(YES).

Both emulating transports keep their TOPIC objects their own way (the embedded queue
manager in SQLite, STOMP in configuration); this module is the rules written once over a
:class:`TopicDefinition` of either.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from .attributes import Attr, attr_error, normalize, validate_name
from .globbing import ANY, ONE, Tokens, glob

BASE_TOPIC = "SYSTEM.BASE.TOPIC"
DURABLE_MODEL = "SYSTEM.DURABLE.MODEL.QUEUE"
NON_DURABLE_MODEL = "SYSTEM.NDURABLE.MODEL.QUEUE"
MANAGED_DURABLE_PREFIX = "SYSTEM.MANAGED.DURABLE."
MANAGED_NON_DURABLE_PREFIX = "SYSTEM.MANAGED.NDURABLE."
ASPARENT = "ASPARENT"
SEPARATOR = "/"
MULTI_LEVEL = "#"
SINGLE_LEVEL = "+"
MAX_TOPIC_STRING = 10_240  # MQ_TOPIC_STR_LENGTH
MAX_SUB_NAME = 10_240  # MQ_SUB_NAME_LENGTH

TOPIC = "TOPIC"
_T = (TOPIC,)

#: TOPIC object attributes under their MQSC names. ``default`` is an administered node's
#: (ASPARENT, or blank for a model queue name: inherit); SYSTEM.BASE.TOPIC's own values
#: are :data:`BASE_TOPIC_ATTRS`.
TOPIC_ATTRS: tuple[Attr, ...] = (
    Attr("TOPICSTR", "text", _T, "", length=MAX_TOPIC_STRING, selector=C.MQCA_TOPIC_STRING),
    Attr("DESCR", "text", _T, "", length=64, selector=C.MQCA_TOPIC_DESC),
    Attr("MDURMDL", "text", _T, "", length=48, selector=C.MQCA_MODEL_DURABLE_Q, name_ref=True),
    Attr(
        "MNDURMDL",
        "text",
        _T,
        "",
        length=48,
        selector=C.MQCA_MODEL_NON_DURABLE_Q,
        name_ref=True,
    ),
    Attr(
        "DEFPSIST",
        "keyword",
        _T,
        ASPARENT,
        choices=(ASPARENT, "NO", "YES"),
        selector=C.MQIA_TOPIC_DEF_PERSISTENCE,
        inquire_map=(
            (ASPARENT, C.MQPER_PERSISTENCE_AS_PARENT),
            ("NO", C.MQPER_NOT_PERSISTENT),
            ("YES", C.MQPER_PERSISTENT),
        ),
    ),
    # DEFPRTY: ASPARENT or 0-9 (kept as text, checked by normalize_topic_attrs)
    Attr(
        "DEFPRTY",
        "keyword",
        _T,
        ASPARENT,
        choices=(ASPARENT, *(str(n) for n in range(10))),
        selector=C.MQIA_DEF_PRIORITY,
        inquire_map=((ASPARENT, C.MQPRI_PRIORITY_AS_PARENT),),
    ),
    Attr(
        "PUB",
        "keyword",
        _T,
        ASPARENT,
        choices=(ASPARENT, "ENABLED", "DISABLED"),
        selector=C.MQIA_INHIBIT_PUB,
        inquire_map=(
            (ASPARENT, C.MQTA_PUB_AS_PARENT),
            ("DISABLED", C.MQTA_PUB_INHIBITED),
            ("ENABLED", C.MQTA_PUB_ALLOWED),
        ),
    ),
    Attr(
        "SUB",
        "keyword",
        _T,
        ASPARENT,
        choices=(ASPARENT, "ENABLED", "DISABLED"),
        selector=C.MQIA_INHIBIT_SUB,
        inquire_map=(
            (ASPARENT, C.MQTA_SUB_AS_PARENT),
            ("DISABLED", C.MQTA_SUB_INHIBITED),
            ("ENABLED", C.MQTA_SUB_ALLOWED),
        ),
    ),
    Attr(
        "DURSUB",
        "keyword",
        _T,
        ASPARENT,
        choices=(ASPARENT, "YES", "NO"),
        selector=C.MQIA_DURABLE_SUB,
        inquire_map=(
            (ASPARENT, C.MQSUB_DURABLE_AS_PARENT),
            ("YES", C.MQSUB_DURABLE_ALLOWED),
            ("NO", C.MQSUB_DURABLE_INHIBITED),
        ),
    ),
)
TOPIC_ATTR_BY_NAME = {a.name: a for a in TOPIC_ATTRS}
#: The attributes a node inherits (all but its own string and description).
INHERITED = ("MDURMDL", "MNDURMDL", "DEFPSIST", "DEFPRTY", "PUB", "SUB", "DURSUB")
#: SYSTEM.BASE.TOPIC: the root, where every ASPARENT ends.
BASE_TOPIC_ATTRS: dict[str, int | str | bool] = {
    "TOPICSTR": "",
    "DESCR": "mqjms base topic",
    "MDURMDL": DURABLE_MODEL,
    "MNDURMDL": NON_DURABLE_MODEL,
    "DEFPSIST": "NO",
    "DEFPRTY": "0",
    "PUB": "ENABLED",
    "SUB": "ENABLED",
    "DURSUB": "YES",
}


class TopicDefinition(Protocol):
    """A TOPIC object: its name and attributes under MQSC names (TOPICSTR among them)."""

    @property
    def name(self) -> str: ...

    @property
    def attrs(self) -> Mapping[str, int | str | bool]: ...


@dataclass(frozen=True, slots=True)
class Topic:
    """A TOPIC object as configuration gives it (the STOMP transport's, tests')."""

    name: str
    attrs: Mapping[str, int | str | bool]


# ------------------------------------------------------------------ topic strings
def levels(topic_string: str) -> list[str]:
    return topic_string.split(SEPARATOR) if topic_string else []


def has_wildcards(topic_string: str) -> bool:
    return any(level in (MULTI_LEVEL, SINGLE_LEVEL) for level in levels(topic_string))


def check_topic_string(topic_string: object, *, wildcards: bool) -> str:
    """A topic string as MQ takes it; MQRC_TOPIC_STRING_ERROR (2425) when it is not one.

    ``wildcards`` (a subscription): ``#`` and ``+`` levels are wildcards. Without
    (a publication) they are refused: a publication names one topic.
    """
    if not isinstance(topic_string, str):
        raise failed(
            C.MQRC_TOPIC_STRING_ERROR,
            f"a topic string must be a str, not {type(topic_string).__name__}",
        )
    if len(topic_string) > MAX_TOPIC_STRING:
        raise failed(
            C.MQRC_TOPIC_STRING_ERROR,
            f"topic string is {len(topic_string)} characters; MQ allows {MAX_TOPIC_STRING}",
        )
    if "\x00" in topic_string:
        raise failed(C.MQRC_TOPIC_STRING_ERROR, f"topic string {topic_string!r} holds a NUL")
    if not wildcards and has_wildcards(topic_string):
        raise failed(
            C.MQRC_TOPIC_STRING_ERROR,
            f"topic string {topic_string!r} has a wildcard level (# or +): a publication "
            "names one topic",
        )
    return topic_string


def join(object_string: str, topic_string: str) -> str:
    """MQ's full topic string: a TOPIC object's TOPICSTR, ``/``, then the ObjectString."""
    if object_string and topic_string:
        return f"{object_string}{SEPARATOR}{topic_string}"
    return object_string or topic_string


def matches(pattern: str, topic_string: str, *, chars: bool = False) -> bool:
    """Whether a publication on ``topic_string`` reaches a subscription on ``pattern``.

    ``#`` matches any number of levels (none included: ``a/#`` matches ``a``), ``+``
    exactly one; a level that is not all wildcard is compared as it is. ``chars``: the
    subscription's wildcards are character-based (MQSO_WILDCARD_CHAR, see
    :func:`char_matches`)."""
    if chars:
        return char_matches(pattern, topic_string)
    return _match(levels(pattern), levels(topic_string))


# IBM MQ's character-based wildcards (MQSO_WILDCARD_CHAR, DEFINE SUB WSCHEMA(CHAR)): ``*``
# any number of characters, ``/`` included, ``?`` exactly one, ``%`` makes the next
# character plain; ``#`` and ``+`` are plain characters then.
CHAR_ANY, CHAR_ONE, CHAR_ESCAPE = "*", "?", "%"


def char_matches(pattern: str, topic_string: str) -> bool:
    """Whether ``topic_string`` matches the character-based ``pattern`` (in at most
    pattern x topic steps, see :mod:`.globbing`)."""
    return glob(_char_tokens(pattern), topic_string)


@functools.lru_cache(maxsize=4096)
def _char_tokens(pattern: str) -> Tokens:
    out: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            out.append(char)
            escaped = False
        elif char == CHAR_ESCAPE:
            escaped = True
        elif char == CHAR_ANY:
            if not out or out[-1] != ANY:  # a run of * is one
                out.append(ANY)
        elif char == CHAR_ONE:
            out.append(ONE)
        else:
            out.append(char)
    if escaped:
        out.append(CHAR_ESCAPE)
    return tuple(out)


def char_node(pattern: str) -> str:
    """The topic node whose attributes a character-based subscription on ``pattern`` takes:
    its whole levels before the first wildcard (escapes removed)."""
    fixed: list[str] = []
    escaped = False
    for char in pattern:
        if escaped:
            fixed.append(char)
            escaped = False
        elif char == CHAR_ESCAPE:
            escaped = True
        elif char in (CHAR_ANY, CHAR_ONE):
            text = "".join(fixed)
            return text[: text.rfind(SEPARATOR)] if SEPARATOR in text else ""
        else:
            fixed.append(char)
    return "".join(fixed)


def _match(pattern: list[str], topic: list[str]) -> bool:
    """Whether ``pattern`` matches ``topic``: the topic positions each pattern prefix can
    reach, level by level (a ``#`` spreads to every later one), so a pattern
    with many ``#`` levels costs levels x levels, never the exponential backtracking a
    recursion over each ``#``'s choices would (a subscription to ``#/#/#/.../x`` must not
    stall every publisher inside its write transaction)."""
    if MULTI_LEVEL not in pattern:  # the common case: level against level
        return len(pattern) == len(topic) and all(
            p in (SINGLE_LEVEL, t) for p, t in zip(pattern, topic, strict=True)
        )
    reach = [False] * (len(topic) + 1)
    reach[0] = True
    for level in pattern:
        if level == MULTI_LEVEL:
            for k in range(1, len(reach)):
                reach[k] = reach[k] or reach[k - 1]
            continue
        nxt = [False] * len(reach)
        for k in range(len(topic)):
            if reach[k] and (level == SINGLE_LEVEL or level == topic[k]):
                nxt[k + 1] = True
        if not any(nxt):
            return False
        reach = nxt
    return reach[len(topic)]


def administrative_node(topic_string: str) -> str:
    """The part of a (wildcard) topic string that names its node in the tree: the levels
    before the first wildcard. A subscription's TOPIC attributes are that node's."""
    fixed: list[str] = []
    for level in levels(topic_string):
        if level in (MULTI_LEVEL, SINGLE_LEVEL):
            break
        fixed.append(level)
    return SEPARATOR.join(fixed)


# ------------------------------------------------------------------ the topic tree
Lookup = Callable[[str], TopicDefinition | None]  # TOPICSTR -> the object there, if any


def ancestry(topic_string: str, by_string: Lookup) -> list[TopicDefinition]:
    """The administered nodes from ``topic_string``'s node up to the root, closest
    first. A root defined nowhere (a transport's empty configuration) is the built-in
    SYSTEM.BASE.TOPIC."""
    node = administrative_node(topic_string)
    parts = levels(node)
    found: list[TopicDefinition] = []
    for depth in range(len(parts), 0, -1):
        definition = by_string(SEPARATOR.join(parts[:depth]))
        if definition is not None:
            found.append(definition)
    root = by_string("")
    found.append(root if root is not None else Topic(BASE_TOPIC, BASE_TOPIC_ATTRS))
    return found


def resolved(topic_string: str, by_string: Lookup) -> dict[str, int | str | bool]:
    """Every inherited attribute of ``topic_string``'s node with ASPARENT (and a blank
    model queue name) replaced by the closest administered value above it."""
    nodes = ancestry(topic_string, by_string)
    out: dict[str, int | str | bool] = {}
    for name in INHERITED:
        out[name] = _inherited(nodes, name)
    return out


def _inherited(nodes: Iterable[TopicDefinition], name: str) -> int | str | bool:
    for node in nodes:
        value = node.attrs.get(name, "")
        if value not in ("", ASPARENT):
            return value
    return BASE_TOPIC_ATTRS[name]


def admin_object(topic_string: str, by_string: Lookup) -> str:
    """The name of the TOPIC object administering exactly this node ("" for none)."""
    found = by_string(topic_string)
    return found.name if found is not None else ""


def model_queue(topic_string: str, by_string: Lookup, *, durable: bool) -> str:
    """seed 002: the model queue a subscription's managed queue is created from, the
    topic's MDURMDL (durable) or MNDURMDL (non-durable), inherited up the tree."""
    return str(resolved(topic_string, by_string)["MDURMDL" if durable else "MNDURMDL"])


# ------------------------------------------------------------------ TOPIC attributes
def normalize_topic_attrs(attrs: Mapping[str, object]) -> dict[str, int | str | bool]:
    """Validate TOPIC attributes (MQSC or Python values) into their canonical form."""
    out: dict[str, int | str | bool] = {}
    for key, value in attrs.items():
        attr = TOPIC_ATTR_BY_NAME.get(key.upper())
        if attr is None:
            raise attr_error(f"{key} is not a topic attribute mqjms knows")
        if attr.name == "DEFPRTY" and isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if attr.name == "TOPICSTR":
            out[attr.name] = check_topic_string(value, wildcards=False)
            continue
        out[attr.name] = normalize(attr, value)
    return out


def default_topic_attrs() -> dict[str, int | str | bool]:
    return {a.name: a.default for a in TOPIC_ATTRS}


def validate_topic_name(name: object) -> str:
    return validate_name(name, "topic")


def validate_sub_name(name: object) -> str:
    """A subscription name: 1-10240 characters, any but NUL (MQRC_SUB_NAME_ERROR 2440)."""
    if not isinstance(name, str) or not name.strip() or "\x00" in name:
        raise failed(C.MQRC_SUB_NAME_ERROR, f"subscription name {name!r} is empty or not text")
    if len(name) > MAX_SUB_NAME:
        raise failed(
            C.MQRC_SUB_NAME_ERROR,
            f"subscription name is {len(name)} characters; MQ allows {MAX_SUB_NAME}",
        )
    return name


def default_persistence(resolved_attrs: Mapping[str, int | str | bool]) -> int:
    """MQPER_* for a publication put with MQPER_PERSISTENCE_AS_TOPIC_DEF: DEFPSIST."""
    yes = resolved_attrs.get("DEFPSIST") == "YES"
    return C.MQPER_PERSISTENT if yes else C.MQPER_NOT_PERSISTENT


def default_priority(resolved_attrs: Mapping[str, int | str | bool]) -> int:
    return int(str(resolved_attrs.get("DEFPRTY", "0")))


def inquire_topic(definition: TopicDefinition, selectors: Iterable[int]) -> dict[int, int | str]:
    """MQINQ on a TOPIC object: its own values (ASPARENT as MQ reports it)."""
    from .attributes import inquire_value

    by_selector = {a.selector: a for a in TOPIC_ATTRS if a.selector is not None}
    out: dict[int, int | str] = {}
    for selector in selectors:
        if selector == C.MQCA_TOPIC_NAME:
            out[selector] = definition.name
            continue
        attr = by_selector.get(selector)
        if attr is None:
            raise failed(C.MQRC_SELECTOR_ERROR, f"selector {selector} is not a topic attribute")
        value = definition.attrs.get(attr.name, attr.default)
        if attr.name == "DEFPRTY" and value != ASPARENT:
            out[selector] = int(str(value))
            continue
        out[selector] = inquire_value(attr, value)
    return out
