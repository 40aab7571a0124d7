"""Fixed-layout MQ structures (MQMD, MQDLH, MQTM, ...) described once, packed either way.

Each structure lists its fields in IBM's order with IBM's names. Integers are MQLONGs in
the byte order given by ``Encoding & MQENC_INTEGER_MASK``; character fields are Python
``str`` packed blank-padded (IBM's convention) and unpacked with trailing blanks and NULs
removed; byte fields (ids, tokens) are ``bytes`` packed NUL-padded.
"""

from __future__ import annotations

import copy
import operator
import struct
from collections.abc import Callable
from dataclasses import fields
from typing import Any, ClassVar, NamedTuple, Self

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError

INT = "i"
CHAR = "s"
BYTE = "b"


class FieldSpec(NamedTuple):  # a NamedTuple, not a dataclass: see _Plan
    name: str
    kind: str  # INT, CHAR or BYTE
    length: int  # bytes in the structure


def byte_order(encoding: int) -> str:
    """``'>'`` for normal (big-endian) integers, ``'<'`` for reversed, per Encoding & 0xF."""
    order = encoding & C.MQENC_INTEGER_MASK
    if order == C.MQENC_INTEGER_REVERSED:
        return "<"
    if order in (C.MQENC_INTEGER_NORMAL, C.MQENC_INTEGER_UNDEFINED):
        return ">"
    raise ValueError(f"Encoding {encoding}: integer encoding {order} is neither 1 nor 2")


def layout(specs: tuple[FieldSpec, ...]) -> str:
    return "".join("i" if spec.kind == INT else f"{spec.length}s" for spec in specs)


def _pack_char(structure: str, spec: FieldSpec, value: object) -> bytes:
    if isinstance(value, bytes):
        raw = value.rstrip(b"\x00")
    elif isinstance(value, str):
        try:
            raw = value.encode("latin-1")
        except UnicodeEncodeError as exc:
            raise ValueError(
                f"{structure}.{spec.name}: {value!r} has characters outside Latin-1"
            ) from exc
    else:
        raise TypeError(f"{structure}.{spec.name} must be str, not {type(value).__name__}")
    if len(raw) > spec.length:
        raise ValueError(
            f"{structure}.{spec.name}: {value!r} is longer than {spec.length} characters"
        )
    return raw.ljust(spec.length, b" ")


def _pack_bytes(structure: str, spec: FieldSpec, value: object) -> bytes:
    if not isinstance(value, bytes | bytearray):
        raise TypeError(f"{structure}.{spec.name} must be bytes, not {type(value).__name__}")
    if len(value) > spec.length:
        raise ValueError(f"{structure}.{spec.name}: {len(value)} bytes is more than {spec.length}")
    return bytes(value).ljust(spec.length, b"\x00")


# FieldSpec and _Plan are NamedTuples, not dataclasses: a NamedTuple class costs about a
# tenth of a frozen dataclass's to create, and every structure module imports this one.
class _Plan(NamedTuple):
    """How to move a structure's fields in and out of struct in bulk."""

    getter: Callable[[Any], tuple[Any, ...]]
    chars: tuple[tuple[int, int], ...]
    byte_fields: tuple[tuple[int, int], ...]
    positional: bool
    names: tuple[str, ...]


