"""MQSC for publish/subscribe: TOPIC objects, subscriptions and the topic tree's status.

Registered with the MQSC registry (:func:`.registry.register`) when :mod:`mqjms.qmgr.mqsc`
loads:

* ``DEFINE TOPIC(name) TOPICSTR('prices/eu') [LIKE(t)] [REPLACE] MDURMDL(q) MNDURMDL(q)
  DEFPSIST(YES|NO|ASPARENT) DEFPRTY(0-9|ASPARENT) PUB(...) SUB(...) DURSUB(...) DESCR('')``,
  ``ALTER TOPIC``, ``DELETE TOPIC``, ``DISPLAY TOPIC(pattern) [ALL | attrs] [WHERE(...)]``;
* ``DEFINE SUB(name) TOPICSTR('a/#') [TOPICOBJ(t)] DEST(q) | DESTCLAS(MANAGED)
  [USERDATA('')] [REPLACE]``, ``DELETE SUB(name)``, ``DISPLAY SUB(pattern) [ALL | attrs]``
  (subscription names are quoted when they have lower case or ``:``, as JMS ones do);
* ``DISPLAY SBSTATUS(pattern) [SUBID(id)] [DURABLE(ALL|YES|NO)] [SUBTYPE(USER|ADMIN|API|
  PROXY|ALL)] [ALL | attrs] [WHERE(...)]``: each subscription's run-time status;
* ``DISPLAY TPSTATUS('topic string') [TYPE(TOPIC | SUB)] [RETAINED | ALL]``, ``#`` for
  the whole tree;
* ``CLEAR TOPICSTR('topic string') CLRTYPE(RETAINED)``: its retained publication goes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics import topics as rules
from mqjms.semantics.attributes import INT, KEYWORD, LOCAL, TEXT, Attr
from mqjms.semantics.topics import TOPIC_ATTR_BY_NAME

from ..subscriptions import SUB_DISPLAY
from .keywords import (
    attribute_params,
    display_selection,
    like_replace,
    none_found,
    object_name,
    once,
)
from .parser import Command, Param
from .registry import CommandOutput, ObjectAttrs, register

if TYPE_CHECKING:
    from ..manager import QueueManager


# --- topics -----------------------------------------------------------------------------


def _topic_attrs(command: Command, params: list[Param]) -> dict[str, int | str | bool]:
    rest = []
    for param in params:
        if param.keyword == "TYPE":  # TYPE(LOCAL): the only kind of topic there is here
            if param.value() != "LOCAL":
                raise command.error("mqjms topics are TYPE(LOCAL)", param)
            continue
        rest.append(param)
    return attribute_params(command, TOPIC_ATTR_BY_NAME, rest)


def define_topic(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    like, replace, rest = like_replace(command)
    qm.define_topic(name, _topic_attrs(command, rest), like=like, replace=replace)
    return CommandOutput("AMQ8690I: mqjms topic created.")


def alter_topic(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    qm.alter_topic(name, _topic_attrs(command, command.params))
    return CommandOutput("AMQ8691I: mqjms topic changed.")


def delete_topic(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of DELETE TOPIC", param)
    qm.delete_topic(name)
    return CommandOutput("AMQ8692I: mqjms topic deleted.")


def display_topic(qm: QueueManager, command: Command) -> CommandOutput:
    pattern = object_name(command, generic=True)
    seen: set[str] = set()

    def type_filter(param: Param) -> bool:
        if param.keyword != "TYPE":
            return False
        once(command, seen, param, "TYPE")
        if param.value() not in ("LOCAL", "ALL"):
            raise command.error("TYPE must be LOCAL or ALL", param)
        return True

    selection = display_selection(command, TOPIC_ATTR_BY_NAME, "topic", type_filter)
    objects = qm.display_topics(pattern)
    if not objects:
        raise none_found("topic", pattern)
    shown = selection.apply(objects, always=("TOPIC", "TYPE", "TOPICSTR"))
    return CommandOutput("AMQ8633I: Display topic details.", shown)


#: DISPLAY TPSTATUS's attribute keywords: asked for or not, every one is shown.
_TPSTATUS_ATTRS = ("ALL", "RETAINED", "SUBCOUNT", "ADMIN", "DURSUBS")


def display_tpstatus(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY TPSTATUS('topic string') [TYPE(TOPIC | SUB)]: TYPE(SUB) shows, for each
    node, the status of each subscription on it (as DISPLAY SBSTATUS does)."""
    topic_string = command.name or ""
    status_type = "TOPIC"
    for param in command.params:
        if param.keyword == "TYPE" and param.value() in ("TOPIC", "SUB"):
            status_type = param.value()
            continue
        if param.keyword in _TPSTATUS_ATTRS and not param.has_value:
            continue
        raise command.error(
            f"{param.keyword} is not a keyword of DISPLAY TPSTATUS mqjms knows (TYPE(TOPIC|SUB), "
            f"{', '.join(_TPSTATUS_ATTRS)})",
            param,
        )
    try:
        objects = qm.topic_status(topic_string)
    except MQError as exc:
        raise failed(C.MQRCCF_TOPIC_STRING_NOT_FOUND, exc.detail) from None
    if status_type == "SUB":
        by_node: dict[str, list[ObjectAttrs]] = {}
        for status in qm.subscription_status("*"):
            by_node.setdefault(str(status["TOPICSTR"]), []).append(status)
        objects = [
            {"TOPICSTR": node["TOPICSTR"], **{k: s[k] for k in _TPSTATUS_SUB}}
            for node in objects
            for s in by_node.get(str(node["TOPICSTR"]), [])
        ]
    return CommandOutput("AMQ8754I: Display topic status details.", objects)


