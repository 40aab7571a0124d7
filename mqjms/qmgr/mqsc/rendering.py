"""runmqsc's output: a command's result, attributes as runmqsc displays them, and the
closing summary of a script."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.semantics.attributes import NEGATIVE_FLAGS

from .lexer import MQSCSyntaxError
from .registry import ObjectAttrs, Value

_FLAG_NEGATIVE = {attr.name: negative for negative, attr in NEGATIVE_FLAGS.items()}
#: Keys shown under another keyword: runmqsc shows a subscription's name as SUB(...), which
#: DISPLAY's objects key SUBNAME (PCF's SubName), apart from a TOPIC's SUB(ENABLED).
_SHOWN_AS = {"SUBNAME": "SUB"}


def format_attribute(name: str, value: Value) -> str:
    """``ATTR(value)`` as runmqsc displays it: on/off flags as the bare keyword
    (``HARDENBO``/``NOHARDENBO``), blank text as ``( )``, no quotes, EXPRYINT 0 as OFF."""
    name = _SHOWN_AS.get(name, name)
    if isinstance(value, bool):
        negative = _FLAG_NEGATIVE.get(name)
        if negative is not None:
            return name if value else negative
        return f"{name}({'YES' if value else 'NO'})"
    if name == "EXPRYINT" and value == 0:
        return "EXPRYINT(OFF)"
    text = str(value)
    return f"{name}({text if text.strip() else ' '})"


def format_object(obj: Mapping[str, Value]) -> list[str]:
    return [format_attribute(k, v) for k, v in obj.items()]


@dataclass(slots=True)
class CommandResult:
    """One command's result: ok, or the MQError that stopped it; DISPLAY's objects."""

    number: int
    line: int
    command: str
    ok: bool
    error: MQError | None = None
    verb: str | None = None
    objtype: str | None = None
    name: str | None = None
    message: str = ""
    objects: list[ObjectAttrs] = field(default_factory=list)
    count: int | None = None

    @property
    def syntax_error(self) -> bool:
        return isinstance(self.error, MQSCSyntaxError) or (
            self.error is not None and self.error.reason == C.MQRCCF_PARM_SYNTAX_ERROR
        )

    def render(self, echo: bool = True) -> list[str]:
        """runmqsc-style output lines for this command."""
        out: list[str] = []
        if echo:
            out.append(f"{self.number:>6} : {self.command}")
        if self.error is not None:
            if isinstance(self.error, MQSCSyntaxError):
                out.append(
                    "AMQ8405I: Syntax error detected at or near end of command segment below:-"
                )
                out.append(self.error.segment)
            out.append(f"{self.error.reason_name} ({self.error.reason}): {self.error.detail}")
            return out
        if self.verb == "DISPLAY":
            for obj in self.objects:
                out.append(self.message)
                out.extend("   " + format_attribute(k, v) for k, v in obj.items())
        else:
            out.append(self.message)
        return out


def summary(results: Iterable[CommandResult]) -> list[str]:
    """runmqsc's closing lines: commands read, syntax errors, commands not processed."""
    done = list(results)
    syntax = sum(1 for r in done if r.syntax_error)
    not_processed = sum(1 for r in done if not r.ok and not r.syntax_error)
    read = len(done)
    return [
        "One MQSC command read." if read == 1 else f"{read} MQSC commands read.",
        "No commands have a syntax error."
        if syntax == 0
        else (
            "One command has a syntax error."
            if syntax == 1
            else f"{syntax} commands have a syntax error."
        ),
        "All valid MQSC commands were processed."
        if not_processed == 0
        else (
            "One valid MQSC command could not be processed."
            if not_processed == 1
            else f"{not_processed} valid MQSC commands could not be processed."
        ),
    ]
