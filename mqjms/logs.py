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

An application whose logging is the standard library's calls :func:`configure_stdlib`:
structlog's stdlib integration then sends every event (mqjms's, and the application's
own structlog events) to ``logging`` under the module's logger name (``mqjms.backout``,
...), where the application's handlers, filters and levels apply; :func:`formatter` renders
them, and the application's plain ``logging`` records, as JSON or console lines.

Levels by environment: ``MQJMS_LOG_LEVEL=INFO`` sets mqjms's level; a comma-separated
list also sets levels per logger, ``MQJMS_LOG_LEVEL=WARNING,mqjms.backout=DEBUG``.

structlog is imported on first need, not with mqjms (``import structlog`` loads its dev
console and, when installed, rich: most of ``import mqjms``'s time otherwise). An event
below the level of mqjms's quiet default is dropped before structlog is even looked at,
so a disabled debug line costs a comparison, not a rendering.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import logging

    import structlog

LEVEL_ENV = "MQJMS_LOG_LEVEL"
FORMAT_ENV = "MQJMS_LOG_FORMAT"
ROOT = "mqjms"  # the standard library logger every mqjms logger is below
#: The level of mqjms's events when nobody configured logging: a library stays quiet.
LIBRARY_LEVEL = "WARNING"

# The standard library's level numbers, without importing ``logging`` with mqjms (it is
# loaded when logging is configured through it).
DEBUG, INFO, WARNING, ERROR, CRITICAL = 10, 20, 30, 40, 50
_LEVELS = {"DEBUG": DEBUG, "INFO": INFO, "WARNING": WARNING, "ERROR": ERROR, "CRITICAL": CRITICAL}
_LEVELS.update(WARN=WARNING, FATAL=CRITICAL)  # the standard library's other names
_LEVEL_NAMES = "DEBUG, INFO, WARNING, ERROR or CRITICAL"
_FORMATS = ("console", "json")


#: Set while structlog's configuration is a default the ``mqjms`` command made, which an
#: application's own :func:`configure` or :func:`configure_stdlib` replaces.
_command_default = False


def configure(level: str | None = None, fmt: str | None = None, force: bool = False) -> None:
    """Configure structlog: mqjms's renderer on standard error at ``level`` (default
    ``MQJMS_LOG_LEVEL``, else INFO), unless the application already configured structlog
    (then its configuration stays, and mqjms's events go through it) or ``force``."""
    if _configured_by_application() and not force:
        return
    number = level_number(level, given=True) if level else level_number(levels_from_env()[0])
    _set_configuration(**_stderr_configuration(number, fmt))


def configure_stdlib(
    level: str | None = None,
    fmt: str | None = None,
    *,
    handler: bool = True,
    force: bool = False,
) -> None:
    """Send structlog's events, mqjms's included, through the standard library's logging.

    Each event becomes a ``logging`` record of the logger named after the module that
    logged it (``mqjms.listeners``, ``mqjms.backout``, ...), so the application's handlers,
    filters and levels decide what is written where. ``level`` (default: ``MQJMS_LOG_LEVEL``,
    else INFO) is set on the ``mqjms`` logger, with any per-logger levels of
    ``MQJMS_LOG_LEVEL``. ``handler``: when the root logger has no handler yet, give it one
    on standard error rendering JSON or console lines (``fmt``, default
    ``MQJMS_LOG_FORMAT``) with :func:`formatter`, as ``logging.basicConfig`` would.
    An application that configured structlog itself keeps its configuration unless
    ``force``."""
    import logging

    import structlog

    default_level, per_logger = levels_from_env()
    root = level_number(level, given=True) if level else level_number(default_level)
    logging.getLogger(ROOT).setLevel(root)
    for name, value in per_logger.items():
        logging.getLogger(name).setLevel(level_number(value))
    if handler and not logging.getLogger().handlers:
        stream = logging.StreamHandler(sys.stderr)
        stream.setFormatter(formatter(fmt))
        logging.getLogger().addHandler(stream)
    if _configured_by_application() and not force:
        return
    _set_configuration(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.filter_by_level,
            structlog.stdlib.add_logger_name,
            structlog.stdlib.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


def formatter(fmt: str | None = None) -> logging.Formatter:
    """A ``logging.Formatter`` rendering structlog events and plain ``logging`` records
    alike, as JSON (``fmt="json"``) or console lines (default: ``MQJMS_LOG_FORMAT``);
    for ``logging.config.dictConfig``: ``{"()": "mqjms.logs.formatter", "fmt": "json"}``."""
    import structlog

    shared: list[structlog.typing.Processor] = [
        structlog.stdlib.add_logger_name,
        structlog.stdlib.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared,
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _renderer(fmt),
        ],
    )


def levels_from_env() -> tuple[str | None, dict[str, str]]:
    """``MQJMS_LOG_LEVEL``: mqjms's level, and levels per logger (``name=LEVEL``)."""
    return _parse_levels(os.environ.get(LEVEL_ENV, ""))


@cache
def _parse_levels(text: str) -> tuple[str | None, dict[str, str]]:
    default: str | None = None
    per_logger: dict[str, str] = {}
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if sep:
            per_logger[name.strip()] = value.strip().upper()
        else:
            default = item.upper()
    return default, per_logger


def _level_for(name: str, default: str) -> str:
    """The level of logger ``name``: the longest per-logger prefix, else ``default``."""
    return _level_under(name, default, os.environ.get(LEVEL_ENV, ""))


@cache
def _level_under(name: str, default: str, env: str) -> str:
    env_default, per_logger = _parse_levels(env)
    best, found = -1, env_default or default
    for prefix, value in per_logger.items():
        if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
            best, found = len(prefix), value
    return found


def level_number(name: str | None, *, given: bool = False, default: int = INFO) -> int:
    """The number of level ``name`` (``default`` when None). One that is no level is a
    ValueError when the caller ``given`` it, else (``MQJMS_LOG_LEVEL``) a warning, once,
    and ``default``: more lines than asked for, or fewer, never silently."""
    if name is None:
        return default
    number = _LEVELS.get(name.strip().upper())
    if number is not None:
        return number
    if given:
        raise ValueError(f"log level {name!r} is not one of {_LEVEL_NAMES}")
    _warn_setting(LEVEL_ENV, name, f"is not a log level ({_LEVEL_NAMES})")
    return default


_warned: set[tuple[str, str]] = set()


def _warn_setting(variable: str, value: str, problem: str) -> None:
    """One line on standard error, once per process and value: the setting is the
    user's own, and logging is what it would have configured."""
    if (variable, value) not in _warned:
        _warned.add((variable, value))
        print(f"mqjms: {variable}={value!r} {problem}: ignored", file=sys.stderr)


def _configured_by_application() -> bool:
    return _structlog_configured() and not _command_default


def _set_configuration(**config: Any) -> None:
    global _command_default
    import structlog

    structlog.configure(**config)
    _command_default = False


def configure_for_command(level: int, fmt: str | None = None) -> None:
    """The ``mqjms`` command's default: events at ``level`` on standard error, which an
    application (a Worker module ``mqjms run`` imports) may replace with its own."""
    global _command_default
    import structlog

    structlog.configure(**_stderr_configuration(level, fmt))
    _command_default = True


def _stderr_configuration(level: int, fmt: str | None) -> dict[str, Any]:
    """structlog's configuration for events on standard error at ``level``, with the
    per-logger levels of ``MQJMS_LOG_LEVEL`` (``WARNING,mqjms.backout=DEBUG``) applied by
    the name each logger was made with (``get_logger("mqjms.backout")``)."""
    import structlog

    per_logger = {name: level_number(value) for name, value in levels_from_env()[1].items()}
    processors = _processors(fmt)
    if per_logger:  # filtered at the lowest level, then each event by its logger's
        processors = [_LevelsByLogger(level, per_logger), *processors]
    lowest = min([level, *per_logger.values()])
    return {
        "processors": processors,
        "wrapper_class": structlog.make_filtering_bound_logger(lowest),
        "logger_factory": _StderrPrinter.named,
        "cache_logger_on_first_use": False,
    }


class _LevelsByLogger:
    """A processor dropping an event below the level of its logger: the longest
    per-logger prefix of its name, else ``default`` (a logger made without a name too)."""

    def __init__(self, default: int, per_logger: dict[str, int]) -> None:
        self.default = default
        self.per_logger = per_logger

    def level_of(self, name: str | None) -> int:
        best, found = -1, self.default
        for prefix, value in self.per_logger.items():
            under = name is not None and (name == prefix or name.startswith(prefix + "."))
            if under and len(prefix) > best:
                best, found = len(prefix), value
        return found

    def __call__(self, logger: Any, method_name: str, event: Any) -> Any:
        import structlog

        level = structlog.processors.NAME_TO_LEVEL.get(method_name, CRITICAL)
        if level < self.level_of(getattr(logger, "name", None)):
            raise structlog.DropEvent
        return event


def reset() -> None:
    """Back to nobody's configuration: mqjms's quiet library default applies again."""
    global _command_default
    import structlog

    structlog.reset_defaults()
    _command_default = False


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
        self._proxy: Any = None  # structlog's lazy proxy, made on first use

    def _target(self) -> Any:
        if _structlog_configured():
            if self._proxy is None:
                import structlog

                self._proxy = structlog.get_logger(self._name)  # resolves the configuration lazily
            return self._proxy
        return _library_logger(_level_for(self._name, LIBRARY_LEVEL), os.environ.get(FORMAT_ENV))

    def _log(self, level: int, method: str, event: str, args: Any, kw: Any) -> Any:
        if _structlog_configured():
            target = self._proxy if self._proxy is not None else self._target()
        else:
            named = _level_for(self._name, LIBRARY_LEVEL)
            if level < _LEVELS.get(named.upper(), WARNING):
                return None  # below mqjms's quiet default: nothing to render, structlog untouched
            target = _library_logger(named, os.environ.get(FORMAT_ENV))
        return getattr(target, method)(event, *args, **kw)

    def bind(self, **context: Any) -> Any:
        """A logger with ``context`` on every event, under today's configuration."""
        return self._target().bind(**context)

    def debug(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(DEBUG, "debug", event, args, kw)

    def info(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(INFO, "info", event, args, kw)

    def warning(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(WARNING, "warning", event, args, kw)

    def error(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(ERROR, "error", event, args, kw)

    def critical(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(CRITICAL, "critical", event, args, kw)

    def exception(self, event: str, *args: Any, **kw: Any) -> Any:
        return self._log(ERROR, "exception", event, args, kw)

    def __repr__(self) -> str:
        return f"<MqjmsLogger {self._name}>"


def _structlog_configured() -> bool:
    """Whether anyone configured structlog; False, without importing it, when nobody
    imported it (an application configures structlog by importing it first)."""
    if "structlog" not in sys.modules:
        return False
    import structlog  # waits for another thread's import of it to finish

    return bool(structlog.is_configured())


@cache
def _library_logger(level: str, fmt: str | None) -> Any:
    """mqjms's own bound logger at ``level``, without touching structlog's configuration."""
    import structlog

    wrapper: Any = structlog.make_filtering_bound_logger(level_number(level, default=WARNING))
    return wrapper(_StderrPrinter(), processors=_processors(fmt, given=False), context={})


def _renderer(fmt: str | None, *, given: bool = True) -> structlog.typing.Processor:
    """The renderer for ``fmt``: one the caller ``given`` that is no format is a
    ValueError; ``MQJMS_LOG_FORMAT`` (``fmt`` None, or not ``given``) one line on
    standard error, and console lines."""
    import structlog

    if given and fmt is not None and fmt.lower() not in _FORMATS:
        raise ValueError(f"log format {fmt!r} is not one of {', '.join(_FORMATS)}")
    chosen = (fmt or os.environ.get(FORMAT_ENV) or "console").lower()
    if chosen not in _FORMATS:
        _warn_setting(FORMAT_ENV, chosen, f"is not a log format ({', '.join(_FORMATS)})")
    if chosen == "json":
        return structlog.processors.JSONRenderer()
    if _is_terminal(sys.stderr):
        return structlog.dev.ConsoleRenderer(colors=True)
    from mqjms.plain_console import PlainConsoleRenderer  # the same lines, without colours

    return PlainConsoleRenderer()


def _is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal; no stream (a detached process) or a closed one
    is not, rather than a failure of the first log call."""
    try:
        return stream is not None and bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


@cache
def _processors(fmt: str | None, given: bool = True) -> list[structlog.typing.Processor]:
    import structlog

    renderer = _renderer(fmt, given=given)
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

    def __init__(self, name: str | None = None) -> None:
        #: The name the logger was made with, which per-logger levels go by.
        self.name = name

    @classmethod
    def named(cls, *args: Any) -> _StderrPrinter:
        """structlog's logger factory: ``get_logger(name)`` gives ``name``."""
        return cls(args[0] if args and isinstance(args[0], str) else None)

    def msg(self, message: str) -> None:
        # a terminal gone (EIO), a closed stream: a log line that cannot be written must
        # not fail the work it tells of
        with self._lock, contextlib.suppress(OSError, ValueError):
            stream = sys.stderr
            if stream is None:  # no stderr (a detached process): where print would write
                print(message, file=stream, flush=True)
                return
            stream.write(f"{message}\n")  # what print(message, flush=True) writes, at once
            stream.flush()

    log = debug = info = warn = warning = error = err = critical = fatal = exception = msg
