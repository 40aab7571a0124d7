"""mqjms.ibmmq: ibmmq 2.x programs, unchanged, on mqjms (with JMS-style poison handling).

Change ``import ibmmq`` to ``import mqjms.ibmmq as ibmmq``, or change nothing and run
``python -m mqjms.ibmmq PROGRAM.py [args]``. Connections go where ``MQJMS_URL`` (or
:func:`configure`) says, whatever queue manager, channel, host and credentials the program
names. ibmmq's defaults and names: MD version 2, GMO 4, PMO 3, OD 4, ``_StrucId``;
``inquire`` and ``set`` of lists and dicts; ``error_as_string``; ``CMQSTRC``;
``to_string``; ``get_name``; MQCB/MQCTL callbacks; MQSTAT. Destructive gets move poison
messages to BOQNAME as IBM MQ classes for JMS do (``configure(poison=False)`` turns that
off). See docs/pymqi.md.

This is a module of mqjms, never installed as ``ibmmq``: the real ibmmq stays usable.
"""

from __future__ import annotations

from typing import Any

from mqjms.mqi import ibmmq_flavour as _structures
from mqjms.mqi import message_handle as _message_handle
from mqjms.mqi import pcf as _pcf
from mqjms.mqi import pcf_filters as _pcf_filters
from mqjms.mqi import pcf_names as _pcf_names
from mqjms.mqi import qmgr as _qmgr
from mqjms.mqi import queue as _queue
from mqjms.mqi import topics as _topics
from mqjms.mqi.bridge_headers import CIH, IIH
from mqjms.mqi.constants import CMQSTRC
from mqjms.mqi.constants.flavours import constants as _constants
from mqjms.mqi.flavour import Flavour
from mqjms.mqi.ibmmq_flavour import (
    BNO,
    BO,
    CBC,
    CBD,
    CD,
    CFBS,
    CFH,
    CFIL,
    CFIN,
    CFSL,
    CFST,
    CMHO,
    CNO,
    CSP,
    CTLO,
    DLH,
    DMHO,
    DMPO,
    GMO,
    IMPO,
    MD,
    MDE,
    OD,
    PD,
    PMO,
    RFH2,
    SCO,
    SD,
    SMPO,
    SRO,
    STS,
    TM,
    TMC2,
    XQH,
    Error,
    MQMIError,
    MQObject,
    MQOpts,
    PYIFError,
    cd,
    gmo,
    md,
    od,
    pmo,
    sco,
    to_string,
)
from mqjms.mqi.ibmmq_options import EncodingDefault, OTelOptions
from mqjms.mqi.pcf_filters import (
    ByteStringFilter,
    FilterOperator,
    IntegerFilter,
    StringFilter,
)
from mqjms.mqi.pcf_params import (
    CFBF,
    CFGR,
    CFIF,
    CFIL64,
    CFIN64,
    CFSF,
    INTEGER64_TYPE,
    MQLONG_TYPE,
    padded_count,
)
from mqjms.mqi.routing import configure
from mqjms.mqi.runner import install_aliases
from mqjms.mqi.screening import on_poison
from mqjms.mqi.text_checks import ensure_not_unicode, is_unicode

CMQC = _constants("ibmmq", "CMQC")
CMQCFC = _constants("ibmmq", "CMQCFC")
CMQXC = _constants("ibmmq", "CMQXC")
CMQZC = _constants("ibmmq", "CMQZC")

__version__ = "2.1.2"
__cmdlevel__ = 940
__mqlevels__: tuple[str, ...] = ()
__mqbuild__ = "server"

FLAVOUR = Flavour(
    name="ibmmq",
    structures=_structures,
    CMQC=CMQC,
    CMQCFC=CMQCFC,
    CMQXC=CMQXC,
    strict_types=True,
    inquire_lists=True,
    pcf_strings_stripped=True,
    pcf_empty_responses_kept=False,
    wildcard_names_returned=True,
    connect_shares_handle=True,
    whole_get_doubles=True,
    property_length_name="data_length",
)


class QueueManager(_qmgr.QueueManager, MQObject):
    FLAVOUR = FLAVOUR


class Queue(_queue.Queue, MQObject):
    FLAVOUR = FLAVOUR


class PCFExecute(_pcf.PCFExecute):
    FLAVOUR = FLAVOUR
    QUEUE = Queue
    iaStringDict = _pcf_names.merged(CMQSTRC.MQIA_DICT, CMQSTRC.MQIACF_DICT, CMQSTRC.MQIACH_DICT)
    caStringDict = _pcf_names.merged(CMQSTRC.MQCA_DICT, CMQSTRC.MQCACF_DICT, CMQSTRC.MQCACH_DICT)
    baStringDict = _pcf_names.merged(CMQSTRC.MQBACF_DICT)

    def __init__(
        self,
        name: Any = None,
        model_queue_name: str | bytes | None = b"SYSTEM.DEFAULT.MODEL.QUEUE",
        reply_queue_name: str | bytes | None = None,
        reply_queue_open_options: int = CMQC.MQOO_INPUT_EXCLUSIVE,
        dynamic_queue_name: str | bytes = b"PYMQPCF.*",
        command_queue_name: str | bytes = b"SYSTEM.ADMIN.COMMAND.QUEUE",
        command_queue: Any = None,
        response_wait_interval: int = 5000,
        command_timeout: int = 0,
        max_length: int | None = None,
        convert: bool = True,
    ) -> None:
        """ibmmq 2.x's positional order. ``command_queue``, a queue the program opened
        for output, is accepted; the commands go to ``command_queue_name`` either way."""
        super().__init__(
            name,
            model_queue_name=model_queue_name or b"",
            dynamic_queue_name=dynamic_queue_name,
            command_queue_name=command_queue_name,
            response_wait_interval=response_wait_interval,
            convert=convert,
            reply_queue_name=reply_queue_name,
            command_timeout=command_timeout,
            max_length=max_length,
            reply_queue_open_options=reply_queue_open_options,
        )


