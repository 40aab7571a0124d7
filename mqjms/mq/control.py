"""Versioned MQI control blocks (MQOD, MQGMO, MQCNO, ...) laid out as on 64-bit Linux.

The MQI's option structures grow by version: version n is version n-1 plus new fields
at its end, and the ``Version`` field says how much of the structure a program passes.
Several hold pointers (MQPTR, 8 bytes, 8-aligned on 64-bit) or MQINT64s, so the C
compiler puts padding before them and at the end of a version; IBM's MQxx_LENGTH_n
constants are those padded lengths. This module lays a structure out once per version,
the way cmqc.h/cmqxc.h do on 64-bit Linux, so that bytes packed by a C program, by
pymqi or by ibmmq unpack here field for field, and ours unpack there.

Beyond :mod:`mqjms.mq.structure`'s kinds (MQLONG, MQCHARn, MQBYTEn) a field here may be
an MQINT64 (``INT64``), a pointer (``PTR``: an address as an int, 0 is NULL) or an
array of MQLONGs (``LONGS``, a tuple; ``length`` is its size in bytes).
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from typing import Any, ClassVar, NoReturn, Self

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, MQStructure, byte_order

INT64 = "q"
PTR = "P"
LONGS = "l"

_ALIGNMENT = {INT: 4, INT64: 8, PTR: 8, LONGS: 4, CHAR: 1, BYTE: 1}
_MQLONG = range(-(2**31), 2**31)
_MQINT64 = range(-(2**63), 2**63)
_ADDRESS = range(2**64)


@dataclass(frozen=True, slots=True)
class VersionLayout:
    """Where each field of one version sits, and the version's length (MQxx_LENGTH_n)."""

    version: int
    specs: tuple[FieldSpec, ...]
    offsets: tuple[int, ...]
    end: int  # just past the last field
    length: int  # ``end`` rounded up to the widest alignment so far: IBM's length

    @functools.cache  # noqa: B019 - layouts are module-level constants, never freed
    def struct(self, order: str) -> struct.Struct:
        parts, position = [], 0
        for spec, offset in zip(self.specs, self.offsets, strict=True):
            if offset > position:
                parts.append(f"{offset - position}x")
            parts.append(_code(spec))
            position = offset + spec.length
        if self.length > position:
            parts.append(f"{self.length - position}x")
        return struct.Struct(order + "".join(parts))

    def offset_of(self, name: str) -> int:
        for spec, offset in zip(self.specs, self.offsets, strict=True):
            if spec.name == name:
                return offset
        raise KeyError(name)


def _code(spec: FieldSpec) -> str:
    if spec.kind == INT:
        return "i"
    if spec.kind == INT64:
        return "q"
    if spec.kind == PTR:
        return "Q"
    if spec.kind == LONGS:
        return f"{spec.length // 4}i"
    return f"{spec.length}s"


