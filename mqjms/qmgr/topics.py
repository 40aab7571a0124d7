"""TOPIC objects of the embedded queue manager: storage, the topic tree, administration.

A TOPIC object attaches attributes to a node of the topic tree (its TOPICSTR); the rules
(ASPARENT inheritance up to SYSTEM.BASE.TOPIC, wildcards) are
:mod:`mqjms.semantics.topics`, shared with the STOMP transport. ``DEFINE TOPIC``,
``ALTER TOPIC``, ``DELETE TOPIC``, ``DISPLAY TOPIC`` and ``DISPLAY TPSTATUS`` are the
:class:`TopicAdministration` methods of :class:`~.manager.QueueManager` (MQSC:
:mod:`.mqsc.pubsub`).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics import topics as rules
from mqjms.semantics.topics import BASE_TOPIC, BASE_TOPIC_ATTRS, TOPIC_ATTRS

from . import retained, store, substatus
from .admin import Administration
from .failures import translating

log = get_logger("mqjms.qmgr")

Value = int | str | bool


@dataclass(slots=True)
class TopicRow:
    """A row of the topics table; a :class:`~mqjms.semantics.topics.TopicDefinition`."""

    name: str
    attrs: dict[str, Value]

    @property
    def topic_string(self) -> str:
        return str(self.attrs.get("TOPICSTR", ""))


def _row(raw: tuple[object, ...]) -> TopicRow:
    attrs: dict[str, Value] = json.loads(str(raw[2]))
    attrs["TOPICSTR"] = str(raw[1])
    return TopicRow(str(raw[0]), attrs)


def load(db: sqlite3.Connection, name: str) -> TopicRow | None:
    """The TOPIC object called ``name``."""
    raw = db.execute("SELECT name, topicstr, attrs FROM topics WHERE name = ?", (name,)).fetchone()
    return None if raw is None else _row(raw)


def at(db: sqlite3.Connection, topic_string: str) -> TopicRow | None:
    """The TOPIC object administering exactly ``topic_string``'s node, if any."""
    raw = db.execute(
        "SELECT name, topicstr, attrs FROM topics WHERE topicstr = ?", (topic_string,)
    ).fetchone()
    return None if raw is None else _row(raw)


def every(db: sqlite3.Connection) -> list[TopicRow]:
    rows = db.execute("SELECT name, topicstr, attrs FROM topics ORDER BY name").fetchall()
    return [_row(raw) for raw in rows]


def lookup(db: sqlite3.Connection) -> rules.Lookup:
    """A topic string -> TOPIC object lookup over ``db`` for the tree rules."""
    return functools.partial(at, db)


def resolved(db: sqlite3.Connection, topic_string: str) -> dict[str, Value]:
    """``topic_string``'s node with every ASPARENT resolved (see semantics.topics)."""
    return rules.resolved(topic_string, lookup(db))


def full_topic_string(db: sqlite3.Connection, topic_object: str, topic_string: str) -> str:
    """MQOD/MQSD's topic: the TOPIC object's TOPICSTR joined with the topic string; 2085
    when the object is not defined or neither names a topic, 2425 for a bad topic string
    (an object's empty TOPICSTR, alone, is one)."""
    if not topic_object:
        if not topic_string or topic_string[0] in " \x00":  # "present": MQ's rule
            raise failed(
                C.MQRC_UNKNOWN_OBJECT_NAME,
                "neither ObjectName (a TOPIC object) nor ObjectString (a topic string) "
                "names a topic",
            )
        return topic_string
    found = load(db, rules.validate_topic_name(topic_object))
    if found is None:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic object {topic_object!r} is not defined")
    full = rules.join(found.topic_string, topic_string)
    if not full:
        raise failed(
            C.MQRC_TOPIC_STRING_ERROR,
            f"topic object {topic_object!r} has an empty TOPICSTR and no ObjectString was given",
        )
    return full


