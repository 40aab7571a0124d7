"""Transport URLs: ``embedded:///dir``, ``stomp://user@host:61613``, ``mq://QM@host(port)/CHL``.

The URL a command or service uses comes from ``--url``, else ``MQJMS_URL``, else the
embedded queue manager in ``./.mqjms`` (``embedded:///``).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

DEFAULT_URL = "embedded:///"
ENV_VAR = "MQJMS_URL"


def resolve_url(url: str | None = None) -> str:
    return url or os.environ.get(ENV_VAR) or DEFAULT_URL


def scheme_of(url: str) -> str:
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if not scheme:
        raise ValueError(
            f"transport URL {url!r} has no scheme: use embedded:///DIR, stomp://HOST:PORT "
            "or mq://QMGR@HOST(PORT)/CHANNEL"
        )
    return scheme


def embedded_path(url: str) -> tuple[Path, str | None]:
    """The directory and optional queue manager name of an ``embedded:`` URL.

    ``embedded:///`` and ``embedded:`` mean ``./.mqjms``; ``embedded:///abs/dir``
    an absolute directory; ``embedded:rel/dir`` a relative one.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() != "embedded":
        raise ValueError(f"{url!r} is not an embedded: URL")
    raw = parts.netloc + parts.path if parts.netloc not in ("", "localhost") else parts.path
    if raw in ("", "/"):
        path = Path(".mqjms")
    elif url.lower().startswith("embedded:///"):
        path = Path(raw)
    else:
        path = Path(raw.lstrip("/") if not url.lower().startswith("embedded:/") else raw)
    name = parse_qs(parts.query).get("qmgr", [None])[0]
    return path, name
