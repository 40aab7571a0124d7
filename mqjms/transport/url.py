"""Transport URLs: ``embedded:///dir``, ``stomp://user@host:61613``, ``mq://QM@host(port)/CHL``.

The URL a command or service uses comes from ``--url``, else ``MQJMS_URL``, else the
embedded queue manager in ``./.mqjms`` (``embedded:///``). A URL may carry a password, so
every URL that mqjms logs, shows or puts in an error goes through :func:`redact` first.
"""

from __future__ import annotations

import os
import re
from collections.abc import Collection
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, unquote_plus, urlsplit

if TYPE_CHECKING:
    from pathlib import Path

DEFAULT_URL = "embedded:///"
ENV_VAR = "MQJMS_URL"
MASK = "***"

# A query parameter whose name contains one of these carries a secret (password=,
# passcode=, pwd=, secret=, token=, apikey=, ...): its value is masked.
_SECRET_PARAM_WORDS = ("pass", "pwd", "secret", "token", "credential", "apikey", "api_key")


def url_flag(value: str, what: str) -> bool:
    """A true/false URL parameter (``1/0``, ``true/false``, ``yes/no``, ``on/off``);
    anything else is a ValueError naming the parameter, for the CLI's one-line error."""
    word = value.strip().lower()
    if word in ("1", "true", "yes", "on"):
        return True
    if word in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"URL parameter {what}={value!r}: expected true or false")


def resolve_url(url: str | None = None) -> str:
    if url is not None and not isinstance(url, str):  # a bytes or a Path fails later, obscurely
        raise TypeError(
            f"the transport URL must be a str (embedded:///DIR, stomp://HOST:PORT...), "
            f"not {type(url).__name__}"
        )
    return url or os.environ.get(ENV_VAR) or DEFAULT_URL


def redact(url: str, *, also: Collection[str] = ()) -> str:
    """``url`` with its secrets masked, for logs, errors and reprs: the password of the
    user information (``stomp://user:***@host:61613``) and the value of every query
    parameter that names a secret (``?passcode=***``). Anything else stays as written.

    The user information is read as :func:`urllib.parse.urlsplit` reads it (all before
    the last ``@`` of the authority; the password after its first ``:``), and is masked
    the same way in a URL that lacks ``//`` or has no scheme at all, so a URL that fails
    to parse does not leak its password in the error that says so. A password holding a
    ``?``, ``#`` or ``/`` that was not percent-encoded ends the authority early for a
    parser: then everything from the first ``:`` to the last ``@`` is masked.

    ``also`` names more query parameters to mask (case-insensitive): the unknown ones in
    the error that refuses them, which may be a misspelt ``?pasword=``.
    """
    head, sep, rest = url.partition("://")
    if not sep:
        head, rest = "", url
    whole = rest
    rest, qmark, query = rest.partition("?")
    query, hash_, fragment = query.partition("#")
    if not qmark:
        rest, hash_, fragment = rest.partition("#")
    userinfo, at, location = rest.rpartition("@")
    if at and ":" in userinfo:
        user = userinfo.partition(":")[0]
        rest = f"{user}:{MASK}@{location}"
    else:
        user, colon, after = whole.partition(":")
        unencoded = colon and "@" in after and not any(c in user for c in "/?#@")
        if unencoded and not _PORT.match(after):  # host:port?x=a@b is no password
            location = after.rpartition("@")[2]
            return f"{head}{sep}{user}:{MASK}@{redact('//' + location, also=also)[2:]}"
    if query:
        query = "&".join(_redact_param(param, also) for param in query.split("&"))
    return f"{head}{sep}{rest}{qmark}{query}{hash_}{fragment}"


_PORT = re.compile(r"\d+(?:[/?#]|$)")


def _redact_param(param: str, also: Collection[str]) -> str:
    name, equals, _value = param.partition("=")
    key = unquote_plus(name).lower()
    secret = any(word in key for word in _SECRET_PARAM_WORDS)
    if equals and (secret or key in {a.lower() for a in also}):
        return f"{name}={MASK}"
    return param


def scheme_of(url: str) -> str:
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    if not scheme:
        raise ValueError(
            f"transport URL {redact(url)!r} has no scheme: use embedded:///DIR, stomp://HOST:PORT "
            "or mq://QMGR@HOST(PORT)/CHANNEL"
        )
    return scheme


def embedded_path(url: str) -> tuple[Path, str | None]:
    """The directory and optional queue manager name of an ``embedded:`` URL.

    ``embedded:///`` and ``embedded:`` mean ``./.mqjms``; ``embedded:///abs/dir``
    an absolute directory; ``embedded:rel/dir`` a relative one.
    """
    from pathlib import Path  # with the embedded transport, not with every URL

    parts = urlsplit(url)
    if parts.scheme.lower() != "embedded":
        raise ValueError(f"{redact(url)!r} is not an embedded: URL")
    if "@" in parts.netloc:  # it would become part of the directory's name, password too
        raise ValueError(
            f"{redact(url)!r}: an embedded: URL takes no user or password (the queue manager "
            "is a directory of files private to their owner): embedded:///DIR"
        )
    raw = parts.netloc + parts.path if parts.netloc not in ("", "localhost") else parts.path
    if raw in ("", "/"):
        path = Path(".mqjms")
    elif url.lower().startswith("embedded:///"):
        path = Path(raw)
    else:
        path = Path(raw.lstrip("/") if not url.lower().startswith("embedded:/") else raw)
    query = parse_qs(parts.query, keep_blank_values=True)
    unknown = sorted(set(query) - set(EMBEDDED_PARAMS))
    if unknown:  # a misspelt one (?gruop=) must not be ignored in silence
        raise ValueError(
            f"{redact(url, also=unknown)!r}: unknown embedded: URL parameter "
            f"{', '.join(unknown)} "
            f"(known: {', '.join(EMBEDDED_PARAMS)})"
        )
    name = query.get("qmgr", [None])[0]
    return path, name


#: The query parameters of an ``embedded:`` URL: the queue manager's name when it is made,
#: and whether its files are shared with the directory's group.
EMBEDDED_PARAMS = ("group", "qmgr")
