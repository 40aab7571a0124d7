"""Why a message failed, carried on the moved message as ``usr`` properties.

Property names (all strings, in the RFH2 ``usr`` folder of a message on a backout queue):

================================  ===========================================================
``mqjms_failure_exception``       the exception's qualified type, e.g. ``builtins.ValueError``
``mqjms_failure_message``         ``str(exception)``, truncated to 1,000 characters
``mqjms_failure_listener``        the listener's qualified name (module.function)
``mqjms_failure_queue``           the queue the message was consumed from
``mqjms_failure_time``            when it failed, ISO 8601 UTC
================================  ===========================================================
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

MAX_MESSAGE_LENGTH = 1000
PROPERTY_PREFIX = "mqjms_failure_"


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True, slots=True)
class Failure:
    exception_type: str
    message: str
    listener: str
    queue: str
    time: dt.datetime = field(default_factory=_now)

    @classmethod
    def from_exception(cls, exc: BaseException, listener: str, queue: str) -> Failure:
        kind = type(exc)
        return cls(
            exception_type=f"{kind.__module__}.{kind.__qualname__}",
            message=truncate(str(exc)),
            listener=listener,
            queue=queue,
        )

    def properties(self) -> dict[str, str]:
        return {
            f"{PROPERTY_PREFIX}exception": self.exception_type,
            f"{PROPERTY_PREFIX}message": self.message,
            f"{PROPERTY_PREFIX}listener": self.listener,
            f"{PROPERTY_PREFIX}queue": self.queue,
            f"{PROPERTY_PREFIX}time": self.time.isoformat(timespec="milliseconds"),
        }


def truncate(text: str, limit: int = MAX_MESSAGE_LENGTH) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
