"""MQOPEN and MQCLOSE as pymqi and ibmmq programs use them.

The MQOD names a queue (MQOT_Q), the queue manager itself (MQOT_Q_MGR, for MQINQ) or a
topic (MQOT_TOPIC: ObjectName a TOPIC object, ObjectString a topic string, opened with
MQOO_OUTPUT to publish; :mod:`.subscribing` has MQSUB). The open options go to the
transport as they are: exact, so a queue opened for input cannot be put to (2039) and
one opened without MQOO_INQUIRE cannot be inquired (2038). Opening a model queue creates
a dynamic queue named from DynamicQName, and its name is written into the program's
``od.ObjectName`` (48 bytes, blank-padded: programs ``.strip()`` it); ResolvedQName and
ResolvedQMgrName are written as MQ writes them for a version 3 MQOD and up. An
ObjectQMgrName naming another queue manager opens a remote queue, to put to: the
transport routes it (the embedded queue manager to a transmission queue, see
:mod:`mqjms.qmgr.remote`; 2087 where there is no route).
"""

from __future__ import annotations

from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.od import MQOD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import DEFAULT_DYNAMIC_NAME, Connection

from . import admin, fields, option_rules, subscribing
from .hconn import Hconn, Hobj

_OD_SPECS = {spec.name: spec for spec in MQOD.SPECS}
#: the open options that read messages: only they may come with a selection string
_SELECTING = (
    CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_INPUT_EXCLUSIVE | CMQC.MQOO_BROWSE
)


def open_object(hconn: Hconn, od: Any, options: int) -> int:
    """MQOPEN: the object handle's number; ``od``'s output fields updated in place."""
    with hconn.call() as conn:
        object_type = fields.option(od, "ObjectType", CMQC.MQOT_Q)
        name = fields.text(getattr(od, "ObjectName", b""))
        option_rules.check_open(options)
        subscribing.refuse_selection_string(
            od, "MQOPEN", selecting=object_type == CMQC.MQOT_Q and bool(options & _SELECTING)
        )
        if object_type == CMQC.MQOT_Q_MGR:
            if options & ~(CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING | _CONTEXT_OPTIONS):
                raise failed(
                    C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
                    f"open options {options:#x}: the queue manager object opens for MQOO_INQUIRE",
                )
            # not a queue: IBM MQ leaves ResolvedQName and ResolvedQMgrName blank
            _write(od, {"ObjectName": conn.qmgr_name, "ResolvedQName": "", "ResolvedQMgrName": ""})
            return hconn.add_object(conn.qmgr_name, options, None).number
        if object_type == CMQC.MQOT_TOPIC:
            topic = subscribing.publisher(conn).open_topic(
                subscribing.vs_text(od, "ObjectString"), options, topic=name
            )
            if fields.option(od, "Version", 1) >= 4:
                _write(od, {"ResolvedType": CMQC.MQOT_TOPIC})
            return hconn.add_object(topic.name, options, topic).number
        if object_type != CMQC.MQOT_Q:
            raise failed(
                C.MQRC_FUNCTION_NOT_SUPPORTED,
                f"opening an object of type {object_type} (only queues, topics and the "
                "queue manager) is not supported by mqjms's MQI",
            )
        qmgr = hconn.remote_qmgr(fields.text(getattr(od, "ObjectQMgrName", b"")))
        dynamic = fields.text(getattr(od, "DynamicQName", b"")) or DEFAULT_DYNAMIC_NAME
        handle = conn.open(name, options, dynamic_name=dynamic, qmgr=qmgr)
        written: dict[str, object] = {}
        if handle.name != name:  # a model queue: the dynamic queue created, and where
            written["ObjectName"] = handle.name
            written["ObjectQMgrName"] = conn.qmgr_name
        if fields.option(od, "Version", 1) >= 3:
            # named only for a queue opened to browse, get or put (IBM MQ: blanks for one
            # opened only to inquire or set, and for an alias resolving to a topic)
            resolved = options & _RESOLVING_OPTIONS and handle.topic is None
            written["ResolvedQName"] = handle.resolved_name if resolved else ""
            written["ResolvedQMgrName"] = (
                (handle.resolved_qmgr or conn.qmgr_name) if resolved else ""
            )
        if fields.option(od, "Version", 1) >= 4:
            written["ResolvedType"] = CMQC.MQOT_Q if handle.topic is None else CMQC.MQOT_TOPIC
        _write(od, written)
        obj = hconn.add_object(handle.name, options, handle)
        obj.created = handle.name != name
        return obj.number


