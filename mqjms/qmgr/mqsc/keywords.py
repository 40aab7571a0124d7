"""The keywords commands share: object names, attribute keywords (DEFINE, ALTER),
LIKE/REPLACE, and DISPLAY's selection (ALL, attribute names, ``WHERE(attr op value)``)."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed
from mqjms.semantics.attributes import FLAG, INT, NEGATIVE_FLAGS, TEXT, Attr, validate_name

from .lexer import STRING, WORD, MQSCSyntaxError
from .parser import Command, Param
from .registry import ObjectAttrs, Value


def object_name(command: Command, generic: bool = False) -> str:
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


def once(command: Command, seen: set[str], param: Param, keyword: str) -> None:
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
        once(command, seen, param, attr.name)
        out[attr.name] = _attr_value(command, param, attr)
    return out


def like_replace(command: Command) -> tuple[str | None, bool, list[Param]]:
    """DEFINE's LIKE(name) and REPLACE/NOREPLACE, and the other keywords."""
    like: str | None = None
    replace = False
    rest: list[Param] = []
    seen: set[str] = set()
    for param in command.params:
        if param.keyword == "LIKE":
            once(command, seen, param, "LIKE")
            like = param.value()
            if not like:
                raise command.error("LIKE needs an object name", param)
        elif param.keyword in ("REPLACE", "NOREPLACE"):
            once(command, seen, param, "REPLACE")
            if param.has_value:
                raise command.error(f"{param.keyword} is written without a value", param)
            replace = param.keyword == "REPLACE"
        else:
            rest.append(param)
    return like, replace, rest


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


def where_filter(command: Command, param: Param, table: Mapping[str, Attr]) -> Where:
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


@dataclass(slots=True)
class Selection:
    """What a DISPLAY asks to see: every attribute (ALL) or the ones named, and a filter."""

    wanted: list[str] = field(default_factory=list)
    show_all: bool = False
    where: Where | None = None

    def apply(self, objects: list[ObjectAttrs], always: Iterable[str]) -> list[ObjectAttrs]:
        """The objects that pass the filter, with the attributes asked for (and ``always``)."""
        if self.where is not None:
            objects = [o for o in objects if self.where.matches(o)]
        if self.show_all:
            return objects
        keep = {*always, *self.wanted}
        if self.where is not None:
            keep.add(self.where.attr)  # runmqsc shows the attribute it filtered on
        return [{k: v for k, v in o.items() if k in keep} for o in objects]


def display_selection(
    command: Command,
    table: Mapping[str, Attr],
    what: str,
    other: Callable[[Param], bool] = lambda param: False,
) -> Selection:
    """DISPLAY's keywords for an object whose attributes are ``table``; ``other`` takes
    the keywords of one object type (DISPLAY QUEUE's TYPE) and says it did."""
    selection = Selection()
    seen: set[str] = set()
    for param in command.params:
        keyword = param.keyword
        if other(param):
            continue
        if keyword == "ALL":
            if param.has_value:
                raise command.error("ALL is written without a value", param)
            selection.show_all = True
        elif keyword == "WHERE":
            once(command, seen, param, "WHERE")
            selection.where = where_filter(command, param, table)
        else:
            attr = table.get(keyword) or NEGATIVE_FLAGS.get(keyword)
            if attr is None or table.get(attr.name) is not attr:
                raise command.error(f"{keyword} is not a {what} attribute mqjms knows", param)
            if param.has_value:
                raise command.error(f"{keyword} is written without a value in DISPLAY", param)
            if attr.name not in selection.wanted:
                selection.wanted.append(attr.name)
    return selection


def none_found(what: str, pattern: str) -> MQError:
    """A DISPLAY that matched nothing."""
    if pattern.endswith("*"):
        return failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"no {what} matches {pattern!r}")
    return failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"{what} {pattern!r} is not defined")
