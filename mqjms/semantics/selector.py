"""JMS message selectors (JMS 2.0 section 3.8.1), as IBM MQ evaluates a subscription's
SelectionString: a conditional expression over message properties and header fields.

``compile_selector("price > 100 AND venue IN ('x', 'y')")`` parses once (2459
MQRC_SELECTOR_SYNTAX_ERROR for bad syntax); ``selector.matches(values)`` evaluates it
against a mapping of identifier -> value (a missing identifier is NULL). SQL's
three-valued logic applies: a comparison with NULL is *unknown*, and only a selector that
evaluates to TRUE selects the message.

What is supported: string literals ('it''s'), exact and approximate numbers, TRUE/FALSE,
identifiers, parentheses, ``NOT AND OR``, ``= <> < <= > >=``, ``+ - * /`` (unary too),
``[NOT] BETWEEN a AND b``, ``[NOT] IN ('a', ...)``, ``[NOT] LIKE 'p%t_rn' [ESCAPE 'c']``,
``IS [NOT] NULL``. Keywords are case-insensitive, identifiers case-sensitive.
Comparing values of different types (a string with a number) is false, as JMS says.
JMS 2.0 also says: ``/`` of two exact (integer) numbers divides as integers do (Java's
truncation toward zero: ``7 / 2 = 3``); strings and booleans compare with ``=`` and ``<>``
only (``<`` on a string or boolean literal is 2459, on such a value at run time unknown);
``NOT``, ``AND`` and ``OR`` of a value that is not a boolean are unknown. ``LIKE`` matches
without backtracking blow-up (:mod:`.globbing`), and a selector nested too deeply to parse
is 2459, never a RecursionError.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.mq.jms import JmsHeaders, parse_jms_folders
from mqjms.mq.md import MQMD
from mqjms.mq.rfh2 import chain_folders, is_rfh2

from .globbing import ANY, ONE, Tokens, glob

Value = str | int | float | bool | None
Expr = Callable[[Mapping[str, object]], Value]

_KEYWORDS = frozenset(
    {"NOT", "AND", "OR", "BETWEEN", "LIKE", "IN", "IS", "NULL", "TRUE", "FALSE", "ESCAPE"}
)
_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<string>'(?:[^']|'')*')"
    r"|(?P<number>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[lLfFdD]?)"
    r"|(?P<ident>[A-Za-z_$][A-Za-z0-9_$.]*)"
    r"|(?P<op><>|<=|>=|[=<>+\-*/(),])"
    r")"
)


@dataclass(frozen=True, slots=True)
class Selector:
    """A compiled selector: ``matches(values)`` is True when it selects them."""

    text: str
    expr: Expr

    def matches(self, values: Mapping[str, object]) -> bool:
        return self.expr(values) is True


def compile_selector(text: str) -> Selector:
    """Parse ``text`` (a blank one selects everything); 2459 MQRC_SELECTOR_SYNTAX_ERROR."""
    if not isinstance(text, str):
        raise TypeError(f"a selector is a str, not {type(text).__name__}")
    return _compiled(text)


@functools.lru_cache(maxsize=16384)  # every publish asks for each subscription's selector
def _compiled(text: str) -> Selector:
    if not text.strip():
        return Selector(text, lambda values: True)
    try:
        expr = _Parser(text).parse()
    except RecursionError:
        raise _error(text, "nested too deeply") from None
    return Selector(text, expr)


def _error(text: str, problem: str) -> MQError:
    return failed(C.MQRC_SELECTOR_SYNTAX_ERROR, f"selector {text!r}: {problem}")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(text):
            if not text[pos:].strip():
                break
            found = _TOKEN.match(text, pos)
            if found is None or found.lastgroup is None:
                raise _error(text, f"unexpected {text[pos:].strip()[:20]!r}")
            kind, value = found.lastgroup, found.group(found.lastgroup)
            if kind == "ident" and value.upper() in _KEYWORDS:
                kind, value = "kw", value.upper()
            self.tokens.append((kind, value))
            pos = found.end()
        self.at = 0
        # the expressions whose type is known as they are parsed: literals, "string"/"bool"
        self.literal_kind: dict[Expr, str] = {}

    # ------------------------------------------------------------------ tokens
    def _peek(self) -> tuple[str, str]:
        return self.tokens[self.at] if self.at < len(self.tokens) else ("end", "")

    def _take(self, kind: str, value: str | None = None) -> bool:
        tok_kind, tok_value = self._peek()
        if tok_kind == kind and (value is None or tok_value == value):
            self.at += 1
            return True
        return False

    def _expect(self, kind: str, value: str) -> None:
        if not self._take(kind, value):
            raise _error(self.text, f"expected {value} at {self._peek()[1] or 'the end'!r}")

    # ------------------------------------------------------------------ grammar
    def parse(self) -> Expr:
        expr = self._or()
        if self._peek()[0] != "end":
            raise _error(self.text, f"unexpected {self._peek()[1]!r}")
        return expr

    def _or(self) -> Expr:
        left = self._and()
        while self._take("kw", "OR"):
            left = _or(left, self._and())
        return left

    def _and(self) -> Expr:
        left = self._not()
        while self._take("kw", "AND"):
            left = _and(left, self._not())
        return left

    def _not(self) -> Expr:
        if self._take("kw", "NOT"):
            inner = self._not()
            return lambda v: None if (r := _truth(inner(v))) is None else not r
        return self._predicate()

    def _predicate(self) -> Expr:
        left = self._sum()
        kind, value = self._peek()
        if kind == "op" and value in _COMPARE:
            self.at += 1
            right = self._sum()
            if value not in ("=", "<>"):
                for side in (left, right):
                    if side in self.literal_kind:
                        raise _error(
                            self.text,
                            f"{value} compares numbers only, not a {self.literal_kind[side]}",
                        )
            return _comparison(value, left, right)
        negate = self._take("kw", "NOT")
        if self._take("kw", "BETWEEN"):
            low = self._sum()
            self._expect("kw", "AND")
            expr = _between(left, low, self._sum())
        elif self._take("kw", "IN"):
            expr = _in(left, self._string_list())
        elif self._take("kw", "LIKE"):
            expr = _like(left, self._pattern())
        elif not negate and self._take("kw", "IS"):
            is_not = self._take("kw", "NOT")
            self._expect("kw", "NULL")
            return lambda v: (left(v) is None) != is_not
        elif negate:
            raise _error(self.text, "NOT here must be followed by BETWEEN, IN or LIKE")
        else:
            return left
        return (lambda v: None if (r := expr(v)) is None else not r) if negate else expr

    def _string_list(self) -> tuple[str, ...]:
        self._expect("op", "(")
        items = [self._string_literal()]
        while self._take("op", ","):
            items.append(self._string_literal())
        self._expect("op", ")")
        return tuple(items)

    def _string_literal(self) -> str:
        kind, value = self._peek()
        if kind != "string":
            raise _error(self.text, f"expected a string literal at {value or 'the end'!r}")
        self.at += 1
        return value[1:-1].replace("''", "'")

    def _pattern(self) -> Tokens:
        pattern = self._string_literal()
        escape = self._string_literal() if self._take("kw", "ESCAPE") else None
        if escape is not None and len(escape) != 1:
            raise _error(self.text, f"ESCAPE {escape!r} is not one character")
        out: list[str] = []
        i = 0
        while i < len(pattern):
            char = pattern[i]
            if escape is not None and char == escape and i + 1 < len(pattern):
                out.append(pattern[i + 1])
                i += 2
                continue
            if char == "%":
                if not out or out[-1] != ANY:  # a run of % is one
                    out.append(ANY)
            else:
                out.append(ONE if char == "_" else char)
            i += 1
        return tuple(out)

    def _sum(self) -> Expr:
        left = self._product()
        while (tok := self._peek()) in (("op", "+"), ("op", "-")):
            self.at += 1
            left = _arithmetic(tok[1], left, self._product())
        return left

    def _product(self) -> Expr:
        left = self._unary()
        while (tok := self._peek()) in (("op", "*"), ("op", "/")):
            self.at += 1
            left = _arithmetic(tok[1], left, self._unary())
        return left

    def _unary(self) -> Expr:
        if self._take("op", "-"):
            inner = self._unary()
            return lambda v: -r if _is_number(r := inner(v)) else None  # type: ignore[operator]
        if self._take("op", "+"):
            inner = self._unary()
            return lambda v: r if _is_number(r := inner(v)) else None
        return self._primary()

    def _primary(self) -> Expr:
        kind, value = self._peek()
        self.at += 1
        if kind == "op" and value == "(":
            inner = self._or()
            self._expect("op", ")")
            return inner
        if kind == "string":
            text = value[1:-1].replace("''", "'")
            string: Expr = lambda v: text  # noqa: E731
            self.literal_kind[string] = "string"
            return string
        if kind == "number":
            number = _number(value)
            return lambda v: number
        if kind == "kw" and value in ("TRUE", "FALSE"):
            truth = value == "TRUE"
            boolean: Expr = lambda v: truth  # noqa: E731
            self.literal_kind[boolean] = "boolean"
            return boolean
        if kind == "kw" and value == "NULL":
            return lambda v: None
        if kind == "ident":
            return lambda v: _value(v.get(value))
        self.at -= 1
        raise _error(self.text, f"unexpected {value or 'end'!r}")


def _number(text: str) -> int | float:
    stripped = text.rstrip("lLfFdD")
    if re.fullmatch(r"\d+", stripped) and text[-1:] not in "fFdD":
        return int(stripped)
    return float(stripped)


def _value(raw: object) -> Value:
    if raw is None or isinstance(raw, str | int | float | bool):
        return raw
    return str(raw)


def _is_number(value: Value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _truth(value: Value) -> bool | None:
    """A value as NOT, AND and OR take it: a boolean, else unknown."""
    return value if isinstance(value, bool) else None


def _and(left: Expr, right: Expr) -> Expr:
    def both(v: Mapping[str, object]) -> Value:
        a = _truth(left(v))
        if a is False:
            return False
        b = _truth(right(v))
        if b is False:
            return False
        return None if a is None or b is None else True

    return both


def _or(left: Expr, right: Expr) -> Expr:
    def either(v: Mapping[str, object]) -> Value:
        a = _truth(left(v))
        if a is True:
            return True
        b = _truth(right(v))
        if b is True:
            return True
        return None if a is None or b is None else False

    return either


_COMPARE: dict[str, Callable[[object, object], bool]] = {
    "=": lambda a, b: a == b,
    "<>": lambda a, b: a != b,
    "<": lambda a, b: a < b,  # type: ignore[operator]
    "<=": lambda a, b: a <= b,  # type: ignore[operator]
    ">": lambda a, b: a > b,  # type: ignore[operator]
    ">=": lambda a, b: a >= b,  # type: ignore[operator]
}


def _comparison(op: str, left: Expr, right: Expr) -> Expr:
    compare = _COMPARE[op]

    def evaluate(v: Mapping[str, object]) -> Value:
        a, b = left(v), right(v)
        if a is None or b is None:
            return None
        if _is_number(a) and _is_number(b):
            return compare(a, b)
        if type(a) is not type(b):
            return False  # JMS: comparing values of different types is false
        if op not in ("=", "<>"):
            return None  # strings and booleans compare for equality only
        return compare(a, b)

    return evaluate


def _arithmetic(op: str, left: Expr, right: Expr) -> Expr:
    def evaluate(v: Mapping[str, object]) -> Value:
        a, b = left(v), right(v)
        if not (isinstance(a, int | float) and isinstance(b, int | float)):
            return None
        if isinstance(a, bool) or isinstance(b, bool):
            return None
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if b == 0:
            return None
        if isinstance(a, int) and isinstance(b, int):  # exact: Java's, toward zero
            quotient = abs(a) // abs(b)
            return quotient if (a < 0) == (b < 0) else -quotient
        return a / b

    return evaluate


def _between(value: Expr, low: Expr, high: Expr) -> Expr:
    def evaluate(v: Mapping[str, object]) -> Value:
        x, a, b = value(v), low(v), high(v)
        if x is None or a is None or b is None:
            return None
        if not (_is_number(x) and _is_number(a) and _is_number(b)):
            return False
        return a <= x <= b  # type: ignore[operator]

    return evaluate


def _in(value: Expr, items: tuple[str, ...]) -> Expr:
    def evaluate(v: Mapping[str, object]) -> Value:
        x = value(v)
        if x is None:
            return None
        return isinstance(x, str) and x in items

    return evaluate


def _like(value: Expr, pattern: Tokens) -> Expr:
    def evaluate(v: Mapping[str, object]) -> Value:
        x = value(v)
        if x is None:
            return None
        return isinstance(x, str) and glob(pattern, x)

    return evaluate


def message_values(md: MQMD, data: bytes) -> dict[str, object]:
    """What a selector reads of a message: the properties of its RFH2's ``usr`` folder,
    and the JMS header fields a selector may name (JMSDeliveryMode as 'PERSISTENT' or
    'NON_PERSISTENT', JMSPriority, JMSMessageID, JMSCorrelationID, JMSTimestamp, JMSType),
    from the MQMD and the ``mcd``/``jms`` folders. A message whose RFH2 cannot be read
    has no properties (only its MQMD's fields)."""
    headers: JmsHeaders | None = None
    values: dict[str, object] = {}
    if is_rfh2(md.Format):
        try:
            chain = chain_folders(data, md.Encoding, md.CodedCharSetId, md.Format)
            headers, properties = parse_jms_folders(chain.folders)
            values.update(properties)
        except (MQError, ValueError):
            pass
    values["JMSDeliveryMode"] = (
        "PERSISTENT" if md.Persistence == C.MQPER_PERSISTENT else "NON_PERSISTENT"
    )
    values["JMSPriority"] = md.Priority
    values["JMSMessageID"] = "ID:" + md.MsgId.hex()
    if headers is not None and headers.correlation_id is not None:
        values["JMSCorrelationID"] = headers.correlation_id
    elif md.CorrelId != C.MQCI_NONE:
        values["JMSCorrelationID"] = "ID:" + md.CorrelId.hex()
    if headers is not None and headers.timestamp is not None:
        values["JMSTimestamp"] = headers.timestamp
    if headers is not None and headers.type is not None:
        values["JMSType"] = headers.type
    return values
