"""What a STOMP broker does not know: queue attributes, the DLQ, and how to reach it.

A broker has no BOTHRESH, BOQNAME or DEADQ, so the STOMP transport answers MQINQ from
configuration, under the MQSC attribute names the embedded queue manager uses (one table:
:mod:`mqjms.semantics.attributes`). Attributes come, lowest precedence first, from

1. MQ's defaults (BOTHRESH 0, DEFPSIST NO, ...) and DEADQ ``ActiveMQ.DLQ``;
2. a profile registered in this process (:func:`register_profile`, ``?profile=NAME``) or a
   TOML file (``?config=/path/file.toml``), re-read when it changes;
3. URL query parameters that set defaults for every queue (``?bothresh=3&boqname=BO``)
   or queue manager attributes (``?deadq=DLQ&qmgr=NAME``).

A queue defined in the profile or file has its own attributes over the defaults. In
``strict`` mode only defined queues exist (others give MQRC_UNKNOWN_OBJECT_NAME 2085);
otherwise every name is a local queue, as ActiveMQ creates queues on first use.

The TOML file::

    qmgr_name = "ORDERS.BROKER"     # MQCA_Q_MGR_NAME (default "ActiveMQ")
    strict = false
    prefix = ""                     # prepended to every broker destination name
    [qmgr]
    DEADQ = "ActiveMQ.DLQ"
    [defaults]                      # every queue not listed below
    BOTHRESH = 5
    BOQNAME = "BACKOUT.Q"
    [queues."ORDERS.IN"]
    BOTHRESH = 3
    BOQNAME = "ORDERS.BACKOUT"
    [queues."ORDERS.ALIAS"]
    type = "QALIAS"
    TARGET = "ORDERS.IN"
    [queues."ORDERS.MODEL"]         # a model for managed queues (seed 002: the managed
    type = "QMODEL"                 # queue of a subscription takes BOTHRESH and BOQNAME
    BOTHRESH = 2                    # from its topic's MDURMDL or MNDURMDL)
    BOQNAME = "ORDERS.SUB.BACKOUT"
    [topics."ORDERS"]               # TOPIC objects (see topic_objects.py)
    TOPICSTR = "orders"
    MDURMDL = "ORDERS.MODEL"

and ``?mdurmdl.bothresh=3&mndurmdl.boqname=SUB.BO`` set attributes of the default model
queues (SYSTEM.DURABLE.MODEL.QUEUE, SYSTEM.NDURABLE.MODEL.QUEUE) from the URL.
"""

from __future__ import annotations

import os
import ssl as ssl_module
import threading
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics.attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    QMGR_ATTR_BY_NAME,
    normalize,
    normalize_queue_attrs,
    validate_name,
)
from mqjms.transport.url import redact as _redact
from mqjms.transport.url import url_flag

from .topic_objects import TopicObjects, is_model_param, model_param

DEFAULT_DEAD_LETTER_QUEUE = "ActiveMQ.DLQ"
DEFAULT_QMGR_NAME = "ActiveMQ"
DEFAULT_PORT = 61613
PASSWORD_ENV = "MQJMS_STOMP_PASSWORD"
USER_ENV = "MQJMS_STOMP_USER"

Attrs = dict[str, int | str | bool]


@dataclass(frozen=True, slots=True)
class QueueDefinition:
    """A queue as configured: its type (QLOCAL, QALIAS or QMODEL) and MQSC attributes (a
    :class:`~mqjms.semantics.definitions.QueueDefinition`)."""

    name: str
    qtype: str
    attrs: Attrs


