"""Running MQSC: one command, or a whole script, each giving a :class:`CommandResult`."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from mqjms.mq.errors import MQError

from .lexer import MQSCSyntaxError
from .parser import iter_commands, parse_command
from .registry import HANDLERS
from .rendering import CommandResult

if TYPE_CHECKING:
    from ..manager import QueueManager


def run_command(qm: QueueManager, text: str, *, number: int = 1, line: int = 1) -> CommandResult:
    """Parse and run one command; never raises MQError (it is in the result)."""
    result = CommandResult(number=number, line=line, command=text, ok=False)
    try:
        command = parse_command(text)
        result.verb, result.objtype, result.name = command.verb, command.objtype, command.name
        output = HANDLERS[(command.verb, command.objtype)](qm, command)
    except MQSCSyntaxError as exc:
        if not exc.command:
            exc = MQSCSyntaxError(exc.problem, exc.token, exc.pos, text)
        result.error = exc
        return result
    except MQError as exc:
        result.error = exc
        return result
    result.ok = True
    result.message = output.message
    result.objects = output.objects
    result.count = output.count
    return result


def run_script(qm: QueueManager, script: str | Iterable[str]) -> Iterator[CommandResult]:
    """Run every command of a script (text, or lines read lazily), one result each."""
    lines = script.splitlines() if isinstance(script, str) else script
    for number, (line, text) in enumerate(iter_commands(lines), 1):
        yield run_command(qm, text, number=number, line=line)
