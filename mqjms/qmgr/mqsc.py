"""MQSC for the embedded queue manager: parse ``runmqsc``-style scripts and run them.

The rules are runmqsc's, so MQ administrators can paste their scripts:

* keywords are case-insensitive and have IBM's abbreviations (``DEF``, ``DIS``, ``ALT``,
  ``QL``, ``QA``, ``QM``, ``Q``);
* values go in parentheses; an unquoted value is folded to upper case, a ``'quoted'``
  one keeps its case and blanks (``''`` is a quote inside a quoted string);
* a line ending in ``-`` continues with the next line as it is, one ending in ``+``
  continues with the next line's first non-blank character; a line whose first
  non-blank character is ``*`` is a comment; ``END`` stops the script;
* on/off attributes are bare keywords (``HARDENBO`` / ``NOHARDENBO``).

Every command gives a :class:`CommandResult`: ok or an :class:`MQError` (a syntax error
is an :class:`MQSCSyntaxError`, reason MQRCCF_PARM_SYNTAX_ERROR, naming the token and its
column), and for DISPLAY the objects as attribute dicts in MQSC order.

Object types are pluggable: :func:`register` maps a verb and an object keyword (with its
abbreviations) to a handler, so another object type (a NAMELIST, a TOPIC) is one
handler per verb and a ``register`` line, without touching the parser. Queues, the
queue manager and process definitions (for triggering) are registered at the end.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics.attributes import (
    FLAG,
    INT,
    NEGATIVE_FLAGS,
    PROCESS_ATTR_BY_NAME,
    QMGR_ATTR_BY_NAME,
    QUEUE_ATTR_BY_NAME,
    TEXT,
    Attr,
    validate_name,
)

if TYPE_CHECKING:
    from .manager import QueueManager

Value = int | str | bool
ObjectAttrs = dict[str, Value]

# --- tokens and commands ----------------------------------------------------------------

WORD = "word"
STRING = "string"
LPAREN = "("
RPAREN = ")"


@dataclass(frozen=True, slots=True)
class Token:
    """A lexical token; ``pos`` is its 0-based offset in the command text."""

    kind: str
    text: str  # WORD: as written; STRING: the content with '' unescaped
    pos: int

    def shown(self) -> str:
        return f"'{self.text}'" if self.kind == STRING else self.text


class MQSCSyntaxError(MQError):
    """A command that is not valid MQSC: names the offending token and its column."""

    def __init__(self, problem: str, token: str, pos: int, command: str = "") -> None:
        self.problem = problem
        self.token = token
        self.pos = pos
        self.command = command
        where = f"at column {pos + 1}" if token == "" else f"{token!r} at column {pos + 1}"
        super().__init__(C.MQCC_FAILED, C.MQRCCF_PARM_SYNTAX_ERROR, f"{problem}: {where}")

    @property
    def segment(self) -> str:
        """The command up to the end of the offending token, as runmqsc shows it."""
        return self.command[: self.pos + max(len(self.token), 1)]

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.problem, self.token, self.pos, self.command))


@dataclass(slots=True)
class Param:
    """One ``KEYWORD`` or ``KEYWORD(value)`` of a command."""

    keyword: str  # upper case
    pos: int
    tokens: list[Token] | None  # what is inside the parentheses; None when there are none
    close_pos: int = 0

    @property
    def has_value(self) -> bool:
        return self.tokens is not None

    def value(self) -> str:
        """The single value in parentheses: unquoted folded to upper case, quoted as given."""
        if self.tokens is None:
            raise MQSCSyntaxError(
                f"{self.keyword} needs a value in parentheses", self.keyword, self.pos
            )
        if not self.tokens:
            return ""
        if len(self.tokens) > 1:
            extra = self.tokens[1]
            raise MQSCSyntaxError(
                f"{self.keyword} takes one value (quote a value that has blanks)",
                extra.shown(),
                extra.pos,
            )
        token = self.tokens[0]
        return token.text if token.kind == STRING else token.text.upper()


@dataclass(slots=True)
class Command:
    """A parsed command: verb, object type and name, then its other keywords in order."""

    text: str
    verb: str  # canonical: DEFINE, ALTER, DELETE, CLEAR, DISPLAY, REFRESH
    objtype: str  # canonical object keyword: QLOCAL, QALIAS, QMODEL, QUEUE, QMGR, ...
    name: str | None  # the value of the object keyword, None for QMGR
    params: list[Param]
    pos: int = 0  # where the object keyword is
    name_pos: int = 0

    def error(self, problem: str, param: Param | None = None) -> MQSCSyntaxError:
        if param is None:
            return MQSCSyntaxError(problem, self.objtype, self.pos, self.text)
        return MQSCSyntaxError(problem, param.keyword, param.pos, self.text)


def tokenize(text: str) -> list[Token]:
    """Split one command into words, quoted strings and parentheses."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "()":
            tokens.append(Token(ch, ch, i))
            i += 1
        elif ch == "'":
            start, i, parts = i, i + 1, []
            while True:
                end = text.find("'", i)
                if end < 0:
                    raise MQSCSyntaxError(
                        "quoted string has no closing quote", text[start : start + 20], start, text
                    )
                parts.append(text[i:end])
                if end + 1 < n and text[end + 1] == "'":
                    parts.append("'")
                    i = end + 2
                    continue
                i = end + 1
                break
            tokens.append(Token(STRING, "".join(parts), start))
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in "()'":
                i += 1
            tokens.append(Token(WORD, text[start:i], start))
    return tokens


