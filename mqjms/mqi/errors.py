"""MQMIError and PYIFError: the exceptions pymqi and ibmmq programs catch, with their exact texts.

Each flavour module has its own hierarchy (a program catches ``pymqi.MQMIError`` or
``ibmmq.MQMIError``), subclasses of the classes here that set the texts:

- pymqi 1.12: ``str(e)`` is ``'MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``
  (never more: what mqjms found wrong is ``e.detail``),
  ``e.errorAsString()``; ``PYIFError`` reads ``'PYMQI Error: ...'``.
- ibmmq 2.x: ``'MQI Error. Comp 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE'``,
  ``e.error_as_string()`` (and ``errorAsString``), ``e.get(name)``; ``'PYIBMMQ Error: ...'``.

An :class:`mqjms.MQError` from a transport becomes the flavour's MQMIError with the
same completion and reason codes (:meth:`MQMIError.from_mq_error`, :func:`translated`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Self

from mqjms.mq.errors import MQError
from mqjms.mqi.constants import CMQC, CMQSTRC


def reason_text(comp: int, reason: int, overrides: Mapping[int, str] | None = None) -> str:
    """``'FAILED: MQRC_NO_MSG_AVAILABLE'``, ``'WARNING: ...'`` or ``'OK'``, as both say it."""
    if comp == CMQC.MQCC_OK:
        return "OK"
    prefix = "WARNING: " if comp == CMQC.MQCC_WARNING else "FAILED: "
    name = (overrides or {}).get(reason)
    if name is None:
        name = CMQSTRC.MQRC_DICT.get(reason) or CMQSTRC.MQRCCF_DICT.get(reason)
    if name is None:
        return f"{prefix}Error code {reason} not defined"
    return prefix + name


class Error(Exception):
    """Base of every error the facade raises to a pymqi or ibmmq program."""


class MQMIError(Error):
    """An MQI call failed or warned: ``comp`` (MQCC_*) and ``reason`` (MQRC_*).

    Keyword arguments become attributes, as in both libraries (``original_length`` and
    ``message`` after a truncated get, for instance).
    """

    comp: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE
    COMP_LABEL: ClassVar[str] = "Comp:"  # ibmmq writes "Comp"
    REASON_NAMES: ClassVar[Mapping[int, str]] = {}  # a flavour's choice among a value's names
    # both libraries' table of reason names (MQRC_*, then MQRCCF_*), which programs read
    errStringDicts: ClassVar[tuple[Mapping[int, str], ...]] = (
        CMQSTRC.MQRC_DICT,
        CMQSTRC.MQRCCF_DICT,
    )

    def __init__(self, comp: int, reason: int, **kw: Any) -> None:
        super().__init__(comp, reason)
        self.comp, self.reason = comp, reason
        for key, value in kw.items():
            setattr(self, key, value)

    def __str__(self) -> str:
        # exactly the library's text: programs print it, compare it and parse it; what
        # mqjms found wrong, for an error it raises, is ``e.detail``
        return (
            f"MQI Error. {self.COMP_LABEL} {self.comp}, Reason {self.reason}: "
            f"{self.error_as_string()}"
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.comp}, {self.reason})"

    def error_as_string(self) -> str:
        """The reason's mnemonic: ``'FAILED: MQRC_NO_MSG_AVAILABLE'``."""
        return reason_text(self.comp, self.reason, self.REASON_NAMES)

    errorAsString = error_as_string  # pymqi's name

    def get(self, name: str) -> Any:
        """An attribute given at construction (ibmmq's ``e.get('original_length')``)."""
        return getattr(self, name)

    @classmethod
    def from_mq_error(cls, error: MQError, **kw: Any) -> Self:
        """The same failure as a transport's MQError: same comp and reason; ``detail`` kept."""
        return cls(error.comp, error.reason, detail=error.detail, **kw)

    def to_mq_error(self) -> MQError:
        """The same failure for mqjms code below the facade."""
        return MQError(self.comp, self.reason, str(getattr(self, "detail", "")))


class PYIFError(Error):
    """An error found by the library itself, not by MQ (``'The Queue is already open'``)."""

    PREFIX: ClassVar[str] = "PYMQI Error: "

    def __init__(self, e: object) -> None:
        super().__init__(e)
        self.error = e

    def __str__(self) -> str:
        return self.PREFIX + str(self.error)


@contextlib.contextmanager
def translated(error_class: type[MQMIError]) -> Iterator[None]:
    """Inside this block an MQError (from a transport) surfaces as ``error_class``."""
    try:
        yield
    except MQError as exc:
        raise error_class.from_mq_error(exc) from exc
