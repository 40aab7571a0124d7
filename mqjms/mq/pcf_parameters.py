"""PCF parameter structures: MQCFIN (an integer), MQCFST (a string), MQCFIL (integers),
MQCFSL (strings of one length), MQCFBS (bytes), their 64-bit kin MQCFIN64 and MQCFIL64,
MQCFGR (a group of the parameters that follow it), and PCFOther for a type not decoded
here, kept whole. Each starts with its Type and StrucLength, integers in the message's
Encoding, and is padded with NULs to a multiple of 4 bytes; a string is ``bytes`` in the
parameter's CodedCharSetId, exactly StringLength long (blanks kept). :mod:`.pcf` reads
and writes whole PCF messages of them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import ClassVar, NoReturn, Self

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.structure import byte_order

MQCFT_INTEGER = 3
MQCFT_STRING = 4
MQCFT_INTEGER_LIST = 5
MQCFT_STRING_LIST = 6
MQCFT_BYTE_STRING = 9
MQCFT_GROUP = 20
MQCFT_INTEGER64 = 23
MQCFT_INTEGER64_LIST = 25
MQCCSI_DEFAULT = 0
MQCFIN_STRUC_LENGTH = 16
MQCFST_STRUC_LENGTH_FIXED = 20
MQCFIL_STRUC_LENGTH_FIXED = 16
MQCFSL_STRUC_LENGTH_FIXED = 24
MQCFBS_STRUC_LENGTH_FIXED = 16
MQCFIN64_STRUC_LENGTH = 24
MQCFIL64_STRUC_LENGTH_FIXED = 16
MQCFGR_STRUC_LENGTH = 16
MQRCCF_CFGR_LENGTH_ERROR = 3258

Buffer = bytes | bytearray | memoryview


def _padded(length: int) -> int:
    return -(-length // 4) * 4


def _order(structure: str, encoding: int, offset: int, reason: int) -> str:
    try:
        return byte_order(encoding)
    except ValueError as exc:
        raise MQFormatError(structure, "Encoding", offset, str(exc), reason) from None


class _Parameter:
    """What the parameter structures share: Type, StrucLength, Parameter, then their own."""

    STRUCTURE: ClassVar[str]
    TYPE: ClassVar[int]
    FIXED: ClassVar[int]  # the length without the variable part
    LENGTH_REASON: ClassVar[int]

    @classmethod
    def _fail(cls, field_name: str, offset: int, problem: str, reason: int = 0) -> NoReturn:
        raise MQFormatError(cls.STRUCTURE, field_name, offset, problem, reason or cls.LENGTH_REASON)

    @classmethod
    def _head(cls, buf: Buffer, encoding: int, offset: int) -> tuple[str, int, int]:
        """Byte order, StrucLength and Parameter, checked against the buffer."""
        order = _order(cls.STRUCTURE, encoding, offset, cls.LENGTH_REASON)
        available = len(buf) - offset
        if available < cls.FIXED:
            cls._fail("Type", offset, f"buffer has {max(available, 0)} bytes, needs {cls.FIXED}")
        kind, length, parameter = struct.unpack_from(order + "3i", buf, offset)
        if kind != cls.TYPE:
            cls._fail("Type", offset, f"expected {cls.TYPE}, found {kind}", C.MQRCCF_CFH_TYPE_ERROR)
        if length < cls.FIXED or length % 4 or length > available:
            cls._fail(
                "StrucLength",
                offset + 4,
                f"{length} is not a multiple of 4 between {cls.FIXED} and the "
                f"{available} bytes left",
            )
        return order, length, parameter


@dataclass(slots=True, eq=True)
class MQCFIN(_Parameter):
    """An integer parameter, 16 bytes."""

    STRUCTURE: ClassVar[str] = "MQCFIN"
    TYPE: ClassVar[int] = MQCFT_INTEGER
    FIXED: ClassVar[int] = MQCFIN_STRUC_LENGTH
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFIN_LENGTH_ERROR

    Parameter: int = 0
    Value: int = 0

    @property
    def StrucLength(self) -> int:
        return MQCFIN_STRUC_LENGTH

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        return struct.pack(
            byte_order(encoding) + "4i", self.TYPE, self.StrucLength, self.Parameter, self.Value
        )

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, _length, parameter = cls._head(buf, encoding, offset)
        (value,) = struct.unpack_from(order + "i", buf, offset + 12)
        return cls(parameter, value)


@dataclass(slots=True, eq=True)
class MQCFST(_Parameter):
    """A string parameter: 20 bytes, then the string padded to a multiple of 4."""

    STRUCTURE: ClassVar[str] = "MQCFST"
    TYPE: ClassVar[int] = MQCFT_STRING
    FIXED: ClassVar[int] = MQCFST_STRUC_LENGTH_FIXED
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFST_LENGTH_ERROR

    Parameter: int = 0
    CodedCharSetId: int = MQCCSI_DEFAULT
    String: bytes = b""

    @property
    def StringLength(self) -> int:
        return len(self.String)

    @property
    def StrucLength(self) -> int:
        return self.FIXED + _padded(len(self.String))

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        head = struct.pack(
            byte_order(encoding) + "5i",
            self.TYPE,
            self.StrucLength,
            self.Parameter,
            self.CodedCharSetId,
            len(self.String),
        )
        return head + bytes(self.String).ljust(_padded(len(self.String)), b"\x00")

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, length, parameter = cls._head(buf, encoding, offset)
        ccsid, size = struct.unpack_from(order + "2i", buf, offset + 12)
        if not 0 <= size <= length - cls.FIXED:
            cls._fail(
                "StringLength",
                offset + 16,
                f"{size} does not fit in StrucLength {length}",
                C.MQRCCF_CFST_STRING_LENGTH_ERR,
            )
        start = offset + cls.FIXED
        return cls(parameter, ccsid, bytes(buf[start : start + size]))


@dataclass(slots=True, eq=True)
class MQCFIL(_Parameter):
    """An integer-list parameter: 16 bytes, then Count MQLONGs."""

    STRUCTURE: ClassVar[str] = "MQCFIL"
    TYPE: ClassVar[int] = MQCFT_INTEGER_LIST
    FIXED: ClassVar[int] = MQCFIL_STRUC_LENGTH_FIXED
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFIL_LENGTH_ERROR
    ITEM: ClassVar[str] = "i"  # each value's struct format, and its size
    ITEM_SIZE: ClassVar[int] = 4

    Parameter: int = 0
    Values: tuple[int, ...] = ()

    @property
    def Count(self) -> int:
        return len(self.Values)

    @property
    def StrucLength(self) -> int:
        return self.FIXED + self.ITEM_SIZE * len(self.Values)

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        count = len(self.Values)
        return struct.pack(
            f"{byte_order(encoding)}4i{count}{self.ITEM}",
            self.TYPE,
            self.StrucLength,
            self.Parameter,
            count,
            *self.Values,
        )

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, length, parameter = cls._head(buf, encoding, offset)
        (count,) = struct.unpack_from(order + "i", buf, offset + 12)
        if not 0 <= count <= (length - cls.FIXED) // cls.ITEM_SIZE:
            cls._fail(
                "Count",
                offset + 12,
                f"{count} does not fit in StrucLength {length}",
                C.MQRCCF_CFIL_COUNT_ERROR,
            )
        values = struct.unpack_from(f"{order}{count}{cls.ITEM}", buf, offset + cls.FIXED)
        return cls(parameter, tuple(values))


@dataclass(slots=True, eq=True)
class MQCFSL(_Parameter):
    """A string-list parameter: 24 bytes, then Count strings of StringLength bytes each.

    ``StringLength`` 0 means "the longest string's length"; shorter strings are padded
    with blanks to it when packed.
    """

    STRUCTURE: ClassVar[str] = "MQCFSL"
    TYPE: ClassVar[int] = MQCFT_STRING_LIST
    FIXED: ClassVar[int] = MQCFSL_STRUC_LENGTH_FIXED
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFSL_LENGTH_ERROR

    Parameter: int = 0
    CodedCharSetId: int = MQCCSI_DEFAULT
    Strings: tuple[bytes, ...] = ()
    StringLength: int = 0

    @property
    def Count(self) -> int:
        return len(self.Strings)

    def _string_length(self) -> int:
        longest = max((len(s) for s in self.Strings), default=0)
        if self.StringLength and longest > self.StringLength:
            raise ValueError(
                f"MQCFSL.Strings: a string of {longest} bytes is longer than "
                f"StringLength {self.StringLength}"
            )
        return self.StringLength or longest

    @property
    def StrucLength(self) -> int:
        return self.FIXED + _padded(len(self.Strings) * self._string_length())

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        size = self._string_length()
        head = struct.pack(
            byte_order(encoding) + "6i",
            self.TYPE,
            self.StrucLength,
            self.Parameter,
            self.CodedCharSetId,
            len(self.Strings),
            size,
        )
        data = b"".join(bytes(s).ljust(size, b" ") for s in self.Strings)
        return head + data.ljust(_padded(len(data)), b"\x00")

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, length, parameter = cls._head(buf, encoding, offset)
        ccsid, count, size = struct.unpack_from(order + "3i", buf, offset + 12)
        if count < 0 or size < 0 or count * size > length - cls.FIXED:
            cls._fail(
                "Count",
                offset + 16,
                f"{count} strings of {size} bytes do not fit in StrucLength {length}",
                C.MQRCCF_CFSL_COUNT_ERROR,
            )
        start = offset + cls.FIXED
        strings = tuple(bytes(buf[start + i * size : start + (i + 1) * size]) for i in range(count))
        return cls(parameter, ccsid, strings, size)


@dataclass(slots=True, eq=True)
class MQCFBS(_Parameter):
    """A byte-string parameter: 16 bytes, then the bytes padded to a multiple of 4."""

    STRUCTURE: ClassVar[str] = "MQCFBS"
    TYPE: ClassVar[int] = MQCFT_BYTE_STRING
    FIXED: ClassVar[int] = MQCFBS_STRUC_LENGTH_FIXED
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFBS_LENGTH_ERROR

    Parameter: int = 0
    String: bytes = b""

    @property
    def StringLength(self) -> int:
        return len(self.String)

    @property
    def StrucLength(self) -> int:
        return self.FIXED + _padded(len(self.String))

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        head = struct.pack(
            byte_order(encoding) + "4i",
            self.TYPE,
            self.StrucLength,
            self.Parameter,
            len(self.String),
        )
        return head + bytes(self.String).ljust(_padded(len(self.String)), b"\x00")

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, length, parameter = cls._head(buf, encoding, offset)
        (size,) = struct.unpack_from(order + "i", buf, offset + 12)
        if not 0 <= size <= length - cls.FIXED:
            cls._fail(
                "StringLength",
                offset + 12,
                f"{size} does not fit in StrucLength {length}",
                C.MQRCCF_CFBS_STRING_LENGTH_ERR,
            )
        start = offset + cls.FIXED
        return cls(parameter, bytes(buf[start : start + size]))


@dataclass(slots=True, eq=True)
class MQCFIN64(_Parameter):
    """A 64-bit integer parameter, 24 bytes (4 reserved before the value)."""

    STRUCTURE: ClassVar[str] = "MQCFIN64"
    TYPE: ClassVar[int] = MQCFT_INTEGER64
    FIXED: ClassVar[int] = MQCFIN64_STRUC_LENGTH
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFIN_LENGTH_ERROR  # "MQCFIN or MQCFIN64"

    Parameter: int = 0
    Value: int = 0

    @property
    def StrucLength(self) -> int:
        return MQCFIN64_STRUC_LENGTH

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        return struct.pack(
            byte_order(encoding) + "4iq", self.TYPE, self.StrucLength, self.Parameter, 0, self.Value
        )

    @classmethod
    def unpack(cls, buf: Buffer, encoding: int = C.MQENC_NATIVE, offset: int = 0) -> Self:
        order, _length, parameter = cls._head(buf, encoding, offset)
        (value,) = struct.unpack_from(order + "q", buf, offset + 16)
        return cls(parameter, value)


@dataclass(slots=True, eq=True)
class MQCFIL64(MQCFIL):
    """A 64-bit integer-list parameter: 16 bytes, then Count MQINT64s."""

    STRUCTURE: ClassVar[str] = "MQCFIL64"
    TYPE: ClassVar[int] = MQCFT_INTEGER64_LIST
    FIXED: ClassVar[int] = MQCFIL64_STRUC_LENGTH_FIXED
    LENGTH_REASON: ClassVar[int] = C.MQRCCF_CFIL_LENGTH_ERROR  # "MQCFIL or MQCFIL64"
    ITEM: ClassVar[str] = "q"
    ITEM_SIZE: ClassVar[int] = 8


@dataclass(slots=True, eq=True)
class MQCFGR(_Parameter):
    """A group: 16 bytes (StrucLength counts only them), then its ParameterCount
    parameters, which the MQCFH's ParameterCount does not count (the group is one)."""

    STRUCTURE: ClassVar[str] = "MQCFGR"
    TYPE: ClassVar[int] = MQCFT_GROUP
    FIXED: ClassVar[int] = MQCFGR_STRUC_LENGTH
    LENGTH_REASON: ClassVar[int] = MQRCCF_CFGR_LENGTH_ERROR

    Parameter: int = 0
    Parameters: tuple[AnyParameter, ...] = ()

    @property
    def ParameterCount(self) -> int:
        return len(self.Parameters)

    @property
    def StrucLength(self) -> int:
        return MQCFGR_STRUC_LENGTH

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        head = struct.pack(
            byte_order(encoding) + "4i",
            self.TYPE,
            self.StrucLength,
            self.Parameter,
            self.ParameterCount,
        )
        return head + b"".join(p.pack(encoding) for p in self.Parameters)


@dataclass(slots=True, eq=True)
class PCFOther:
    """A parameter of a type not decoded here (a group, a filter, 64-bit integers): kept whole."""

    Type: int
    Parameter: int
    data: bytes = field(repr=False)

    @property
    def StrucLength(self) -> int:
        return len(self.data)

    def pack(self, encoding: int = C.MQENC_NATIVE) -> bytes:
        return self.data


AnyParameter = MQCFIN | MQCFST | MQCFIL | MQCFSL | MQCFBS | MQCFIN64 | MQCFIL64 | MQCFGR | PCFOther
Parameter = AnyParameter