def layouts(*groups: tuple[FieldSpec, ...]) -> tuple[VersionLayout, ...]:
    """One layout per version: ``groups[n-1]`` holds the fields version n adds."""
    result: list[VersionLayout] = []
    specs: list[FieldSpec] = []
    offsets: list[int] = []
    position, widest = 0, 1
    for version, group in enumerate(groups, 1):
        for spec in group:
            align = _ALIGNMENT[spec.kind]
            position = -(-position // align) * align
            specs.append(spec)
            offsets.append(position)
            position += spec.length
            widest = max(widest, align)
        length = -(-position // widest) * widest
        result.append(VersionLayout(version, tuple(specs), tuple(offsets), position, length))
    return tuple(result)


def charv(name: str) -> tuple[FieldSpec, ...]:
    """An MQCHARV (variable-length string) flattened as pymqi and ibmmq name it."""
    return (
        FieldSpec(f"{name}VSPtr", PTR, 8),
        FieldSpec(f"{name}VSOffset", INT, 4),
        FieldSpec(f"{name}VSBufSize", INT, 4),
        FieldSpec(f"{name}VSLength", INT, 4),
        FieldSpec(f"{name}VSCCSID", INT, 4),
    )


def longs(name: str, count: int) -> FieldSpec:
    """An array of ``count`` MQLONGs (a tuple)."""
    return FieldSpec(name, LONGS, 4 * count)


def ptr(name: str) -> FieldSpec:
    """A pointer: 8 bytes, 8-aligned; its value is an address (0 is NULL)."""
    return FieldSpec(name, PTR, 8)


def int64(name: str) -> FieldSpec:
    """An MQINT64 (a message handle, for instance): 8 bytes, 8-aligned."""
    return FieldSpec(name, INT64, 8)


class ControlBlock(MQStructure):
    """Base for dataclasses that are versioned MQI structures; ``Version`` picks the layout.

    Subclasses set ``LAYOUTS`` (from :func:`layouts`) and ``SPECS`` (the last layout's
    specs). Character fields are ``str`` without their padding, as in every structure
    here (packing pads them with blanks), except one-character flags such as
    MQGMO.GroupStatus, where a blank is a value (MQGS_NOT_IN_GROUP).
    """

    LAYOUTS: ClassVar[tuple[VersionLayout, ...]]

    @classmethod
    def versions(cls) -> range:
        """The Version values this structure may carry."""
        return range(1, len(cls.LAYOUTS) + 1)

    @classmethod
    def layout(cls, version: int | None = None) -> VersionLayout:
        """The layout of ``version`` (the highest supported when None)."""
        if version is None:
            return cls.LAYOUTS[-1]
        if version not in cls.versions():
            valid = cls.versions()
            raise ValueError(
                f"{cls.STRUCTURE}.Version {version} is not one of {valid.start}..{valid.stop - 1}"
            )
        return cls.LAYOUTS[min(version, len(cls.LAYOUTS)) - 1]

    @classmethod
    def size(cls, version: int | None = None) -> int:
        """IBM's MQxx_LENGTH_n for ``version`` (the highest supported when None)."""
        return cls.layout(version).length

    def _version(self) -> int | None:
        version = getattr(self, "Version", None)
        if version is None:
            return None
        if not isinstance(version, int) or isinstance(version, bool):
            raise TypeError(f"{self.STRUCTURE}.Version must be int, not {type(version).__name__}")
        return version

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        """The bytes of the version in ``Version``, padded to its IBM length."""
        layout = self.layout(self._version())
        flat: list[Any] = []
        for spec in layout.specs:
            value = _packable(self.STRUCTURE, spec, getattr(self, spec.name))
            if isinstance(value, tuple):
                flat.extend(value)
            else:
                flat.append(value)
        return layout.struct(byte_order(encoding)).pack(*flat)

    @classmethod
    def unpack(
        cls, buf: bytes | bytearray | memoryview, encoding: int = C.MQENC_NATIVE, offset: int = 0
    ) -> Self:
        """Parse the structure at ``offset``, as much of it as its Version holds.

        A buffer may stop at the end of the version's last field, without the trailing
        padding (pymqi packs its MQSCO and MQCD so). Fields of later versions keep their
        initial values. Bad input raises MQFormatError with the structure's reason code.
        """
        try:
            order = byte_order(encoding)
        except ValueError as exc:
            raise MQFormatError(
                cls.STRUCTURE, "Encoding", offset, str(exc), cls.format_reason()
            ) from None
        available = len(buf) - offset
        layout = cls.layout()
        if any(spec.name == "Version" for spec in layout.specs):
            at = layout.offset_of("Version")
            if available < at + 4:
                cls._fail("Version", offset + at, f"buffer has {max(available, 0)} bytes")
            (version,) = struct.unpack_from(order + "i", buf, offset + at)
            if version not in cls.versions():
                valid = cls.versions()
                cls._fail(
                    "Version",
                    offset + at,
                    f"{version} is not one of {valid.start}..{valid.stop - 1}",
                )
            layout = cls.layout(version)
        if available < layout.end:
            cls._fail(
                layout.specs[0].name,
                offset,
                f"buffer has {max(available, 0)} bytes, version {layout.version} "
                f"needs {layout.end}",
            )
        data = bytes(buf[offset : offset + layout.length]).ljust(layout.length, b"\x00")
        raw = iter(layout.struct(order).unpack(data))
        values: dict[str, Any] = {}
        for spec in layout.specs:
            if spec.kind == LONGS:
                values[spec.name] = tuple(next(raw) for _ in range(spec.length // 4))
            elif spec.kind == CHAR and spec.length == 1:  # a flag character: " " means something
                values[spec.name] = next(raw).decode("latin-1")
            elif spec.kind == CHAR:
                values[spec.name] = next(raw).rstrip(b" \x00").decode("latin-1")
            else:
                values[spec.name] = next(raw)
        if cls.STRUC_ID:
            found = values["StrucId"]
            if found != cls.STRUC_ID.rstrip():
                cls._fail("StrucId", offset, f"expected {cls.STRUC_ID!r}, found {found!r}")
        return cls(**values)

    @classmethod
    def _fail(cls, field: str, offset: int, problem: str) -> NoReturn:
        raise MQFormatError(cls.STRUCTURE, field, offset, problem, cls.format_reason())


def _packable(structure: str, spec: FieldSpec, value: object) -> object:
    """``value`` as struct packs it, or a TypeError/ValueError naming the field."""
    where = f"{structure}.{spec.name}"
    if spec.kind in (CHAR, BYTE):
        if spec.kind == CHAR and isinstance(value, str):
            try:
                raw = value.encode("latin-1")
            except UnicodeEncodeError:
                raise ValueError(f"{where}: {value!r} has characters outside Latin-1") from None
            filler = b" "
        elif isinstance(value, bytes | bytearray):
            raw, filler = bytes(value), b"\x00"
        else:
            wanted = "str" if spec.kind == CHAR else "bytes"
            raise TypeError(f"{where} must be {wanted}, not {type(value).__name__}")
        if len(raw) > spec.length:
            raise ValueError(f"{where}: {value!r} is longer than {spec.length} bytes")
        return raw.ljust(spec.length, filler)
    if spec.kind == LONGS:
        count = spec.length // 4
        if not isinstance(value, tuple | list) or len(value) != count:
            raise TypeError(f"{where} must be {count} MQLONGs, not {value!r}")
        for item in value:
            _check_int(where, item, _MQLONG, "an MQLONG")
        return tuple(value)
    bounds = {
        INT: (_MQLONG, "an MQLONG"),
        INT64: (_MQINT64, "an MQINT64"),
        PTR: (_ADDRESS, "an address"),
    }
    allowed, what = bounds[spec.kind]
    _check_int(where, value, allowed, what)
    return value


def _check_int(where: str, value: object, allowed: range, what: str) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{where} must be int, not {type(value).__name__}")
    if value not in allowed:
        raise ValueError(f"{where}: {value} is not {what}")
