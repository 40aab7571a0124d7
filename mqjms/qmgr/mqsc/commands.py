"""The commands on queues, process definitions and the queue manager: each handler reads
its keywords and calls the queue manager's administration (``QueueManager.define_queue``...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics.attributes import (
    PROCESS_ATTR_BY_NAME,
    QMGR_ATTR_BY_NAME,
    QUEUE_ATTR_BY_NAME,
    validate_name,
)

from ..naming import QUEUE_KEYWORDS, QUEUE_TYPE_NAMES
from .keywords import (
    attribute_params,
    display_selection,
    like_replace,
    none_found,
    object_name,
    once,
)
from .parser import Command, Param
from .registry import CommandOutput, register

if TYPE_CHECKING:
    from ..manager import QueueManager


# --- queues -----------------------------------------------------------------------------


def _queue_attrs(command: Command, params: list[Param]) -> dict[str, int | str | bool]:
    return attribute_params(
        command, QUEUE_ATTR_BY_NAME, params, lambda attr: command.objtype in attr.types
    )


def define_queue(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    like, replace, rest = like_replace(command)
    attrs = _queue_attrs(command, rest)
    qm.define_queue(command.objtype, name, attrs, like=like, replace=replace)
    return CommandOutput("AMQ8006I: mqjms queue created.")


def alter_queue(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    qm.alter_queue(name, _queue_attrs(command, command.params), qtype=command.objtype)
    return CommandOutput("AMQ8008I: mqjms queue changed.")


def delete_queue(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    purge = False
    seen: set[str] = set()
    for param in command.params:
        if param.keyword not in ("PURGE", "NOPURGE"):
            raise command.error(
                f"{param.keyword} is not a keyword of DELETE {command.objtype}", param
            )
        if command.objtype != "QLOCAL":
            raise command.error(f"{param.keyword} applies to DELETE QLOCAL only", param)
        if param.has_value:
            raise command.error(f"{param.keyword} is written without a value", param)
        once(command, seen, param, "PURGE")
        purge = param.keyword == "PURGE"
    qm.delete_queue(name, command.objtype, purge=purge)
    return CommandOutput("AMQ8007I: mqjms queue deleted.")


def clear_queue(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of CLEAR QLOCAL", param)
    cleared = qm.clear_queue(name)
    plural = "" if cleared == 1 else "s"
    return CommandOutput(
        f"AMQ8022I: mqjms queue cleared ({cleared} message{plural} removed).", count=cleared
    )


def display_queue(qm: QueueManager, command: Command) -> CommandOutput:
    pattern = object_name(command, generic=True)
    qtype = command.objtype
    seen: set[str] = set()

    def type_filter(param: Param) -> bool:
        nonlocal qtype
        if param.keyword != "TYPE":
            return False
        if command.objtype != "QUEUE":
            raise command.error("TYPE(...) filters DISPLAY QUEUE only", param)
        once(command, seen, param, "TYPE")
        value = param.value()
        if value != "ALL" and value not in QUEUE_TYPE_NAMES:
            raise command.error("TYPE must be ALL, QLOCAL, QALIAS, QMODEL or QREMOTE", param)
        qtype = "QUEUE" if value == "ALL" else QUEUE_TYPE_NAMES[value]
        return True

    selection = display_selection(command, QUEUE_ATTR_BY_NAME, "queue", type_filter)
    objects = qm.display_queues(pattern, qtype, None)
    if not objects:
        raise none_found("queue" if qtype == "QUEUE" else qtype, pattern)
    shown = selection.apply(objects, always=("QUEUE", "TYPE"))
    return CommandOutput("AMQ8409I: Display Queue details.", shown)


# --- process definitions (triggering, seed 003) ----------------------------------------


def define_process(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    like, replace, rest = like_replace(command)
    attrs = attribute_params(command, PROCESS_ATTR_BY_NAME, rest)
    qm.define_process(name, attrs, like=like, replace=replace)
    return CommandOutput("mqjms process created.")


def alter_process(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    qm.alter_process(name, attribute_params(command, PROCESS_ATTR_BY_NAME, command.params))
    return CommandOutput("mqjms process changed.")


def delete_process(qm: QueueManager, command: Command) -> CommandOutput:
    name = object_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of DELETE PROCESS", param)
    qm.delete_process(name)
    return CommandOutput("mqjms process deleted.")


def display_process(qm: QueueManager, command: Command) -> CommandOutput:
    pattern = object_name(command, generic=True)
    selection = display_selection(command, PROCESS_ATTR_BY_NAME, "process")
    objects = qm.display_processes(pattern, None)
    if not objects:
        raise none_found("process", pattern)
    shown = selection.apply(objects, always=("PROCESS",))
    return CommandOutput("AMQ8407I: Display Process details.", shown)


# --- the queue manager ------------------------------------------------------------------


def alter_qmgr(qm: QueueManager, command: Command) -> CommandOutput:
    attrs = attribute_params(command, QMGR_ATTR_BY_NAME, command.params)
    qm.alter_qmgr(attrs)
    return CommandOutput("AMQ8005I: mqjms queue manager changed.")


def display_qmgr(qm: QueueManager, command: Command) -> CommandOutput:
    wanted: list[str] = []
    show_all = not command.params
    for param in command.params:
        if param.has_value:
            raise command.error(f"{param.keyword} is written without a value in DISPLAY", param)
        if param.keyword == "ALL":
            show_all = True
        elif param.keyword in QMGR_ATTR_BY_NAME:
            wanted.append(param.keyword)
        elif param.keyword != "QMNAME":
            raise command.error(
                f"{param.keyword} is not a queue manager attribute mqjms knows", param
            )
    return CommandOutput(
        "AMQ8408I: Display Queue Manager details.", [qm.display_qmgr(None if show_all else wanted)]
    )


def refresh_qmgr(qm: QueueManager, command: Command) -> CommandOutput:
    kind: str | None = None
    pattern = "*"
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "TYPE":
            once(command, seen, param, "TYPE")
            kind = param.value()
            if kind != "EXPIRY":
                raise command.error("mqjms refreshes TYPE(EXPIRY) only", param)
        elif param.keyword == "NAME":
            once(command, seen, param, "NAME")
            pattern = param.value() or "*"
        else:
            raise command.error(f"{param.keyword} is not a keyword of REFRESH QMGR", param)
    if kind is None:
        raise command.error("REFRESH QMGR needs TYPE(EXPIRY)")
    if pattern != "*":
        base = pattern[:-1] if pattern.endswith("*") else pattern
        try:
            validate_name(base, "queue")
        except MQError as exc:
            raise failed(C.MQRCCF_OBJECT_NAME_ERROR, exc.detail) from None
    discarded = qm.refresh_expiry(pattern)
    plural = "" if discarded == 1 else "s"
    return CommandOutput(
        f"mqjms queue manager refreshed: {discarded} expired message{plural} "
        f"discarded from {pattern}.",
        count=discarded,
    )


for _qtype, _aliases in QUEUE_KEYWORDS.items():
    register("DEFINE", _qtype, *_aliases)(define_queue)
    register("ALTER", _qtype, *_aliases)(alter_queue)
    register("DELETE", _qtype, *_aliases)(delete_queue)
    register("DISPLAY", _qtype, *_aliases)(display_queue)
register("CLEAR", "QLOCAL", "QL")(clear_queue)
register("DISPLAY", "QUEUE", "Q")(display_queue)
register("ALTER", "QMGR", unnamed=True)(alter_qmgr)
register("DISPLAY", "QMGR", unnamed=True)(display_qmgr)
register("REFRESH", "QMGR", unnamed=True)(refresh_qmgr)
register("DEFINE", "PROCESS", "PRO")(define_process)
register("ALTER", "PROCESS", "PRO")(alter_process)
register("DELETE", "PROCESS", "PRO")(delete_process)
register("DISPLAY", "PROCESS", "PRO")(display_process)
