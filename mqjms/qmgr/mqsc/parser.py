"""MQSC's grammar: a command is a verb, an object (with its name in parentheses, unless
it is the queue manager) and keywords, each bare or with a value in parentheses; a script
is lines, with continuations and comments.

* keywords are case-insensitive and have IBM's abbreviations (``DEF``, ``DIS``, ``ALT``,
  ``QL``, ``QA``, ``QM``, ``Q``);
* values go in parentheses; an unquoted value is folded to upper case, a ``'quoted'``
  one keeps its case and blanks (``''`` is a quote inside a quoted string);
* a line ending in ``-`` continues with the next line as it is, one ending in ``+``
  continues with the next line's first non-blank character; a line whose first
  non-blank character is ``*`` is a comment; ``END`` stops the script.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .lexer import LPAREN, RPAREN, STRING, WORD, MQSCSyntaxError, Token, tokenize
from .registry import HANDLERS, OBJECT_KEYWORDS, UNNAMED_OBJECTS, VERBS, objects_of


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


def _params(tokens: list[Token], start: int, text: str) -> list[Param]:
    params: list[Param] = []
    i = start
    while i < len(tokens):
        token = tokens[i]
        if token.kind != WORD:
            problem = (
                "a value must follow a keyword"
                if token.kind == STRING
                else "unexpected parenthesis"
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
    if objtype is None or (verb, objtype) not in HANDLERS:
        known = objects_of(verb)
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
