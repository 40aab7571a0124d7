"""Logging: structlog events that a library user sees only when asking for them.

mqjms logs with structlog event names (``poison.moved``) and key-value context, on
standard error so that standard output stays data. Importing mqjms configures nothing;
every mqjms module logs through :func:`get_logger`, whose loggers decide at each call:

- structlog is configured (by the application, by :func:`configure`, or by the ``mqjms``
  command): mqjms's events go through that configuration, like the application's own;
- nobody configured structlog: mqjms renders its own events on standard error at WARNING,
  or at ``MQJMS_LOG_LEVEL`` (``MQJMS_LOG_FORMAT=json``: one JSON object per line), and
  leaves structlog's global configuration alone.

So a library user sees warnings and errors only, until they set ``MQJMS_LOG_LEVEL=INFO``
or call ``mqjms.logs.configure(level="INFO")``.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from functools import cache
from typing import Any

import structlog

LEVEL_ENV = "MQJMS_LOG_LEVEL"
FORMAT_ENV = "MQJMS_LOG_FORMAT"
#: The level of mqjms's events when nobody configured logging: a library stays quiet.
LIBRARY_LEVEL = "WARNING"

_LEVELS = {
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "CRITICAL": logging.CRITICAL,
}


def configure(level: str | None = None, fmt: str | None = None, force: bool = False) -> None:
    """Configure structlog: mqjms's renderer on standard error at ``level`` (default
    ``MQJMS_LOG_LEVEL``, else INFO), unless the application already configured structlog
    (then its configuration stays, and mqjms's events go through it) or ``force``."""
    if structlog.is_configured() and not force:
        return
    name = (level or os.environ.get(LEVEL_ENV) or "INFO").upper()
    structlog.configure(
        processors=_processors(fmt),
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(name, logging.INFO)),
        logger_factory=lambda *args: _StderrPrinter(),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> MqjmsLogger:
    """The logger an mqjms module logs with (``log = get_logger("mqjms.backout")``)."""
    return MqjmsLogger(name)


class MqjmsLogger:
    """A structlog logger for mqjms's own events: the global structlog configuration once
    there is one, else mqjms's quiet default (see the module doc). Decided at each call,
    so an application may configure structlog after importing mqjms."""

    __slots__ = ("_name", "_proxy")

    def __init__(self, name: str) -> None:
        self._name = name
        self._proxy: Any = structlog.get_logger(name)  # resolves the configuration lazily

    def _target(self) -> Any:
        if structlog.is_configured():
            return self._proxy
        return _library_logger(
            os.environ.get(LEVEL_ENV) or LIBRARY_LEVEL, os.environ.get(FORMAT_ENV)
        )

    def bind(self, **context: Any) -> Any:
        """A logger with ``context`` on every event, under today's configuration."""
        return self._target().bind(**context)

    def debug(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().debug(event, *args, **kw)

    def info(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().info(event, *args, **kw)

    def warning(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().warning(event, *args, **kw)

    def error(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().error(event, *args, **kw)

    def critical(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().critical(event, *args, **kw)

    def exception(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._target().exception(event, *args, **kw)

    def __repr__(self) -> str:
        return f"<MqjmsLogger {self._name}>"


@cache
def _library_logger(level: str, fmt: str | None) -> Any:
    """mqjms's own bound logger at ``level``, without touching structlog's configuration."""
    wrapper: Any = structlog.make_filtering_bound_logger(
        _LEVELS.get(level.upper(), logging.WARNING)
    )
    return wrapper(_StderrPrinter(), processors=_processors(fmt), context={})


def _processors(fmt: str | None) -> list[structlog.typing.Processor]:
    fmt = (fmt or os.environ.get(FORMAT_ENV) or "console").lower()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
        structlog.processors.format_exc_info,
        renderer,
    ]


class _StderrPrinter:
    """Writes each rendered event as a line to the current ``sys.stderr`` (looked up at
    each call, so a redirected or captured stderr gets it)."""

    _lock = threading.Lock()

    def msg(self, message: str) -> None:
        with self._lock:
            print(message, file=sys.stderr, flush=True)

    log = debug = info = warn = warning = error = err = critical = fatal = exception = msg
