"""structlog's console lines without colours, rendered in a fraction of the time.

structlog's :class:`~structlog.dev.ConsoleRenderer` formats each key-value pair through a
column formatter writing to a ``StringIO`` of its own: about two thirds of what an mqjms
warning cost (a poison message logs three). Without colours every style is an empty
string, so each column is plain text: :class:`PlainConsoleRenderer` joins the same pieces
directly, and hands any event it was not planned for (an ``exc_info`` to format, columns
or settings changed after it was made, a structlog whose columns differ) to
``ConsoleRenderer`` itself. The text is the same, character for character
(``tests/hygiene/test_plain_console.py`` compares the two).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from structlog.dev import ConsoleRenderer, KeyValueColumnFormatter, LogLevelColumnFormatter

_NOTHING = object()
#: What makes ConsoleRenderer show a string as its ``repr``: any of these characters.
_NEEDS_REPR = re.compile("[ \t=\r\n\"']").search


class _Column(NamedTuple):
    """A plain column: ``prefix``, the value as text padded to ``width``, ``postfix``;
    ``level``: a log level, bracketed (not passed through ``str``)."""

    key: str
    width: int
    prefix: str
    postfix: str
    level: bool


class PlainConsoleRenderer(ConsoleRenderer):
    """``ConsoleRenderer(colors=False)``, the same lines, faster."""

    def __init__(self, **options: Any) -> None:
        super().__init__(colors=False, **options)
        self._planned_for: tuple[object, object] | None = None
        self._plan: tuple[_Column, ...] = ()
        plan = _plain_columns(self)
        if plan is not None:
            self._plan = plan
            self._planned_for = (self._columns, self._default_column_formatter)

    def __call__(self, logger: Any, name: str, event_dict: Any) -> str:
        if (
            "exc_info" in event_dict
            or self._planned_for is None
            or self._planned_for[0] is not self._columns
            or self._planned_for[1] is not self._default_column_formatter
        ):
            return super().__call__(logger, name, event_dict)
        stack = event_dict.pop("stack", None)
        exc = event_dict.pop("exception", None)
        parts = []
        for column in self._plan:
            value = event_dict.pop(column.key, _NOTHING)
            if value is _NOTHING:
                continue
            text = value if column.level else str(value)
            parts.append(column.prefix + _pad(text, column.width) + column.postfix)
        keys = sorted(event_dict) if self._sort_keys else event_dict
        text_of = repr if self._repr_native_str else _text
        parts.extend([key + "=" + text_of(event_dict[key]) for key in keys])
        line = " ".join([part for part in parts if part]).rstrip(" ")
        if stack is not None:
            line += "\n" + stack
            if exc is not None:
                line += "\n\n" + "=" * 79 + "\n"
        if exc is not None:
            line += "\n" + exc
        return line


def _text(value: object) -> str:
    """``ConsoleRenderer._repr`` (its ``repr_native_str`` off), with one scan of a string
    where it builds two sets."""
    if isinstance(value, str):
        return repr(value) if _NEEDS_REPR(value) else value
    return repr(value)


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - len(text))


def _plain_columns(renderer: ConsoleRenderer) -> tuple[_Column, ...] | None:
    """The renderer's columns as plain ones, or None when any of them is not what
    ``ConsoleRenderer(colors=False)`` makes (then every event goes to structlog's)."""
    default = getattr(renderer, "_default_column_formatter", None)
    columns = getattr(renderer, "_columns", None)
    if (
        not isinstance(default, KeyValueColumnFormatter)
        or (default.key_style, default.value_style, default.reset_style) != ("", "", "")
        or (default.width, default.prefix, default.postfix) != (0, "", "")
        or default.value_repr != getattr(renderer, "_repr", None)
        or not isinstance(columns, list)
        or not hasattr(renderer, "_sort_keys")
        or not isinstance(getattr(renderer, "_repr_native_str", None), bool)
    ):
        return None
    plan = []
    for column in columns:
        formatter = column.formatter
        if isinstance(formatter, LogLevelColumnFormatter):
            styles = formatter.level_styles
            if formatter.reset_style or (styles and any(styles.values())):
                return None
            plan.append(_Column(column.key, formatter.width, "[", "]", level=True))
        elif (
            isinstance(formatter, KeyValueColumnFormatter)
            and formatter.key_style is None
            and (formatter.value_style, formatter.reset_style) == ("", "")
            and formatter.value_repr is str
        ):
            plan.append(
                _Column(column.key, formatter.width, formatter.prefix, formatter.postfix, False)
            )
        else:
            return None
    return tuple(plan)