#: DISPLAY TPSTATUS TYPE(SUB)'s fields, for each subscription on a node.
_TPSTATUS_SUB = (
    "SUBID",
    "SUBUSER",
    "RESMDATE",
    "RESMTIME",
    "LMSGDATE",
    "LMSGTIME",
    "ACTCONN",
    "DURABLE",
    "SUBTYPE",
    "NUMMSGS",
)


def clear_topicstr(qm: QueueManager, command: Command) -> CommandOutput:
    """CLEAR TOPICSTR('a/b') CLRTYPE(RETAINED) [SCOPE(LOCAL)]: its retained publication
    goes (a topic string without one is no error, as on MQ)."""
    topic_string = command.name or ""
    seen: set[str] = set()
    for param in command.params:
        once(command, seen, param, param.keyword)
        if param.keyword == "CLRTYPE" and param.value() == "RETAINED":
            continue
        if param.keyword == "SCOPE" and param.value() == "LOCAL":
            continue
        raise command.error(
            f"{param.keyword} is not a keyword of CLEAR TOPICSTR mqjms knows "
            "(CLRTYPE(RETAINED), SCOPE(LOCAL))",
            param,
        )
    if "CLRTYPE" not in seen:
        raise command.error("CLEAR TOPICSTR needs CLRTYPE(RETAINED)")
    try:
        qm.clear_topic_string(topic_string)
    except MQError as exc:
        raise failed(C.MQRCCF_TOPIC_STRING_NOT_FOUND, exc.detail) from None
    return CommandOutput("mqjms topic string cleared.")


# --- subscriptions ----------------------------------------------------------------------

_SUB_KEYWORDS = frozenset({"DESTCLAS", "DURABLE", "SHARED", "SUBTYPE"})


def _sub_name(command: Command, *, generic: bool = False) -> str:
    name = command.name or ""
    base = name[:-1] if generic and name.endswith("*") else name
    if generic and not base:
        return name
    try:
        rules.validate_sub_name(base)
    except MQError as exc:
        raise failed(C.MQRCCF_SUB_NAME_ERROR, exc.detail) from None
    return name


_DEFINE_SUB_KEYWORDS = (
    "TOPICSTR",
    "TOPICOBJ",
    "DEST",
    "DESTCLAS",
    "USERDATA",
    "WSCHEMA",
    "PUBPRTY",
    "SELECTOR",
)


