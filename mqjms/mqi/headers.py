"""RFH2 and the other message headers as pymqi and ibmmq programs handle them.

``RFH2`` keeps pymqi's folder-attribute API: after ``unpack(buf)`` (or ``add_folder``)
each folder is two fields, ``<name>Length`` and ``<name>`` (the folder's bytes with their
blank padding), beside the eight fixed fields; ``get_folders()`` lists the names (ibmmq),
``pack(encoding)`` writes the header in the byte order ``encoding`` asks for. Folder XML is
checked with :func:`mqjms.mq.rfh2.parse_folder` (expat, never a DOCTYPE).
:meth:`RFH2Base.to_header` and :meth:`RFH2Base.from_header` convert to and from
:class:`mqjms.mq.rfh2.RFH2`, the header the rest of mqjms uses.

The two flavours differ where their own tests show it: the error class and texts
(``StrucId`` or ``_StrucId``), which encodings are big-endian (pymqi: a fixed list;
ibmmq: the low bit of the integer encoding), and ibmmq's tolerance of folders Java
programs write that are not well-formed XML (the name is taken up to the first blank or
``>``). DLH, MDE, TM and TMC2 are plain structures (see the flavour modules); ibmmq's
``get_header(buf)`` reads one from the start of a message.
"""

from __future__ import annotations

import re
import struct
from typing import Any, ClassVar, Self

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD_LENGTH_1, MQMD_LENGTH_2
from mqjms.mq.rfh2 import MQRFH_STRUC_LENGTH_FIXED_2, parse_folder
from mqjms.mq.rfh2 import RFH2 as MQRFH2
from mqjms.mqi.constants import CMQC
from mqjms.mqi.errors import PYIFError
from mqjms.mqi.structures import MQOpts, Structure

_FIXED = (
    ("Version", CMQC.MQRFH_VERSION_2, "i"),
    ("StrucLength", 0, "i"),
    ("Encoding", CMQC.MQENC_NATIVE, "i"),
    ("CodedCharSetId", CMQC.MQCCSI_Q_MGR, "i"),
    ("Format", CMQC.MQFMT_NONE, "8s"),
    ("Flags", 0, "i"),
    ("NameValueCCSID", CMQC.MQCCSI_Q_MGR, "i"),
)
# The encodings pymqi packs big-endian (its RFH2.big_endian_encodings).
PYMQI_BIG_ENDIAN = frozenset({1, 16, 256, 768, 17, 257, 272, 273})
_JAVA_FOLDER_NAME = re.compile(rb"^<(\S+)")


