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
from mqjms.semantics.attributes import INT, KEYWORD, LOCAL, TEXT, Attr

from .keywords import Selection, none_found, object_name, once, where_filter
from .parser import Command
from .registry import CommandOutput, ObjectAttrs, Value, register

if TYPE_CHECKING:
    from ..manager import QueueManager


def _status_attrs(*names: tuple[str, str]) -> dict[str, Attr]:
    """Status fields as attributes, for WHERE: read only, of local queues."""
    return {
        name: Attr(name, kind, (LOCAL,), 0 if kind == INT else "", readonly=True)
        for name, kind in names
    }


# DISPLAY QSTATUS TYPE(QUEUE)'s fields on Multiplatforms, in runmqsc's order (UNCOM is NO or
# a count: text, compared as text)
QUEUE_STATUS = _status_attrs(
    ("CURDEPTH", INT),
    ("IPPROCS", INT),
    ("LGETDATE", TEXT),
    ("LGETTIME", TEXT),
    ("LPUTDATE", TEXT),
    ("LPUTTIME", TEXT),
    ("MEDIALOG", TEXT),
    ("MONQ", KEYWORD),
    ("MSGAGE", TEXT),
    ("OPPROCS", INT),
    ("QTIME", TEXT),
    ("UNCOM", KEYWORD),
)
# TYPE(HANDLE)'s: those this queue manager knows (CHANNEL and CONNAME are blank: every
# connection is local)
HANDLE_STATUS = _status_attrs(
    ("APPLDESC", TEXT),
    ("APPLTAG", TEXT),
    ("APPLTYPE", KEYWORD),
    ("BROWSE", KEYWORD),
    ("CHANNEL", TEXT),
    ("CONN", TEXT),
    ("CONNAME", TEXT),
    ("INPUT", KEYWORD),
    ("INQUIRE", KEYWORD),
    ("OUTPUT", KEYWORD),
    ("PID", INT),
    ("SET", KEYWORD),
)
# IBM's other TYPE(HANDLE) fields: accepted, not shown (this queue manager keeps no value)
_UNKNOWN_HANDLE_FIELDS = frozenset(
    {"ASTATE", "HSTATE", "QMURID", "TID", "URID", "URTYPE", "USERID"}
)
_STATUS_TYPES = ("QUEUE", "HANDLE")


def display_qstatus(qm: QueueManager, command: Command) -> CommandOutput:
    """DISPLAY QSTATUS(generic) [TYPE(QUEUE|HANDLE)] [ALL | fields] [WHERE(...)]. Without
    fields, TYPE(QUEUE) shows QUEUE, TYPE and CURDEPTH (always shown), TYPE(HANDLE) every
    field; a field of the other TYPE is ignored, as runmqsc ignores it."""
    pattern = object_name(command, generic=True)
    status_type = _status_type(command)
    table, other = (
        (QUEUE_STATUS, HANDLE_STATUS) if status_type == "QUEUE" else (HANDLE_STATUS, QUEUE_STATUS)
    )
    selection = Selection()
    seen: set[str] = set()
    for param in command.params:
        keyword = param.keyword
        if keyword == "TYPE":
            continue
        if keyword == "WHERE":
            once(command, seen, param, "WHERE")
            selection.where = where_filter(command, param, table)
            continue
        if keyword not in (*table, *other, *_UNKNOWN_HANDLE_FIELDS, "ALL"):
            raise command.error(
                f"{keyword} is not a keyword of DISPLAY QSTATUS mqjms knows (TYPE, ALL, WHERE, "
                f"{', '.join(QUEUE_STATUS)}; with TYPE(HANDLE): {', '.join(HANDLE_STATUS)})",
                param,
            )
        if param.has_value:
            raise command.error(f"{keyword} is written without a value in DISPLAY", param)
        if keyword in table:
            selection.wanted.append(keyword)
        seen.add(keyword)
    selection.show_all = "ALL" in seen or (status_type == "HANDLE" and not selection.wanted)
    queues = qm.display_queues(pattern, LOCAL, ["CURDEPTH", "IPPROCS", "OPPROCS"])
    if not queues:
        if not pattern.endswith("*") and qm.display_queues(pattern, "QUEUE", ["QUEUE"]):
            return CommandOutput("AMQ8450I: Display queue status details.")  # not local
        raise none_found("local queue", pattern)
    objects: list[ObjectAttrs] = []
    for queue in queues:
        name = str(queue["QUEUE"])
        if status_type == "QUEUE":
            objects.append({"QUEUE": name, "TYPE": "QUEUE", **_queue_status(qm, name, queue)})
        else:
            objects += [
                {"QUEUE": name, "TYPE": "HANDLE", **_handle_status(handle)}
                for handle in qm.queue_handles(name)
            ]
    always = ("QUEUE", "TYPE", "CURDEPTH") if status_type == "QUEUE" else ("QUEUE", "TYPE")
    return CommandOutput(
        "AMQ8450I: Display queue status details.", selection.apply(objects, always)
    )


def _status_type(command: Command) -> str:
    seen: set[str] = set()
    status_type = "QUEUE"
    for param in command.params:
        if param.keyword == "TYPE":
            once(command, seen, param, "TYPE")
            status_type = str(param.value())
            if status_type not in _STATUS_TYPES:
                raise command.error("TYPE must be QUEUE or HANDLE", param)
    return status_type


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
        "UNCOM": str(uncommitted) if uncommitted else "NO",  # Multiplatforms: how many, or NO
    }


def _handle_status(handle: dict[str, int | str]) -> ObjectAttrs:
    options = int(handle["OPENOPTS"])

    def yes(option: int) -> str:
        return "YES" if options & option else "NO"

    return {
        "APPLDESC": "",
        "APPLTAG": handle["APPLTAG"],
        "APPLTYPE": "USER",
        "BROWSE": yes(C.MQOO_BROWSE),
        "CHANNEL": "",
        "CONN": handle["CONN"],
        "CONNAME": "",
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