def define_sub(qm: QueueManager, command: Command) -> CommandOutput:
    name = _sub_name(command)
    values: dict[str, str] = {}
    replace = False
    seen: set[str] = set()
    for param in command.params:
        key = param.keyword
        if key in ("REPLACE", "NOREPLACE") and not param.has_value:
            once(command, seen, param, "REPLACE")
            replace = key == "REPLACE"
        elif key in _DEFINE_SUB_KEYWORDS:
            once(command, seen, param, key)
            values[key] = param.value()
        else:
            raise command.error(f"{key} is not a keyword of DEFINE SUB mqjms knows", param)
    destclass = values.get("DESTCLAS", "PROVIDED")
    if destclass not in ("PROVIDED", "MANAGED"):
        raise command.error("DESTCLAS must be PROVIDED or MANAGED")
    if not values.get("TOPICSTR") and not values.get("TOPICOBJ"):
        raise command.error("DEFINE SUB needs TOPICSTR('...') or TOPICOBJ(name)")
    wschema = values.get("WSCHEMA", "TOPIC").upper()
    if wschema not in ("TOPIC", "CHAR"):
        raise command.error("WSCHEMA must be TOPIC or CHAR")
    priority = _pub_priority(command, values.get("PUBPRTY", "ASPUB"))
    qm.define_subscription(
        name,
        topic_string=values.get("TOPICSTR", ""),
        topic_object=values.get("TOPICOBJ", ""),
        dest=values.get("DEST", ""),
        managed=destclass == "MANAGED",
        userdata=values.get("USERDATA", ""),
        replace=replace,
        wildcard_chars=wschema == "CHAR",
        pub_priority=priority,
        selector=values.get("SELECTOR", ""),
    )
    return CommandOutput("AMQ8094I: mqjms subscription created.")


def _pub_priority(command: Command, text: str) -> int:
    """PUBPRTY(ASPUB | ASQDEF | 0-9)."""
    named = {"ASPUB": C.MQPRI_PRIORITY_AS_PUBLISHED, "ASQDEF": C.MQPRI_PRIORITY_AS_Q_DEF}
    if text.upper() in named:
        return named[text.upper()]
    if text.isdigit() and 0 <= int(text) <= 9:
        return int(text)
    raise command.error("PUBPRTY must be ASPUB, ASQDEF or 0-9")


def alter_sub(qm: QueueManager, command: Command) -> CommandOutput:
    """ALTER SUB(name) [DEST(q)] [USERDATA('')] [PUBPRTY(ASPUB|ASQDEF|0-9)]; what IBM MQ
    does not let one change (TOPICSTR, TOPICOBJ, DESTCLAS, WSCHEMA, ...) is refused."""
    name = _sub_name(command)
    values: dict[str, str] = {}
    seen: set[str] = set()
    for param in command.params:
        key = param.keyword
        if key in ("DEST", "USERDATA", "PUBPRTY"):
            once(command, seen, param, key)
            values[key] = param.value()
        elif key in _FIXED_SUB_ATTRS:
            raise failed(
                C.MQRCCF_ATTR_VALUE_FIXED, f"{key} of a subscription cannot be altered (ALTER SUB)"
            )
        else:
            raise command.error(f"{key} is not a keyword of ALTER SUB mqjms knows", param)
    priority = values.get("PUBPRTY")
    qm.alter_subscription(
        name,
        dest=values.get("DEST"),
        userdata=values.get("USERDATA"),
        pub_priority=None if priority is None else _pub_priority(command, priority),
    )
    return CommandOutput("AMQ8097I: mqjms subscription changed.")


_FIXED_SUB_ATTRS = frozenset(
    {"TOPICSTR", "TOPICOBJ", "DESTCLAS", "WSCHEMA", "DURABLE", "SUBSCOPE", "SELECTOR"}
)


def delete_sub(qm: QueueManager, command: Command) -> CommandOutput:
    name = _sub_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of DELETE SUB", param)
    qm.delete_subscription(name)
    return CommandOutput("AMQ8095I: mqjms subscription deleted.")


