"""Subscriptions of the embedded queue manager, and the managed queues they own.

A subscription routes publications to a queue: a *managed* one the queue manager made
for it from the model queue its topic names (seed 002: MDURMDL for a durable
subscription, MNDURMDL for a non-durable one; the managed queue inherits BOTHRESH,
BOQNAME and every other attribute from the model), named as IBM MQ names them
(``SYSTEM.MANAGED.DURABLE.*``, ``SYSTEM.MANAGED.NDURABLE.*``), or a *provided* one.

Durable subscriptions live until they are removed (MQCLOSE with MQCO_REMOVE_SUB,
``unsubscribe``, ``DELETE SUB``); they survive their subscribers and restarts. A
non-durable one ends with its last subscriber: the hsub closed, the connection ended or
its process dead (noticed as for any unit of work, see :mod:`.manager`), or a restart;
its managed queue is deleted with the messages on it, as MQ deletes it.

``subscribers`` records which connections hold a subscription open (their hsubs): an
unshared subscription is held by one at a time (MQRC_SUBSCRIPTION_IN_USE 2429), a shared
one by any number (JMS 2.0 shared subscriptions).
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics import topics as rules
from mqjms.semantics.attributes import LOCAL, MODEL, default_queue_attrs

from . import catalog, substatus, topics

log = get_logger("mqjms.qmgr")

Value = int | str | bool
_COLUMNS = (
    "name, subid, topicstr, topicobj, durable, shared, managed, dest, subtype, userdata,"
    " correl_id, keep_correl_id, pub_priority, created, altered, wschema, selector"
)


@dataclass(slots=True)
class SubscriptionRow:
    """A row of the subscriptions table."""

    name: str
    subid: bytes
    topic_string: str
    topic_object: str
    durable: bool
    shared: bool
    managed: bool
    dest: str
    subtype: str  # API or ADMIN; JMS: an API one whose copies carry their topic string
    userdata: str
    correl_id: bytes
    keep_correl_id: bool  # publications keep the publisher's CorrelId
    pub_priority: int
    created: str
    altered: str
    wildcard_chars: bool = False  # WSCHEMA(CHAR): MQSO_WILDCARD_CHAR's wildcards
    selector: str = ""  # SELECTOR: only what it selects reaches the subscription


def _row(raw: tuple[Any, ...]) -> SubscriptionRow:
    return SubscriptionRow(
        str(raw[0]),
        bytes(raw[1]),
        str(raw[2]),
        str(raw[3]),
        bool(raw[4]),
        bool(raw[5]),
        bool(raw[6]),
        str(raw[7]),
        str(raw[8]),
        str(raw[9]),
        bytes(raw[10]),
        bool(raw[11]),
        int(raw[12]),
        str(raw[13]),
        str(raw[14]),
        str(raw[15]) == "CHAR",
        str(raw[16]),
    )


def load(db: sqlite3.Connection, name: str) -> SubscriptionRow | None:
    raw = db.execute(f"SELECT {_COLUMNS} FROM subscriptions WHERE name = ?", (name,)).fetchone()
    return None if raw is None else _row(raw)


def every(db: sqlite3.Connection) -> list[SubscriptionRow]:
    return [_row(r) for r in db.execute(f"SELECT {_COLUMNS} FROM subscriptions ORDER BY name")]


# The subscriptions a publication may reach: its own topic string, or a pattern with a
# wildcard character of either schema (more than match: the topic rules decide). Every
# row read and matched in Python cost each publish some 10 us per subscription on other
# topics, inside its write transaction (11 ms a publish with 1000 of them).
_MAY_MATCH = (
    "topicstr = ? OR instr(topicstr, '#') OR instr(topicstr, '+')"
    " OR (wschema = 'CHAR' AND (instr(topicstr, '*') OR instr(topicstr, '?')"
    " OR instr(topicstr, '%')))"
)


def matching(db: sqlite3.Connection, topic_string: str) -> list[SubscriptionRow]:
    """The subscriptions a publication on ``topic_string`` reaches, oldest first."""
    rows = db.execute(
        f"SELECT {_COLUMNS} FROM subscriptions WHERE {_MAY_MATCH} ORDER BY rowid",
        (topic_string,),
    ).fetchall()
    return [
        sub
        for sub in map(_row, rows)
        if rules.matches(sub.topic_string, topic_string, chars=sub.wildcard_chars)
    ]


def alter(
    db: sqlite3.Connection, sub: SubscriptionRow, userdata: str, pub_priority: int
) -> SubscriptionRow:
    """MQSUB with MQSO_ALTER: the subscription takes the MQSD's SubUserData and PubPriority
    (what IBM MQ lets an application alter); the row as it is now."""
    if (sub.userdata, sub.pub_priority) == (userdata, pub_priority):
        return sub
    altered = stamp()
    db.execute(
        "UPDATE subscriptions SET userdata = ?, pub_priority = ?, altered = ? WHERE name = ?",
        (userdata, pub_priority, altered, sub.name),
    )
    return replace(sub, userdata=userdata, pub_priority=pub_priority, altered=altered)


def holders(db: sqlite3.Connection, name: str) -> list[str]:
    """The connections holding the subscription open now."""
    rows = db.execute("SELECT conn FROM subscribers WHERE sub = ?", (name,)).fetchall()
    return [str(r[0]) for r in rows]


def new_subid() -> bytes:
    """SUBID: 24 bytes, unique (MQ's MQBYTE24)."""
    return b"AMQSUB" + uuid.uuid4().bytes + b"\x00\x00"


def stamp() -> str:
    return time.strftime("%Y-%m-%d %H.%M.%S", time.gmtime())


def managed_queue(db: sqlite3.Connection, topic_string: str, *, durable: bool) -> tuple[str, str]:
    """Create a subscription's managed queue from its topic's model queue (seed 002:
    MDURMDL or MNDURMDL, inherited up the topic tree); (queue name, model name).

    The managed queue takes every attribute of the model that applies to a local queue
    (BOTHRESH and BOQNAME among them), so IBM MQ classes for JMS find the backout
    settings on it. It is PERMDYN for a durable subscription and TEMPDYN for a
    non-durable one, owned by the subscription (deleted with it, not with a connection).
    """
    model_name = rules.model_queue(topic_string, topics.lookup(db), durable=durable)
    model = catalog.load(db, model_name)
    kind = "MDURMDL" if durable else "MNDURMDL"
    if model is None:
        raise failed(
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"the model queue {model_name!r} ({kind} of topic {topic_string!r}) is not defined",
        )
    if model.qtype != MODEL:
        raise failed(
            C.MQRC_Q_TYPE_ERROR,
            f"{kind} of topic {topic_string!r} names {model_name!r}, a {model.qtype}, "
            "not a model queue",
        )
    prefix = rules.MANAGED_DURABLE_PREFIX if durable else rules.MANAGED_NON_DURABLE_PREFIX
    name = (prefix + uuid.uuid4().hex.upper())[: C.MQ_Q_NAME_LENGTH]
    attrs = default_queue_attrs(LOCAL)
    attrs.update({k: v for k, v in model.attrs.items() if k in attrs})
    catalog.insert(db, name, LOCAL, attrs, deftype="PERMDYN" if durable else "TEMPDYN")
    log.info(
        "qmgr.managed_queue_created",
        queue=name,
        model=model_name,
        topicstr=topic_string,
        bothresh=attrs.get("BOTHRESH"),
        boqname=attrs.get("BOQNAME"),
    )
    return name, model_name


#: The SUBTYPE kept for an API subscription of a JMS subscriber (shown as API): each copy of
#: a publication without an RFH2 is given one with its topic string (see publish.py).
JMS = "JMS"


def insert(db: sqlite3.Connection, sub: SubscriptionRow) -> None:
    db.execute(
        f"INSERT INTO subscriptions ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            sub.name,
            sub.subid,
            sub.topic_string,
            sub.topic_object,
            int(sub.durable),
            int(sub.shared),
            int(sub.managed),
            sub.dest,
            sub.subtype,
            sub.userdata,
            sub.correl_id,
            int(sub.keep_correl_id),
            sub.pub_priority,
            sub.created,
            sub.altered,
            "CHAR" if sub.wildcard_chars else "TOPIC",
            sub.selector,
        ),
    )
    substatus.made(db, sub.name, sub.created)


