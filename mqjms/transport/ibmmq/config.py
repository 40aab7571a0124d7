"""``mq://`` URLs: where and how to connect to an IBM MQ queue manager.

::

    mq://QM1                                        local (bindings) connection
    mq://QM1@mqhost(1414)/DEV.APP.SVRCONN           client connection
    mq://QM1@host1(1414),host2(1414)/APP.SVRCONN    several hosts (a connection name list)
    mq://QM1?ccdt=file:///var/mqm/AMQCLCHL.json     client, the channel from a CCDT
    mq://app@QM1@mqhost(1414)/DEV.APP.SVRCONN       client, MQCSP user app
    ...?cipher=TLS_AES_256_GCM_SHA384&keyrepo=/var/mqm/ssl/key&certlabel=ibmwebspheremqapp
    ...?user=app                                    MQCSP user; the password is MQJMS_MQ_PASSWORD
    ...?reconnect=yes|qmgr|no|default               MQCNO_RECONNECT* (client reconnect)
    ...?connect_timeout=30                          seconds our retry policy keeps trying MQCONNX
    ...?library=ibmmq|pymqi                         which library (default: ibmmq when importable)

A password never appears in the URL (``?password=`` is refused): it comes from the
environment, so that it is never logged; :class:`MQConfig`'s repr leaves it out.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

from ..url import redact

PASSWORD_VAR = "MQJMS_MQ_PASSWORD"
DEFAULT_PORT = 1414
#: Seconds MQCONNX is retried while the queue manager is unreachable (our tenacity policy).
DEFAULT_CONNECT_TIMEOUT = 0.0

_HOST = re.compile(r"^\s*(?P<host>[^()\s]+)\s*(?:\(\s*(?P<port>\d+)\s*\))?\s*$")
_RECONNECT = {"default": "MQCNO_RECONNECT_AS_DEF", "yes": "MQCNO_RECONNECT",
              "true": "MQCNO_RECONNECT", "qmgr": "MQCNO_RECONNECT_Q_MGR",
              "no": "MQCNO_RECONNECT_DISABLED", "false": "MQCNO_RECONNECT_DISABLED"}  # fmt: skip
_KNOWN = frozenset(
    {"ccdt", "cipher", "keyrepo", "certlabel", "user", "reconnect", "connect_timeout", "library",
     "peername", "appl"}
)  # fmt: skip
LIBRARIES = ("ibmmq", "pymqi")


@dataclass(frozen=True)
class MQConfig:
    """What an ``mq://`` URL says (see the module docstring)."""

    url: str  # redacted
    qmgr: str
    hosts: tuple[tuple[str, int], ...] = ()
    channel: str = ""
    ccdt: str = ""
    cipher: str = ""
    keyrepo: str = ""
    cert_label: str = ""
    peer_name: str = ""
    user: str = ""
    password: str | None = field(default=None, repr=False)
    reconnect: str = "MQCNO_RECONNECT_AS_DEF"
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    library: str = ""  # "" = ibmmq when importable, else pymqi
    appl_name: str = ""

    @property
    def client(self) -> bool:
        """A client connection (a channel or a CCDT), else local bindings."""
        return bool(self.hosts or self.ccdt)

    @property
    def connection_name(self) -> str:
        """MQCD.ConnectionName: ``host(port)`` entries separated by commas."""
        return ",".join(f"{host}({port})" for host, port in self.hosts)


def parse(url: str) -> MQConfig:
    """Read an ``mq://`` URL; ValueError naming what is wrong (the URL redacted)."""
    shown = redact(url)
    parts = urlsplit(url)
    if parts.scheme.lower() != "mq":
        raise ValueError(f"{shown!r} is not an mq:// URL")
    query = {key.lower(): values[-1] for key, values in parse_qs(parts.query).items()}
    if any("pass" in key for key in query):
        raise ValueError(
            f"{shown!r}: put the password in {PASSWORD_VAR}, never in the URL (it would be logged)"
        )
    unknown = sorted(set(query) - _KNOWN)
    if unknown:
        raise ValueError(
            f"{redact(url, also=unknown)!r}: unknown parameter(s) {', '.join(unknown)}; "
            f"known: {', '.join(sorted(_KNOWN))}"
        )
    url_user, qmgr, hosts = _authority(unquote(parts.netloc), shown)
    channel = unquote(parts.path).strip("/")
    if hosts and not channel:
        raise ValueError(
            f"{shown!r}: a client connection names its channel: mq://QM@host(port)/CHANNEL"
        )
    library = query.get("library", "").strip().lower()
    if library and library not in LIBRARIES:
        raise ValueError(f"{shown!r}: library={library!r} must be one of {', '.join(LIBRARIES)}")
    reconnect = query.get("reconnect", "default").strip().lower()
    if reconnect not in _RECONNECT:
        raise ValueError(
            f"{shown!r}: reconnect={reconnect!r} must be one of {', '.join(_RECONNECT)}"
        )
    try:
        timeout = float(query.get("connect_timeout", DEFAULT_CONNECT_TIMEOUT))
    except ValueError:
        raise ValueError(f"{shown!r}: connect_timeout must be a number of seconds") from None
    user = query.get("user", "").strip() or url_user
    return MQConfig(
        url=shown,
        qmgr=qmgr,
        hosts=hosts,
        channel=channel,
        ccdt=query.get("ccdt", "").strip(),
        cipher=query.get("cipher", "").strip(),
        keyrepo=query.get("keyrepo", "").strip(),
        cert_label=query.get("certlabel", "").strip(),
        peer_name=query.get("peername", "").strip(),
        user=user,
        password=os.environ.get(PASSWORD_VAR) if user else None,
        reconnect=_RECONNECT[reconnect],
        connect_timeout=max(0.0, timeout),
        library=library,
        appl_name=query.get("appl", "").strip(),
    )


def _authority(netloc: str, shown: str) -> tuple[str, str, tuple[tuple[str, int], ...]]:
    """``[user@]QMGR[@host(port),...]``: the user, the queue manager, the hosts."""
    parts = netloc.split("@")
    if len(parts) > 3:
        raise ValueError(f"{shown!r}: expected mq://[USER@]QMGR@host(port)/CHANNEL")
    user = parts.pop(0).strip() if len(parts) == 3 else ""
    if ":" in user:
        raise ValueError(
            f"{shown!r}: put the password in {PASSWORD_VAR}, never in the URL (it would be logged)"
        )
    qmgr = parts[0].strip()
    if ":" in qmgr:  # MQ names hold no ':': user:password, or host:port
        before, _, after = qmgr.partition(":")
        if after.isdigit():
            raise ValueError(
                f"{shown!r}: a queue manager name holds no ':'; give the host and port "
                "after it: mq://QMGR@host(port)/CHANNEL"
            )
        raise ValueError(  # what follows the ':' may be a password: none of it is shown
            f"'mq://{before}:***': a queue manager name holds no ':'; put the password in "
            f"{PASSWORD_VAR}, never in the URL (it would be logged)"
        )
    at, where = len(parts) == 2, parts[-1]
    if len(qmgr) > 48:
        raise failed(C.MQRC_Q_MGR_NAME_ERROR, f"{shown!r}: queue manager name {qmgr!r} is over 48")
    if not at:
        return user, qmgr, ()
    hosts = []
    for entry in where.split(","):
        match = _HOST.match(entry)
        if match is None:
            raise ValueError(f"{shown!r}: {entry!r} is not host(port)")
        hosts.append((match["host"], int(match["port"] or DEFAULT_PORT)))
    return user, qmgr, tuple(hosts)