VERBS: dict[str, str] = {
    "DEFINE": "DEFINE",
    "DEF": "DEFINE",
    "ALTER": "ALTER",
    "ALT": "ALTER",
    "DELETE": "DELETE",
    "CLEAR": "CLEAR",
    "DISPLAY": "DISPLAY",
    "DIS": "DISPLAY",
    "REFRESH": "REFRESH",
}
# Object keyword (or abbreviation) -> canonical keyword; extended by register().
OBJECT_KEYWORDS: dict[str, str] = {}
# Object types written without a name in parentheses (ALTER QMGR, DISPLAY QMGR).
UNNAMED_OBJECTS: set[str] = {"QMGR"}


def _params(tokens: list[Token], start: int, text: str) -> list[Param]:
    params: list[Param] = []
    i = start
    while i < len(tokens):
        token = tokens[i]
        if token.kind != WORD:
            problem = (
                "a value must follow a keyword"
                if token.kind == STRING
                else ("unexpected parenthesis")
            )
            raise MQSCSyntaxError(problem, token.shown(), token.pos, text)
        param = Param(token.text.upper(), token.pos, None)
        i += 1
        if i < len(tokens) and tokens[i].kind == LPAREN:
            inner: list[Token] = []
            i += 1
            while True:
                if i >= len(tokens):
                    raise MQSCSyntaxError(
                        f"{param.keyword}( has no closing parenthesis",
                        param.keyword,
                        param.pos,
                        text,
                    )
                if tokens[i].kind == RPAREN:
                    param.close_pos = tokens[i].pos
                    i += 1
                    break
                if tokens[i].kind == LPAREN:
                    raise MQSCSyntaxError("unexpected parenthesis", "(", tokens[i].pos, text)
                inner.append(tokens[i])
                i += 1
            param.tokens = inner
        params.append(param)
    return params


def parse_command(text: str) -> Command:
    """Parse one (already joined) command; MQSCSyntaxError when it is not valid MQSC."""
    tokens = tokenize(text)
    if not tokens:
        raise MQSCSyntaxError("empty command", "", 0, text)
    first = tokens[0]
    verb = VERBS.get(first.text.upper()) if first.kind == WORD else None
    if verb is None:
        raise MQSCSyntaxError(
            f"not an MQSC command mqjms knows ({', '.join(sorted(set(VERBS.values())))})",
            first.shown(),
            first.pos,
            text,
        )
    params = _params(tokens, 1, text)
    if not params:
        raise MQSCSyntaxError(
            f"{verb} needs an object, e.g. {verb} QLOCAL(name)", first.text, first.pos, text
        )
    obj = params[0]
    objtype = OBJECT_KEYWORDS.get(obj.keyword)
    if objtype is None or (verb, objtype) not in _HANDLERS:
        known = sorted({t for v, t in _HANDLERS if v == verb})
        raise MQSCSyntaxError(
            f"{verb} {obj.keyword} is not a command mqjms knows "
            f"(objects for {verb}: {', '.join(known)})",
            obj.keyword,
            obj.pos,
            text,
        )
    name: str | None = None
    name_pos = obj.pos
    if objtype in UNNAMED_OBJECTS:
        if obj.has_value:
            raise MQSCSyntaxError(f"{objtype} takes no name", obj.keyword, obj.pos, text)
    else:
        if not obj.has_value:
            raise MQSCSyntaxError(
                f"{obj.keyword} needs a name in parentheses", obj.keyword, obj.pos, text
            )
        try:
            name = obj.value()
        except MQSCSyntaxError as exc:
            raise MQSCSyntaxError(exc.problem, exc.token, exc.pos, text) from None
        if obj.tokens:
            name_pos = obj.tokens[0].pos
        if not name.strip():
            raise MQSCSyntaxError(f"{obj.keyword} needs a name", obj.keyword, obj.pos, text)
    return Command(text, verb, objtype, name, params[1:], obj.pos, name_pos)


