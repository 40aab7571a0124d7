"""Transports: how messages move. Every transport speaks the contract of
:mod:`mqjms.semantics` (:class:`Connection`) and is found by its URL's scheme in a registry
(:mod:`.registry`: built-ins, the ``mqjms.transports`` entry points, :func:`register`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqjms._lazy import exports

if TYPE_CHECKING:
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

#: Where each public name lives; it is imported on first access (PEP 562).
_WHERE: dict[str, tuple[str, ...]] = {
    "mqjms.semantics": (
        "Browse",
        "Capability",
        "Connection",
        "ConnectionWrapper",
        "Context",
        "Handle",
        "commit_and_get",
        "put_warning",
    ),
    ".registry": ("Factory", "connect", "register", "schemes", "unregister"),
    ".url": ("DEFAULT_URL", "ENV_VAR", "redact", "resolve_url", "scheme_of"),
}

if not TYPE_CHECKING:
    __getattr__, __dir__ = exports(__name__, _WHERE)

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
