"""The command server of the drop-in: PCF commands a program puts to
SYSTEM.ADMIN.COMMAND.QUEUE itself are answered on its reply queue.

Monitoring scripts build PCF messages by hand (an MQCFH and MQCFIN/MQCFST/... parameters,
Format MQADMIN, a ReplyToQ) and read the responses, as IBM MQ's command server writes
them: one message per object, MQCFH Type MQCFT_RESPONSE numbered from 1, MQCFC_LAST on the
last, CompCode and Reason (an error is one response without parameters), CorrelId the
request's MsgId (MQRO_PASS_CORREL_ID: its CorrelId). A request may be MQCFT_COMMAND or
MQCFT_COMMAND_XR (what pymqi's and ibmmq's PCFExecute send, MQCFH version 3), with filters
(MQCFIF/MQCFSF/MQCFBF). Both get standard responses: IBM documents extended ones
(MQCFT_XR_MSG/XR_ITEM/XR_SUMMARY) for z/OS, and ibmmq's PCFExecute notes that only a z/OS
queue manager sends them; a distributed one answers COMMAND_XR as COMMAND. The commands are those
:mod:`.admin` runs for ``PCFExecute``. A request put outside syncpoint is taken from the
queue and answered at once; one put under syncpoint stays on the queue (not answered).
"""

from __future__ import annotations

import struct
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import MQMD
from mqjms.mq import constants as C
from mqjms.mq import pcf as mqpcf
from mqjms.mq.errors import MQError, MQFormatError
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.semantics import Connection

from . import admin, admin_remote, admin_subscriptions, inquiry, pcf_filters, pcf_unpack
from .admin_remote import COMMAND_QUEUE

log = get_logger("mqjms.mqi")

_REQUESTS = (mqpcf.MQCFT_COMMAND, mqpcf.MQCFT_COMMAND_XR)
_COMMAND_NAMES = {
    int(getattr(CMQCFC, name)): name for name in dir(CMQCFC) if name.startswith("MQCMD_")
}


def answers(conn: Connection, went: tuple[str, str] | None) -> bool:
    """Whether a put that went to ``went`` (queue, queue manager) is a command this
    module answers: to this embedded queue manager's command queue."""
    if went is None or went[0].strip() != COMMAND_QUEUE:
        return False
    return went[1] in ("", conn.qmgr_name) and admin.queue_manager(conn) is not None


def serve(conn: Connection, msg_id: bytes) -> None:
    """Take the request ``msg_id`` off the command queue and answer it. The program's
    put succeeded whatever happens here: a failure is logged, not raised."""
    try:
        _serve(conn, msg_id)
    except MQError as exc:
        log.warning("pcf.command_not_served", msg_id=msg_id.hex(), reason=exc.reason_name)
    except Exception as exc:  # a command's fault must not fail the put that asked for it
        log.error("pcf.command_not_served", msg_id=msg_id.hex(), error=repr(exc))


def _serve(conn: Connection, msg_id: bytes) -> None:
    handle = conn.open(COMMAND_QUEUE, C.MQOO_INPUT_SHARED)
    try:
        got = conn.get(handle, msg_id=msg_id)
    finally:
        conn.close(handle)
    if got is None:  # another program took it
        return
    request, data = got
    replies = answer(conn, request, data)
    if not request.ReplyToQ.strip():
        log.warning("pcf.no_reply_queue", msg_id=msg_id.hex(), responses=len(replies))
        return
    queue, qmgr = request.ReplyToQ.strip(), request.ReplyToQMgr.strip()
    keep_id = bool(request.Report & CMQC.MQRO_PASS_MSG_ID)
    try:
        target = (
            queue if qmgr in ("", conn.qmgr_name) else conn.open(queue, C.MQOO_OUTPUT, qmgr=qmgr)
        )
    except MQError as exc:
        log.warning("pcf.reply_failed", reply_to=queue, reason=exc.reason_name, detail=exc.detail)
        return
    try:
        for md, body in replies:
            conn.put(target, md, body, new_msg_id=not keep_id)
    except MQError as exc:
        log.warning("pcf.reply_failed", reply_to=queue, reason=exc.reason_name, detail=exc.detail)
    finally:
        if not isinstance(target, str):
            conn.close(target)


def answer(conn: Connection, request: MQMD, data: bytes) -> list[tuple[MQMD, bytes]]:
    """The response messages to a PCF request."""
    encoding = request.Encoding
    try:
        header, parameters = mqpcf.parse_pcf(data, encoding)
    except MQFormatError as exc:
        return [_reply(request, _header(0, C.MQCC_FAILED, exc.reason), [])]
    command: str | None = None
    try:
        command = _command(header.Type, header.Command)
        params = _params(parameters)
        filters = [f for p in parameters if (f := _filter(p)) is not None]
        hidden = pcf_filters.widen(params, filters)  # filtered on, not asked for
        results = admin.execute(conn, command, params)
        if filters:
            results = pcf_filters.keep(results, filters, hidden)
    except MQError as exc:
        log.info("pcf.command_failed", command=command, reason=exc.reason_name)
        return [_reply(request, _header(header.Command, C.MQCC_FAILED, exc.reason), [])]
    except (TypeError, ValueError, KeyError) as exc:  # parameters of the wrong kind
        log.info("pcf.command_failed", command=command, error=repr(exc))
        failed = _header(header.Command, C.MQCC_FAILED, C.MQRCCF_COMMAND_FAILED)
        return [_reply(request, failed, [])]
    results = results or [{}]
    replies = []
    try:
        for number, result in enumerate(results, 1):
            last = number == len(results)
            head = _header(header.Command, C.MQCC_OK, C.MQRC_NONE, number, last)
            replies.append(_reply(request, head, _parameters(result)))
    except (struct.error, TypeError, ValueError) as exc:  # a value PCF cannot carry
        log.warning("pcf.response_failed", command=command, error=repr(exc))
        failed = _header(header.Command, C.MQCC_FAILED, C.MQRCCF_COMMAND_FAILED)
        return [_reply(request, failed, [])]
    return replies


