"""What tells the pymqi flavour from the ibmmq one, for the classes both share.

The API classes (:mod:`.qmgr`, :mod:`.queue`, :mod:`.message_handle`, :mod:`.pcf`) are
written once; each flavour module subclasses them with a :class:`Flavour`: its structure
and error classes, its constants, and the few behaviours the two libraries differ in
(type checks on the MQMD and options, ``inquire`` of a list, PCF strings padded or not,
PCF responses without parameters listed or not).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq.constants import MQRC_FUNCTION_NOT_SUPPORTED
from mqjms.mq.errors import MQError

from . import errors, exiting

log = get_logger("mqjms.mqi")


@dataclass(frozen=True)
class Flavour:
    """One library's face of the drop-in."""

    name: str  # "pymqi" or "ibmmq"
    structures: types.ModuleType  # pymqi_flavour or ibmmq_flavour: MD, GMO, PMO, OD, ...
    CMQC: types.ModuleType
    CMQCFC: types.ModuleType
    CMQXC: types.ModuleType
    strict_types: bool  # ibmmq: the MQMD must be an MD, the options a GMO or PMO (TypeError)
    inquire_lists: bool  # ibmmq: inquire([selectors]) -> dict, set({selector: value})
    pcf_strings_stripped: bool  # ibmmq 2.1 strips PCF response strings; pymqi keeps padding
    # pymqi lists a response without parameters (a ping's, a create's) as {}; ibmmq drops it
    pcf_empty_responses_kept: bool
    property_length_name: str  # the attribute of a property error: dataLength / data_length
    # ibmmq's MQINQMP of a wildcard name ('usr.%') returns (value, name); pymqi the value
    wildcard_names_returned: bool
    # ibmmq's MQCONNX adds MQCNO_HANDLE_SHARE_BLOCK (to the program's CNO too) unless the
    # program chose BLOCK or NO_BLOCK: connecting a connected object makes a new connection
    connect_shares_handle: bool
    # get(None) with MQGMO_CONVERT, after a 2080: ibmmq retries with twice the length MQ
    # reported and starts the queue's next get(None) there; pymqi retries with the length
    # itself and always starts from 4096 bytes
    whole_get_doubles: bool

    @property
    def MQMIError(self) -> type[errors.MQMIError]:
        found: type[errors.MQMIError] = self.structures.MQMIError
        return found

    @property
    def PYIFError(self) -> type[errors.PYIFError]:
        found: type[errors.PYIFError] = self.structures.PYIFError
        return found

    def structure(self, name: str, **kw: Any) -> Any:
        """A new structure of this flavour (``structure("MD")``)."""
        return getattr(self.structures, name)(**kw)

    @contextlib.contextmanager
    def errors(self) -> Iterator[None]:
        """Inside: an MQError surfaces as this flavour's MQMIError, with what both
        libraries attach (``message``/``original_length`` after a truncated get)."""
        try:
            yield
        except MQError as exc:
            exiting.park_if_exiting()  # a daemon thread at exit: IBM's call never returns
            extras: dict[str, Any] = {}
            for name in ("message", "original_length", "value"):
                if name in exc.__dict__:
                    extras[name] = exc.__dict__[name]
            if "data_length" in exc.__dict__:
                extras[self.property_length_name] = exc.__dict__["data_length"]
            if exc.reason == MQRC_FUNCTION_NOT_SUPPORTED and exc.detail:
                # str(e) is the library's text alone: say what mqjms does not do
                log.warning("mqi.not_supported", reason=exc.reason, detail=exc.detail)
            raise self.MQMIError.from_mq_error(exc, **extras) from None