def ensure(db: sqlite3.Connection) -> None:
    """The pub/sub tables (retained publications' and subscriptions' status too) and
    SYSTEM.BASE.TOPIC, also in a queue manager made before them."""
    has_tables = db.execute("SELECT 1 FROM sqlite_master WHERE name = 'subscribers'").fetchone()
    if (
        has_tables
        and store.pubsub_current(db)
        and retained.current(db)
        and substatus.present(db)
        and load(db, BASE_TOPIC) is not None
    ):
        return
    with store.write(db) as tx:
        store.ensure_pubsub(tx)
        retained.ensure(tx)
        substatus.ensure(tx)
        if load(tx, BASE_TOPIC) is None:
            _insert(tx, BASE_TOPIC, dict(BASE_TOPIC_ATTRS))


def _stamp() -> str:
    return time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())


def _insert(db: sqlite3.Connection, name: str, attrs: Mapping[str, Value]) -> None:
    own = {k: v for k, v in attrs.items() if k != "TOPICSTR"}
    stamp = _stamp()
    db.execute(
        "INSERT INTO topics (name, topicstr, attrs, created, altered) VALUES (?,?,?,?,?)",
        (name, str(attrs.get("TOPICSTR", "")), json.dumps(own), stamp, stamp),
    )


def _display(row: TopicRow, wanted: Sequence[str] | None) -> dict[str, Value]:
    item: dict[str, Value] = {"TOPIC": row.name, "TYPE": "LOCAL"}
    for attr in TOPIC_ATTRS:
        if wanted is None or attr.name in wanted:
            item[attr.name] = row.attrs.get(attr.name, attr.default)
    return item