def attach(
    db: sqlite3.Connection, conn_id: str, name: str, *, origin: str = "", no_local: bool = False
) -> int:
    """Record that ``conn_id`` holds the subscription open; its hsub. ``origin``: whose
    publications are its own (``conn_id`` unless a JMS connection's sessions share one);
    ``no_local``: it is not sent them (JMS noLocal)."""
    cur = db.execute(
        "INSERT INTO subscribers (conn, sub, origin, no_local) VALUES (?, ?, ?, ?)",
        (conn_id, name, origin or conn_id, int(no_local)),
    )
    substatus.resumed(db, name)  # RESMDATE, RESMTIME
    return int(cur.lastrowid or 0)


def own_subscriptions(db: sqlite3.Connection, origin: str, *, all_held: bool) -> set[str]:
    """The subscriptions a publication from ``origin`` is not sent: held open by that
    origin and asking for noLocal, or every one it holds (``all_held``: the publisher's
    MQPMO_NOT_OWN_SUBS)."""
    if all_held:
        rows = db.execute("SELECT sub FROM subscribers WHERE origin = ?", (origin,))
    else:  # only noLocal ones: none at all in the common case, through the origin index
        rows = db.execute("SELECT sub FROM subscribers WHERE origin = ? AND no_local", (origin,))
    return {str(row[0]) for row in rows}


