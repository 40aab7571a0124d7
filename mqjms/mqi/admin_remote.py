"""PCF commands sent to a queue manager's own command server (``mq://``, IBM MQ).

The embedded queue manager answers ``PCFExecute`` from its administration API
(:mod:`.admin`). A real queue manager has a command server: there, as pymqi's and ibmmq's
``PCFExecute`` do, the command goes to SYSTEM.ADMIN.COMMAND.QUEUE as an MQCFH and its
parameters, and the responses (one message per object, the last with MQCFC_LAST, each
with the request's MsgId as CorrelId) come back on a temporary dynamic queue made from
SYSTEM.DEFAULT.MODEL.QUEUE (the queues the ``PCFExecute`` names: :class:`Route`). The
request expires as the library's own request does (Report MQRO_PASS_DISCARD_AND_EXPIRY
and MQRO_DISCARD_MSG), so a command no server read in time is not run later.
So every command the queue manager knows works, channels and
authority records included, with its own answers; a failed one raises its CompCode and
Reason, as both libraries raise them. Responses come back in :mod:`.admin`'s shape
(strings without their padding), which ``PCFExecute`` shapes for the flavour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqjms.mq import MQMD
from mqjms.mq import constants as C
from mqjms.mq import pcf as mqpcf
from mqjms.mq.errors import MQError, failed
from mqjms.mqi.constants import CMQCFC
from mqjms.semantics import Capability, Connection

from .admin_params import Params, Response

COMMAND_QUEUE = "SYSTEM.ADMIN.COMMAND.QUEUE"
MODEL_QUEUE = "SYSTEM.DEFAULT.MODEL.QUEUE"
REPLY_QUEUE_NAME = "MQJMS.PCF.*"
#: the request's Report, as pymqi's and ibmmq's PCFExecute set it
REPORT = C.MQRO_PASS_DISCARD_AND_EXPIRY | C.MQRO_DISCARD_MSG
#: A z/OS queue manager's replies to MQCFT_COMMAND_XR that carry no result (the
#: command's own messages and its summary), which the libraries' PCFExecute drop too.
_XR_BOOKKEEPING = (CMQCFC.MQCFT_XR_MSG, CMQCFC.MQCFT_XR_SUMMARY)
_BYTE_STRINGS = range(CMQCFC.MQBACF_FIRST, CMQCFC.MQBACF_LAST_USED + 1)


@dataclass(frozen=True)
class Route:
    """Where a command goes and how long it lives, as the ``PCFExecute`` says: its
    command queue, the model (or reply) queue of its replies and the dynamic name made
    from it, the seconds to wait for each response (None: unlimited) and the request's
    Expiry in tenths of a second."""

    command_queue: str = COMMAND_QUEUE
    model_queue: str = MODEL_QUEUE
    dynamic_name: str = REPLY_QUEUE_NAME
    wait: float | None = 5.0
    expiry: int = C.MQEI_UNLIMITED


def has_command_server(conn: Connection) -> bool:
    """Whether the connection reaches a queue manager that can run one (a transport
    with model queues that is not the embedded queue manager: IBM MQ over ``mq://``)."""
    return Capability.MODEL_QUEUES in conn.capabilities


def execute(conn: Connection, command: str, params: Params, route: Route) -> list[Response]:
    """Send ``command`` with ``params`` to the command server; its responses, waiting at
    most ``route.wait`` seconds for each (2033 MQRC_NO_MSG_AVAILABLE when one does not
    come)."""
    number = getattr(CMQCFC, command, None)
    if not isinstance(number, int):
        raise failed(C.MQRC_FUNCTION_NOT_SUPPORTED, f"{command} is no MQCMD_* command")
    header = mqpcf.MQCFH(
        Type=mqpcf.MQCFT_COMMAND_XR, Version=mqpcf.MQCFH_CURRENT_VERSION, Command=number
    )
    request = mqpcf.build_pcf(header, [_parameter(key, value) for key, value in params.items()])
    replies = conn.open(route.model_queue, C.MQOO_INPUT_EXCLUSIVE, dynamic_name=route.dynamic_name)
    try:
        md = MQMD(
            MsgType=C.MQMT_REQUEST,
            Format=C.MQFMT_ADMIN,
            ReplyToQ=replies.name,
            Expiry=route.expiry,
            Report=REPORT,
        )
        sent = conn.put(route.command_queue, md, request)
        return _responses(conn, replies, sent.MsgId, command, route.wait)
    finally:
        conn.close(replies)


def _responses(
    conn: Connection, replies: Any, msg_id: bytes, command: str, wait: float | None
) -> list[Response]:
    results: list[Response] = []
    error: MQError | None = None
    while True:
        got = conn.get(replies, wait=wait, correl_id=msg_id)
        if got is None:
            raise failed(
                C.MQRC_NO_MSG_AVAILABLE,
                f"no (more) responses to {command} from the command server within {wait} s"
                if wait is not None
                else f"no (more) responses to {command} from the command server",
            )
        header, parameters = mqpcf.parse_pcf(got[1], got[0].Encoding)
        if header.CompCode != C.MQCC_OK and error is None:
            error = MQError(
                header.CompCode, header.Reason, f"{command} failed at the command server"
            )
        elif header.CompCode == C.MQCC_OK and header.Type not in _XR_BOOKKEEPING:
            results.append(values(parameters))
        if header.Control == CMQCFC.MQCFC_LAST:
            break
    if error is not None:
        raise error
    return [result for result in results if result]


def _parameter(key: int, value: Any) -> Any:
    """A request parameter as the PCF structure its value and selector call for."""
    if isinstance(value, bool | int):
        return mqpcf.MQCFIN(Parameter=key, Value=int(value))
    if isinstance(value, bytes | bytearray) and key in _BYTE_STRINGS:
        return mqpcf.MQCFBS(Parameter=key, String=bytes(value))
    if isinstance(value, str | bytes | bytearray):
        return mqpcf.MQCFST(Parameter=key, CodedCharSetId=1208, String=_raw(value))
    if isinstance(value, list | tuple) and all(isinstance(v, int) for v in value):
        return mqpcf.MQCFIL(Parameter=key, Values=tuple(int(v) for v in value))
    if isinstance(value, list | tuple):
        return mqpcf.MQCFSL(Parameter=key, CodedCharSetId=1208, Strings=tuple(map(_raw, value)))
    raise failed(CMQCFC.MQRCCF_PARM_SYNTAX_ERROR, f"PCF parameter {key}: {value!r}")


def _raw(value: str | bytes | bytearray) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def values(parameters: list[Any]) -> Response:
    """PCF parameters as :mod:`.admin` has values: strings without padding, a group a
    list of dicts under its parameter (the command server reads requests the same way)."""
    out: Response = {}
    for parameter in parameters:
        if isinstance(parameter, mqpcf.MQCFIN | mqpcf.MQCFIN64):
            out[parameter.Parameter] = parameter.Value
        elif isinstance(parameter, mqpcf.MQCFST):
            out[parameter.Parameter] = _text(parameter.String)
        elif isinstance(parameter, mqpcf.MQCFIL | mqpcf.MQCFIL64):
            out[parameter.Parameter] = list(parameter.Values)
        elif isinstance(parameter, mqpcf.MQCFSL):
            out[parameter.Parameter] = [_text(s) for s in parameter.Strings]
        elif isinstance(parameter, mqpcf.MQCFBS):
            out[parameter.Parameter] = parameter.String
        elif isinstance(parameter, mqpcf.MQCFGR):
            out.setdefault(parameter.Parameter, []).append(values(list(parameter.Parameters)))
    return out


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").rstrip(" \x00")
