"""PCF for listeners and services: the embedded queue manager defines and runs none.

Monitoring programs (exporters, health checks) ask for listener and service status beside
channel status; a queue manager with none answers as IBM MQ does for a name that matches
nothing: INQUIRE_LISTENER and INQUIRE_SERVICE 2085 (``MQRC_UNKNOWN_OBJECT_NAME``), their
status commands 3250 (``MQRCCF_LSTR_STATUS_NOT_FOUND``) and 3252
(``MQRCCF_SERV_STATUS_NOT_FOUND``), which those programs take as "none running".
"""

from __future__ import annotations

from collections.abc import Callable

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.semantics import Connection

from .admin_params import Params, Response, text


def _named(params: Params, selector: int) -> str:
    return text(params.get(selector, "*")) or "*"


def _no_listeners(conn: Connection, command: str, params: Params) -> list[Response]:
    pattern = _named(params, CMQCFC.MQCACH_LISTENER_NAME)
    raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no listener matches {pattern!r}: mqjms has none")


def _no_listener_status(conn: Connection, command: str, params: Params) -> list[Response]:
    pattern = _named(params, CMQCFC.MQCACH_LISTENER_NAME)
    raise failed(
        CMQCFC.MQRCCF_LSTR_STATUS_NOT_FOUND,
        f"no listener status for {pattern!r}: the embedded queue manager runs no listeners",
    )


def _no_services(conn: Connection, command: str, params: Params) -> list[Response]:
    pattern = _named(params, CMQC.MQCA_SERVICE_NAME)
    raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no service matches {pattern!r}: mqjms has none")


def _no_service_status(conn: Connection, command: str, params: Params) -> list[Response]:
    pattern = _named(params, CMQC.MQCA_SERVICE_NAME)
    raise failed(
        CMQCFC.MQRCCF_SERV_STATUS_NOT_FOUND,
        f"no service status for {pattern!r}: the embedded queue manager runs no services",
    )


COMMANDS: dict[str, Callable[[Connection, str, Params], list[Response]]] = {
    "MQCMD_INQUIRE_LISTENER": _no_listeners,
    "MQCMD_INQUIRE_LISTENER_STATUS": _no_listener_status,
    "MQCMD_INQUIRE_SERVICE": _no_services,
    "MQCMD_INQUIRE_SERVICE_STATUS": _no_service_status,
}

__all__ = ["COMMANDS"]
