"""Transports: how messages move. Every transport speaks the contract of
:mod:`mqjms.semantics` (:class:`Connection`) and is found by its URL's scheme in a registry
(:mod:`.registry`: built-ins, the ``mqjms.transports`` entry points, :func:`register`).
"""

from __future__ import annotations

from mqjms.semantics import (
    Browse,
    Capability,
    Connection,
    ConnectionWrapper,
    Context,
    Handle,
    commit_and_get,
    put_warning,
)

from .registry import Factory, connect, register, schemes, unregister
from .url import DEFAULT_URL, ENV_VAR, redact, resolve_url, scheme_of

__all__ = [
    "DEFAULT_URL",
    "ENV_VAR",
    "Browse",
    "Capability",
    "Connection",
    "ConnectionWrapper",
    "Context",
    "Factory",
    "Handle",
    "commit_and_get",
    "connect",
    "put_warning",
    "redact",
    "register",
    "resolve_url",
    "scheme_of",
    "schemes",
    "unregister",
]