class MQStructure:
    """Base for dataclasses whose fields are an MQ structure's fields, in order."""

    STRUCTURE: ClassVar[str]
    STRUC_ID: ClassVar[str]
    SPECS: ClassVar[tuple[FieldSpec, ...]]
    _STRUCTS: ClassVar[dict[str, struct.Struct]]
    _PLAN: ClassVar[_Plan]

    @classmethod
    def size(cls) -> int:
        return cls._struct(">").size

    @classmethod
    def _struct(cls, order: str) -> struct.Struct:
        cache = cls.__dict__.get("_STRUCTS")
        if cache is None:
            cache = {}
            cls._STRUCTS = cache
        found = cache.get(order)
        if found is None:
            found = struct.Struct(order + layout(cls.SPECS))
            cache[order] = found
        return found

    @classmethod
    def _plan(cls) -> _Plan:
        plan = cls.__dict__.get("_PLAN")
        if plan is None:
            names = [s.name for s in cls.SPECS]
            plan = _Plan(
                getter=operator.attrgetter(*names),
                chars=tuple((i, s.length) for i, s in enumerate(cls.SPECS) if s.kind == CHAR),
                byte_fields=tuple((i, s.length) for i, s in enumerate(cls.SPECS) if s.kind == BYTE),
                positional=[f.name for f in fields(cls)] == names,  # type: ignore[arg-type]
                names=tuple(names),
            )
            cls._PLAN = plan
        return plan

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        """The structure's bytes with its integers in ``encoding``'s byte order."""
        plan = self._plan()
        values = list(plan.getter(self))
        try:
            for i, length in plan.chars:
                raw = values[i].encode("latin-1")
                if len(raw) > length:
                    raise ValueError
                values[i] = raw.ljust(length, b" ")
            for i, length in plan.byte_fields:
                if type(values[i]) is not bytes or len(values[i]) > length:
                    raise ValueError
            return self._struct(byte_order(encoding)).pack(*values)
        except (AttributeError, ValueError, TypeError, UnicodeEncodeError, struct.error):
            return self._checked_pack(encoding)  # says which field is wrong, and why

    def _checked_pack(self, encoding: int) -> bytes:
        values: list[Any] = []
        for spec in self.SPECS:
            value = getattr(self, spec.name)
            if spec.kind == INT:
                if not isinstance(value, int) or isinstance(value, bool):
                    raise TypeError(
                        f"{self.STRUCTURE}.{spec.name} must be int, not {type(value).__name__}"
                    )
                if not -(2**31) <= value < 2**31:
                    raise ValueError(f"{self.STRUCTURE}.{spec.name}: {value} is not an MQLONG")
                values.append(value)
            elif spec.kind == CHAR:
                values.append(_pack_char(self.STRUCTURE, spec, value))
            else:
                values.append(_pack_bytes(self.STRUCTURE, spec, value))
        return self._struct(byte_order(encoding)).pack(*values)

    @classmethod
    def unpack(
        cls, buf: bytes | memoryview, encoding: int = C.MQENC_NATIVE, offset: int = 0
    ) -> Self:
        """Parse the structure at ``offset``; bad input raises MQFormatError."""
        try:
            order = byte_order(encoding)
        except ValueError as exc:
            raise MQFormatError(
                cls.STRUCTURE,
                "Encoding",
                offset,
                f"the preceding header's {exc}",
                cls.format_reason(),
            ) from None
        s = cls._struct(order)
        if len(buf) - offset < s.size:
            raise MQFormatError(
                cls.STRUCTURE,
                "StrucId",
                offset,
                f"buffer has {max(len(buf) - offset, 0)} bytes, the structure needs {s.size}",
                cls.format_reason(),
            )
        raw = s.unpack_from(buf, offset)
        if raw[0].rstrip(b" \x00") != cls.STRUC_ID.rstrip().encode("latin-1"):
            raise MQFormatError(
                cls.STRUCTURE,
                "StrucId",
                offset,
                f"expected {cls.STRUC_ID!r}, found {raw[0]!r}",
                cls.format_reason(),
            )
        plan = cls._plan()
        values = list(raw)
        for i, _length in plan.chars:
            values[i] = values[i].rstrip(b" \x00").decode("latin-1")
        if plan.positional:
            return cls(*values)
        return cls(**dict(zip(plan.names, values, strict=True)))

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_FORMAT_ERROR

    def to_dict(self) -> dict[str, object]:
        """Field name -> value, with bytes as hex: the JSON form the CLI prints."""
        out: dict[str, object] = {}
        for spec in self.SPECS:
            value = getattr(self, spec.name)
            out[spec.name] = value.hex() if isinstance(value, bytes) else value
        return out

    def copy(self, **changes: Any) -> Self:
        plan = self._plan()
        duplicate = type(self)(*plan.getter(self)) if plan.positional else copy.copy(self)
        for name, value in changes.items():
            setattr(duplicate, name, value)
        return duplicate


def spec(name: str, kind: str, length: int = 4) -> FieldSpec:
    return FieldSpec(name, kind, length)