_CONTEXT_OPTIONS = CMQC.MQOO_ALTERNATE_USER_AUTHORITY
_RESOLVING_OPTIONS = (
    CMQC.MQOO_BROWSE
    | CMQC.MQOO_INPUT_AS_Q_DEF
    | CMQC.MQOO_INPUT_SHARED
    | CMQC.MQOO_INPUT_EXCLUSIVE
    | CMQC.MQOO_OUTPUT
)


def _write(od: Any, values: dict[str, object]) -> None:
    for key, value in values.items():
        if hasattr(od, key):
            fields.assign(od, _OD_SPECS[key], value)


_DELETE = CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE


def close_object(hconn: Hconn, number: int, options: int = CMQC.MQCO_NONE) -> None:
    """MQCLOSE. A temporary dynamic queue is deleted; MQCO_DELETE(_PURGE) deletes a
    permanent one too (2055 if it still holds messages without PURGE). On anything else
    MQCO_DELETE(_PURGE) fails with 2045, and the object stays open, as on IBM MQ."""
    with hconn.call() as conn:
        obj = hconn.object(number)
        option_rules.check_close(options)
        if options & _DELETE:
            _check_deletable(conn, obj, options)
        if obj.handle is not None:
            conn.close(obj.handle)
            if options & _DELETE:
                admin.delete_dynamic(conn, obj.handle.name, bool(options & CMQC.MQCO_DELETE_PURGE))
        del hconn.objects[number]


def _check_deletable(conn: Connection, obj: Hobj, options: int) -> None:
    """MQCO_DELETE(_PURGE) is valid for a permanent dynamic queue, and for a temporary one
    closed through the handle whose MQOPEN created it; MQCO_DELETE needs the permanent one
    empty (2055). Never a predefined queue, an alias, a topic or the queue manager (2045)."""
    handle = obj.handle
    what = f"MQCLOSE of {obj.name!r} with options {options:#x}"
    if handle is None or handle.topic is not None or handle.qmgr or handle.resolved_qmgr:
        # a queue of another queue manager is never deleted from here, whatever a local
        # queue of the same name is
        raise failed(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{what}: only a dynamic queue is deleted")
    found = conn.inquire(handle.name, [CMQC.MQIA_Q_TYPE])
    if found.get(CMQC.MQIA_Q_TYPE) != CMQC.MQQT_LOCAL:
        raise failed(C.MQRC_OPTION_NOT_VALID_FOR_TYPE, f"{what}: only a dynamic queue is deleted")
    found = conn.inquire(handle.name, [CMQC.MQIA_DEFINITION_TYPE, CMQC.MQIA_CURRENT_Q_DEPTH])
    kind = found.get(CMQC.MQIA_DEFINITION_TYPE)
    if kind == CMQC.MQQDT_TEMPORARY_DYNAMIC and obj.created:
        return
    if kind != CMQC.MQQDT_PERMANENT_DYNAMIC:
        raise failed(
            C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
            f"{what}: {obj.name!r} is not a dynamic queue this handle created (a predefined "
            "queue is deleted by DELETE QLOCAL, not by MQCLOSE)",
        )
    if options & CMQC.MQCO_DELETE_PURGE == 0 and found.get(CMQC.MQIA_CURRENT_Q_DEPTH, 0):
        raise failed(
            C.MQRC_Q_NOT_EMPTY,
            f"{what}: the queue holds {found[CMQC.MQIA_CURRENT_Q_DEPTH]} messages "
            "(MQCO_DELETE_PURGE deletes them with it)",
        )
