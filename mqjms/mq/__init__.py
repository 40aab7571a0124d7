"""The MQ data model: IBM's structures and constants, byte-exact, with no I/O.

Each name loads with its first use (PEP 562): a consumer that never reads a trigger message
or a dead-letter header never imports the modules that parse them.
"""

from typing import TYPE_CHECKING

from mqjms._lazy import exports

if TYPE_CHECKING:
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
    from mqjms.mq.tm import MQTM, MQTMC2, parse_tm, parse_tmc2
    from mqjms.mq.xqh import MQXQH, parse_xqh

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    ".dlh": ("MQDLH", "parse_dlh"),
    ".errors": ("MQError", "MQFormatError", "reason_name"),
    ".jms": (
        "JmsHeaders",
        "UserProperties",
        "UserPropertyValue",
        "build_jms_folders",
        "parse_jms_folders",
    ),
    ".md": ("MQMD",),
    ".rfh2": ("RFH2", "RFH2Chain", "build_chain", "parse_chain"),
    ".tm": ("MQTM", "MQTMC2", "parse_tm", "parse_tmc2"),
    ".xqh": ("MQXQH", "parse_xqh"),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE, modules={"C": ".constants"})


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
