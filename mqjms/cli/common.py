"""What every subcommand shares: the --url option, connecting, errors and logging."""

from __future__ import annotations

import argparse
import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog

from mqjms import logs
from mqjms.mq import constants as C
from mqjms.transport import Connection, connect, resolve_url
from mqjms.transport.url import scheme_of

EXIT_USAGE = 2  # a bad argument, or an MQError that stopped the command


class CLIError(Exception):
    """A user error that is not an MQError: printed as ``mqjms: <message>``, status 2."""


#: How each built-in scheme's URL looks, for --url help.
URL_FORMS = {
    "embedded": "embedded:///DIR",
    "stomp": "stomp://[USER@]HOST:PORT",
    "stomp+ssl": "stomp+ssl://[USER@]HOST:PORT?ca=FILE",
    "mq": "mq://QMGR@HOST(PORT)/CHANNEL",
}


def add_url(parser: argparse.ArgumentParser, *, embedded_only: bool = False) -> None:
    """--url, its help listing the schemes this command accepts (every transport
    registered, or the embedded queue manager alone)."""
    if embedded_only:
        forms = [URL_FORMS["embedded"]]
    else:
        from mqjms.transport.registry import schemes  # entry points: read only here

        forms = [URL_FORMS.get(scheme, f"{scheme}://...") for scheme in schemes()]
    parser.add_argument(
        "--url",
        metavar="URL",
        help=f"transport URL: {' or '.join(forms)} "
        "(default: $MQJMS_URL, else embedded:/// = ./.mqjms)",
    )


def add_persistence(parser: argparse.ArgumentParser, default: int) -> None:
    """--persistent / --non-persistent, else ``default`` (the queue's or topic's DEFPSIST)."""
    persistence = parser.add_mutually_exclusive_group()
    for flag, value, name in (
        ("--persistent", C.MQPER_PERSISTENT, "MQPER_PERSISTENT"),
        ("--non-persistent", C.MQPER_NOT_PERSISTENT, "MQPER_NOT_PERSISTENT"),
    ):
        persistence.add_argument(
            flag, dest="persistence", action="store_const", const=value, help=name
        )
    parser.set_defaults(persistence=default)


def url_of(args: argparse.Namespace) -> str:
    url = resolve_url(args.url)
    try:
        scheme_of(url)
    except ValueError as exc:
        raise CLIError(str(exc)) from None
    return url


def open_connection(args: argparse.Namespace) -> Connection:
    """MQCONN to the URL the user chose."""
    url = url_of(args)
    try:
        return connect(url, appl_name="mqjms")
    except ValueError as exc:  # an unknown scheme or a malformed URL
        raise CLIError(str(exc)) from None


def parse_hex(value: str, what: str, length: int = 24) -> bytes:
    """A hex MsgId/CorrelId, padded with NULs to ``length`` bytes."""
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be hexadecimal, not {value!r}") from None
    if len(raw) > length:
        raise argparse.ArgumentTypeError(f"{what} is {len(raw)} bytes; at most {length}")
    return raw.ljust(length, b"\x00")


def hex_id(what: str) -> Any:
    return lambda value: parse_hex(value, what)


def non_negative_float(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if math.isnan(number):
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds")
    if number < 0:
        raise argparse.ArgumentTypeError(f"{value!r} is negative")
    return number


MQLONG_MIN, MQLONG_MAX = -(2**31), 2**31 - 1


def mqlong(value: str) -> int:
    """An MQMD integer field's value: a whole number that fits an MQLONG (32 bits)."""
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if not MQLONG_MIN <= number <= MQLONG_MAX:
        raise argparse.ArgumentTypeError(
            f"{value} does not fit an MQLONG ({MQLONG_MIN} to {MQLONG_MAX})"
        )
    return number


def object_name(value: str) -> str:
    """A queue or queue manager name for an MQMD field: at most 48 characters."""
    if len(value) > C.MQ_Q_NAME_LENGTH:
        raise argparse.ArgumentTypeError(
            f"{value[:20]!r}... is {len(value)} characters; at most {C.MQ_Q_NAME_LENGTH}"
        )
    return value


def positive_int(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value!r} must be at least 1")
    return number


def qmgr_ccsid(conn: Connection, default: int = 1208) -> int:
    """The queue manager's CCSID (what MQCCSI_Q_MGR means), or ``default``."""
    try:
        value = conn.inquire_qmgr([C.MQIA_CODED_CHAR_SET_ID]).get(C.MQIA_CODED_CHAR_SET_ID)
    except Exception:  # a transport without MQINQ on the queue manager
        return default
    return value if isinstance(value, int) and value > 0 else default


@contextmanager
def logging_to_stderr(verbosity: int, default: int = 0) -> Iterator[None]:
    """structlog to standard error while the command runs, so that log lines never mix
    with output such as JSON; the previous setup is restored. The level: ``-v`` info,
    ``-vv`` debug; without them ``MQJMS_LOG_LEVEL``, else ``default`` (0 warnings, 1 info).
    ``MQJMS_LOG_FORMAT=json`` writes JSON lines. A Worker module that ``mqjms run``
    imports may replace this with its own configuration (``mqjms.logs.configure_stdlib``)."""
    chosen = verbosity or default
    level = logging.WARNING if chosen <= 0 else logging.INFO if chosen == 1 else logging.DEBUG
    env_level = logs.levels_from_env()[0]
    if not verbosity and env_level:
        level = logs.level_number(env_level, default=level)
    was_configured = structlog.is_configured()
    previous = structlog.get_config()
    logs.configure_for_command(level)
    try:
        yield
    finally:
        if was_configured:
            structlog.configure(**previous)
        else:  # back to nobody's configuration: mqjms's library default applies again
            logs.reset()
