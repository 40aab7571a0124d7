"""mqjms's console lines without colours (mqjms.plain_console) are structlog's, character
for character: the faster renderer changes what a line costs, never what it reads."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest
import structlog
from structlog.dev import ConsoleRenderer

from mqjms import logs
from mqjms.plain_console import PlainConsoleRenderer

TRACEBACK = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: no'

EVENTS: list[dict[str, Any]] = [
    {
        "timestamp": "2026-11-30T02:14:49.529782Z",
        "level": "warning",
        "event": "poison.moved",
        "queue": "BENCH.POISON",
        "msg_id": "414d5120514d20202020202000003acf00066174f973b27f",
        "backout_count": 2,
        "destination": None,
        "reason": "this message can never be processed",
        "exception": TRACEBACK,
    },
    {"event": "x" * 45, "level": "info", "quote": "it's", "dq": 'say "hi"', "eq": "a=b"},
    {"event": "tabs", "level": "error", "tab": "a\tb", "nl": "a\nb", "cr": "a\rb", "e": ""},
    {"event": "types", "n": 1.5, "b": b"\x00", "d": {"k": [1, 2]}, "t": (1,), "yes": True},
    {"event": "named", "logger": "mqjms.backout", "logger_name": "other", "level": "debug"},
    {"event": "stack", "stack": "Stack (most recent call last):\n  here", "exception": "tb"},
    {"event": "stack only", "stack": "Stack:\n  here"},
    {"event": "", "timestamp": "", "level": "critical"},
    {"level": "warning", "z": 1, "a": 2, "m": 3},  # no event
    {"event": "unicode ☃", "value": "é ü", "level": "notset", "other_level": "exception"},
    {"event": 42, "timestamp": 1.25, "logger": None},  # not strings
    {"event": "exc_info", "exc_info": (ValueError, ValueError("no"), None)},
]


def render(renderer: ConsoleRenderer, event: dict[str, Any]) -> str:
    return renderer(None, "warning", dict(event))


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: str(e.get("event", "none"))[:20])
def test_the_same_lines_as_structlogs_console_renderer(event: dict[str, Any]) -> None:
    assert render(PlainConsoleRenderer(), event) == render(ConsoleRenderer(colors=False), event)


@pytest.mark.parametrize(
    "options",
    [{"sort_keys": False}, {"pad_event_to": 10}, {"pad_level": False}, {"repr_native_str": True}],
)
def test_the_same_lines_with_other_options(options: dict[str, Any]) -> None:
    for event in EVENTS:
        expected = render(ConsoleRenderer(colors=False, **options), event)
        assert render(PlainConsoleRenderer(**options), event) == expected


def test_settings_changed_after_it_was_made_are_structlogs_to_render() -> None:
    plain, reference = PlainConsoleRenderer(), ConsoleRenderer(colors=False)
    for renderer in (plain, reference):
        renderer.pad_event_to = 5
        renderer.sort_keys = False
    for event in EVENTS:
        assert render(plain, event) == render(reference, event)


def test_the_common_event_is_rendered_without_structlogs_column_formatters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The point of it: a warning without exc_info never reaches the formatters."""
    renderer = PlainConsoleRenderer()

    def refused(*_: object) -> str:
        raise AssertionError("rendered by structlog's ConsoleRenderer")

    monkeypatch.setattr(ConsoleRenderer, "__call__", refused)
    assert render(renderer, EVENTS[0]).startswith(
        "2026-11-30T02:14:49.529782Z [warning  ] poison.moved                   backout_count=2"
    )


def test_mqjms_renders_its_plain_lines_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a terminal: mqjms's own configuration renders without colours, through the
    faster renderer; the line reads as structlog's would."""
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    try:
        logs.configure(level="WARNING", force=True)
        renderers = [p for p in structlog.get_config()["processors"] if callable(p)]
        assert isinstance(renderers[-1], PlainConsoleRenderer)
        logs.get_logger("mqjms.test").warning("poison.moved", queue="Q", reason="a b")
    finally:
        logs.reset()
    line = stream.getvalue()
    assert line.endswith(" [warning  ] poison.moved                   queue=Q reason='a b'\n")


def test_a_process_without_stderr_logs_where_print_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """mqjms's printer writes a line in one write; with no ``sys.stderr`` at all (a
    detached process) it goes where ``print`` sends it, standard output, and never fails
    the work it tells of."""
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    printer = logs._StderrPrinter("mqjms.test")
    monkeypatch.setattr(sys, "stderr", None)
    printer.msg("poison.moved queue=Q")
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    printer.msg("message.backed_out queue=Q")
    assert out.getvalue() == "poison.moved queue=Q\n"
    assert stream.getvalue() == "message.backed_out queue=Q\n"


@pytest.mark.parametrize("stderr", ["none", "closed"])
def test_the_first_log_line_of_a_process_without_a_usable_stderr_does_not_fail(
    monkeypatch: pytest.MonkeyPatch, stderr: str
) -> None:
    """The renderer is chosen at the first log call by asking whether stderr is a
    terminal: no stderr, or a closed one, is no terminal, and the work goes on."""
    stream = io.StringIO()
    if stderr == "closed":
        stream.close()
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stderr", None if stderr == "none" else stream)
    logs.reset()
    logs._processors.cache_clear()  # the renderer is chosen again, with this stderr
    try:
        logs.get_logger("mqjms.backout").warning("poison.moved", queue="Q")
    finally:
        logs.reset()
        logs._processors.cache_clear()
    if stderr == "none":
        assert "poison.moved" in out.getvalue()