# --- scripts ----------------------------------------------------------------------------


def iter_commands(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """Join continuation lines and drop comments: ``(first line number, command)``.

    Lines are consumed lazily, so an interactive session runs each command as it ends.
    ``END`` on its own ends the script.
    """
    buffer: list[str] = []
    mode = ""  # "-" or "+" while a command continues
    start = 0
    for number, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        if not mode:
            if not line.strip() or line.lstrip().startswith("*"):
                continue
            start = number
        elif mode == "+":
            line = line.lstrip()
        stripped = line.rstrip()
        if stripped.endswith(("-", "+")):
            buffer.append(stripped[:-1])
            mode = stripped[-1]
            continue
        buffer.append(stripped)
        text = "".join(buffer).strip()
        buffer, mode = [], ""
        if text.upper() == "END":
            return
        if text:
            yield start, text
    if buffer:
        text = "".join(buffer).strip()
        if text and text.upper() != "END":
            yield start, text


@dataclass(slots=True)
class Outcome:
    """What a handler reports for a command that worked."""

    message: str
    objects: list[ObjectAttrs] = field(default_factory=list)
    count: int | None = None  # e.g. messages cleared or discarded


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


Handler = Callable[["QueueManager", Command], Outcome]
_HANDLERS: dict[tuple[str, str], Handler] = {}


def register(
    verb: str, objtype: str, *aliases: str, unnamed: bool = False
) -> Callable[[Handler], Handler]:
    """Register ``handler(qm, command) -> Outcome`` for ``VERB OBJTYPE``.

    ``aliases`` are the object keyword's abbreviations (``PRO`` for ``PROCESS``);
    ``unnamed`` marks an object written without a name (``QMGR``). A handler raises
    MQError (or ``command.error(...)`` for a bad keyword) when the command fails.
    """
    canonical_verb = VERBS[verb.upper()]
    canonical = objtype.upper()

    def add(handler: Handler) -> Handler:
        _HANDLERS[(canonical_verb, canonical)] = handler
        for keyword in (canonical, *aliases):
            OBJECT_KEYWORDS[keyword.upper()] = canonical
        if unnamed:
            UNNAMED_OBJECTS.add(canonical)
        return handler

    return add


def run_command(qm: QueueManager, text: str, *, number: int = 1, line: int = 1) -> CommandResult:
    """Parse and run one command; never raises MQError (it is in the result)."""
    result = CommandResult(number=number, line=line, command=text, ok=False)
    try:
        command = parse_command(text)
        result.verb, result.objtype, result.name = command.verb, command.objtype, command.name
        outcome = _HANDLERS[(command.verb, command.objtype)](qm, command)
    except MQSCSyntaxError as exc:
        if not exc.command:
            exc = MQSCSyntaxError(exc.problem, exc.token, exc.pos, text)
        result.error = exc
        return result
    except MQError as exc:
        result.error = exc
        return result
    result.ok = True
    result.message = outcome.message
    result.objects = outcome.objects
    result.count = outcome.count
    return result


def run_script(qm: QueueManager, script: str | Iterable[str]) -> Iterator[CommandResult]:
    """Run every command of a script (text, or lines read lazily), one result each."""
    lines = script.splitlines() if isinstance(script, str) else script
    for number, (line, text) in enumerate(iter_commands(lines), 1):
        yield run_command(qm, text, number=number, line=line)


def summary(results: Iterable[CommandResult]) -> list[str]:
    """runmqsc's closing lines: commands read, syntax errors, commands not processed."""
    done = list(results)
    syntax = sum(1 for r in done if r.syntax_error)
    failed_ = sum(1 for r in done if not r.ok and not r.syntax_error)
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
        if failed_ == 0
        else (
            "One valid MQSC command could not be processed."
            if failed_ == 1
            else f"{failed_} valid MQSC commands could not be processed."
        ),
    ]