def display_sub(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY SUB(generic) [SUBID(id)] [DURABLE(ALL|YES|NO)] [SUBTYPE(USER|...|ALL)]
    [ALL | attrs] [WHERE(...)]: SUBNAME and SUBID always."""
    pattern = _sub_name(command, generic=True)
    filters = _SubFilters(command)
    selection = display_selection(command, SUB_ATTRS, "subscription", filters.take)
    objects: list[ObjectAttrs] = [o for o in qm.display_subscriptions(pattern) if filters.keeps(o)]
    if not objects:
        raise _no_subscription(pattern, filters.subid)
    shown = selection.apply(objects, always=("SUBNAME", "SUBID"))
    return CommandOutput("AMQ8096I: mqjms subscription inquired.", shown)


#: DISPLAY SUB's attributes (for the attribute list and WHERE).
SUB_ATTRS: dict[str, Attr] = {
    name: Attr(name, KEYWORD if name in _SUB_KEYWORDS else TEXT, (LOCAL,), "", readonly=True)
    for name in SUB_DISPLAY
}


#: DISPLAY SBSTATUS's status attributes (read only; for the attribute list and WHERE).
SBSTATUS_ATTRS: dict[str, Attr] = {
    name: Attr(name, kind, (LOCAL,), 0 if kind == INT else "", readonly=True)
    for name, kind in (
        ("SUBID", TEXT),
        ("DURABLE", KEYWORD),
        ("SUBTYPE", KEYWORD),
        ("TOPICSTR", TEXT),
        ("ACTCONN", TEXT),
        ("RESMDATE", TEXT),
        ("RESMTIME", TEXT),
        ("NUMMSGS", INT),
        ("LMSGDATE", TEXT),
        ("LMSGTIME", TEXT),
        ("SUBUSER", TEXT),
        ("MCASTREL", TEXT),
    )
}
_SUBTYPES = {
    "USER": ("API", "ADMIN"),
    "API": ("API",),
    "ADMIN": ("ADMIN",),
    "PROXY": ("PROXY",),
    "ALL": ("API", "ADMIN", "PROXY"),
}


def display_sbstatus(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY SBSTATUS(generic) [SUBID(id)] [DURABLE(ALL|YES|NO)] [SUBTYPE(USER|...|ALL)]
    [ALL | attrs] [WHERE(...)]: SUB and SUBID always, every status attribute unless some
    are named (MCASTREL is blank: no multicast here)."""
    pattern = _sub_name(command, generic=True)
    filters = _SubFilters(command)
    selection = display_selection(command, SBSTATUS_ATTRS, "subscription status", filters.take)
    objects: list[ObjectAttrs] = [
        {**o, "MCASTREL": ""} for o in qm.subscription_status(pattern) if filters.keeps(o)
    ]
    if not objects:
        raise _no_subscription(pattern, filters.subid)
    if not selection.wanted and selection.where is None:
        selection.show_all = True
    shown = selection.apply(objects, always=("SUB", "SUBID"))
    return CommandOutput("AMQ8099I: mqjms subscription status inquired.", shown)


class _SubFilters:
    """DISPLAY SUB's and DISPLAY SBSTATUS's SUBID(id), DURABLE(...) and SUBTYPE(...)."""

    def __init__(self, command: Command) -> None:
        self.command = command
        self.subid = ""
        self.durable = "ALL"
        self.subtypes = _SUBTYPES["USER"]
        self._seen: set[str] = set()

    def take(self, param: Param) -> bool:
        keyword = param.keyword
        if keyword not in ("SUBID", "DURABLE", "SUBTYPE") or not param.has_value:
            return False  # an attribute to display
        once(self.command, self._seen, param, keyword)
        value = param.value().upper()
        if keyword == "SUBID":
            self.subid = value
        elif keyword == "DURABLE":
            if value not in ("ALL", "YES", "NO"):
                raise self.command.error("DURABLE must be ALL, YES or NO", param)
            self.durable = value
        else:
            if value not in _SUBTYPES:
                raise self.command.error("SUBTYPE must be USER, ADMIN, API, PROXY or ALL", param)
            self.subtypes = _SUBTYPES[value]
        return True

    def keeps(self, obj: ObjectAttrs) -> bool:
        if self.subid and obj.get("SUBID") != self.subid:
            return False
        if self.durable != "ALL" and obj.get("DURABLE") != self.durable:
            return False
        return obj.get("SUBTYPE") in self.subtypes


def _no_subscription(pattern: str, subid: str = "") -> MQError:
    if subid:
        return failed(C.MQRC_NO_SUBSCRIPTION, f"no subscription {pattern!r} has SUBID {subid}")
    return failed(
        C.MQRC_NO_SUBSCRIPTION,
        f"no subscription matches {pattern!r}"
        if pattern.endswith("*")
        else f"subscription {pattern!r} does not exist",
    )


register("DEFINE", "TOPIC")(define_topic)
register("ALTER", "TOPIC")(alter_topic)
register("DELETE", "TOPIC")(delete_topic)
register("DISPLAY", "TOPIC")(display_topic)
register("DISPLAY", "TPSTATUS")(display_tpstatus)
register("CLEAR", "TOPICSTR")(clear_topicstr)
register("DEFINE", "SUB", "SUBSCRIPTION")(define_sub)
register("DELETE", "SUB", "SUBSCRIPTION")(delete_sub)
register("ALTER", "SUB", "SUBSCRIPTION")(alter_sub)
register("DISPLAY", "SUB", "SUBSCRIPTION")(display_sub)
register("DISPLAY", "SBSTATUS")(display_sbstatus)
