"""Transports by URL scheme: a registry, so a third party can add one.

A transport is a factory ``(url, appl_name) -> Connection``. Where :func:`connect` finds
the factory for a URL's scheme, first match wins:

1. :func:`register` (code: ``mqjms.transport.register("amqp", my_connect)``);
2. the ``mqjms.transports`` entry-point group of the installed distributions
   (``[project.entry-points."mqjms.transports"] amqp = "mypkg.mqjms_amqp:connect"``),
   where mqjms declares its own (embedded, stomp, stomp+ssl);
3. the built-in table, so the built-ins work without installed metadata (a source tree).

Factories load on first use: importing :mod:`mqjms.transport` loads neither stomp.py nor
the embedded queue manager.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING

from mqjms.logs import get_logger
from mqjms.semantics import Connection

from .url import redact, resolve_url, scheme_of

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

log = get_logger("mqjms.transport")

GROUP = "mqjms.transports"

#: A transport: MQCONN for one of its URLs, with the application name to put as.
Factory = Callable[[str, str | None], Connection]

BUILT_IN = {
    "embedded": "mqjms.transport.embedded:connect",
    "stomp": "mqjms.transport.stomp:connect",
    "stomp+ssl": "mqjms.transport.stomp:connect",
    "mq": "mqjms.transport.ibmmq:connect",
}
#: Schemes mqjms reserves for transports still to come, with what to use meanwhile.
NOT_YET: dict[str, str] = {}

_registered: dict[str, Factory] = {}
_loaded: dict[str, Factory] = {}
_lock = threading.Lock()


def register(scheme: str, factory: Factory) -> None:
    """Make ``factory`` the transport for ``scheme:`` URLs in this process (over any
    entry point or built-in of that scheme)."""
    key = _key(scheme)
    with _lock:
        _registered[key] = factory
        _loaded.pop(key, None)


def unregister(scheme: str) -> None:
    """Forget what :func:`register` said for ``scheme`` (entry points and built-ins stay)."""
    key = _key(scheme)
    with _lock:
        _registered.pop(key, None)
        _loaded.pop(key, None)


def schemes() -> list[str]:
    """Every scheme a transport is available for, sorted."""
    with _lock:
        registered = set(_registered)
    return sorted(registered | set(_entry_points()) | set(BUILT_IN))


def factory(scheme: str) -> Factory:
    """The transport for ``scheme``; ValueError naming the schemes there are when none."""
    key = _key(scheme)
    with _lock:
        found = _registered.get(key) or _loaded.get(key)
    if found is not None:
        return found
    point = _entry_points().get(key)
    if point is not None:
        found = _load(point.value, f"entry point {point.name} = {point.value!r}")
    elif key in BUILT_IN:
        found = _load(BUILT_IN[key], "built-in")
    else:
        raise LookupError(key)
    with _lock:
        _loaded.setdefault(key, found)
        return _loaded[key]


def connect(url: str | None = None, appl_name: str | None = None) -> Connection:
    """MQCONN for any transport URL (``embedded:``, ``stomp:``, or a registered scheme)."""
    url = resolve_url(url)
    return transport_for(url)(url, appl_name)


def transport_for(url: str) -> Factory:
    """The transport of ``url``'s scheme; ValueError naming the schemes there are when
    none is (so a URL can be checked before anything connects)."""
    scheme = scheme_of(url)
    try:
        return factory(scheme)
    except LookupError:
        if scheme in NOT_YET:
            raise ValueError(f"{redact(url)!r}: {NOT_YET[scheme]}") from None
        available = ", ".join(f"{name}:" for name in schemes())
        raise ValueError(
            f"unknown transport {scheme!r} in {redact(url)!r}: use one of {available} "
            f"(or add one: mqjms.transport.register, or the {GROUP!r} entry points)"
        ) from None


def _key(scheme: str) -> str:
    return scheme.strip().lower().rstrip(":")


@cache
def _entry_points() -> dict[str, EntryPoint]:
    """The group's entry points by scheme, read once (the first of a scheme wins); the
    metadata machinery is imported then, not with mqjms."""
    from importlib.metadata import entry_points

    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=GROUP):
        found.setdefault(_key(point.name), point)
    return found


def _load(target: str, where: str) -> Factory:
    module_name, _, attribute = target.partition(":")
    module = importlib.import_module(module_name.strip())
    loaded: object = module
    for part in attribute.strip().split(".") if attribute.strip() else ():
        loaded = getattr(loaded, part)
    if not callable(loaded):
        raise TypeError(f"transport {target!r} ({where}) is not callable")
    log.debug("transport.loaded", target=target, source=where)
    return loaded