class MessageHandle(_message_handle.MessageHandle):
    FLAVOUR = FLAVOUR


class Subscription(_topics.Subscription, MQObject):
    FLAVOUR = FLAVOUR
    QUEUE = Queue


class Topic(_topics.Topic, MQObject):
    FLAVOUR = FLAVOUR
    SUBSCRIPTION = Subscription


ByteString = _pcf.ByteString


class Filter(_pcf_filters.Filter):
    ERROR = PYIFError


def connect(
    queue_manager: str | bytes | None,
    channel: str | bytes | None = None,
    conn_info: str | bytes | None = None,
    user: str | bytes | None = None,
    password: str | bytes | None = None,
    disconnect_on_exit: bool = True,
    bytes_encoding: str = "utf8",
    default_ccsid: int = 1208,
    cd: Any = None,
    cno: Any = None,
    csp: Any = None,
    sco: Any = None,
    bno: Any = None,
) -> QueueManager:
    """Connect (ibmmq's ``connect``): to the transport ``MQJMS_URL`` names."""
    qmgr = _qmgr.connect(
        QueueManager,
        queue_manager,
        channel,
        conn_info,
        user,
        password,
        disconnect_on_exit,
        bytes_encoding,
        default_ccsid,
        cd=cd,
        cno=cno,
        csp=csp,
        sco=sco,
        bno=bno,
    )
    assert isinstance(qmgr, QueueManager)
    return qmgr


def get_versions() -> dict[str, Any]:
    """This library's version and the MQ level it was built for."""
    return {"module": __version__, "MQ": __cmdlevel__}


def ensure_strings_are_bytes(value: Any, encoding: str = "ascii") -> Any:
    """A str as bytes (ibmmq's helper); anything else unchanged."""
    return value.encode(encoding) if isinstance(value, str) else value


def ensure_bytes(value: Any, encoding: str = "ascii") -> Any:
    """A str as bytes (pymqi's helper); anything else unchanged."""
    return value.encode(encoding) if isinstance(value, str) else value


def common_q_args(*opts: Any) -> tuple[Any, Any]:
    """``(md, options)`` from a get's or put's optional arguments, type-checked as ibmmq."""
    return _queue.common_q_args(FLAVOUR, *opts)


commonQArgs = common_q_args


__all__ = [
    "BNO",
    "BO",
    "CBC",
    "CBD",
    "CD",
    "CFBF",
    "CFBS",
    "CFGR",
    "CFH",
    "CFIF",
    "CFIL",
    "CFIL64",
    "CFIN",
    "CFIN64",
    "CFSF",
    "CFSL",
    "CFST",
    "CIH",
    "CMHO",
    "CMQC",
    "CMQCFC",
    "CMQSTRC",
    "CMQXC",
    "CMQZC",
    "CNO",
    "CSP",
    "CTLO",
    "DLH",
    "DMHO",
    "DMPO",
    "GMO",
    "IIH",
    "IMPO",
    "INTEGER64_TYPE",
    "MD",
    "MDE",
    "MQLONG_TYPE",
    "OD",
    "PD",
    "PMO",
    "RFH2",
    "SCO",
    "SD",
    "SMPO",
    "SRO",
    "STS",
    "TM",
    "TMC2",
    "XQH",
    "ByteString",
    "ByteStringFilter",
    "EncodingDefault",
    "Error",
    "Filter",
    "FilterOperator",
    "IntegerFilter",
    "MQMIError",
    "MQObject",
    "MQOpts",
    "MessageHandle",
    "OTelOptions",
    "PCFExecute",
    "PYIFError",
    "Queue",
    "QueueManager",
    "StringFilter",
    "Subscription",
    "Topic",
    "cd",
    "commonQArgs",
    "common_q_args",
    "configure",
    "connect",
    "ensure_bytes",
    "ensure_not_unicode",
    "ensure_strings_are_bytes",
    "get_versions",
    "gmo",
    "install_aliases",
    "is_unicode",
    "md",
    "od",
    "on_poison",
    "padded_count",
    "pmo",
    "sco",
    "to_string",
]  # fmt: skip

if __name__ == "__main__":
    import sys

    from mqjms.mqi.runner import main

    sys.exit(main("ibmmq"))