class StompConfig(TopicObjects):
    """Queue, topic and queue manager attributes for a STOMP broker. Thread-safe; changes made
    through :meth:`define_queue`/:meth:`alter_queue`/:meth:`alter_qmgr` are seen by every
    connection using this object at its next inquiry (the backout layer caches them, as
    IBM MQ classes for JMS do)."""

    def __init__(
        self,
        *,
        qmgr_name: str = DEFAULT_QMGR_NAME,
        strict: bool = False,
        prefix: str = "",
        defaults: Mapping[str, object] | None = None,
        qmgr: Mapping[str, object] | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self.qmgr_name = qmgr_name
        self.strict = strict
        self.prefix = prefix
        self._defaults: Attrs = normalize_queue_attrs(LOCAL, defaults or {})
        self._qmgr: Attrs = {"DEADQ": DEFAULT_DEAD_LETTER_QUEUE}
        self._qmgr.update(_normalize_qmgr(qmgr or {}))
        self._queues: dict[str, QueueDefinition] = {}
        self._init_topics()

    # ------------------------------------------------------------------ administration
    def define_queue(self, name: str, qtype: str = LOCAL, **attrs: object) -> None:
        """DEFINE QLOCAL/QALIAS/QMODEL(name) with MQSC attributes (REPLACE semantics). A
        model queue is only a model for subscriptions' managed queues here."""
        validate_name(name)
        qtype = qtype.upper()
        if qtype not in (LOCAL, ALIAS, MODEL):
            raise failed(
                C.MQRC_OBJECT_TYPE_ERROR,
                f"{qtype}: a STOMP broker has local, alias and model queues only",
            )
        normalized = normalize_queue_attrs(qtype, attrs)
        with self._lock:
            self._queues[name] = QueueDefinition(name, qtype, normalized)

    def alter_queue(self, name: str, **attrs: object) -> None:
        with self._lock:
            found = self._queues.get(name)
        if found is None:
            if self.strict:
                raise failed(C.MQRC_UNKNOWN_OBJECT_NAME, f"queue {name!r} is not defined")
            found = QueueDefinition(name, LOCAL, {})
        merged = {**found.attrs, **normalize_queue_attrs(found.qtype, attrs)}
        with self._lock:
            self._queues[name] = QueueDefinition(name, found.qtype, merged)

    def delete_queue(self, name: str) -> None:
        with self._lock:
            self._queues.pop(name, None)

    def set_defaults(self, **attrs: object) -> None:
        """Attributes of every queue that is not defined on its own."""
        normalized = normalize_queue_attrs(LOCAL, attrs)
        with self._lock:
            self._defaults.update(normalized)

    def alter_qmgr(self, **attrs: object) -> None:
        normalized = _normalize_qmgr(attrs)
        with self._lock:
            self._qmgr.update(normalized)

    # ------------------------------------------------------------------ lookups
    def find(
        self,
        name: str,
        url_defaults: Mapping[str, int | str | bool],
        strict: bool | None = None,
    ) -> QueueDefinition | None:
        """The queue's type and full attributes; None when strict and not defined."""
        validate_name(name)
        with self._lock:
            found = self._queues.get(name)
            defaults = dict(self._defaults)
        if found is None and (self.strict if strict is None else strict):
            return None
        qtype = found.qtype if found else LOCAL
        attrs: Attrs = {}
        if qtype == LOCAL:
            attrs.update(defaults)
            attrs.update(url_defaults)
        if found is not None:
            attrs.update(found.attrs)
        return QueueDefinition(name, qtype, attrs)

    def qmgr_attrs(self, url_qmgr: Mapping[str, int | str | bool]) -> Attrs:
        with self._lock:
            out = dict(self._qmgr)
        out.update(url_qmgr)
        return out

    # ------------------------------------------------------------------ files
    @classmethod
    def from_mapping(cls, data: Mapping[str, object], where: str = "configuration") -> StompConfig:
        known = {"qmgr_name", "strict", "prefix", "qmgr", "defaults", "queues", "topics"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"{where}: unknown keys {', '.join(unknown)} (known: {', '.join(sorted(known))})"
            )
        config = cls(
            qmgr_name=str(data.get("qmgr_name", DEFAULT_QMGR_NAME)),
            strict=bool(data.get("strict", False)),
            prefix=str(data.get("prefix", "")),
            defaults=_table(data, "defaults", where),
            qmgr=_table(data, "qmgr", where),
        )
        for name, attrs in _table(data, "queues", where).items():
            if not isinstance(attrs, Mapping):
                raise ValueError(f"{where}: queues.{name} must be a table of attributes")
            attrs = dict(attrs)
            qtype = str(attrs.pop("type", LOCAL))
            config.define_queue(name, qtype, **attrs)
        for name, attrs in _table(data, "topics", where).items():
            if not isinstance(attrs, Mapping):
                raise ValueError(f"{where}: topics.{name} must be a table of attributes")
            config.define_topic(name, **dict(attrs))
        return config


def _table(data: Mapping[str, object], key: str, where: str) -> dict[str, object]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ValueError(f"{where}: {key} must be a table")
    return dict(value)


def _normalize_qmgr(attrs: Mapping[str, object]) -> Attrs:
    out: Attrs = {}
    for name, value in attrs.items():
        attr = QMGR_ATTR_BY_NAME.get(name.upper())
        if attr is None:
            raise ValueError(f"{name} is not a queue manager attribute mqjms knows")
        out[attr.name] = normalize(attr, value)
    return out


# --------------------------------------------------------------------------- registry

_profiles: dict[str, StompConfig] = {}
_files: dict[Path, tuple[tuple[int, int, int], StompConfig]] = {}
_registry_lock = threading.Lock()


def register_profile(name: str, config: StompConfig) -> StompConfig:
    """Make ``config`` the one URLs with ``?profile=name`` use (the API way to configure)."""
    with _registry_lock:
        _profiles[name] = config
    return config


def unregister_profile(name: str) -> None:
    with _registry_lock:
        _profiles.pop(name, None)


def profile(name: str) -> StompConfig:
    with _registry_lock:
        found = _profiles.get(name)
    if found is None:
        raise ValueError(f"no STOMP configuration profile {name!r} is registered")
    return found


def load_file(path: str | Path) -> StompConfig:
    """The configuration in a TOML file, re-read when the file changes."""
    resolved = Path(path).expanduser().resolve()
    try:
        stat = resolved.stat()
        mtime = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    except OSError as exc:
        raise ValueError(f"STOMP configuration file {str(path)!r}: {exc.strerror}") from None
    with _registry_lock:
        cached = _files.get(resolved)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    with resolved.open("rb") as fh:
        try:
            data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"STOMP configuration file {str(path)!r}: {exc}") from None
    config = StompConfig.from_mapping(data, str(path))
    with _registry_lock:
        _files[resolved] = (mtime, config)
    return config


