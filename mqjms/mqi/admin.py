"""PCF commands answered by the embedded queue manager's administration.

pymqi's and ibmmq's ``PCFExecute`` send PCF messages to SYSTEM.ADMIN.COMMAND.QUEUE; the
drop-in answers the commands programs use directly from the queue manager's
administration API instead (the same one MQSC uses), with results as the libraries return
them: a list of dicts keyed by MQCA_*/MQIA_*/MQCACF_* selectors. Supported: PING_Q_MGR,
INQUIRE_Q, INQUIRE_Q_NAMES, INQUIRE_Q_STATUS, CREATE_Q (and COPY_Q), CHANGE_Q, DELETE_Q,
CLEAR_Q, INQUIRE_Q_MGR, CHANGE_Q_MGR, INQUIRE_CONNECTION (the connections' ids, process ids
and application names), CREATE/DELETE/INQUIRE_SUBSCRIPTION (:mod:`.admin_subscriptions`),
INQUIRE_Q_MGR_STATUS and RESET_Q_STATS (:mod:`.admin_status`), INQUIRE_PROCESS
(:mod:`.admin_processes`), CREATE/COPY/CHANGE/DELETE/INQUIRE_TOPIC, INQUIRE_TOPIC_NAMES,
INQUIRE_TOPIC_STATUS and CLEAR_TOPIC_STRING (:mod:`.admin_topics`); INQUIRE_CHANNEL(_NAMES)
answers that there are no channels (2085: the embedded queue manager has none), and
INQUIRE_CHANNEL_STATUS that none is running (3065, MQRCCF_CHL_STATUS_NOT_FOUND, which
monitoring programs take as "no active channels"); listeners and services likewise
(:mod:`.admin_listeners`). Over ``mq://`` every command goes to
IBM MQ's command server (:mod:`.admin_remote`); over another transport, only PING_Q_MGR
and INQUIRE_Q_MGR.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Connection, ConnectionWrapper
from mqjms.semantics.attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    QMGR_ATTR_BY_SELECTOR,
    QTYPE_CODES,
    QUEUE_ATTR_BY_NAME,
    QUEUE_ATTR_BY_SELECTOR,
    REMOTE,
    inquire_value,
)
from mqjms.semantics.inquire import QMGR_FACTS, QMGR_NAMED, queue_facts
from mqjms.semantics.put import PutIdentity

from . import (
    admin_listeners,
    admin_processes,
    admin_remote,
    admin_status,
    admin_subscriptions,
    admin_topics,
)
from .admin_params import Params, Response, mqsc_attrs, text

_TYPES = {
    CMQC.MQQT_LOCAL: LOCAL,
    CMQC.MQQT_ALIAS: ALIAS,
    CMQC.MQQT_MODEL: MODEL,
    CMQC.MQQT_REMOTE: REMOTE,
}
_STATUS = (
    CMQC.MQIA_CURRENT_Q_DEPTH,
    CMQC.MQIA_OPEN_INPUT_COUNT,
    CMQC.MQIA_OPEN_OUTPUT_COUNT,
)


def queue_manager(conn: Connection) -> QueueManager | None:
    """The embedded queue manager behind a transport connection, if that is what it is."""
    inner: object = conn
    while isinstance(inner, ConnectionWrapper):
        inner = inner.inner
    return inner.qm if isinstance(inner, QMConnection) else None


def _required(conn: Connection, command: str) -> QueueManager:
    found = queue_manager(conn)
    if found is None:
        raise failed(
            C.MQRC_FUNCTION_NOT_SUPPORTED,
            f"PCF {command} needs the embedded queue manager (this connection is "
            f"{type(conn).__name__})",
        )
    return found


def delete_dynamic(conn: Connection, name: str, purge: bool) -> None:
    """MQCO_DELETE(_PURGE) of a permanent dynamic queue (others are left alone)."""
    qm = queue_manager(conn)
    if qm is None or name not in qm.queue_names(name):
        return
    qm.delete_queue(name, purge=purge)


def execute(
    conn: Connection, command: str, params: Params, route: admin_remote.Route | None = None
) -> list[Response]:
    """Run PCF ``command`` (``MQCMD_INQUIRE_Q``...) with ``params``; its responses. A queue
    manager with a command server of its own (IBM MQ over ``mq://``) runs it there, sent
    as ``route`` says (:mod:`.admin_remote`)."""
    if queue_manager(conn) is None and admin_remote.has_command_server(conn):
        return admin_remote.execute(conn, command, params, route or admin_remote.Route())
    on_queue_manager = _ON_QUEUE_MANAGER.get(command)
    if on_queue_manager is not None:
        return on_queue_manager(_required(conn, command), params)
    handler = _COMMANDS.get(command)
    if handler is None:
        known = sorted([*_COMMANDS, *_ON_QUEUE_MANAGER])
        raise failed(
            C.MQRC_FUNCTION_NOT_SUPPORTED,
            f"PCF {command} is not supported by mqjms (supported: {', '.join(known)})",
        )
    return handler(conn, command, params)


# --------------------------------------------------------------------------- helpers


def _pattern(params: Params, selector: int = CMQC.MQCA_Q_NAME) -> str:
    return text(params.get(selector, "*")) or "*"


def _matching(qm: QueueManager, pattern: str, qtype: int) -> list[dict[str, int | str | bool]]:
    kind = "QUEUE" if qtype in (0, CMQC.MQQT_ALL) else _TYPES.get(qtype, "QUEUE")
    found = qm.display_queues(pattern, kind)
    if not found and not any(ch in pattern for ch in "*?"):
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {pattern!r} is not defined")
    if not found:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no queue matches {pattern!r}")
    return found


def _wanted(params: Params, selector: int) -> set[int] | None:
    """The attribute selectors a list parameter (MQIACF_Q_ATTRS...) asks for; None: all."""
    values = params.get(selector)
    if values is None:
        return None
    listed = [values] if isinstance(values, int) else list(values)
    return None if CMQCFC.MQIACF_ALL in listed else set(listed)


#: What INQUIRE_Q answers beyond the attributes mqjms keeps, as MQINQ and IBM MQ's
#: defaults have them, by selector: the queue types, the value. Properties travel as
#: PROPCTL(COMPAT) has them; MONQ, STATQ and ACCTQ are QMGR (mqjms collects none).
_PCF_FACTS: Mapping[int, tuple[tuple[str, ...], int | str]] = {
    CMQC.MQIA_PROPERTY_CONTROL: ((LOCAL, ALIAS, MODEL), CMQC.MQPROP_COMPATIBILITY),
    CMQC.MQIA_MONITORING_Q: ((LOCAL, MODEL), CMQC.MQMON_Q_MGR),
    CMQC.MQIA_STATISTICS_Q: ((LOCAL, MODEL), CMQC.MQMON_Q_MGR),
    CMQC.MQIA_ACCOUNTING_Q: ((LOCAL, MODEL), CMQC.MQMON_Q_MGR),
    CMQC.MQCA_CUSTOM: ((LOCAL, ALIAS, MODEL, REMOTE), ""),
}
_DEFINITION_TYPES = {
    None: CMQC.MQQDT_PREDEFINED,
    "TEMPDYN": CMQC.MQQDT_TEMPORARY_DYNAMIC,
    "PERMDYN": CMQC.MQQDT_PERMANENT_DYNAMIC,
}


def _queue_response(
    queue: Mapping[str, int | str | bool],
    wanted: set[int] | None,
    dynamic: Mapping[str, str] | None = None,
) -> Response:
    """One queue's INQUIRE_Q response; ``dynamic``: the dynamic queues' DEFTYPEs."""
    qtype = str(queue["TYPE"])
    name = str(queue["QUEUE"])
    out: Response = {CMQC.MQCA_Q_NAME: name, CMQC.MQIA_Q_TYPE: QTYPE_CODES[qtype]}
    if qtype in (LOCAL, MODEL) and (wanted is None or CMQC.MQIA_DEFINITION_TYPE in wanted):
        deftype = (dynamic or {}).get(name) if qtype == LOCAL else queue.get("DEFTYPE")
        out[CMQC.MQIA_DEFINITION_TYPE] = _DEFINITION_TYPES.get(
            str(deftype) if deftype else None, CMQC.MQQDT_PREDEFINED
        )
    for name, value in queue.items():
        attr = QUEUE_ATTR_BY_NAME.get(name)
        if attr is None or attr.selector is None or name == "DEFTYPE":  # answered above
            continue
        if wanted is not None and attr.selector not in wanted:
            continue
        out[attr.selector] = inquire_value(attr, value)
    for selector, fact in queue_facts(qtype).items():  # clusters, scope...: MQ's defaults
        if wanted is None or selector in wanted:
            out[selector] = fact
    for selector, (types, value) in _PCF_FACTS.items():
        if qtype in types and (wanted is None or selector in wanted):
            out[selector] = value
    return out


# --------------------------------------------------------------------------- commands


def _ping(conn: Connection, command: str, params: Params) -> list[Response]:
    conn.inquire_qmgr([C.MQCA_Q_MGR_NAME])
    return []


def _inquire_q(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    wanted = _wanted(params, CMQCFC.MQIACF_Q_ATTRS)
    queues = _matching(qm, _pattern(params), int(params.get(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL)))
    dynamic = qm.dynamic_queues()
    return [_queue_response(queue, wanted, dynamic) for queue in queues]


def _inquire_q_names(conn: Connection, command: str, params: Params) -> list[Response]:
    """The names of the queues that match, in one response: "zero or more names" (IBM's
    Inquire Queue Names response), so none is an empty list, not 2085."""
    qm = _required(conn, command)
    qtype = int(params.get(CMQC.MQIA_Q_TYPE, CMQC.MQQT_ALL))
    kind = "QUEUE" if qtype in (0, CMQC.MQQT_ALL) else _TYPES.get(qtype, "QUEUE")
    queues = qm.display_queues(_pattern(params), kind)
    return [
        {
            CMQCFC.MQCACF_Q_NAMES: [str(q["QUEUE"]) for q in queues],
            CMQCFC.MQIACF_Q_TYPES: [QTYPE_CODES[str(q["TYPE"])] for q in queues],
        }
    ]


def _inquire_q_status(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    wanted = _wanted(params, CMQCFC.MQIACF_Q_STATUS_ATTRS)
    by_handle = params.get(CMQCFC.MQIACF_Q_STATUS_TYPE) == CMQCFC.MQIACF_Q_HANDLE
    out: list[Response] = []
    for queue in _matching(qm, _pattern(params), CMQC.MQQT_LOCAL):
        if by_handle:
            out += [
                _handle_status(str(queue["QUEUE"]), h, wanted)
                for h in qm.queue_handles(str(queue["QUEUE"]))
            ]
            continue
        status: Response = {
            CMQC.MQCA_Q_NAME: str(queue["QUEUE"]),
            CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_STATUS,
            CMQC.MQIA_CURRENT_Q_DEPTH: int(queue["CURDEPTH"]),
            CMQC.MQIA_OPEN_INPUT_COUNT: int(queue["IPPROCS"]),
            CMQC.MQIA_OPEN_OUTPUT_COUNT: int(queue["OPPROCS"]),
            CMQCFC.MQCACF_LAST_GET_DATE: "",
            CMQCFC.MQCACF_LAST_GET_TIME: "",
            CMQCFC.MQCACF_LAST_PUT_DATE: "",
            CMQCFC.MQCACF_LAST_PUT_TIME: "",
            CMQCFC.MQIACF_OLDEST_MSG_AGE: -1,
            CMQCFC.MQIACF_UNCOMMITTED_MSGS: qm.uncommitted_messages(str(queue["QUEUE"])),
            # what the command server answers with queue monitoring off (MONQ(OFF), the
            # default): no on-queue times, and no media recovery log extent
            CMQCFC.MQIACF_Q_TIME_INDICATOR: [CMQC.MQMON_NOT_AVAILABLE] * 2,
            CMQC.MQIA_MONITORING_Q: CMQC.MQMON_OFF,
            CMQCFC.MQCACF_MEDIA_LOG_EXTENT_NAME: "",
        }
        if wanted is not None:
            keep = wanted | {CMQC.MQCA_Q_NAME, CMQCFC.MQIACF_Q_STATUS_TYPE}
            status = {k: v for k, v in status.items() if k in keep}
        out.append(status)
    return out


def _handle_status(
    queue: str, handle: Mapping[str, int | str], wanted: set[int] | None
) -> Response:
    """One handle's record of INQUIRE_Q_STATUS with MQIACF_Q_STATUS_TYPE MQIACF_Q_HANDLE."""
    options = int(handle["OPENOPTS"])

    def yes(option: int) -> int:
        return int(CMQCFC.MQQSO_YES if options & option else CMQCFC.MQQSO_NO)

    status: Response = {
        CMQC.MQCA_Q_NAME: queue,
        CMQCFC.MQIACF_Q_STATUS_TYPE: CMQCFC.MQIACF_Q_HANDLE,
        CMQCFC.MQIACF_PROCESS_ID: int(handle["PID"]),
        CMQCFC.MQCACF_APPL_TAG: str(handle["APPLTAG"]),
        CMQC.MQIA_APPL_TYPE: CMQC.MQAT_UNIX,
        CMQCFC.MQIACF_OPEN_OPTIONS: options,
        CMQCFC.MQIACF_OPEN_INPUT_TYPE: (
            CMQCFC.MQQSO_EXCLUSIVE
            if options & CMQC.MQOO_INPUT_EXCLUSIVE
            else CMQCFC.MQQSO_SHARED
            if options & C.MQOO_INPUT_MASK
            else CMQCFC.MQQSO_NO
        ),
        CMQCFC.MQIACF_OPEN_OUTPUT: yes(CMQC.MQOO_OUTPUT),
        CMQCFC.MQIACF_OPEN_BROWSE: yes(CMQC.MQOO_BROWSE),
        CMQCFC.MQIACF_OPEN_INQUIRE: yes(CMQC.MQOO_INQUIRE),
        CMQCFC.MQIACF_OPEN_SET: yes(CMQC.MQOO_SET),
        # a local (bindings) connection: no channel; no MQI call under way
        CMQCFC.MQCACH_CHANNEL_NAME: "",
        CMQCFC.MQCACH_CONNECTION_NAME: "",
        CMQCFC.MQIACF_HANDLE_STATE: CMQCFC.MQHSTATE_INACTIVE,
    }
    if wanted is not None:
        keep = wanted | {CMQC.MQCA_Q_NAME, CMQCFC.MQIACF_Q_STATUS_TYPE}
        status = {k: v for k, v in status.items() if k in keep}
    return status


_QUEUE_PARAMS = {
    CMQC.MQCA_Q_NAME,
    CMQC.MQIA_Q_TYPE,
    CMQCFC.MQIACF_REPLACE,
    CMQCFC.MQCACF_FROM_Q_NAME,
    CMQCFC.MQCACF_TO_Q_NAME,
    CMQCFC.MQIACF_PURGE,
    CMQC.MQIA_QSG_DISP,
}


def _create_q(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    copying = command == "MQCMD_COPY_Q"
    name = text(params.get(CMQCFC.MQCACF_TO_Q_NAME if copying else CMQC.MQCA_Q_NAME, ""))
    like = text(params[CMQCFC.MQCACF_FROM_Q_NAME]) if copying else None
    qtype = _TYPES.get(int(params.get(CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL)))
    if qtype is None:
        raise failed(C.MQRCCF_OBJECT_WRONG_TYPE, "only local, alias, model and remote queues")
    replace = int(params.get(CMQCFC.MQIACF_REPLACE, CMQCFC.MQRP_NO)) == CMQCFC.MQRP_YES
    attrs = mqsc_attrs(params, QUEUE_ATTR_BY_SELECTOR, _QUEUE_PARAMS)
    qm.define_queue(qtype, name, attrs, like=like, replace=replace)
    return []


def _change_q(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    name = text(params.get(CMQC.MQCA_Q_NAME, ""))
    qtype = _TYPES.get(int(params[CMQC.MQIA_Q_TYPE])) if CMQC.MQIA_Q_TYPE in params else None
    qm.alter_queue(name, mqsc_attrs(params, QUEUE_ATTR_BY_SELECTOR, _QUEUE_PARAMS), qtype)
    return []


def _delete_q(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    purge = int(params.get(CMQCFC.MQIACF_PURGE, CMQCFC.MQPO_NO)) == CMQCFC.MQPO_YES
    qtype = _TYPES.get(int(params[CMQC.MQIA_Q_TYPE])) if CMQC.MQIA_Q_TYPE in params else None
    qm.delete_queue(text(params.get(CMQC.MQCA_Q_NAME, "")), qtype, purge=purge)
    return []


def _clear_q(conn: Connection, command: str, params: Params) -> list[Response]:
    _required(conn, command).clear_queue(text(params.get(CMQC.MQCA_Q_NAME, "")))
    return []


def _inquire_q_mgr(conn: Connection, command: str, params: Params) -> list[Response]:
    wanted = _wanted(params, CMQCFC.MQIACF_Q_MGR_ATTRS)
    selectors = [
        C.MQCA_Q_MGR_NAME,
        C.MQCA_Q_MGR_IDENTIFIER,
        *QMGR_ATTR_BY_SELECTOR,
        *QMGR_FACTS,
        *QMGR_NAMED,
    ]
    if wanted is not None:
        selectors = [s for s in selectors if s in wanted or s == C.MQCA_Q_MGR_NAME]
    return [dict(conn.inquire_qmgr(selectors))]


def _change_q_mgr(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    qm.alter_qmgr(mqsc_attrs(params, QMGR_ATTR_BY_SELECTOR, {CMQCFC.MQIACF_FORCE}))
    return []


def _inquire_connection(conn: Connection, command: str, params: Params) -> list[Response]:
    qm = _required(conn, command)
    user = PutIdentity.of().user
    out: list[Response] = []
    for found in qm.connections():
        ident = str(found["CONN"]).encode("ascii", "replace")
        out.append(
            {
                CMQCFC.MQBACF_CONNECTION_ID: ident[:24].ljust(24, b"\x00"),
                CMQCFC.MQIACF_CONN_INFO_TYPE: CMQCFC.MQIACF_CONN_INFO_CONN,
                CMQCFC.MQCACF_APPL_TAG: str(found["APPLTAG"]),
                CMQC.MQIA_APPL_TYPE: C.MQAT_DEFAULT,  # a program on this (UNIX) system
                CMQCFC.MQIACF_PROCESS_ID: int(found["PID"]),
                CMQCFC.MQBACF_CONN_TAG: ident.ljust(128, b"\x00"),
                # a local (bindings) connection: no channel; the user programs run as
                CMQCFC.MQCACH_CHANNEL_NAME: "",
                CMQCFC.MQCACH_CONNECTION_NAME: "",
                CMQCFC.MQCACF_USER_IDENTIFIER: user,
            }
        )
    return out


def _no_channels(conn: Connection, command: str, params: Params) -> list[Response]:
    pattern = text(params.get(CMQCFC.MQCACH_CHANNEL_NAME, "*")) or "*"
    raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no channel matches {pattern!r}: mqjms has none")


def _no_channel_names(conn: Connection, command: str, params: Params) -> list[Response]:
    """Inquire Channel Names answers "zero or more names": here, none."""
    return [{CMQCFC.MQCACH_CHANNEL_NAMES: []}]


def _no_channel_status(conn: Connection, command: str, params: Params) -> list[Response]:
    """No channel instance runs (there are no channels): MQ's answer for that, 3065."""
    pattern = text(params.get(CMQCFC.MQCACH_CHANNEL_NAME, "*")) or "*"
    raise failed(
        CMQCFC.MQRCCF_CHL_STATUS_NOT_FOUND,
        f"no channel status for {pattern!r}: the embedded queue manager has no channels",
    )


_COMMANDS: dict[str, Callable[[Connection, str, Params], list[Response]]] = {
    "MQCMD_PING_Q_MGR": _ping,
    "MQCMD_INQUIRE_Q": _inquire_q,
    "MQCMD_INQUIRE_Q_NAMES": _inquire_q_names,
    "MQCMD_INQUIRE_Q_STATUS": _inquire_q_status,
    "MQCMD_CREATE_Q": _create_q,
    "MQCMD_COPY_Q": _create_q,
    "MQCMD_CHANGE_Q": _change_q,
    "MQCMD_DELETE_Q": _delete_q,
    "MQCMD_CLEAR_Q": _clear_q,
    "MQCMD_INQUIRE_Q_MGR": _inquire_q_mgr,
    "MQCMD_CHANGE_Q_MGR": _change_q_mgr,
    "MQCMD_INQUIRE_CONNECTION": _inquire_connection,
    "MQCMD_INQUIRE_CHANNEL": _no_channels,
    "MQCMD_INQUIRE_CHANNEL_NAMES": _no_channel_names,
    "MQCMD_INQUIRE_CHANNEL_STATUS": _no_channel_status,
    **admin_listeners.COMMANDS,
}
#: Commands that work on the embedded queue manager itself (2298 over other transports).
_ON_QUEUE_MANAGER: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    **admin_subscriptions.COMMANDS,
    **admin_topics.COMMANDS,
    **admin_status.COMMANDS,
    **admin_processes.COMMANDS,
}


__all__ = ["Response", "delete_dynamic", "execute", "queue_manager"]