def detach(db: sqlite3.Connection, hsub: int) -> None:
    db.execute("DELETE FROM subscribers WHERE hsub = ?", (hsub,))


def remove(db: sqlite3.Connection, sub: SubscriptionRow, *, reason: str) -> int:
    """End a subscription; a managed queue goes with it, messages and all. Returns how
    many messages were deleted with it."""
    db.execute("DELETE FROM subscribers WHERE sub = ?", (sub.name,))
    db.execute("DELETE FROM subscriptions WHERE name = ?", (sub.name,))
    substatus.removed(db, sub.name)
    dropped = 0
    if sub.managed:
        db.execute("DELETE FROM handles WHERE queue = ?", (sub.dest,))
        dropped = catalog.clear(db, sub.dest, held=True)
        catalog.delete(db, sub.dest)
    log.info(
        "qmgr.subscription_removed",
        subscription=sub.name,
        topicstr=sub.topic_string,
        durable=sub.durable,
        queue=sub.dest,
        messages_deleted=dropped,
        reason=reason,
    )
    return dropped


def end_unheld_non_durable(db: sqlite3.Connection, names: Sequence[str], reason: str) -> None:
    """Remove each non-durable subscription of ``names`` that nobody holds any more."""
    for name in names:
        sub = load(db, name)
        if sub is not None and not sub.durable and not holders(db, name):
            remove(db, sub, reason=reason)


def on_connection_end(db: sqlite3.Connection, conn_id: str) -> None:
    """A connection ended (MQDISC, or its process died): its hsubs close, and non-durable
    subscriptions it was the last to hold end with their managed queues."""
    names = [
        str(r[0])
        for r in db.execute("SELECT DISTINCT sub FROM subscribers WHERE conn = ?", (conn_id,))
    ]
    if not names:
        return
    db.execute("DELETE FROM subscribers WHERE conn = ?", (conn_id,))
    end_unheld_non_durable(db, names, "subscriber ended")


def on_restart(db: sqlite3.Connection) -> None:
    """Queue manager start: nobody holds a subscription; non-durable ones are gone."""
    if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'subscribers'").fetchone():
        return
    db.execute("DELETE FROM subscribers")
    substatus.on_restart(db)  # NUMMSGS counts from the restart
    for sub in every(db):
        if not sub.durable:
            remove(db, sub, reason="queue manager restart")


def in_use(name: str) -> Exception:
    return failed(
        C.MQRC_SUBSCRIPTION_IN_USE,
        f"subscription {name!r} is in use by another subscriber (it is not shared)",
    )


def display_row(sub: SubscriptionRow, wanted: Sequence[str] | None) -> dict[str, Value]:
    values: dict[str, Value] = {
        "SUBID": sub.subid.hex().upper(),
        "TOPICSTR": sub.topic_string,
        "TOPICOBJ": sub.topic_object,
        "DEST": sub.dest,
        "DESTCLAS": "MANAGED" if sub.managed else "PROVIDED",
        "DURABLE": "YES" if sub.durable else "NO",
        "SHARED": "YES" if sub.shared else "NO",
        "SUBTYPE": "API" if sub.subtype == JMS else sub.subtype,
        "USERDATA": sub.userdata,
        "DESTCORL": sub.correl_id.hex().upper(),
        "PUBPRTY": _PUBPRTY.get(sub.pub_priority, sub.pub_priority),
        "CRDATE": sub.created[:10],
        "CRTIME": sub.created[11:],
        "ALTDATE": sub.altered[:10],
        "ALTTIME": sub.altered[11:],
        "WSCHEMA": "CHAR" if sub.wildcard_chars else "TOPIC",
        "SELECTOR": sub.selector,
    }
    item: dict[str, Value] = {"SUBNAME": sub.name}
    for key, value in values.items():
        if wanted is None or key in wanted:
            item[key] = value
    return item


_PUBPRTY: dict[int, Value] = {
    C.MQPRI_PRIORITY_AS_PUBLISHED: "ASPUB",
    C.MQPRI_PRIORITY_AS_Q_DEF: "ASQDEF",
}

#: DISPLAY SUB's attributes, in the order shown.
SUB_DISPLAY = (
    "SUBID",
    "TOPICSTR",
    "TOPICOBJ",
    "DEST",
    "DESTCLAS",
    "DURABLE",
    "SHARED",
    "SUBTYPE",
    "USERDATA",
    "DESTCORL",
    "PUBPRTY",
    "CRDATE",
    "CRTIME",
    "ALTDATE",
    "ALTTIME",
    "WSCHEMA",
    "SELECTOR",
)
