"""MQError: a failure with IBM's completion and reason codes, named as IBM names them."""

from __future__ import annotations

from functools import cache

from mqjms.mq import constants as C


@cache
def _reason_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for name, value in vars(C).items():
        if (name.startswith("MQRC_") or name.startswith("MQRCCF_")) and isinstance(value, int):
            names.setdefault(value, name)
    return names


def reason_name(reason: int) -> str:
    """IBM's name for a reason code, e.g. 2033 -> 'MQRC_NO_MSG_AVAILABLE'."""
    return _reason_names().get(reason, f"MQRC_{reason}")


class MQError(Exception):
    """An MQI-style failure: completion code, reason code and, optionally, what went wrong.

    ``str(err)`` reads like IBM's messages so that an operator can search IBM's docs:
    ``MQRC_UNKNOWN_OBJECT_NAME (2085, comp 2): queue 'ORDERS.IN' is not defined``.
    """

    def __init__(self, comp: int, reason: int, detail: str = "") -> None:
        self.comp = comp
        self.reason = reason
        self.detail = detail
        super().__init__(comp, reason, detail)

    @property
    def reason_name(self) -> str:
        return reason_name(self.reason)

    def __str__(self) -> str:
        text = f"{self.reason_name} ({self.reason}, comp {self.comp})"
        return f"{text}: {self.detail}" if self.detail else text

    def __repr__(self) -> str:
        return f"MQError(comp={self.comp}, reason={self.reason}, detail={self.detail!r})"


def failed(reason: int, detail: str = "") -> MQError:
    """An MQError with MQCC_FAILED, the usual case."""
    return MQError(C.MQCC_FAILED, reason, detail)


class MQFormatError(MQError):
    """Malformed bytes: names the structure, the field and the byte offset that were wrong."""

    def __init__(self, structure: str, field: str, offset: int, problem: str, reason: int) -> None:
        self.structure = structure
        self.field = field
        self.offset = offset
        self.problem = problem
        super().__init__(
            C.MQCC_FAILED, reason, f"{structure}.{field} at byte offset {offset}: {problem}"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (
            type(self),
            (self.structure, self.field, self.offset, self.problem, self.reason),
        )
