"""MQOpts: the structure objects of pymqi and ibmmq programs (MD, GMO, OD, ...), both flavours.

What programs rely on (shared/reference/pymqi.md 1.5): fields by attribute, item and
keyword (``md.Format``, ``md['Format']``, ``MD(Format=...)``, ``md.set(...)``); an unknown
keyword or item is an AttributeError while a plain attribute assignment of an unknown
name is allowed; ``get()`` gives the fields as a dict; ``pack()``/``unpack(buf)`` move them
to and from the C layout (a short buffer is NUL-extended; ``unpack`` returns the object);
``get_length()``; ``str()`` lists the fields.

The layouts come from :mod:`mqjms.mq` (one definition per structure); each flavour says
which versions' fields its classes carry, what the fields are called (``StrucId`` or
``_StrucId``) and what their defaults are (:class:`Shape`). Packing uses native struct
formats, so pointers and MQINT64s are aligned exactly as by the real libraries.

Values: character fields are ``bytes`` (full length, NUL-padded, after ``unpack``); a
``str`` is accepted wherever bytes go in a character field (encoded as ASCII) in both
flavours, a superset of pymqi, which refused it. Binary fields (MsgId, CorrelId, ...)
must be bytes.
"""

from __future__ import annotations

import contextlib
import ctypes
import struct
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from mqjms.mq.control import INT64, LONGS, PTR, ControlBlock
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, MQStructure

# Fields that hold bytes, never text: to_string() leaves them alone, pack() wants bytes.
BINARY_FIELDS = frozenset(
    {
        "AccountingToken",
        "AlternateSecurityId",
        "ConnectionId",
        "ConnTag",
        "CorrelId",
        "Facility",
        "GroupId",
        "MCASecurityId",
        "MsgId",
        "MsgToken",
        "PubAccountingToken",
        "RemoteSecurityId",
        "SubCorrelId",
        "TranInstanceId",
    }
)
MQI_ENCODING = "ascii"  # how a str becomes an MQCHAR field (ibmmq's EncodingDefault.mqi_encoding)

FieldDef = Sequence[Any]  # [name, default, struct code] or [name, default, code, count]


def as_bytes(value: Any) -> Any:
    """A str as the bytes an MQCHAR field holds; anything else unchanged."""
    return value.encode(MQI_ENCODING) if isinstance(value, str) else value


