"""Logging defaults: structlog events on standard error, so standard output stays data.

mqjms logs with structlog event names (``poison.moved``) and key-value context. An
application that configures structlog itself keeps its configuration; otherwise mqjms
installs a console renderer on stderr at INFO, or ``MQJMS_LOG_LEVEL``, with
``MQJMS_LOG_FORMAT=json`` for one JSON object per line.
"""

from __future__ import annotations

import logging
import os
import sys

import structlog

_LEVELS = {
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "CRITICAL": logging.CRITICAL,
}


def configure(level: str | None = None, fmt: str | None = None, force: bool = False) -> None:
    """Configure structlog for mqjms unless the application already did (or ``force``)."""
    if structlog.is_configured() and not force:
        return
    name = (level or os.environ.get("MQJMS_LOG_LEVEL") or "INFO").upper()
    fmt = (fmt or os.environ.get("MQJMS_LOG_FORMAT") or "console").lower()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS.get(name, logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=False,
    )
