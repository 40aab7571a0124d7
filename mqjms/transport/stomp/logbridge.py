"""stomp.py's own log lines as structlog events, never raw on standard error.

stomp.py logs through the standard library (logger ``stomp.py``). With no handler set
up, Python prints its warnings raw on standard error: a refused connection shows up twice
beside mqjms's own error line, a failed send with a traceback. mqjms reports what matters
itself (an MQError, ``stomp.*`` events), so stomp.py's lines become debug events
``stomp.library`` (its text, and the exception's repr rather than a traceback), and do
not propagate to the root logger. Its own debug output (frames, with message bodies) is
off unless the application sets the ``stomp.py`` logger's level itself.
"""

from __future__ import annotations

import logging

from mqjms.logs import get_logger

log = get_logger("mqjms.transport.stomp")

LOGGER_NAME = "stomp.py"


class StructlogHandler(logging.Handler):
    """Forwards each record to structlog as a ``stomp.library`` debug event."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
        except Exception:  # a malformed record must not break the caller
            text = str(record.msg)
        fields: dict[str, str] = {"library_level": record.levelname.lower(), "text": text}
        if record.exc_info and record.exc_info[1] is not None:
            fields["error"] = repr(record.exc_info[1])
        log.debug("stomp.library", **fields)


def install() -> None:
    """Route the ``stomp.py`` logger to structlog (once; idempotent)."""
    logger = logging.getLogger(LOGGER_NAME)
    if any(isinstance(handler, StructlogHandler) for handler in logger.handlers):
        return
    logger.addHandler(StructlogHandler())
    logger.propagate = False
    if logger.level == logging.NOTSET:
        logger.setLevel(logging.INFO)
