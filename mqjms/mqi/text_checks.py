"""The str/bytes checks pymqi and ibmmq export and programs call on their own data
(``pymqi.ensure_not_unicode(body)`` before a put): same results, same TypeError text."""

from __future__ import annotations

from typing import Any


def is_unicode(value: Any) -> bool:
    """Whether ``value`` is a str (Python 3's text, which MQ fields take as bytes)."""
    return isinstance(value, str)


def ensure_not_unicode(value: Any) -> None:
    """TypeError for a str where bytes are wanted; anything else passes."""
    if isinstance(value, str):
        raise TypeError(
            f"Python 3 style string (unicode) found but not allowed here: `{value}`. "
            "Convert to bytes."
        )