class RFH2Base(MQOpts):
    """The MQRFH2 with its folders as fields; subclasses fix the flavour's behaviour."""

    ERROR: ClassVar[type[PYIFError]]
    STRUC_ID_FIELD: ClassVar[str]
    STRUC_IDS: ClassVar[tuple[bytes, ...]] = (CMQC.MQRFH_STRUC_ID,)
    TOLERANT_FOLDERS: ClassVar[bool] = False  # take a folder's name even if not well-formed
    TRUNCATE_AT_NUL: ClassVar[bool] = False  # a folder ends at its first NUL

    def __init__(self, **kw: Any) -> None:
        self._rfh2_order = ""  # the byte order of the last unpack or big-endian pack
        self._rfh2_folders: list[tuple[str, bytes]] = []
        super().__init__(self._memlist(), **kw)

    def _memlist(self) -> list[list[Any]]:
        fields: list[list[Any]] = [[self.STRUC_ID_FIELD, CMQC.MQRFH_STRUC_ID, "4s"]]
        fields += [list(item) for item in _FIXED]
        for name, data in self._rfh2_folders:
            fields.append([name + "Length", len(data), "i"])
            fields.append([name, data, f"{len(data)}s"])
        return fields

    def _rebuild(self) -> None:
        saved = {k: v for k, v in self.get().items() if not self._is_folder_field(k)}
        saved.update((name, data) for name, data in self._rfh2_folders)
        MQOpts.__init__(self, self._memlist())
        self._mqopts_format = self._rfh2_order + self._mqopts_format
        for key, value in saved.items():
            setattr(self, key, value)

    def _is_folder_field(self, name: str) -> bool:
        return any(name in (f, f + "Length") for f, _data in self._rfh2_folders)

    # --- folders -------------------------------------------------------------------------

    @classmethod
    def folder_name(cls, data: bytes) -> str:
        """The folder's root element name; the flavour's PYIFError if it is not XML."""
        try:
            return parse_folder(data.decode("utf-8").rstrip(" \x00")).tag
        except (ValueError, UnicodeDecodeError) as exc:
            matched = _JAVA_FOLDER_NAME.match(data) if cls.TOLERANT_FOLDERS else None
            if matched:
                return matched[1].decode("utf-8", "replace").split(">")[0]
            raise cls.ERROR(f"RFH2 - XML Folder not well formed. Exception: {exc}") from exc

    def add_folder(self, folder_data: bytes | str) -> None:
        """Append a folder, padded with blanks to a multiple of 4; StrucLength follows."""
        data = folder_data.encode("utf-8") if isinstance(folder_data, str) else bytes(folder_data)
        name = self.folder_name(data)
        data += b" " * (-len(data) % 4)
        self._rfh2_folders.append((name, data))
        self._rebuild()
        self["StrucLength"] = self.get_length()

    def get_folders(self) -> list[str]:
        """The folder names, in order."""
        return [name for name, _data in self._rfh2_folders]

    # --- bytes ---------------------------------------------------------------------------

    @classmethod
    def is_big_endian(cls, encoding: int) -> bool:
        return encoding & C.MQENC_INTEGER_MASK == C.MQENC_INTEGER_NORMAL

    def pack(self, encoding: int | None = None) -> bytes:
        """The header's bytes; with ``encoding`` (the preceding header's), in its byte order."""
        if encoding is not None and self.is_big_endian(encoding) and self._rfh2_order != ">":
            self._rfh2_order = ">"  # sticky, as in both libraries
            self._rebuild()
        return super().pack()

    def unpack(self, buff: bytes, encoding: int | None = None) -> Self:
        """Parse an RFH2 and its folders; byte order from ``encoding``, else guessed."""
        if isinstance(buff, str):
            raise TypeError("Python 3 style string (unicode) found but not allowed here")
        if bytes(buff[0:4]) not in self.STRUC_IDS:
            raise self.ERROR(
                f"RFH2 - {self.STRUC_ID_FIELD} not MQRFH_STRUC_ID. Value: {bytes(buff[0:4])!r}"
            )
        if len(buff) < MQRFH_STRUC_LENGTH_FIXED_2:
            raise self.ERROR(f"RFH2 - Buffer too short. Should be 36+ bytes instead of {len(buff)}")
        # Without an encoding: a little-endian Version 2 starts with 0x02, a big-endian with 0.
        big = self.is_big_endian(encoding) if encoding is not None else buff[4:5] == b"\x00"
        order = ">" if big else "<"
        (length,) = struct.unpack_from(order + "i", buff, 8)
        if length < 0:
            raise self.ERROR('RFH2 - "StrucLength" is negative. Check numeric encoding.')
        if len(buff) > MQRFH_STRUC_LENGTH_FIXED_2 and length > len(buff):
            raise self.ERROR(
                f"RFH2 - Buffer too short. Expected: {length} Buffer Length: {len(buff)}"
            )
        folders: list[tuple[str, bytes]] = []
        rest = bytes(buff[MQRFH_STRUC_LENGTH_FIXED_2:length])
        while rest:
            (size,) = struct.unpack(order + "l", rest[0:4].ljust(4, b"\x00"))
            if size < 0:
                raise self.ERROR(
                    f"RFH2 - a folder length is negative ({size}). Check numeric encoding."
                )
            data, rest = rest[4 : 4 + size], rest[4 + size :]
            if self.TRUNCATE_AT_NUL:
                data = data.split(b"\x00", 1)[0]
            folders.append((self.folder_name(data), data))
        self._rfh2_order = order if big else ""
        self._rfh2_folders = []
        self._rebuild()
        fixed = struct.unpack(order + "4s4i8s2i", bytes(buff[:MQRFH_STRUC_LENGTH_FIXED_2]))
        for (name, *_), value in zip(self._mqopts_fields[:8], fixed, strict=True):
            setattr(self, name, value)
        self._rfh2_folders = folders
        self._rebuild()
        return self

    # --- to and from mqjms.mq.rfh2 -------------------------------------------------------

    def to_header(self) -> MQRFH2:
        """This header as :class:`mqjms.mq.rfh2.RFH2` (folders as text, padding removed)."""
        return MQRFH2(
            Encoding=self["Encoding"],
            CodedCharSetId=self["CodedCharSetId"],
            Format=as_text(self["Format"]),
            Flags=self["Flags"],
            NameValueCCSID=self["NameValueCCSID"] or 1208,
            folders=[
                self[name].decode("utf-8").rstrip(" \x00") for name, _data in self._rfh2_folders
            ],
        )

    @classmethod
    def from_header(cls, header: MQRFH2, encoding: int = C.MQENC_NATIVE) -> Self:
        """An RFH2 object holding ``header`` as it is packed after an MQMD in ``encoding``."""
        raw = header.pack(encoding)
        return cls().unpack(raw, encoding)


def as_text(value: bytes | str) -> str:
    """A character field's value without its padding."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.rstrip(" \x00")


class HeaderMixin(Structure):
    """ibmmq's ``get_header(buf)``: the structure read from the start of a message."""

    def get_header(self, buf: bytes) -> Self:
        return self.unpack(bytes(buf[: self.get_length()]))


class XQHBase(HeaderMixin):
    """The transmission-queue header's own fields (104 bytes, as both libraries define
    it); the message's MQMD version 1 that follows comes from :meth:`get_embedded_md`."""

    MD_CLASS: ClassVar[type[Structure]]

    def get_embedded_md(self, buf: bytes) -> Any:
        """The MQMD inside the header: version 1 on the wire, so without version 2's
        fields (MQ carries those in an MQMDE after the header, when they are set)."""
        start = self.get_length()
        raw = bytes(buf[start : start + MQMD_LENGTH_1])
        md = self.MD_CLASS().unpack(raw + b"\x00" * (MQMD_LENGTH_2 - MQMD_LENGTH_1))
        for name in ("GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength"):
            md._remove(name)
        return md
