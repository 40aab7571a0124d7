"""The status commands of distributed runmqsc: DISPLAY QSTATUS (a local queue's depth, open
counts and uncommitted messages; TYPE(HANDLE): who has it open, how) and DISPLAY QMSTATUS.

Their figures are the ones PCF's INQUIRE_Q_STATUS and INQUIRE_Q_MGR_STATUS answer. With
queue monitoring off (MONQ(OFF), IBM's default and the only mode here) the last get and
put times, the message age and the on-queue times are blank, as IBM MQ shows them. RESET
QSTATS is an MQSC command on z/OS only; elsewhere it is PCF's MQCMD_RESET_Q_STATS.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from mqjms.mq import constants as C
from mqjms.semantics.attributes import LOCAL

from .keywords import none_found, object_name, once
from .parser import Command, Param
from .registry import CommandOutput, ObjectAttrs, Value, register

if TYPE_CHECKING:
    from ..manager import QueueManager

# DISPLAY QSTATUS TYPE(QUEUE)'s attributes on Multiplatforms, in runmqsc's order
QUEUE_STATUS = (
    "CURDEPTH",
    "IPPROCS",
    "LGETDATE",
    "LGETTIME",
    "LPUTDATE",
    "LPUTTIME",
    "MEDIALOG",
    "MONQ",
    "MSGAGE",
    "OPPROCS",
    "QTIME",
    "UNCOM",
)
# TYPE(HANDLE)'s: those this queue manager knows a value of
HANDLE_STATUS = (
    "APPLTAG",
    "APPLTYPE",
    "BROWSE",
    "CONN",
    "INPUT",
    "INQUIRE",
    "OUTPUT",
    "PID",
    "SET",
)
_STATUS_TYPES = ("QUEUE", "HANDLE")


def display_qstatus(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY QSTATUS(generic) [TYPE(QUEUE|HANDLE)] [ALL | attributes]. Without
    attributes, TYPE(QUEUE) shows QUEUE, TYPE and CURDEPTH, and TYPE(HANDLE) everything."""
    pattern = object_name(command, generic=True)
    status_type = "QUEUE"
    asked: list[Param] = []
    show_all = False
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "TYPE":
            once(command, seen, param, "TYPE")
            status_type = str(param.value())
            if status_type not in _STATUS_TYPES:
                raise command.error("TYPE must be QUEUE or HANDLE", param)
            continue
        if param.keyword in (*QUEUE_STATUS, *HANDLE_STATUS, "ALL"):
            if param.has_value:
                raise command.error(f"{param.keyword} is written without a value in DISPLAY", param)
            if param.keyword == "ALL":
                show_all = True
            else:
                asked.append(param)
        else:
            raise command.error(
                f"{param.keyword} is not a keyword of DISPLAY QSTATUS mqjms knows (TYPE, ALL, "
                f"{', '.join(QUEUE_STATUS)}; with TYPE(HANDLE): {', '.join(HANDLE_STATUS)})",
                param,
            )
    table = QUEUE_STATUS if status_type == "QUEUE" else HANDLE_STATUS
    for param in asked:
        if param.keyword not in table:
            raise command.error(f"{param.keyword} is not a TYPE({status_type}) attribute", param)
    wanted = [param.keyword for param in asked]
    if show_all or (status_type == "HANDLE" and not wanted):
        wanted = list(table)
    elif not wanted:
        wanted = ["CURDEPTH"]
    queues = qm.display_queues(pattern, LOCAL, ["CURDEPTH", "IPPROCS", "OPPROCS"])
    if not queues:
        raise none_found("local queue", pattern)
    objects: list[ObjectAttrs] = []
    for queue in queues:
        name = str(queue["QUEUE"])
        if status_type == "QUEUE":
            objects.append(_pick(name, "QUEUE", _queue_status(qm, name, queue), wanted))
        else:
            objects += [
                _pick(name, "HANDLE", _handle_status(handle), wanted)
                for handle in qm.queue_handles(name)
            ]
    return CommandOutput("AMQ8450I: Display queue status details.", objects)


def _queue_status(qm: QueueManager, name: str, queue: ObjectAttrs) -> ObjectAttrs:
    uncommitted = qm.uncommitted_messages(name)
    return {
        "CURDEPTH": queue["CURDEPTH"],
        "IPPROCS": queue["IPPROCS"],
        "LGETDATE": "",
        "LGETTIME": "",
        "LPUTDATE": "",
        "LPUTTIME": "",
        "MEDIALOG": "",
        "MONQ": "OFF",
        "MSGAGE": "",
        "OPPROCS": queue["OPPROCS"],
        "QTIME": " , ",
        "UNCOM": uncommitted if uncommitted else "NO",  # Multiplatforms: how many, or NO
    }


def _handle_status(handle: dict[str, int | str]) -> ObjectAttrs:
    options = int(handle["OPENOPTS"])

    def yes(option: int) -> str:
        return "YES" if options & option else "NO"

    return {
        "APPLTAG": handle["APPLTAG"],
        "APPLTYPE": "USER",
        "BROWSE": yes(C.MQOO_BROWSE),
        "CONN": handle["CONN"],
        "INPUT": (
            "EXCL"
            if options & C.MQOO_INPUT_EXCLUSIVE
            else "SHARED"
            if options & C.MQOO_INPUT_MASK
            else "NO"
        ),
        "INQUIRE": yes(C.MQOO_INQUIRE),
        "OUTPUT": yes(C.MQOO_OUTPUT),
        "PID": handle["PID"],
        "SET": yes(C.MQOO_SET),
    }


def _pick(name: str, status_type: str, status: ObjectAttrs, wanted: list[str]) -> ObjectAttrs:
    out: dict[str, Value] = {"QUEUE": name, "TYPE": status_type}
    out.update((key, status[key]) for key in wanted if key in status)
    return out


QMGR_STATUS = ("STATUS", "STARTDA", "STARTTI", "CONNS", "CHINIT", "CMDSERV")


def display_qmstatus(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY QMSTATUS [ALL | attributes]: QMNAME and STATUS, and what is asked for."""
    wanted: list[str] = []
    for param in command.params:
        known = param.keyword in QMGR_STATUS or param.keyword in ("ALL", "QMNAME")
        if known and param.has_value:
            raise command.error(f"{param.keyword} is written without a value in DISPLAY", param)
        if param.keyword == "ALL":
            wanted = list(QMGR_STATUS)
        elif param.keyword in QMGR_STATUS:
            wanted.append(param.keyword)
        elif param.keyword != "QMNAME":
            raise command.error(
                f"{param.keyword} is not a keyword of DISPLAY QMSTATUS mqjms knows "
                f"(ALL, {', '.join(QMGR_STATUS)})",
                param,
            )
    started = qm.started_at()
    at = time.localtime(started) if started is not None else None  # the local clock, as MQ
    status: dict[str, Value] = {
        "STATUS": "RUNNING",
        "STARTDA": time.strftime("%Y-%m-%d", at) if at else "",
        "STARTTI": time.strftime("%H.%M.%S", at) if at else "",
        "CONNS": qm.connection_count(),
        "CHINIT": "STOPPED",  # no channels
        "CMDSERV": "RUNNING",  # PCF requests are served in the putting process
    }
    shown: dict[str, Value] = {"QMNAME": qm.name, "STATUS": "RUNNING"}
    shown.update((key, status[key]) for key in wanted)
    return CommandOutput("AMQ8705I: Display Queue Manager Status Details.", [shown])


register("DISPLAY", "QSTATUS", "QS")(display_qstatus)
register("DISPLAY", "QMSTATUS", unnamed=True)(display_qmstatus)