# --------------------------------------------------------------------------- URLs

_QUEUE_PARAMS = {
    "bothresh": "BOTHRESH",
    "boqname": "BOQNAME",
    "defpsist": "DEFPSIST",
    "defprty": "DEFPRTY",
}
_QMGR_PARAMS = {"deadq": "DEADQ"}
DEFAULT_CONNECT_TIMEOUT = 10.0  # seconds for TCP, TLS and CONNECTED together
_OTHER_PARAMS = {
    "config",
    "profile",
    "qmgr",
    "prefix",
    "strict",
    "ca",
    "cert",
    "key",
    "verify",
    "reconnect",
    "receipt_timeout",
    "connect_timeout",
    "heartbeat",
    "vhost",
    "user",
}


@dataclass(slots=True)
class StompParams:
    """Everything a ``stomp://`` or ``stomp+ssl://`` URL says, the password kept apart."""

    host: str
    port: int
    ssl: bool
    user: str | None
    password: str | None = field(repr=False)
    vhost: str | None
    ca_file: str | None
    cert_file: str | None
    key_file: str | None
    verify: bool
    reconnect_seconds: float
    receipt_timeout: float
    connect_timeout: float
    heartbeat_ms: int
    config_file: str | None
    profile: str | None
    qmgr_name: str | None
    prefix: str | None
    strict: bool | None
    queue_defaults: Attrs
    qmgr_overrides: Attrs
    #: ``?mdurmdl.bothresh=3``: attributes of the default model queues, by MDURMDL/MNDURMDL
    model_overrides: dict[str, Attrs] = field(default_factory=dict)

    @property
    def safe_url(self) -> str:
        """The URL without its password, for logs and errors."""
        scheme = "stomp+ssl" if self.ssl else "stomp"
        who = f"{self.user}@" if self.user else ""
        return f"{scheme}://{who}{self.host}:{self.port}"

    def config(self) -> StompConfig:
        if self.profile:
            return profile(self.profile)
        if self.config_file:
            return load_file(self.config_file)
        return _default_config()

    def ssl_context(self) -> ssl_module.SSLContext:
        context = ssl_module.create_default_context(cafile=self.ca_file)
        if not self.verify:
            context.check_hostname = False
            context.verify_mode = ssl_module.CERT_NONE
        if self.cert_file:
            context.load_cert_chain(self.cert_file, self.key_file)
        return context


_default: StompConfig | None = None


def _default_config() -> StompConfig:
    global _default
    with _registry_lock:
        if _default is None:
            _default = StompConfig()
        return _default


def _port_problem(netloc: str, url: str) -> str:
    """Why the port after the host does not read as one: out of range, not a number, or
    (what reads as) a port that is part of a password holding a ``#``, ``?`` or ``/``."""
    after_host = netloc.rpartition("@")[2]
    text = after_host.rpartition(":")[2] if ":" in after_host else ""
    if text.lstrip("-").isdigit():
        return f"the port {text} is not 0-65535"
    if "@" not in netloc and "@" in url.partition("://")[2]:  # user:pass#x@host, cut short
        return (
            "what follows the host is not a port: a password holding '#', '?' or '/' ends "
            "the address early (percent-encode it, or give it in MQJMS_STOMP_PASSWORD)"
        )
    if "@" not in netloc:  # host:word may be user:password with the @host left out
        return (
            "what follows the host is not a port number (not shown: it may be a password; "
            "a user and password go before the host: stomp://user:password@host:port)"
        )
    return f"the port {text!r} is not a number"


