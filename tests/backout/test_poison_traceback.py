"""The traceback a poison message's move logs: what Python prints, chains and exception
groups included, without the caret lines (drawing them parses every line of the stack:
most of what the last failure of a poison message cost)."""

from __future__ import annotations

import traceback

from mqjms.backout import Failure
from mqjms.backout.failure import MAX_TRACEBACK_LENGTH


class Order:
    pass


def _listener(msg: dict[str, object]) -> None:
    msg["order"].total * 2  # type: ignore[attr-defined]


def _failed() -> BaseException:
    try:
        try:
            _listener({"order": Order()})
        except AttributeError as exc:
            raise RuntimeError("could not price the order") from exc
    except RuntimeError as exc:
        return exc
    raise AssertionError("the listener did not fail")


def _caret_lines(text: str) -> list[str]:
    return [
        line
        for line in text.splitlines()
        if line.strip(" |") and not set(line.strip(" |")) - set("^~")
    ]


def test_the_traceback_is_pythons_without_the_caret_lines() -> None:
    exc = _failed()
    text = Failure.from_exception(exc, "app.listener", "Q").traceback
    python = "".join(traceback.format_exception(exc))
    assert _caret_lines(python)  # Python 3.11+ draws carets under this frame
    assert not _caret_lines(text)
    # every other line is Python's own, in order: the chain and its cause
    expected = [line for line in python.splitlines() if line not in _caret_lines(python)]
    assert text.splitlines() == expected
    assert "The above exception was the direct cause" in text
    assert "AttributeError: 'Order' object has no attribute 'total'" in text


def test_an_exception_group_is_formatted_with_its_members() -> None:
    try:
        raise ExceptionGroup("two orders failed", [_failed(), ValueError("bad quantity")])
    except ExceptionGroup as group:
        text = Failure.from_exception(group, "app.listener", "Q").traceback
    assert "ExceptionGroup: two orders failed (2 sub-exceptions)" in text
    assert "ValueError: bad quantity" in text and "RuntimeError: could not price" in text
    assert not _caret_lines(text)


def test_a_chain_of_thousands_of_exceptions_is_formatted() -> None:
    # the walk that drops the carets must not recurse once per link: a RecursionError
    # here would fail the failure handling itself
    error: BaseException = ValueError("the first")
    for n in range(3000):
        try:
            raise RuntimeError(f"link {n}") from error
        except RuntimeError as exc:
            error = exc
    text = Failure.from_exception(error, "app.listener", "Q").traceback
    # too long to log whole: its end, which names the exception raised, is kept
    assert len(text) == MAX_TRACEBACK_LENGTH and text.startswith("…")
    assert text.endswith("RuntimeError: link 2999\n")


def _full_report(exc: BaseException) -> str:
    """What the move logged before an exception alone took a shorter way: the whole
    report, its column positions dropped."""
    from mqjms.backout.failure import _without_carets

    report = traceback.TracebackException.from_exception(exc)
    _without_carets(report)
    return "".join(report.format())


def _recurse(n: int) -> None:
    if n:
        _recurse(n - 1)
    raise ValueError("deep")


def _caught(fn: object, *args: object) -> BaseException:
    try:
        fn(*args)  # type: ignore[operator]
    except BaseException as exc:
        return exc
    raise AssertionError("no exception")


def _noted() -> None:
    exc = KeyError("sku")
    exc.add_note("while pricing order 7")
    raise exc


def _suppressed() -> None:
    try:
        {}["x"]
    except KeyError:
        raise ValueError("no such sku") from None


def _unprintable() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    raise Unprintable


def test_an_exception_alone_reads_as_the_whole_report() -> None:
    """An exception without a chain is formatted from its frames without their column
    positions (cheaper): the same text as the whole report without its carets."""
    cases = [
        _caught(_listener, {"order": Order()}),  # a caret under this frame
        _caught(_recurse, 40),  # repeated frames: "[Previous line repeated ...]"
        _caught(_noted),
        _caught(_suppressed),  # raise ... from None: its context is not shown
        _caught(_unprintable),
        _caught(compile, "x = (", "<order>", "exec"),  # a SyntaxError's own lines
        _caught(exec, "def f():\n    return 1 / 0\nf()"),  # a frame without source lines
        ValueError("never raised"),  # no traceback at all
    ]
    for exc in cases:
        assert Failure.from_exception(exc, "app.listener", "Q").traceback == _full_report(exc)