class MQOpts:
    """Base of the structure classes: fields from a list of [name, default, format(, count)].

    As in pymqi and ibmmq a program may subclass it with its own list, e.g.
    ``MQOpts([['StrucId', b'XYZ ', '4s'], ['Version', 1, 'i']], Version=2)``.
    """

    def __init__(self, memlist: Sequence[FieldDef], **kw: Any) -> None:
        fields = [list(item) for item in memlist]
        for item in fields:
            if len(item) < 4:
                item.append(1)
        self._mqopts_fields: list[list[Any]] = fields
        self._mqopts_format = "".join(str(item[2]) * int(item[3]) for item in fields)
        self._mqopts_buffers: dict[str, Any] = {}  # keeps set_vs/pointer strings alive
        for item in fields:
            default = item[1]
            setattr(self, item[0], list(default) if isinstance(default, list) else default)
        self.set(**kw)

    # --- access --------------------------------------------------------------------------

    def set(self, **kw: Any) -> None:
        """Set fields by keyword; an unknown name is an AttributeError."""
        for name, value in kw.items():
            getattr(self, str(name))
            setattr(self, str(name), as_bytes(value))

    def __setitem__(self, key: str, value: Any) -> None:
        getattr(self, key)
        setattr(self, key, as_bytes(value))

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def get(self) -> dict[str, Any]:
        """The fields, in order, as a dict keyed by their names."""
        return {item[0]: getattr(self, item[0]) for item in self._mqopts_fields}

    def get_length(self) -> int:
        """The length of the packed structure."""
        return struct.calcsize(self._mqopts_format)

    def __str__(self) -> str:
        return "\n".join(
            f"{item[0]}: {_shown(item[0], getattr(self, item[0]))}" for item in self._mqopts_fields
        )

    def __repr__(self) -> str:
        return str(self.pack())

    # --- bytes ---------------------------------------------------------------------------

    def pack(self) -> bytes:
        """The structure's C layout (native byte order and alignment)."""
        args: list[Any] = []
        for name, _default, code, _count in self._mqopts_fields:
            value = getattr(self, name)
            if isinstance(value, list | tuple):
                args.extend(as_bytes(item) for item in value)
                continue
            if name in BINARY_FIELDS and not isinstance(value, bytes | bytearray):
                raise TypeError(f"{name} must be a byte array")
            if value is None:
                if str(code).endswith("s"):
                    raise TypeError(f"Class:{type(self).__name__} Field:{name} must not be None")
                value = 0
            if code == "P" and isinstance(value, str | bytes):
                value = self._address_of(name, value)
            if str(code).endswith("s") and isinstance(value, str):
                try:
                    value = value.encode(MQI_ENCODING)
                except UnicodeEncodeError:
                    raise ValueError(
                        f"{type(self).__name__}.{name}: {value!r} is not {MQI_ENCODING}"
                    ) from None
            args.append(value)
        try:
            return struct.pack(self._mqopts_format, *args)
        except struct.error as exc:
            raise TypeError(f"{type(self).__name__}: cannot pack the fields: {exc}") from None

    def unpack(self, buff: bytes) -> Self:
        """Fill the fields from ``buff`` (NUL-extended when short); returns the object."""
        if isinstance(buff, str):
            raise TypeError(
                f"Python 3 style string (unicode) found but not allowed here: `{buff}`. "
                "Convert to bytes."
            )
        data = bytes(buff)
        missing = self.get_length() - len(data)
        if missing > 0:
            data += b"\x00" * missing
        values = iter(struct.unpack(self._mqopts_format, data[: self.get_length()]))
        for name, default, code, count in self._mqopts_fields:
            if isinstance(default, list):
                per_field = int(count) * _items_in(str(code))
                setattr(self, name, [next(values) for _ in range(per_field)])
            else:
                setattr(self, name, next(values))
        return self

    def to_string(self, encoding: str = "utf8") -> Self:
        """Character fields as stripped ``str`` (up to a NUL), in place; binary ones stay bytes."""
        for name, *_rest in self._mqopts_fields:
            value = getattr(self, name)
            if isinstance(value, bytes) and name not in BINARY_FIELDS:
                with contextlib.suppress(UnicodeError):
                    setattr(self, name, value.split(b"\x00", 1)[0].decode(encoding).strip())
        return self

    # --- pointers ------------------------------------------------------------------------

    def _address_of(self, name: str, value: str | bytes) -> int:
        buffer = ctypes.create_string_buffer(as_bytes(value))
        self._mqopts_buffers[name] = buffer
        return int(ctypes.cast(buffer, ctypes.c_void_p).value or 0)

    def set_vs(
        self,
        vs_name: str,
        vs_value: str | bytes | None = None,
        vs_offset: int = 0,
        vs_buffer_size: int = 0,
        vs_ccsid: int = 0,
    ) -> None:
        """Point an MQCHARV (``ObjectString``, ``SubName``, ...) at ``vs_value``."""
        base = vs_name[: -len("VSPtr")] if vs_name.endswith("VSPtr") else vs_name
        raw = as_bytes(vs_value)
        self[base + "VSPtr"] = 0 if raw is None else self._address_of(base, raw)
        self[base + "VSOffset"] = vs_offset
        self[base + "VSBufSize"] = vs_buffer_size
        self[base + "VSLength"] = 0 if raw is None else len(raw)
        self[base + "VSCCSID"] = vs_ccsid

    def get_vs(self, vs_name: str) -> bytes | None:
        """The string an MQCHARV points at, or None."""
        base = vs_name[: -len("VSPtr")] if vs_name.endswith("VSPtr") else vs_name
        address = self[base + "VSPtr"]
        if not address:
            return None
        return ctypes.cast(address, ctypes.c_char_p).value

    def _set_ptr_field(self, name: str, value: Any) -> None:
        """Point ``name`` at ``value`` and set its Length twin (ibmmq's CSP/CNO/SCO fields)."""
        base = name[: -len("Ptr")] if name.endswith("Ptr") else name
        length_name = next(
            (n for n in (f"_{base}Length", f"{base}Length") if hasattr(self, n)), None
        )
        if hasattr(self, f"_{base}Offset"):
            self[f"_{base}Offset"] = 0
        raw = as_bytes(value)
        if raw is None or raw == 0:
            self[name] = 0
            if length_name:
                self[length_name] = 0
            return
        self[name] = self._address_of(name, raw)
        if length_name:
            self[length_name] = len(raw)

    def _remove(self, key: str) -> None:
        """Drop a field (ibmmq uses it to strip MQMD v2 fields from an XQH's MQMD v1)."""
        self._mqopts_fields = [item for item in self._mqopts_fields if item[0] != key]
        self._mqopts_format = "".join(str(i[2]) * int(i[3]) for i in self._mqopts_fields)
        self.__dict__.pop(key, None)


