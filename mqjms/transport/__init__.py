"""Transports: how messages move. Every transport speaks :class:`~.base.Connection`."""

from __future__ import annotations

from .base import Browse, Connection, Context, Handle, put_warning
from .url import DEFAULT_URL, ENV_VAR, redact, resolve_url, scheme_of


def connect(url: str | None = None, appl_name: str | None = None) -> Connection:
    """MQCONN for any transport URL (``embedded:``, ``stomp:``, ``mq:``)."""
    url = resolve_url(url)
    scheme = scheme_of(url)
    if scheme == "embedded":
        from . import embedded

        return embedded.connect(url, appl_name)
    if scheme in ("stomp", "stomp+ssl"):
        from . import stomp

        return stomp.connect(url, appl_name)
    if scheme == "mq":
        raise ValueError(
            f"{redact(url)!r}: the IBM MQ transport (pymqi/ibmmq) is not part of this release yet; "
            "use embedded: or stomp:"
        )
    raise ValueError(
        f"unknown transport {scheme!r} in {redact(url)!r}: use embedded:, stomp: or mq:"
    )


__all__ = [
    "DEFAULT_URL",
    "ENV_VAR",
    "Browse",
    "Connection",
    "Context",
    "Handle",
    "connect",
    "put_warning",
    "redact",
    "resolve_url",
]
