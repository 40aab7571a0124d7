"""The system objects a queue manager has from its creation (IBM MQ's SYSTEM.* queues), and
those a newer mqjms adds to a queue manager made before it, as an MQ upgrade adds its new
ones. The queue manager's ``meta`` key "default_objects" records which ones this mqjms made,
so that one deleted on purpose is not made again."""

from __future__ import annotations

import sqlite3

from mqjms.logs import get_logger
from mqjms.semantics.attributes import ALIAS, LOCAL, MODEL, REMOTE, default_queue_attrs

from . import catalog, meta

log = get_logger("mqjms.qmgr")

DEFAULT_OBJECTS: tuple[tuple[str, str, dict[str, int | str | bool]], ...] = (
    (LOCAL, "SYSTEM.DEFAULT.LOCAL.QUEUE", {}),
    (ALIAS, "SYSTEM.DEFAULT.ALIAS.QUEUE", {}),
    (MODEL, "SYSTEM.DEFAULT.MODEL.QUEUE", {}),
    (REMOTE, "SYSTEM.DEFAULT.REMOTE.QUEUE", {}),
    (MODEL, "SYSTEM.DURABLE.MODEL.QUEUE", {"DEFTYPE": "PERMDYN"}),
    (MODEL, "SYSTEM.NDURABLE.MODEL.QUEUE", {}),
    (
        LOCAL,
        "SYSTEM.DEAD.LETTER.QUEUE",
        {"DESCR": "mqjms dead-letter queue", "MAXDEPTH": 999_999_999},
    ),
    (LOCAL, "SYSTEM.DEFAULT.INITIATION.QUEUE", {}),
    # PCF commands put here by pymqi and ibmmq programs are answered by the drop-in
    # (mqjms/mqi/command_server.py)
    (LOCAL, "SYSTEM.ADMIN.COMMAND.QUEUE", {"DESCR": "mqjms PCF command queue"}),
    # the rest of IBM MQ's default local queues, which monitoring programs read until
    # 2033 (mqjms writes no statistics, accounting or event messages to them)
    *(
        (LOCAL, f"SYSTEM.ADMIN.{name}", {})
        for name in (
            "ACCOUNTING.QUEUE",
            "ACTIVITY.QUEUE",
            "CHANNEL.EVENT",
            "COMMAND.EVENT",
            "CONFIG.EVENT",
            "LOGGER.EVENT",
            "PERFM.EVENT",
            "PUBSUB.EVENT",
            "QMGR.EVENT",
            "STATISTICS.QUEUE",
            "TRACE.ACTIVITY.QUEUE",
            "TRACE.ROUTE.QUEUE",
        )
    ),
)
#: What a queue manager made before meta's "default_objects" was kept had.
_DEFAULTS_BEFORE_LIST = frozenset(
    (
        "SYSTEM.DEFAULT.LOCAL.QUEUE",
        "SYSTEM.DEFAULT.ALIAS.QUEUE",
        "SYSTEM.DEFAULT.MODEL.QUEUE",
        "SYSTEM.DURABLE.MODEL.QUEUE",
        "SYSTEM.NDURABLE.MODEL.QUEUE",
        "SYSTEM.DEAD.LETTER.QUEUE",
        "SYSTEM.DEFAULT.INITIATION.QUEUE",
    )
)

#: meta's "default_objects": the system objects this mqjms makes.
DEFAULT_LIST = ",".join(name for _, name, _ in DEFAULT_OBJECTS)


def define_all(db: sqlite3.Connection) -> None:
    """A new queue manager's system objects (in the caller's write transaction)."""
    for qtype, qname, attrs in DEFAULT_OBJECTS:
        catalog.insert(db, qname, qtype, {**default_queue_attrs(qtype), **attrs})
    meta.put(db, "default_objects", DEFAULT_LIST)


def add_new(db: sqlite3.Connection) -> None:
    """The system objects a newer mqjms defines, made at start on a queue manager
    created before it; one deleted on purpose since it was made is not made again."""
    made = meta.get(db, "default_objects")
    known = set(made.split(",")) if made is not None else _DEFAULTS_BEFORE_LIST
    for qtype, qname, attrs in DEFAULT_OBJECTS:
        if qname not in known and catalog.load(db, qname) is None:
            catalog.insert(db, qname, qtype, {**default_queue_attrs(qtype), **attrs})
            log.info("qmgr.default_object_added", queue=qname, qtype=qtype)
    meta.put(db, "default_objects", DEFAULT_LIST)


__all__ = ["DEFAULT_LIST", "DEFAULT_OBJECTS", "add_new", "define_all"]
