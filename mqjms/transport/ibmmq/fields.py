"""What passes between the transport contract and the libraries' structures: MQ object
names, checked before an MQOD packs them into 48 bytes, and the values that MQINQ, the
MQOD and the MQPMO give back (blank- or null-padded bytes) as the contract's text."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mqjms.mq import constants as C
from mqjms.mq.errors import failed

_NAME_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%")


def name_problem(name: str) -> str:
    """What makes ``name`` an invalid MQ object name, "" when nothing does."""
    if not name:
        return "is empty"
    if len(name) > C.MQ_Q_NAME_LENGTH:
        return f"is {len(name)} characters, more than {C.MQ_Q_NAME_LENGTH}"
    bad = next((char for char in name if char not in _NAME_CHARACTERS), None)
    if bad is not None:
        return f"has {bad!r}: names use A-Z a-z 0-9 . / _ %"
    return ""


def object_name(name: str) -> bytes:
    """``name`` for an MQOD: the libraries pack it into 48 bytes and would cut a longer
    one short (opening another queue), so a name MQ cannot hold is refused here: 2152."""
    raw = name.encode("utf-8")
    if len(raw) > C.MQ_Q_NAME_LENGTH:
        raise failed(C.MQRC_OBJECT_NAME_ERROR, f"queue name {name!r} {name_problem(name)}")
    return raw


def text(value: object) -> str:
    """A name or string attribute as the library gave it, without its padding."""
    if isinstance(value, bytes | bytearray):
        return bytes(value).split(b"\x00", 1)[0].decode("latin-1").strip()
    return str(value).strip() if value is not None else ""


def values(found: Mapping[int, Any]) -> dict[int, int | str]:
    """MQINQ's answer: integers as they are, strings as :func:`text`."""
    return {
        selector: value if isinstance(value, int) else text(value)
        for selector, value in found.items()
    }


__all__ = ["name_problem", "object_name", "text", "values"]
