"""The MQ data model: IBM's structures and constants, byte-exact, with no I/O."""

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
