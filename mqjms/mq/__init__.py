"""The MQ data model: IBM's structures and constants, byte-exact, with no I/O.

The trigger message (MQTM, MQTMC2) and transmission queue header (MQXQH) load with their
first use (PEP 562): a consumer never reads them, and ``import mqjms`` stays light.
"""

from typing import TYPE_CHECKING, Any

from mqjms.mq import constants as C
from mqjms.mq.dlh import MQDLH, parse_dlh
from mqjms.mq.errors import MQError, MQFormatError, reason_name
from mqjms.mq.jms import (
    JmsHeaders,
    UserProperties,
    UserPropertyValue,
    build_jms_folders,
    parse_jms_folders,
)
from mqjms.mq.md import MQMD
from mqjms.mq.rfh2 import RFH2, RFH2Chain, build_chain, parse_chain

if TYPE_CHECKING:
    from mqjms.mq.tm import MQTM, MQTMC2, parse_tm, parse_tmc2
    from mqjms.mq.xqh import MQXQH, parse_xqh

#: Names loaded on first access: name -> module.
_LAZY = {
    "MQTM": "mqjms.mq.tm",
    "MQTMC2": "mqjms.mq.tm",
    "parse_tm": "mqjms.mq.tm",
    "parse_tmc2": "mqjms.mq.tm",
    "MQXQH": "mqjms.mq.xqh",
    "parse_xqh": "mqjms.mq.xqh",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mqjms.mq' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MQDLH",
    "MQMD",
    "MQTM",
    "MQTMC2",
    "MQXQH",
    "RFH2",
    "C",
    "JmsHeaders",
    "MQError",
    "MQFormatError",
    "RFH2Chain",
    "UserProperties",
    "UserPropertyValue",
    "build_chain",
    "build_jms_folders",
    "parse_chain",
    "parse_dlh",
    "parse_jms_folders",
    "parse_tm",
    "parse_tmc2",
    "parse_xqh",
    "reason_name",
]
