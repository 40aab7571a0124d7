"""MQ failures as a Spark user reads them.

Spark shows a Python failure with its whole traceback, so an MQ reason raised deep in the
transport or queue manager came with a dozen frames of mqjms internals before it. Raised
afresh here, it is the reason and what failed, from the line of the data source's own
code (the reason code stays, for IBM's documentation).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mqjms.mq.errors import MQError


@contextmanager
def named(what: str) -> Iterator[None]:
    """Inside, an MQError is raised again as one naming ``what``, without the frames
    beneath it."""
    try:
        yield
    except MQError as exc:
        raise MQError(exc.comp, exc.reason, f"{what}: {exc.detail or exc.reason_name}") from None
