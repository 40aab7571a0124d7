"""MQSC's tokens: words, ``'quoted'`` strings and parentheses, and the syntax error that
names the offending token and its column."""

from __future__ import annotations

from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError

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
