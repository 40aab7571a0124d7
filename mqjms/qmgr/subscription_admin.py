"""DEFINE, ALTER, DELETE and DISPLAY SUB, and DISPLAY SBSTATUS, on a QueueManager: the
administration of :mod:`.subscriptions` (administrative subscriptions are durable, as on
MQ)."""

from __future__ import annotations

from collections.abc import Sequence

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics import topics as rules
from mqjms.semantics.selector import compile_selector

from . import catalog, messages, subscriptions, substatus, topics
from .admin import Administration
from .failures import translating
from .subscriptions import (
    JMS,
    SubscriptionRow,
    Value,
    display_row,
    holders,
    insert,
    load,
    managed_queue,
    new_subid,
    remove,
    stamp,
)

log = get_logger("mqjms.qmgr")


@translating
class SubscriptionAdministration(Administration):
    """DEFINE SUB, DELETE SUB and DISPLAY SUB on a QueueManager (administrative
    subscriptions are durable, as on MQ)."""

    def define_subscription(
        self,
        name: str,
        *,
        topic_string: str = "",
        topic_object: str = "",
        dest: str = "",
        managed: bool | None = None,
        userdata: str = "",
        replace: bool = False,
        wildcard_chars: bool = False,
        pub_priority: int = C.MQPRI_PRIORITY_AS_PUBLISHED,
        selector: str = "",
    ) -> None:
        """DEFINE SUB(name) TOPICSTR('a/#') [TOPICOBJ(t)] DEST(q) | DESTCLAS(MANAGED)
        [WSCHEMA(CHAR)] [PUBPRTY(ASPUB | ASQDEF | 0-9)] [SELECTOR('a JMS selector')]."""
        rules.validate_sub_name(name)
        compile_selector(selector)  # 2459 MQRC_SELECTOR_SYNTAX_ERROR, as MQ answers
        if not (
            0 <= pub_priority <= 9
            or pub_priority in (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF)
        ):
            raise failed(
                C.MQRCCF_ATTR_VALUE_ERROR, f"PUBPRTY {pub_priority} is not ASPUB, ASQDEF or 0-9"
            )
        managed = not dest if managed is None else managed
        if not managed and not dest:
            raise failed(
                C.MQRCCF_ATTR_VALUE_ERROR, f"SUB({name}) needs DEST(queue) or DESTCLAS(MANAGED)"
            )
        if managed and dest:
            raise failed(C.MQRCCF_PARM_CONFLICT, "DEST cannot be given with DESTCLAS(MANAGED)")
        with self._writing() as tx:
            db = tx.db
            full = topics.full_topic_string(db, topic_object, topic_string)
            rules.check_topic_string(full, wildcards=True)
            existing = load(db, name)
            if existing is not None:
                if not replace:
                    raise failed(
                        C.MQRCCF_SUB_ALREADY_EXISTS,
                        f"subscription {name!r} already exists (add REPLACE to redefine it)",
                    )
                if holders(db, name):
                    raise failed(C.MQRCCF_OBJECT_IN_USE, f"subscription {name!r} is in use")
                remove(db, existing, reason="DEFINE SUB REPLACE")
            if managed:
                node = rules.char_node(full) if wildcard_chars else full
                dest, _ = managed_queue(db, node, durable=True)
            else:
                catalog.resolve(db, dest)  # 2085 / 2082 when it names no queue
            made = stamp()
            insert(
                db,
                SubscriptionRow(
                    name,
                    new_subid(),
                    full,
                    topic_object,
                    True,
                    False,
                    bool(managed),
                    dest,
                    "ADMIN",
                    userdata,
                    messages.make_msg_id("SUB"),
                    False,
                    pub_priority,
                    made,
                    made,
                    wildcard_chars,
                    selector.strip(),
                ),
            )
        log.info("qmgr.subscription_defined", subscription=name, topicstr=full, dest=dest)

    def alter_subscription(
        self,
        name: str,
        *,
        dest: str | None = None,
        userdata: str | None = None,
        pub_priority: int | None = None,
    ) -> None:
        """ALTER SUB(name) [DEST(q)] [USERDATA('')] [PUBPRTY(...)]: what IBM MQ lets one
        change (a managed subscription's DEST is its own: MQRCCF_ATTR_VALUE_FIXED)."""
        if pub_priority is not None and not (
            0 <= pub_priority <= 9
            or pub_priority in (C.MQPRI_PRIORITY_AS_PUBLISHED, C.MQPRI_PRIORITY_AS_Q_DEF)
        ):
            raise failed(
                C.MQRCCF_ATTR_VALUE_ERROR, f"PUBPRTY {pub_priority} is not ASPUB, ASQDEF or 0-9"
            )
        with self._writing() as tx:
            db = tx.db
            sub = load(db, name)
            if sub is None:
                raise failed(C.MQRC_NO_SUBSCRIPTION, f"subscription {name!r} does not exist")
            changes: dict[str, object] = {}
            if dest is not None and dest != sub.dest:
                if sub.managed:
                    raise failed(
                        C.MQRCCF_ATTR_VALUE_FIXED,
                        f"subscription {name!r} is DESTCLAS(MANAGED): its DEST is its own",
                    )
                catalog.resolve(db, dest)  # 2085 / 2082 when it names no queue
                changes["dest"] = dest
            if userdata is not None:
                changes["userdata"] = userdata
            if pub_priority is not None:
                changes["pub_priority"] = pub_priority
            changes["altered"] = stamp()
            db.execute(
                f"UPDATE subscriptions SET {', '.join(f'{k} = ?' for k in changes)} WHERE name = ?",
                (*changes.values(), name),
            )
        log.info("qmgr.subscription_altered", subscription=name, **changes)

    def delete_subscription(self, name: str) -> None:
        """DELETE SUB(name): refused while a subscriber holds it (MQRCCF_OBJECT_IN_USE)."""
        with self._writing() as tx:
            db = tx.db
            sub = load(db, name)
            if sub is None:
                raise failed(C.MQRC_NO_SUBSCRIPTION, f"subscription {name!r} does not exist")
            if holders(db, name):
                raise failed(C.MQRCCF_OBJECT_IN_USE, f"subscription {name!r} is in use")
            remove(db, sub, reason="DELETE SUB")

    def display_subscriptions(
        self, pattern: str = "*", attrs: Sequence[str] | None = None
    ) -> list[dict[str, Value]]:
        """DISPLAY SUB(pattern) [ALL | attrs]: SUBNAME first, then the attributes."""
        wanted = None if attrs is None else [a.upper() for a in attrs]
        if wanted is not None and "ALL" in wanted:
            wanted = None
        with self._database() as db:
            rows = _named(subscriptions.every(db), pattern)
        return [display_row(row, wanted) for row in rows]

    def subscription_status(self, pattern: str = "*") -> list[dict[str, Value]]:
        """DISPLAY SBSTATUS(pattern): each subscription's run-time status (``SUB`` first,
        then SUBID, DURABLE, SUBTYPE, TOPICSTR, ACTCONN, RESMDATE, RESMTIME, NUMMSGS,
        LMSGDATE, LMSGTIME, SUBUSER; see :mod:`.substatus`)."""
        with self._database() as db:
            rows = _named(subscriptions.every(db), pattern)
            status = substatus.load(db)
            active = substatus.active_connections(db)
        out: list[dict[str, Value]] = []
        for row in rows:
            resumed, nummsgs, lastmsg = status.get(row.name, (row.created, 0, ""))
            out.append(
                {
                    "SUB": row.name,
                    "SUBID": row.subid.hex().upper(),
                    "DURABLE": "YES" if row.durable else "NO",
                    "SUBTYPE": "API" if row.subtype == JMS else row.subtype,
                    "TOPICSTR": row.topic_string,
                    "ACTCONN": substatus.actconn(self.name, active.get(row.name)),
                    "RESMDATE": resumed[:10],
                    "RESMTIME": resumed[11:],
                    "NUMMSGS": nummsgs,
                    "LMSGDATE": lastmsg[:10],
                    "LMSGTIME": lastmsg[11:],
                    "SUBUSER": "",
                }
            )
        return out


def _named(rows: list[SubscriptionRow], pattern: str) -> list[SubscriptionRow]:
    """The subscriptions ``pattern`` names: one, or those its stem before a ``*`` starts."""
    if pattern.endswith("*"):
        return [r for r in rows if r.name.startswith(pattern[:-1])]
    return [r for r in rows if r.name == pattern]