def _items_in(code: str) -> int:
    """How many values a struct code like ``'16i'`` or ``'i'`` packs."""
    digits = code[:-1]
    return int(digits) if digits and not code.endswith("s") else 1


# --- field tables from mqjms.mq ----------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """How a flavour presents one mqjms.mq structure as an MQOpts field list."""

    block: type[MQStructure]
    version: int | None = None  # carry the fields up to this version's layout; None: all
    renames: Mapping[str, str] = field(default_factory=dict)  # IBM's name -> the flavour's
    defaults: Mapping[str, Any] = field(default_factory=dict)  # by the flavour's names
    codes: Mapping[str, str] = field(default_factory=dict)  # struct codes by the flavour's names
    tail: tuple[tuple[str, Any, str], ...] = ()  # fields the library adds (explicit padding)

    def fields(self) -> list[list[Any]]:
        specs = self._specs()
        initial = self.block()
        out: list[list[Any]] = []
        for spec in specs:
            name = self.renames.get(spec.name, spec.name)
            default, code, count = _library_form(spec, getattr(initial, spec.name))
            code = self.codes.get(name, code)
            if code == "c":
                default = as_bytes(default) if isinstance(default, str) else bytes([default])
            default = self.defaults.get(name, default)
            out.append([name, default, code, count])
        out.extend([name, default, code, 1] for name, default, code in self.tail)
        return out

    def _specs(self) -> tuple[FieldSpec, ...]:
        if issubclass(self.block, ControlBlock):
            return self.block.layout(self.version).specs
        return self.block.SPECS


def _library_form(spec: FieldSpec, value: Any) -> tuple[Any, str, int]:
    """A field's default, struct code and count as pymqi and ibmmq declare such a field."""
    if spec.kind == INT:
        return value, "i", 1
    if spec.kind == INT64:
        return value, "q", 1
    if spec.kind == PTR:
        return value, "P", 1
    if spec.kind == LONGS:
        return list(value), "i", spec.length // 4
    if spec.kind == CHAR and spec.length == 1:
        return ord(value), "b", 1  # GroupStatus & co.: a signed char holding the character
    if spec.kind == BYTE:
        return (b"" if not value.strip(b"\x00") else value), f"{spec.length}s", 1
    if spec.name == "StrucId":
        return value.encode("latin-1").ljust(spec.length), f"{spec.length}s", 1
    return value.encode("latin-1"), f"{spec.length}s", 1


class Structure(MQOpts):
    """An MQOpts whose fields come from a :class:`Shape` (the flavour classes' base)."""

    SHAPE: ClassVar[Shape]
    _FIELDS: ClassVar[list[list[Any]]]

    def __init__(self, **kw: Any) -> None:
        fields = type(self).__dict__.get("_FIELDS")
        if fields is None:
            fields = self.SHAPE.fields()
            type(self)._FIELDS = fields
        super().__init__(fields, **kw)


# Fields that carry a credential (MQCSP's CSPPassword, InitialKey and Token; MQCD's
# Password and RemotePassword): str() shows *** for a value, never the value. Only
# these: AccountingToken and MsgToken are no secrets, and help whoever debugs.
_SECRET_FIELDS = frozenset({"CSPPassword", "InitialKey", "Token", "Password", "RemotePassword"})


def _shown(name: str, value: Any) -> Any:
    return "***" if name in _SECRET_FIELDS and value else value