@translating
class TopicAdministration(Administration):
    """DEFINE/ALTER/DELETE/DISPLAY TOPIC and DISPLAY TPSTATUS on a QueueManager."""

    def define_topic(
        self,
        name: str,
        attrs: Mapping[str, object] | None = None,
        *,
        like: str | None = None,
        replace: bool = False,
    ) -> None:
        """DEFINE TOPIC(name) TOPICSTR('a/b') [LIKE(t)] [REPLACE] attrs. TOPICSTR is
        required, unique among topic objects, and cannot change (MQ's rules)."""
        rules.validate_topic_name(name)
        given = rules.normalize_topic_attrs(attrs or {})
        with self._writing() as tx:
            db = tx.db
            merged = rules.default_topic_attrs()
            if like:
                base = load(db, like)
                if base is None:
                    raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"LIKE topic {like!r} is not defined")
                merged.update({k: v for k, v in base.attrs.items() if k != "TOPICSTR"})
            merged.update(given)
            existing = load(db, name)
            if existing is not None and not replace:
                raise failed(
                    C.MQRCCF_OBJECT_ALREADY_EXISTS,
                    f"topic {name!r} already exists (add REPLACE to redefine it)",
                )
            if "TOPICSTR" not in given:
                if existing is None:
                    raise failed(C.MQRCCF_ATTR_VALUE_ERROR, f"DEFINE TOPIC({name}) needs TOPICSTR")
                merged["TOPICSTR"] = existing.topic_string
            topic_string = str(merged["TOPICSTR"])
            if existing is not None and existing.topic_string != topic_string:
                raise failed(
                    C.MQRCCF_PARM_CONFLICT,
                    f"topic {name!r} has TOPICSTR({existing.topic_string!r}); it cannot change "
                    "(DELETE the topic and define it again)",
                )
            holder = at(db, topic_string)
            if holder is not None and holder.name != name:
                raise failed(
                    C.MQRCCF_TOPICSTR_ALREADY_EXISTS,
                    f"topic string {topic_string!r} is administered by topic {holder.name!r}",
                )
            if existing is not None:
                db.execute("DELETE FROM topics WHERE name = ?", (name,))
            _insert(db, name, merged)
        log.info("qmgr.topic_defined", topic=name, topicstr=topic_string, replace=replace)

    def alter_topic(self, name: str, attrs: Mapping[str, object]) -> None:
        """ALTER TOPIC(name) attrs (TOPICSTR cannot change)."""
        rules.validate_topic_name(name)
        changes = rules.normalize_topic_attrs(attrs)
        with self._writing() as tx:
            db = tx.db
            found = load(db, name)
            if found is None:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic {name!r} is not defined")
            if "TOPICSTR" in changes and changes["TOPICSTR"] != found.topic_string:
                raise failed(C.MQRCCF_PARM_CONFLICT, "TOPICSTR cannot be altered")
            if name == BASE_TOPIC:
                _check_base(changes)
            found.attrs.update(changes)
            own = {k: v for k, v in found.attrs.items() if k != "TOPICSTR"}
            db.execute(
                "UPDATE topics SET attrs = ?, altered = ? WHERE name = ?",
                (json.dumps(own), _stamp(), name),
            )
        log.info("qmgr.topic_altered", topic=name, attrs=changes)

    def delete_topic(self, name: str) -> None:
        """DELETE TOPIC(name): subscriptions on its node stay (they inherit from above it
        from now on), as on MQ; SYSTEM.BASE.TOPIC cannot be deleted."""
        rules.validate_topic_name(name)
        if name == BASE_TOPIC:
            raise failed(C.MQRCCF_OBJECT_IN_USE, f"{BASE_TOPIC} cannot be deleted")
        with self._writing() as tx:
            db = tx.db
            if not db.execute("DELETE FROM topics WHERE name = ?", (name,)).rowcount:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"topic {name!r} is not defined")
        log.info("qmgr.topic_deleted", topic=name)

    def display_topics(
        self, pattern: str = "*", attrs: Sequence[str] | None = None
    ) -> list[dict[str, Value]]:
        """DISPLAY TOPIC(pattern) [ALL | attrs]: TOPIC, TYPE, then the attributes as
        defined (ASPARENT shown as such, as MQ shows it)."""
        wanted = None if attrs is None else [a.upper() for a in attrs]
        if wanted is not None and "ALL" in wanted:
            wanted = None
        with self._database() as db:
            rows = every(db)
        return [_display(row, wanted) for row in rows if _matches(pattern, row.name)]

    def topic_status(self, topic_string: str) -> list[dict[str, Value]]:
        """DISPLAY TPSTATUS('topic string'): the node's resolved attributes, which object
        administers it and how many subscriptions are on it. ``#`` (or a string ending in
        ``/#``) shows every node of the tree under it: administered nodes, the nodes
        subscriptions are on and those with a retained publication (RETAINED YES)."""
        rules.check_topic_string(topic_string, wildcards=True)
        with self._database() as db:
            nodes = {row.topic_string for row in every(db)}
            kept = retained.topics_with_one(db)
            nodes |= kept
            counts: dict[str, tuple[int, int]] = {}
            for topicstr, durable in db.execute("SELECT topicstr, durable FROM subscriptions"):
                total, durables = counts.get(topicstr, (0, 0))
                counts[topicstr] = (total + 1, durables + int(bool(durable)))
                nodes.add(topicstr)
            if rules.has_wildcards(topic_string):
                shown = sorted(n for n in nodes if rules.matches(topic_string, n))
            else:
                shown = [topic_string]
            out: list[dict[str, Value]] = []
            for node in shown:
                item: dict[str, Value] = {
                    "TOPICSTR": node,
                    "ADMIN": rules.admin_object(node, lookup(db)),
                }
                item.update(resolved(db, node))
                subs, durables = counts.get(node, (0, 0))
                item["SUBCOUNT"] = subs
                item["DURSUBS"] = durables
                item["RETAINED"] = "YES" if node in kept else "NO"
                out.append(item)
            return out

    def clear_topic_string(self, topic_string: str) -> bool:
        """CLEAR TOPICSTR('topic string') CLRTYPE(RETAINED): remove its retained
        publication; True if it had one (none is no error, as on MQ)."""
        rules.check_topic_string(topic_string, wildcards=False)
        with self._writing() as tx:
            cleared = retained.clear(tx.db, topic_string)
        log.info("qmgr.retained_cleared", topicstr=topic_string, cleared=cleared)
        return cleared


def _check_base(changes: Mapping[str, Value]) -> None:
    """SYSTEM.BASE.TOPIC is the root: nothing of it may be ASPARENT (or blank)."""
    for key, value in changes.items():
        if key in rules.INHERITED and value in ("", rules.ASPARENT):
            raise failed(
                C.MQRCCF_ATTR_VALUE_ERROR,
                f"{key} of {BASE_TOPIC} cannot be ASPARENT: it has no parent",
            )


def _matches(pattern: str, name: str) -> bool:
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return name == pattern
