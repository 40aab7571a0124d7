"""mqjms.pymqi: pymqi 1.12 programs, unchanged, on mqjms (with JMS-style poison handling).

Change ``import pymqi`` to ``import mqjms.pymqi as pymqi``, or change nothing and run
``python -m mqjms.pymqi PROGRAM.py [args]``. Connections go where ``MQJMS_URL`` (or
:func:`configure`) says, whatever queue manager, channel, host and credentials the program
names. Everything pymqi programs use is here: ``connect``, ``QueueManager``, ``Queue``
(get, put, put1, browse, inquire, set, get_rfh2), the structures (MD, GMO, PMO, OD, CD,
... with pymqi's defaults: version 1, ``StrucId``), ``MQMIError``/``PYIFError`` with
pymqi's texts, ``MessageHandle``, ``PCFExecute`` (a subset), ``CMQC``/``CMQCFC``/``CMQXC``/
``CMQZC``. Destructive gets move poison messages to BOQNAME as IBM MQ classes for JMS
do (``configure(poison=False)`` turns that off). See docs/pymqi.md.

This is a module of mqjms, never installed as ``pymqi``: the real pymqi stays usable.
"""

from __future__ import annotations

from typing import Any

from mqjms.mqi import message_handle as _message_handle
from mqjms.mqi import pcf as _pcf
from mqjms.mqi import pcf_filters as _pcf_filters
from mqjms.mqi import pcf_names as _pcf_names
from mqjms.mqi import pymqi_flavour as _structures
from mqjms.mqi import qmgr as _qmgr
from mqjms.mqi import queue as _queue
from mqjms.mqi import topics as _topics
from mqjms.mqi.constants.flavours import constants as _constants
from mqjms.mqi.flavour import Flavour
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
from mqjms.mqi.pymqi_flavour import (
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
    MQOpts,
    PYIFError,
    cd,
    gmo,
    md,
    od,
    pmo,
    sco,
)
from mqjms.mqi.routing import configure
from mqjms.mqi.runner import install_aliases
from mqjms.mqi.screening import on_poison
from mqjms.mqi.text_checks import ensure_not_unicode, is_unicode

CMQC = _constants("pymqi", "CMQC")
CMQCFC = _constants("pymqi", "CMQCFC")
CMQXC = _constants("pymqi", "CMQXC")
CMQZC = _constants("pymqi", "CMQZC")

__version__ = "1.12.11"  # what pymqi 1.12.13 itself says (its __init__.py was not bumped)
__mqlevels__ = ("5.0", "5.1", "5.2", "5.3", "6.0", "7.0", "7.1", "7.5", "8.0.0", "8.0.1")
__mqbuild__ = "server"

FLAVOUR = Flavour(
    name="pymqi",
    structures=_structures,
    CMQC=CMQC,
    CMQCFC=CMQCFC,
    CMQXC=CMQXC,
    strict_types=False,
    inquire_lists=False,
    pcf_strings_stripped=False,
    pcf_empty_responses_kept=True,
    wildcard_names_returned=False,
    connect_shares_handle=False,
    whole_get_doubles=False,
    property_length_name="dataLength",
)


class QueueManager(_qmgr.QueueManager):
    FLAVOUR = FLAVOUR


class Queue(_queue.Queue):
    """pymqi's Queue. Its state is also readable where pymqi keeps it, in the
    name-mangled ``_Queue__qDesc``, ``_Queue__qMgr``, ``_Queue__qHandle`` and
    ``_Queue__openOpts``: pymqi 1.12 has no accessor for the MQOD that MQOPEN filled in,
    so programs read ``_Queue__qDesc.ObjectName`` for the name of a dynamic queue they
    opened from a model queue (Zato does), and wrappers find the QueueManager there."""

    FLAVOUR = FLAVOUR

    @property
    def _Queue__qDesc(self) -> Any:
        return self._q_desc

    @property
    def _Queue__qMgr(self) -> _qmgr.QueueManager:
        return self._qmgr

    @property
    def _Queue__qHandle(self) -> int | None:
        return self._number

    @property
    def _Queue__openOpts(self) -> int | None:
        return self._open_opts


class PCFExecute(_pcf.PCFExecute):
    FLAVOUR = FLAVOUR
    QUEUE = Queue
    iaStringDict = _pcf_names.ConstantNames(CMQC, "MQIA_")
    caStringDict = _pcf_names.ConstantNames(CMQC, "MQCA_")

    def __init__(
        self,
        name: Any = None,
        disconnect_on_exit: bool = True,
        model_queue_name: str | bytes = b"SYSTEM.DEFAULT.MODEL.QUEUE",
        dynamic_queue_name: str | bytes = b"PYMQPCF.*",
        command_queue_name: str | bytes = b"SYSTEM.ADMIN.COMMAND.QUEUE",
        response_wait_interval: int = 5000,
        convert: bool = False,
    ) -> None:
        """pymqi 1.12's positional order (``disconnect_on_exit`` second, unused there too)."""
        super().__init__(
            name,
            model_queue_name=model_queue_name,
            dynamic_queue_name=dynamic_queue_name,
            command_queue_name=command_queue_name,
            response_wait_interval=response_wait_interval,
            convert=convert,
        )


class MessageHandle(_message_handle.MessageHandle):
    FLAVOUR = FLAVOUR


class Subscription(_topics.Subscription):
    FLAVOUR = FLAVOUR
    QUEUE = Queue


class Topic(_topics.Topic):
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
) -> QueueManager:
    """Connect (pymqi's ``connect``): to the transport ``MQJMS_URL`` names."""
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
    )
    assert isinstance(qmgr, QueueManager)
    return qmgr


def ensure_bytes(value: Any, encoding: str = "ascii") -> Any:
    """A str as bytes (pymqi's helper); anything else unchanged."""
    return value.encode(encoding) if isinstance(value, str) else value


def make_q_desc(q_desc: Any) -> OD:
    """An OD naming the queue ``q_desc`` (str or bytes), or ``q_desc`` itself."""
    found: OD = _queue.make_q_desc(FLAVOUR, q_desc)
    return found


def common_q_args(*opts: Any) -> tuple[Any, Any]:
    """``(md, options)`` from a get's or put's optional arguments (pymqi's: at most two)."""
    if len(opts) > 2:
        raise TypeError("Too many args")
    return _queue.common_q_args(FLAVOUR, *opts)


makeQDesc = make_q_desc
commonQArgs = common_q_args


__all__ = [
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
    "CMHO",
    "CMQC",
    "CMQCFC",
    "CMQXC",
    "CMQZC",
    "CNO",
    "CSP",
    "CTLO",
    "DLH",
    "DMHO",
    "DMPO",
    "GMO",
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
    "Error",
    "Filter",
    "FilterOperator",
    "IntegerFilter",
    "MQMIError",
    "MQOpts",
    "MessageHandle",
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
    "gmo",
    "install_aliases",
    "is_unicode",
    "makeQDesc",
    "make_q_desc",
    "md",
    "od",
    "on_poison",
    "padded_count",
    "pmo",
    "sco",
]  # fmt: skip

if __name__ == "__main__":
    import sys

    from mqjms.mqi.runner import main

    sys.exit(main("pymqi"))