# --- output -----------------------------------------------------------------------------

_FLAG_NEGATIVE = {attr.name: negative for negative, attr in NEGATIVE_FLAGS.items()}


def format_attribute(name: str, value: Value) -> str:
    """``ATTR(value)`` as runmqsc displays it: on/off flags as the bare keyword
    (``HARDENBO``/``NOHARDENBO``), blank text as ``( )``, no quotes, EXPRYINT 0 as OFF."""
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


# --- attribute keywords -----------------------------------------------------------------


def _check_object_name(command: Command, generic: bool = False) -> str:
    """The object name, validated as MQ does; a generic name may end in one ``*``."""
    name = command.name or ""
    base = name[:-1] if generic and name.endswith("*") else name
    if not base and generic:
        return name
    try:
        validate_name(base, "object")
    except MQError as exc:
        raise failed(C.MQRCCF_OBJECT_NAME_ERROR, exc.detail) from None
    return name


def _once(command: Command, seen: set[str], param: Param, keyword: str) -> None:
    if keyword in seen:
        raise command.error(f"{keyword} is given more than once", param)
    seen.add(keyword)


def _attr_value(command: Command, param: Param, attr: Attr) -> Value:
    """The MQSC value of an attribute keyword, left for normalize() to check."""
    if attr.kind == FLAG:
        if param.has_value:
            raise command.error(f"{param.keyword} is written without a value", param)
        return param.keyword == attr.name
    if not param.has_value:
        raise command.error(f"{param.keyword} needs a value in parentheses", param)
    value = param.value()
    if attr.kind == TEXT and not value.strip():
        return ""
    return value


def attribute_params(
    command: Command,
    table: Mapping[str, Attr],
    params: Iterable[Param],
    applies: Callable[[Attr], bool] = lambda attr: True,
) -> dict[str, Value]:
    """Attribute keywords -> values (flags as bools) for DEFINE/ALTER of any object type."""
    out: dict[str, Value] = {}
    seen: set[str] = set()
    for param in params:
        attr = table.get(param.keyword)
        if attr is None and param.keyword in NEGATIVE_FLAGS:
            candidate = NEGATIVE_FLAGS[param.keyword]
            if table.get(candidate.name) is candidate:
                attr = candidate
        if attr is None or not applies(attr):
            raise command.error(
                f"{param.keyword} is not a keyword of {command.verb} {command.objtype}", param
            )
        if attr.readonly:
            raise command.error(f"{attr.name} is read-only", param)
        _once(command, seen, param, attr.name)
        out[attr.name] = _attr_value(command, param, attr)
    return out


# --- queues -----------------------------------------------------------------------------

QUEUE_KEYWORDS = {"QLOCAL": ("QL",), "QALIAS": ("QA",), "QMODEL": ("QM",)}
QUEUE_TYPE_NAMES = {
    "QL": "QLOCAL",
    "QA": "QALIAS",
    "QM": "QMODEL",
    "QLOCAL": "QLOCAL",
    "QALIAS": "QALIAS",
    "QMODEL": "QMODEL",
}


def _queue_attr_applies(qtype: str) -> Callable[[Attr], bool]:
    return lambda attr: qtype in attr.types


def _like_replace(command: Command) -> tuple[str | None, bool, list[Param]]:
    """DEFINE's LIKE(name) and REPLACE/NOREPLACE, and the other keywords."""
    like: str | None = None
    replace = False
    rest: list[Param] = []
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "LIKE":
            _once(command, seen, param, "LIKE")
            like = param.value()
            if not like:
                raise command.error("LIKE needs an object name", param)
        elif param.keyword in ("REPLACE", "NOREPLACE"):
            _once(command, seen, param, "REPLACE")
            if param.has_value:
                raise command.error(f"{param.keyword} is written without a value", param)
            replace = param.keyword == "REPLACE"
        else:
            rest.append(param)
    return like, replace, rest


