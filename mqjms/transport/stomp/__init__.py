"""The STOMP transport: ActiveMQ (and other STOMP 1.2 brokers) through stomp.py.

``mqjms.transport.connect("stomp://user@host:61613?bothresh=3&boqname=ORDERS.BO")``
returns a :class:`~.connection.StompConnection` speaking the MQI-shaped contract, so the
backout layer, the JMS API and listeners run on it unchanged. The broker lacks
BackoutCount, BOTHRESH, BOQNAME and DEADQ: this transport keeps the count in the message
(``mqjms_backout_count``) and answers MQINQ from :class:`StompConfig`. docs/stomp.md
describes the mapping and where it differs from IBM MQ.

stomp.py is imported only when a connection is made, so configuring needs no client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .config import (
    DEFAULT_DEAD_LETTER_QUEUE,
    PASSWORD_ENV,
    USER_ENV,
    StompConfig,
    StompParams,
    load_file,
    parse_url,
    register_profile,
    unregister_profile,
)

if TYPE_CHECKING:
    from .connection import StompConnection


def connect(url: str, appl_name: str | None = None) -> StompConnection:
    """MQCONN to the STOMP broker of ``url``."""
    params = parse_url(url)
    try:
        from .connection import StompConnection
    except ImportError as exc:  # stomp.py missing
        raise ImportError(
            f"the STOMP transport needs stomp.py: pip install 'mqjms[stomp]' ({exc})"
        ) from exc
    return StompConnection(params, appl_name)


__all__ = [
    "DEFAULT_DEAD_LETTER_QUEUE",
    "PASSWORD_ENV",
    "USER_ENV",
    "StompConfig",
    "StompParams",
    "connect",
    "load_file",
    "parse_url",
    "register_profile",
    "unregister_profile",
]
