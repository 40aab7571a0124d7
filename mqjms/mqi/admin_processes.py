"""PCF INQUIRE_PROCESS, answered from the queue manager's process definitions (the ones
trigger monitors start applications from), as DISPLAY PROCESS shows them."""

from __future__ import annotations

from collections.abc import Callable

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.mqi.constants import CMQC, CMQCFC
from mqjms.qmgr import QueueManager
from mqjms.semantics.attributes import appl_type_value

from .admin_params import Params, Response, attributes_asked, text

#: DISPLAY PROCESS's attributes by PCF selector.
_SELECTORS = {
    "DESCR": CMQC.MQCA_PROCESS_DESC,
    "APPLTYPE": CMQC.MQIA_APPL_TYPE,
    "APPLICID": CMQC.MQCA_APPL_ID,
    "ENVRDATA": CMQC.MQCA_ENV_DATA,
    "USERDATA": CMQC.MQCA_USER_DATA,
}


def _inquire_process(qm: QueueManager, params: Params) -> list[Response]:
    pattern = text(params.get(CMQC.MQCA_PROCESS_NAME, "*")) or "*"
    wanted = attributes_asked(params, CMQCFC.MQIACF_PROCESS_ATTRS)
    found = qm.display_processes(pattern)
    if not found:
        raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no process matches {pattern!r}")
    out: list[Response] = []
    for process in found:
        response: Response = {CMQC.MQCA_PROCESS_NAME: str(process["PROCESS"])}
        for name, selector in _SELECTORS.items():
            if wanted is not None and selector not in wanted:
                continue
            value = process.get(name, "")
            response[selector] = appl_type_value(value) if name == "APPLTYPE" else str(value)
        out.append(response)
    return out


COMMANDS: dict[str, Callable[[QueueManager, Params], list[Response]]] = {
    "MQCMD_INQUIRE_PROCESS": _inquire_process,
}

__all__ = ["COMMANDS"]
