"""MQRFH2 chains: the header IBM MQ classes for JMS put in front of every JMS message.

Byte rules (mq-reference §2.2-2.3): the fixed part and every NameValueLength are in the
*preceding* header's encoding (the MQMD's for the first RFH2); the RFH2's own Encoding,
CodedCharSetId and Format describe what follows it. Each NameValueData is one XML folder
in NameValueCCSID, padded with spaces to a multiple of 4 bytes.

A decoded RFH2 remembers its exact bytes, so re-encoding an unchanged header is
byte-identical even when the sender padded with NULs or extra blanks. The folders' XML
is parsed (and cached) by :mod:`.rfh2_folders`, whose names are importable from here.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, NoReturn

from mqjms.mq import constants as C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.md import MQMD
from mqjms.mq.rfh2_folders import FOLDER_CACHE_BYTES as FOLDER_CACHE_BYTES
from mqjms.mq.rfh2_folders import FOLDER_CACHE_ENTRIES as FOLDER_CACHE_ENTRIES
from mqjms.mq.rfh2_folders import FOLDER_CACHE_ENTRY_BYTES as FOLDER_CACHE_ENTRY_BYTES
from mqjms.mq.rfh2_folders import folder_cache as folder_cache
from mqjms.mq.rfh2_folders import folder_footprint as folder_footprint
from mqjms.mq.rfh2_folders import folder_name as folder_name
from mqjms.mq.rfh2_folders import parse_folder as parse_folder
from mqjms.mq.structure import byte_order

MQRFH_STRUC_ID = "RFH "
MQRFH_VERSION_2 = 2
MQRFH_STRUC_LENGTH_FIXED_2 = 36
MQRFH_NONE = 0

STRUCTURE = "MQRFH2"
# StrucId, Version, StrucLength, Encoding, CodedCharSetId, Format, Flags, NameValueCCSID
_FIXED = "4s4i8s2i"
_FIXED_STRUCTS = {order: struct.Struct(order + _FIXED) for order in "<>"}
_LENGTH_STRUCTS = {order: struct.Struct(order + "i") for order in "<>"}
_UTF16_CCSIDS = frozenset({1200, 13488, 17584})
SUPPORTED_NAME_VALUE_CCSIDS = frozenset({1208}) | _UTF16_CCSIDS

Buffer = bytes | bytearray | memoryview


def _codec(ccsid: int, order: str) -> str:
    if ccsid == 1208:
        return "utf-8"
    if ccsid in _UTF16_CCSIDS:
        return "utf-16-le" if order == "<" else "utf-16-be"
    raise ValueError(f"NameValueCCSID {ccsid} is not one of {sorted(SUPPORTED_NAME_VALUE_CCSIDS)}")


def _pad(data: bytes, codec: str) -> bytes:
    """Right-pad with spaces (in the folder's own CCSID) to a multiple of 4 bytes."""
    space = " ".encode(codec)
    while len(data) % 4:
        data += space
    return data


# --- the header -----------------------------------------------------------------------


def _mqlong(name: str, value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{STRUCTURE}.{name} must be int, not {type(value).__name__}")
    if not -(2**31) <= value < 2**31:
        raise ValueError(f"{STRUCTURE}.{name}: {value} is not an MQLONG")
    return value


def _char(name: str, value: object, length: int) -> bytes:
    if not isinstance(value, str):
        raise TypeError(f"{STRUCTURE}.{name} must be str, not {type(value).__name__}")
    try:
        raw = value.encode("latin-1")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{STRUCTURE}.{name}: {value!r} has characters outside Latin-1") from exc
    if len(raw) > length:
        raise ValueError(f"{STRUCTURE}.{name}: {value!r} is longer than {length} characters")
    return raw.ljust(length, b" ")


def _order(encoding: int, offset: int, whose: str = "the preceding header's") -> str:
    try:
        return byte_order(encoding)
    except ValueError:
        raise MQFormatError(
            STRUCTURE,
            "Encoding",
            offset,
            f"integers are in {whose} Encoding {encoding}, whose integer encoding "
            f"{encoding & C.MQENC_INTEGER_MASK} is neither normal (1) nor reversed (2)",
            C.MQRC_RFH_ERROR,
        ) from None


def _fail(fieldname: str, offset: int, problem: str, reason: int = C.MQRC_RFH_ERROR) -> NoReturn:
    raise MQFormatError(STRUCTURE, fieldname, offset, problem, reason)


@dataclass(slots=True, eq=True)
class RFH2:
    """One MQRFH2: the fixed fields under IBM's names plus its folders as XML strings.

    ``folders`` hold the NameValueData with the padding removed. ``StrucLength`` is not
    stored: it follows from the folders. Defaults are IBM's initial values.
    """

    StrucId: str = "RFH"
    Version: int = MQRFH_VERSION_2
    Encoding: int = C.MQENC_NATIVE
    CodedCharSetId: int = C.MQCCSI_INHERIT
    Format: str = C.MQFMT_NONE
    Flags: int = MQRFH_NONE
    NameValueCCSID: int = 1208
    folders: list[str] = field(default_factory=list)
    # The bytes this header was decoded from, and what they decoded to: reused by pack()
    # while nothing has changed, so a decode -> encode is byte-identical.
    _raw: bytes | None = field(default=None, init=False, repr=False, compare=False)
    _raw_key: tuple[object, ...] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # Character fields are held without their blank padding, as in every MQ structure.
        if isinstance(self.StrucId, str):
            self.StrucId = self.StrucId.rstrip(" \x00")
        if isinstance(self.Format, str):
            self.Format = self.Format.rstrip(" \x00")

    def _key(self) -> tuple[object, ...]:
        return (
            self.StrucId,
            self.Version,
            self.Encoding,
            self.CodedCharSetId,
            self.Format,
            self.Flags,
            self.NameValueCCSID,
            tuple(self.folders),
        )

    def _raw_for(self, order: str | None) -> bytes | None:
        if self._raw is None or self._raw_key is None or self._raw_key[1:] != self._key():
            return None
        if order is not None and self._raw_key[0] != order:
            return None
        return self._raw

    @property
    def StrucLength(self) -> int:
        """36 + the sum of (4 + padded length) over the folders."""
        raw = self._raw_for(None)
        if raw is not None:
            return len(raw)
        codec = _codec(self.NameValueCCSID, ">") if self.folders else "utf-8"
        return MQRFH_STRUC_LENGTH_FIXED_2 + sum(
            4 + len(_pad(text.encode(codec), codec)) for text in self.folders
        )

    def folder(self, name: str) -> str | None:
        """The first folder whose root element is ``name``, or None."""
        for text in self.folders:
            if folder_name(text) == name:
                return text
        return None

    def pack(self, encoding: int) -> bytes:
        """The header's bytes; ``encoding`` is the *preceding* header's Encoding."""
        order = byte_order(encoding)
        raw = self._raw_for(order)
        if raw is not None:
            return raw
        if self.StrucId.rstrip() != MQRFH_STRUC_ID.rstrip():
            raise ValueError(
                f"{STRUCTURE}.StrucId must be {MQRFH_STRUC_ID!r}, not {self.StrucId!r}"
            )
        if self.Version != MQRFH_VERSION_2:
            raise ValueError(f"{STRUCTURE}.Version must be 2, not {self.Version!r}")
        pairs: list[bytes] = []
        if self.folders:
            codec = _codec(self.NameValueCCSID, order)
            for index, text in enumerate(self.folders):
                if not isinstance(text, str):
                    raise TypeError(
                        f"{STRUCTURE} folder {index} must be str, not {type(text).__name__}"
                    )
                try:
                    parse_folder(text)
                    data = _pad(text.encode(codec), codec)
                except ValueError as exc:
                    raise ValueError(f"{STRUCTURE} folder {index} {text[:40]!r}: {exc}") from exc
                pairs.append(_LENGTH_STRUCTS[order].pack(len(data)) + data)
        length = MQRFH_STRUC_LENGTH_FIXED_2 + sum(len(p) for p in pairs)
        fixed = _FIXED_STRUCTS[order].pack(
            _char("StrucId", self.StrucId, 4),
            MQRFH_VERSION_2,
            _mqlong("StrucLength", length),
            _mqlong("Encoding", self.Encoding),
            _mqlong("CodedCharSetId", self.CodedCharSetId),
            _char("Format", self.Format, 8),
            _mqlong("Flags", self.Flags),
            _mqlong("NameValueCCSID", self.NameValueCCSID),
        )
        return fixed + b"".join(pairs)

    @classmethod
    def unpack(
        cls, buf: Buffer, encoding: int, offset: int = 0, check_folders: bool = True
    ) -> RFH2:
        """Decode the RFH2 at ``offset``; ``encoding`` is the preceding header's Encoding.

        Anything malformed raises MQFormatError naming the field and its byte offset.
        """
        if offset < 0:
            raise ValueError(f"offset {offset} is negative")
        order = _order(encoding, offset)
        available = len(buf) - offset
        if available < MQRFH_STRUC_LENGTH_FIXED_2:
            _fail(
                "StrucId",
                offset,
                f"buffer has {max(available, 0)} bytes, the fixed part "
                f"needs {MQRFH_STRUC_LENGTH_FIXED_2}",
            )
        strucid, version, length, enc, ccsid, fmt, flags, nvccsid = _FIXED_STRUCTS[
            order
        ].unpack_from(buf, offset)
        if strucid != MQRFH_STRUC_ID.encode("ascii"):
            _fail("StrucId", offset, f"expected {MQRFH_STRUC_ID!r}, found {strucid!r}")
        if version != MQRFH_VERSION_2:
            _fail("Version", offset + 4, f"expected 2, found {version}")
        if length < MQRFH_STRUC_LENGTH_FIXED_2 or length % 4:
            _fail("StrucLength", offset + 8, f"{length} is not a multiple of 4 that is at least 36")
        if length > available:
            _fail(
                "StrucLength",
                offset + 8,
                f"{length} runs past the end of the buffer ({available} bytes remain)",
            )
        end = offset + length
        folders: list[str] = []
        pos = offset + MQRFH_STRUC_LENGTH_FIXED_2
        codec = ""
        while pos < end:
            (size,) = _LENGTH_STRUCTS[order].unpack_from(buf, pos)
            if size < 0 or size % 4 or size > end - pos - 4:
                _fail(
                    "NameValueLength",
                    pos,
                    f"{size} is not a multiple of 4 between 0 and "
                    f"the {end - pos - 4} bytes left in StrucLength",
                )
            if not codec:
                try:
                    codec = _codec(nvccsid, order)
                except ValueError as exc:
                    _fail("NameValueCCSID", offset + 32, str(exc))
            folders.append(
                _decode_folder(bytes(buf[pos + 4 : pos + 4 + size]), codec, pos + 4, check_folders)
            )
            pos += 4 + size
        header = cls(
            StrucId=strucid.decode("latin-1").rstrip(" \x00"),
            Version=version,
            Encoding=enc,
            CodedCharSetId=ccsid,
            Format=fmt.rstrip(b" \x00").decode("latin-1"),
            Flags=flags,
            NameValueCCSID=nvccsid,
            folders=folders,
        )
        header._raw = bytes(buf[offset:end])
        header._raw_key = (order, *header._key())
        return header

    def to_dict(self) -> dict[str, object]:
        """Field name -> value: the JSON form the CLI prints."""
        return {
            "StrucId": self.StrucId,
            "Version": self.Version,
            "StrucLength": self.StrucLength,
            "Encoding": self.Encoding,
            "CodedCharSetId": self.CodedCharSetId,
            "Format": self.Format,
            "Flags": self.Flags,
            "NameValueCCSID": self.NameValueCCSID,
            "folders": list(self.folders),
        }


def _decode_folder(data: bytes, codec: str, offset: int, check: bool = True) -> str:
    try:
        text = data.decode(codec)
    except UnicodeDecodeError as exc:
        _fail(
            "NameValueData",
            offset,
            f"byte {exc.start} of the folder is not valid {codec}: {exc.reason}",
            C.MQRC_RFH_FORMAT_ERROR,
        )
    text = text.rstrip(" \x00")
    if not check:
        return text
    try:
        parse_folder(text)
    except ValueError as exc:
        _fail("NameValueData", offset, f"folder {text[:40]!r}: {exc}", C.MQRC_RFH_FORMAT_ERROR)
    return text


# --- chains ---------------------------------------------------------------------------


class RFH2Chain(NamedTuple):
    """The RFH2s at the start of a message and what follows them (the body).

    Encoding, CodedCharSetId and Format describe ``body``; a CodedCharSetId of
    MQCCSI_INHERIT in a header is resolved to the CCSID that header itself was in.
    """

    headers: list[RFH2]
    Encoding: int
    CodedCharSetId: int
    Format: str
    body: bytes

    @property
    def folders(self) -> list[str]:
        """Every folder of every header, in message order (first of a name wins)."""
        return [text for header in self.headers for text in header.folders]


def is_rfh2(fmt: str) -> bool:
    return fmt.rstrip(" \x00") == C.MQFMT_RF_HEADER_2


def parse_chain(
    data: Buffer, encoding: int, ccsid: int, fmt: str, check_folders: bool = True
) -> RFH2Chain:
    """Walk consecutive RFH2s while Format is MQHRF2, starting with the MQMD's values.

    ``check_folders=False`` skips checking that every folder is well-formed XML, for a
    caller that parses the folders it needs anyway (the JMS mapping) and copes with a
    malformed one itself.
    """
    headers: list[RFH2] = []
    offset = 0
    previous = -1
    while is_rfh2(fmt):
        if previous >= 0:
            _order(encoding, previous + 12, "the previous MQRFH2's")
        header = RFH2.unpack(data, encoding, offset, check_folders)
        headers.append(header)
        previous = offset
        offset += header.StrucLength
        if header.CodedCharSetId != C.MQCCSI_INHERIT:
            ccsid = header.CodedCharSetId
        encoding, fmt = header.Encoding, header.Format
    return RFH2Chain(headers, encoding, ccsid, fmt.rstrip(" \x00"), bytes(data[offset:]))


class ChainFolders(NamedTuple):
    """What a JMS consumer needs of an RFH2 chain: every folder in message order, and the
    body with the Encoding, CodedCharSetId and Format that describe it."""

    folders: list[str]
    Encoding: int
    CodedCharSetId: int
    Format: str
    body: bytes


# Integer encodings (Encoding & MQENC_INTEGER_MASK) -> struct byte order, as byte_order.
_ORDERS = {
    C.MQENC_INTEGER_UNDEFINED: ">",
    C.MQENC_INTEGER_NORMAL: ">",
    C.MQENC_INTEGER_REVERSED: "<",
}
_STRUC_ID = MQRFH_STRUC_ID.encode("ascii")


# Per integer encoding: the unpackers of an RFH2's fixed part and of a NameValueLength.
_WALKERS = {
    mask: (_FIXED_STRUCTS[order].unpack_from, _LENGTH_STRUCTS[order].unpack_from)
    for mask, order in _ORDERS.items()
}
_RF_HEADER_2 = C.MQFMT_RF_HEADER_2
_RF_HEADER_2_BYTES = C.MQFMT_RF_HEADER_2.encode("ascii")


def chain_folders(data: Buffer, encoding: int, ccsid: int, fmt: str) -> ChainFolders:
    """``parse_chain(..., check_folders=False)``'s folders and body without an RFH2 object
    per header: a listener's per-message path. A chain it does not walk cleanly (anything
    malformed, a UTF-16 NameValueCCSID) goes to :func:`parse_chain`, which then raises
    exactly what it always does, or returns the same values."""
    folders: list[str] = []
    offset, size_of_data = 0, len(data)
    first = (encoding, ccsid, fmt)
    whole = data if isinstance(data, bytes) else None  # sliced without a copy of a copy
    rfh2 = fmt.rstrip(" \x00") == _RF_HEADER_2
    while rfh2:
        walkers = _WALKERS.get(encoding & C.MQENC_INTEGER_MASK)
        if walkers is None or size_of_data - offset < MQRFH_STRUC_LENGTH_FIXED_2:
            return _parsed(data, *first)
        fixed, length_of = walkers
        strucid, version, length, next_encoding, header_ccsid, header_fmt, _flags, nvccsid = fixed(
            data, offset
        )
        if (
            strucid != _STRUC_ID
            or version != MQRFH_VERSION_2
            or length < MQRFH_STRUC_LENGTH_FIXED_2
            or length % 4
            or length > size_of_data - offset
        ):
            return _parsed(data, *first)
        pos, end = offset + MQRFH_STRUC_LENGTH_FIXED_2, offset + length
        if pos < end and nvccsid != 1208:
            return _parsed(data, *first)
        while pos < end:
            (size,) = length_of(data, pos)
            start = pos + 4
            pos = start + size
            if size < 0 or size % 4 or pos > end:
                return _parsed(data, *first)
            raw = whole[start:pos] if whole is not None else bytes(data[start:pos])
            try:
                folders.append(raw.decode("utf-8").rstrip(" \x00"))
            except UnicodeDecodeError:
                return _parsed(data, *first)
        offset = end
        if header_ccsid != C.MQCCSI_INHERIT:
            ccsid = header_ccsid
        encoding = next_encoding
        stripped = header_fmt.rstrip(b" \x00")
        rfh2 = stripped == _RF_HEADER_2_BYTES
        fmt = stripped.decode("latin-1")
    return ChainFolders(folders, encoding, ccsid, fmt.rstrip(" \x00"), bytes(data[offset:]))


def _parsed(data: Buffer, encoding: int, ccsid: int, fmt: str) -> ChainFolders:
    chain = parse_chain(data, encoding, ccsid, fmt, False)
    return ChainFolders(
        chain.folders, chain.Encoding, chain.CodedCharSetId, chain.Format, chain.body
    )


def build_chain(headers: Sequence[RFH2], body: bytes, encoding: int) -> bytes:
    """The headers then the body; ``encoding`` is the MQMD's (whose Format must be MQHRF2).

    Each header is packed in the previous one's Encoding; every header but the last
    must have Format MQHRF2, or a reader would stop early.
    """
    parts: list[bytes] = []
    for index, header in enumerate(headers):
        if index < len(headers) - 1 and not is_rfh2(header.Format):
            raise ValueError(
                f"{STRUCTURE} {index} has Format {header.Format!r} but another "
                f"MQRFH2 follows it: set Format to {C.MQFMT_RF_HEADER_2!r}"
            )
        parts.append(header.pack(encoding))
        encoding = header.Encoding
    parts.append(bytes(body))
    return b"".join(parts)


def in_front(md: MQMD, data: bytes, folders: list[str]) -> tuple[MQMD, bytes]:
    """``md``/``data`` (a body without an RFH2) with one of ``folders`` in front: the
    body's Format, CodedCharSetId and Encoding move into the RFH2, and the MQMD says
    MQHRF2, 1208 and 273, as IBM MQ classes for JMS write it (a copy of ``md``)."""
    header = RFH2(
        Encoding=md.Encoding,
        CodedCharSetId=md.CodedCharSetId,
        Format=md.Format,
        NameValueCCSID=C.CCSID_UTF8,
        folders=folders,
    )
    out = md.copy(Format=C.MQFMT_RF_HEADER_2, CodedCharSetId=C.CCSID_UTF8, Encoding=C.MQENC_NORMAL)
    return out, build_chain([header], data, C.MQENC_NORMAL)