def parse_url(url: str) -> StompParams:
    """Parse ``stomp://[user[:password]@]host[:port][?key=value&...]``.

    The password may instead come from ``MQJMS_STOMP_PASSWORD`` (and the user from
    ``MQJMS_STOMP_USER``), so that it appears in no URL, command line or log.
    """
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # "Invalid IPv6 URL" named neither the URL nor the fault
        raise ValueError(f"STOMP URL {_redact(url)!r} is malformed: {exc}") from None
    scheme = parts.scheme.lower()
    if scheme not in ("stomp", "stomp+ssl"):
        raise ValueError(f"not a STOMP URL (stomp:// or stomp+ssl://): {_redact(url)!r}")
    if not url[len(parts.scheme) + 1 :].startswith("//"):  # its user and host would be lost
        raise ValueError(
            f"STOMP URL {_redact(url)!r} is malformed: the scheme must be followed by // "
            f"({scheme}://[user[:password]@]host[:port])"
        )
    try:
        port = parts.port or DEFAULT_PORT
    except ValueError:
        problem = _port_problem(parts.netloc, url)
        shown = _redact(url)
        split = parts.netloc.rpartition if parts.netloc.startswith("[") else parts.netloc.partition
        host, _, word = split(":")  # a bracketed IPv6 address holds ':' itself
        if "@" not in parts.netloc and not word.lstrip("-").isdigit():  # maybe a password
            shown = f"{parts.scheme}://{host}:***"  # it may hold ':', '/', '?' or '#'

        raise ValueError(f"STOMP URL {shown!r}: {problem}") from None
    host = parts.hostname or "127.0.0.1"
    query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
    unknown = sorted(
        key
        for key in set(query) - set(_QUEUE_PARAMS) - set(_QMGR_PARAMS) - _OTHER_PARAMS
        if not is_model_param(key)
    )
    if unknown:
        known = sorted({*_QUEUE_PARAMS, *_QMGR_PARAMS, *_OTHER_PARAMS, "mdurmdl.*", "mndurmdl.*"})
        raise ValueError(
            f"STOMP URL {_redact(url, also=unknown)!r}: unknown parameter(s) "
            f"{', '.join(unknown)} "
            f"(known: {', '.join(known)})"
        )
    user = unquote(parts.username) if parts.username else query.get("user")
    password = unquote(parts.password) if parts.password is not None else None
    if user is None:
        user = os.environ.get(USER_ENV) or None
    if password is None:
        password = os.environ.get(PASSWORD_ENV)
    queue_defaults = normalize_queue_attrs(
        LOCAL, {_QUEUE_PARAMS[k]: v for k, v in query.items() if k in _QUEUE_PARAMS}
    )
    qmgr = _normalize_qmgr({_QMGR_PARAMS[k]: v for k, v in query.items() if k in _QMGR_PARAMS})

    def seconds(key: str, default: float) -> float:
        try:
            return float(query.get(key, default))
        except ValueError:
            raise ValueError(
                f"STOMP URL {_redact(url)!r}: {key}={query[key]!r} is not a number of seconds"
            ) from None

    reconnect = seconds("reconnect", 10)
    receipt_timeout = seconds("receipt_timeout", 30)
    connect_timeout = seconds("connect_timeout", DEFAULT_CONNECT_TIMEOUT)
    try:
        heartbeat = int(query.get("heartbeat", "0"))
    except ValueError:
        raise ValueError(
            f"STOMP URL {_redact(url)!r}: heartbeat={query['heartbeat']!r} is not a whole "
            "number of milliseconds"
        ) from None
    if not 0 < connect_timeout < float("inf"):
        raise ValueError(
            f"STOMP URL {_redact(url)!r}: connect_timeout={query['connect_timeout']!r} "
            "must be a number of seconds above 0"
        )
    return StompParams(
        host=host,
        port=port,
        ssl=scheme == "stomp+ssl",
        user=user,
        password=password,
        vhost=query.get("vhost"),
        ca_file=query.get("ca"),
        cert_file=query.get("cert"),
        key_file=query.get("key"),
        verify=url_flag(query["verify"], "verify") if "verify" in query else True,
        reconnect_seconds=reconnect,
        receipt_timeout=receipt_timeout,
        connect_timeout=connect_timeout,
        heartbeat_ms=heartbeat,
        config_file=query.get("config"),
        profile=query.get("profile"),
        qmgr_name=query.get("qmgr"),
        prefix=query.get("prefix"),
        strict=url_flag(query["strict"], "strict") if "strict" in query else None,
        queue_defaults=queue_defaults,
        qmgr_overrides=qmgr,
        model_overrides=model_param(query),
    )
