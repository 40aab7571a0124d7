"""JMS-style exceptions for API misuse; MQ failures stay MQError with their reason code."""

from __future__ import annotations


class JMSException(Exception):
    """Base of the JMS-style errors."""


class IllegalStateException(JMSException):
    """An operation the object's state does not allow (e.g. commit on a non-transacted
    session, or use after close)."""


class MessageFormatException(JMSException):
    """A body asked for as a type it is not (receive_body)."""
