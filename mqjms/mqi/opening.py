"""MQOPEN and MQCLOSE as pymqi and ibmmq programs use them.

The MQOD names a queue (MQOT_Q), the queue manager itself (MQOT_Q_MGR, for MQINQ) or a
topic (MQOT_TOPIC: ObjectName a TOPIC object, ObjectString a topic string, opened with
MQOO_OUTPUT to publish; :mod:`.subscribing` has MQSUB). The open options go to the
transport as they are: exact, so a queue opened for input cannot be put to (2039) and
one opened without MQOO_INQUIRE cannot be inquired (2038). Opening a model queue creates
a dynamic queue named from DynamicQName, and its name is written into the program's
``od.ObjectName`` (48 bytes, blank-padded: programs ``.strip()`` it); ResolvedQName and
ResolvedQMgrName are written as MQ writes them for a version 3 MQOD and up. ObjectQMgrName
is not checked: the connection's transport decides where every queue is.
"""

from __future__ import annotations

from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mq.od import MQOD
from mqjms.mqi.constants import CMQC
from mqjms.semantics import DEFAULT_DYNAMIC_NAME

from . import admin, fields, subscribing
from .hconn import Hconn

_OD_SPECS = {spec.name: spec for spec in MQOD.SPECS}


def open_object(hconn: Hconn, od: Any, options: int) -> int:
    """MQOPEN: the object handle's number; ``od``'s output fields updated in place."""
    with hconn.call() as conn:
        object_type = fields.option(od, "ObjectType", CMQC.MQOT_Q)
        name = fields.text(getattr(od, "ObjectName", b""))
        if object_type == CMQC.MQOT_Q_MGR:
            if options & ~(CMQC.MQOO_INQUIRE | CMQC.MQOO_FAIL_IF_QUIESCING | _CONTEXT_OPTIONS):
                raise failed(
                    C.MQRC_OPTION_NOT_VALID_FOR_TYPE,
                    f"open options {options:#x}: the queue manager object opens for MQOO_INQUIRE",
                )
            _write(od, {"ObjectName": conn.qmgr_name, "ResolvedQMgrName": conn.qmgr_name})
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
        dynamic = fields.text(getattr(od, "DynamicQName", b"")) or DEFAULT_DYNAMIC_NAME
        handle = conn.open(name, options, dynamic_name=dynamic)
        written: dict[str, object] = {}
        if handle.name != name:  # a model queue: the dynamic queue created
            written["ObjectName"] = handle.name
        if fields.option(od, "Version", 1) >= 3:
            written["ResolvedQName"] = handle.resolved_name
            written["ResolvedQMgrName"] = conn.qmgr_name
        if fields.option(od, "Version", 1) >= 4:
            written["ResolvedType"] = CMQC.MQOT_Q
        _write(od, written)
        return hconn.add_object(handle.name, options, handle).number


_CONTEXT_OPTIONS = CMQC.MQOO_ALTERNATE_USER_AUTHORITY


def _write(od: Any, values: dict[str, object]) -> None:
    for key, value in values.items():
        if hasattr(od, key):
            fields.assign(od, _OD_SPECS[key], value)


def close_object(hconn: Hconn, number: int, options: int = CMQC.MQCO_NONE) -> None:
    """MQCLOSE. A temporary dynamic queue is deleted; MQCO_DELETE(_PURGE) deletes a
    permanent one too (2055 if it still holds messages without PURGE)."""
    with hconn.call() as conn:
        obj = hconn.object(number)
        if obj.handle is not None:
            conn.close(obj.handle)
            if options & (CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE):
                admin.delete_dynamic(conn, obj.handle.name, bool(options & CMQC.MQCO_DELETE_PURGE))
        del hconn.objects[number]