def define_queue(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    like, replace, rest = _like_replace(command)
    attrs = attribute_params(
        command, QUEUE_ATTR_BY_NAME, rest, _queue_attr_applies(command.objtype)
    )
    qm.define_queue(command.objtype, name, attrs, like=like, replace=replace)
    return Outcome("AMQ8006I: mqjms queue created.")


def alter_queue(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    attrs = attribute_params(
        command, QUEUE_ATTR_BY_NAME, command.params, _queue_attr_applies(command.objtype)
    )
    qm.alter_queue(name, attrs, qtype=command.objtype)
    return Outcome("AMQ8008I: mqjms queue changed.")


def delete_queue(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    purge = False
    seen: set[str] = set()
    for param in command.params:
        if param.keyword not in ("PURGE", "NOPURGE"):
            raise command.error(
                f"{param.keyword} is not a keyword of DELETE {command.objtype}", param
            )
        if command.objtype != "QLOCAL":
            raise command.error(f"{param.keyword} applies to DELETE QLOCAL only", param)
        if param.has_value:
            raise command.error(f"{param.keyword} is written without a value", param)
        _once(command, seen, param, "PURGE")
        purge = param.keyword == "PURGE"
    qm.delete_queue(name, command.objtype, purge=purge)
    return Outcome("AMQ8007I: mqjms queue deleted.")


def clear_queue(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of CLEAR QLOCAL", param)
    cleared = qm.clear_queue(name)
    plural = "" if cleared == 1 else "s"
    return Outcome(
        f"AMQ8022I: mqjms queue cleared ({cleared} message{plural} removed).", count=cleared
    )


_COMPARE: dict[str, Callable[[Any, Any], Any]] = {
    "EQ": operator.eq,
    "NE": operator.ne,
    "LT": operator.lt,
    "GT": operator.gt,
    "LE": operator.le,
    "GE": operator.ge,
}


@dataclass(frozen=True, slots=True)
class Where:
    """A DISPLAY filter: ``WHERE(attr op value)``."""

    attr: str
    op: str
    value: Value

    def matches(self, obj: Mapping[str, Value]) -> bool:
        if self.attr not in obj:
            return False  # the attribute does not apply to this object type
        actual = obj[self.attr]
        if self.op in ("LK", "NL"):
            text, pattern = str(actual), str(self.value)
            like = text.startswith(pattern[:-1]) if pattern.endswith("*") else text == pattern
            return like if self.op == "LK" else not like
        return bool(_COMPARE[self.op](actual, self.value))


def _where(command: Command, param: Param, table: Mapping[str, Attr]) -> Where:
    tokens = param.tokens or []
    if len(tokens) != 3 or tokens[0].kind != WORD or tokens[1].kind != WORD:
        at = tokens[0] if tokens else None
        raise MQSCSyntaxError(
            "WHERE needs (attribute operator value), e.g. WHERE(CURDEPTH GT 0)",
            at.shown() if at else "WHERE",
            at.pos if at else param.pos,
            command.text,
        )
    name_tok, op_tok, value_tok = tokens
    keyword = name_tok.text.upper()
    attr = table.get(keyword) or NEGATIVE_FLAGS.get(keyword)
    if attr is None or table.get(attr.name) is not attr:
        raise MQSCSyntaxError(
            "not an attribute to filter on", name_tok.text, name_tok.pos, command.text
        )
    op = op_tok.text.upper()
    raw = value_tok.text if value_tok.kind == STRING else value_tok.text.upper()
    value: Value
    if attr.kind == INT:
        ops = tuple(_COMPARE)
        try:
            value = 0 if attr.name == "EXPRYINT" and raw == "OFF" else int(raw)
        except ValueError:
            raise MQSCSyntaxError(
                f"{attr.name} is compared with a whole number",
                value_tok.shown(),
                value_tok.pos,
                command.text,
            ) from None
    elif attr.kind == FLAG:
        ops = ("EQ", "NE")
        if raw in (attr.name, "YES"):
            value = True
        elif raw in (attr.negative, "NO"):
            value = False
        else:
            raise MQSCSyntaxError(
                f"{attr.name} is compared with {attr.name} or {attr.negative}",
                value_tok.shown(),
                value_tok.pos,
                command.text,
            )
    else:
        ops = ("EQ", "NE", "LK", "NL")
        value = raw
    if op not in ops:
        raise MQSCSyntaxError(
            f"operator for {attr.name} must be one of {', '.join(ops)}",
            op_tok.text,
            op_tok.pos,
            command.text,
        )
    return Where(attr.name, op, value)


def display_queue(qm: QueueManager, command: Command) -> Outcome:
    pattern = _check_object_name(command, generic=True)
    qtype = command.objtype
    wanted: list[str] = []
    show_all = False
    where: Where | None = None
    seen: set[str] = set()
    for param in command.params:
        keyword = param.keyword
        if keyword == "ALL":
            if param.has_value:
                raise command.error("ALL is written without a value", param)
            show_all = True
        elif keyword == "WHERE":
            _once(command, seen, param, "WHERE")
            where = _where(command, param, QUEUE_ATTR_BY_NAME)
        elif keyword == "TYPE":
            if qtype != "QUEUE":
                raise command.error("TYPE(...) filters DISPLAY QUEUE only", param)
            _once(command, seen, param, "TYPE")
            value = param.value()
            if value != "ALL" and value not in QUEUE_TYPE_NAMES:
                raise command.error("TYPE must be ALL, QLOCAL, QALIAS or QMODEL", param)
            qtype = "QUEUE" if value == "ALL" else QUEUE_TYPE_NAMES[value]
        else:
            attr = QUEUE_ATTR_BY_NAME.get(keyword) or NEGATIVE_FLAGS.get(keyword)
            if attr is None or QUEUE_ATTR_BY_NAME.get(attr.name) is not attr:
                raise command.error(f"{keyword} is not a queue attribute mqjms knows", param)
            if param.has_value:
                raise command.error(f"{keyword} is written without a value in DISPLAY", param)
            if attr.name not in wanted:
                wanted.append(attr.name)
    if where is not None and where.attr not in wanted:
        wanted.append(where.attr)  # runmqsc shows the attribute it filtered on
    objects = qm.display_queues(pattern, qtype, None)
    if not objects:
        what = "queue" if qtype == "QUEUE" else qtype
        raise failed(
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"no {what} matches {pattern!r}"
            if pattern.endswith("*")
            else f"{what} {pattern!r} is not defined",
        )
    if where is not None:
        objects = [o for o in objects if where.matches(o)]
    if not show_all:
        keep = {"QUEUE", "TYPE", *wanted}
        objects = [{k: v for k, v in o.items() if k in keep} for o in objects]
    return Outcome("AMQ8409I: Display Queue details.", objects)


# --- process definitions (triggering, seed 003) ----------------------------------------


def define_process(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    like, replace, rest = _like_replace(command)
    attrs = attribute_params(command, PROCESS_ATTR_BY_NAME, rest)
    qm.define_process(name, attrs, like=like, replace=replace)
    return Outcome("mqjms process created.")


def alter_process(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    qm.alter_process(name, attribute_params(command, PROCESS_ATTR_BY_NAME, command.params))
    return Outcome("mqjms process changed.")


def delete_process(qm: QueueManager, command: Command) -> Outcome:
    name = _check_object_name(command)
    if command.params:
        param = command.params[0]
        raise command.error(f"{param.keyword} is not a keyword of DELETE PROCESS", param)
    qm.delete_process(name)
    return Outcome("mqjms process deleted.")


def display_process(qm: QueueManager, command: Command) -> Outcome:
    pattern = _check_object_name(command, generic=True)
    wanted: list[str] = []
    show_all = False
    where: Where | None = None
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "ALL" and not param.has_value:
            show_all = True
        elif param.keyword == "WHERE":
            _once(command, seen, param, "WHERE")
            where = _where(command, param, PROCESS_ATTR_BY_NAME)
        elif param.keyword in PROCESS_ATTR_BY_NAME and not param.has_value:
            if param.keyword not in wanted:
                wanted.append(param.keyword)
        else:
            raise command.error(f"{param.keyword} is not a process attribute to display", param)
    if where is not None and where.attr not in wanted:
        wanted.append(where.attr)
    objects = qm.display_processes(pattern, None)
    if not objects:
        raise failed(
            C.MQRC_UNKNOWN_OBJECT_NAME,
            f"no process matches {pattern!r}"
            if pattern.endswith("*")
            else f"process {pattern!r} is not defined",
        )
    if where is not None:
        objects = [o for o in objects if where.matches(o)]
    if not show_all:
        keep = {"PROCESS", *wanted}
        objects = [{k: v for k, v in o.items() if k in keep} for o in objects]
    return Outcome("AMQ8407I: Display Process details.", objects)


# --- the queue manager ------------------------------------------------------------------


def alter_qmgr(qm: QueueManager, command: Command) -> Outcome:
    attrs = attribute_params(command, QMGR_ATTR_BY_NAME, command.params)
    qm.alter_qmgr(attrs)
    return Outcome("AMQ8005I: mqjms queue manager changed.")


def display_qmgr(qm: QueueManager, command: Command) -> Outcome:
    wanted: list[str] = []
    show_all = not command.params
    for param in command.params:
        if param.has_value:
            raise command.error(f"{param.keyword} is written without a value in DISPLAY", param)
        if param.keyword == "ALL":
            show_all = True
        elif param.keyword in QMGR_ATTR_BY_NAME:
            wanted.append(param.keyword)
        elif param.keyword != "QMNAME":
            raise command.error(
                f"{param.keyword} is not a queue manager attribute mqjms knows", param
            )
    return Outcome(
        "AMQ8408I: Display Queue Manager details.", [qm.display_qmgr(None if show_all else wanted)]
    )


def refresh_qmgr(qm: QueueManager, command: Command) -> Outcome:
    kind: str | None = None
    pattern = "*"
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "TYPE":
            _once(command, seen, param, "TYPE")
            kind = param.value()
            if kind != "EXPIRY":
                raise command.error("mqjms refreshes TYPE(EXPIRY) only", param)
        elif param.keyword == "NAME":
            _once(command, seen, param, "NAME")
            pattern = param.value() or "*"
        else:
            raise command.error(f"{param.keyword} is not a keyword of REFRESH QMGR", param)
    if kind is None:
        raise command.error("REFRESH QMGR needs TYPE(EXPIRY)")
    if pattern != "*":
        base = pattern[:-1] if pattern.endswith("*") else pattern
        try:
            validate_name(base, "queue")
        except MQError as exc:
            raise failed(C.MQRCCF_OBJECT_NAME_ERROR, exc.detail) from None
    discarded = qm.refresh_expiry(pattern)
    plural = "" if discarded == 1 else "s"
    return Outcome(
        f"mqjms queue manager refreshed: {discarded} expired message{plural} "
        f"discarded from {pattern}.",
        count=discarded,
    )


for _qtype, _aliases in QUEUE_KEYWORDS.items():
    register("DEFINE", _qtype, *_aliases)(define_queue)
    register("ALTER", _qtype, *_aliases)(alter_queue)
    register("DELETE", _qtype, *_aliases)(delete_queue)
    register("DISPLAY", _qtype, *_aliases)(display_queue)
register("CLEAR", "QLOCAL", "QL")(clear_queue)
register("DISPLAY", "QUEUE", "Q")(display_queue)
register("ALTER", "QMGR", unnamed=True)(alter_qmgr)
register("DISPLAY", "QMGR", unnamed=True)(display_qmgr)
register("REFRESH", "QMGR", unnamed=True)(refresh_qmgr)
register("DEFINE", "PROCESS", "PRO")(define_process)
register("ALTER", "PROCESS", "PRO")(alter_process)
register("DELETE", "PROCESS", "PRO")(delete_process)
register("DISPLAY", "PROCESS", "PRO")(display_process)

# Publish/subscribe (TOPIC, SUB, TPSTATUS) registers its handlers in a module of its own.
from . import mqsc_topics  # noqa: E402, F401

__all__ = [
    "Command",
    "CommandResult",
    "MQSCSyntaxError",
    "Outcome",
    "Param",
    "Token",
    "attribute_params",
    "format_attribute",
    "format_object",
    "iter_commands",
    "parse_command",
    "register",
    "run_command",
    "run_script",
    "summary",
    "tokenize",
]