def _command(kind: int, number: int) -> str:
    """The request's MQCMD_* name; for a message that is no command, the command server's
    answer: 3001 MQRCCF_CFH_TYPE_ERROR for a Type that is no request, 3007
    MQRCCF_CFH_COMMAND_ERROR for a Command MQ does not define."""
    if kind not in _REQUESTS:
        raise MQError(
            C.MQCC_FAILED,
            CMQCFC.MQRCCF_CFH_TYPE_ERROR,
            f"PCF message type {kind} is not MQCFT_COMMAND or MQCFT_COMMAND_XR",
        )
    command = _COMMAND_NAMES.get(number)
    if command is None:
        raise MQError(
            C.MQCC_FAILED,
            CMQCFC.MQRCCF_CFH_COMMAND_ERROR,
            f"PCF command {number} is no MQCMD_* command",
        )
    return command


def _params(parameters: list[Any]) -> dict[int, Any]:
    """A request's parameters as :func:`admin.execute` takes them (no groups)."""
    return admin_remote.values([p for p in parameters if not isinstance(p, mqpcf.MQCFGR)])


def _filter(parameter: Any) -> Any:
    """The filter a request's parameter is, or None."""
    if isinstance(parameter, mqpcf.PCFOther):
        return pcf_unpack.filter_structure(parameter)
    return None


def _parameters(result: dict[int, Any]) -> list[Any]:
    """A response's values as PCF parameters; names padded as the command server pads
    them (to their attribute's length)."""
    out: list[Any] = []
    for key, value in result.items():
        if isinstance(value, bool | int):
            out.append(mqpcf.MQCFIN(Parameter=key, Value=int(value)))
        elif isinstance(value, bytes):  # an id (MQBACF_*): a byte string, as it is
            out.append(mqpcf.MQCFBS(Parameter=key, String=value))
        elif isinstance(value, str):
            out.append(mqpcf.MQCFST(Parameter=key, CodedCharSetId=1208, String=_padded(key, value)))
        elif isinstance(value, list) and not value and CMQC.MQCA_FIRST <= key <= CMQC.MQCA_LAST:
            # no names (an empty *_NAMES answer): a string list all the same
            out.append(mqpcf.MQCFSL(Parameter=key, CodedCharSetId=1208, Strings=()))
        elif isinstance(value, list) and all(isinstance(v, int) for v in value):
            out.append(mqpcf.MQCFIL(Parameter=key, Values=tuple(int(v) for v in value)))
        elif isinstance(value, list):
            strings = tuple(_padded(key, v) for v in value)
            out.append(mqpcf.MQCFSL(Parameter=key, CodedCharSetId=1208, Strings=strings))
    return out


def _padded(key: int, value: str | bytes) -> bytes:
    raw = value.encode("utf-8") if isinstance(value, str) else value
    if key in admin_subscriptions.VARIABLE_LENGTH:
        return raw
    length = 48 if key == CMQCFC.MQCACF_Q_NAMES else inquiry.attribute_length(key)
    return raw.ljust(length, b" ")


def _header(
    command: int, comp: int, reason: int, number: int = 1, last: bool = True
) -> mqpcf.MQCFH:
    return mqpcf.MQCFH(
        Type=mqpcf.MQCFT_RESPONSE,
        Command=command,
        MsgSeqNumber=number,
        Control=CMQCFC.MQCFC_LAST if last else CMQCFC.MQCFC_NOT_LAST,
        CompCode=comp,
        Reason=reason,
    )


def _reply(request: MQMD, header: mqpcf.MQCFH, parameters: list[Any]) -> tuple[MQMD, bytes]:
    """One response message: its MQMD as the command server sets it, and its body."""
    correl = request.CorrelId if request.Report & CMQC.MQRO_PASS_CORREL_ID else request.MsgId
    md = MQMD(
        MsgType=C.MQMT_REPLY,
        Format=C.MQFMT_ADMIN,
        CorrelId=correl,
        Persistence=request.Persistence,
        Priority=request.Priority,
        Encoding=C.MQENC_NATIVE,
        CodedCharSetId=1208,
    )
    if request.Report & CMQC.MQRO_PASS_MSG_ID:
        md.MsgId = request.MsgId
    return md, mqpcf.build_pcf(header, parameters, C.MQENC_NATIVE)
