"""JMS-style exceptions for API misuse; MQ failures stay MQError with their reason code."""

from __future__ import annotations


class JMSException(Exception):
    """Base of the JMS-style errors."""


class IllegalStateException(JMSException):
    """An operation the object's state does not allow (e.g. commit on a non-transacted
    session, or use after close)."""


class MessageFormatException(JMSException):
    """A body asked for as a type it is not (receive_body)."""


class InvalidSelectorException(JMSException):
    """A message selector whose syntax is not a JMS selector's (IBM MQ: 2459
    MQRC_SELECTOR_SYNTAX_ERROR)."""


class InvalidDestinationException(JMSException):
    """A destination or subscription that is not valid or does not exist (a topic string
    with a wildcard to publish on, ``unsubscribe`` of a name nobody subscribed with)."""
