"""An RFH2's folders as XML: each NameValueData is one element (``<jms>``, ``<usr>``,
``<mqps>``...), parsed with expat and never with a DOCTYPE (so no entity is ever
expanded), and cached by its text, bounded by the memory the parsed trees hold, since
many messages share folder texts and a folder is parsed both when its header is read and
when its values are mapped. :mod:`.rfh2` re-exports these names."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from mqjms.mq.bounded_cache import BoundedCache

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET


class _Rejected(Exception):
    """Raised from inside expat to stop on a DOCTYPE (no entity expansion, ever)."""


def _reject_doctype(*_args: object) -> NoReturn:
    raise _Rejected("a folder must not contain a DOCTYPE or entity declarations")


# The parsed-folder cache, bounded by an estimate of the memory it holds (the folder
# text plus its Element tree): 300 distinct 1 MB usr folders must not stay in a worker.
FOLDER_CACHE_BYTES = 4 * 1024 * 1024
FOLDER_CACHE_ENTRY_BYTES = 64 * 1024  # a folder estimated larger is parsed, never kept
FOLDER_CACHE_ENTRIES = 4096
_ELEMENT_BYTES = 512  # measured: an Element with its tag, attributes and text, 80-490 bytes

folder_cache: BoundedCache[str, ET.Element] = BoundedCache(
    FOLDER_CACHE_BYTES, FOLDER_CACHE_ENTRY_BYTES, FOLDER_CACHE_ENTRIES
)


def folder_footprint(text: str, element: ET.Element) -> int:
    """Bytes a cached folder holds (an upper estimate): its text, the tree's strings,
    and each Element with its attributes."""
    return 2 * sys.getsizeof(text) + _ELEMENT_BYTES * sum(1 for _ in element.iter())


def parse_folder(text: str) -> ET.Element:
    """Parse one folder into an Element; ValueError if it is not one well-formed element.

    Cached (in ``folder_cache``, bounded by bytes): a folder is validated when its
    header is read and parsed again when its values are mapped, and many messages share
    folder texts. Callers must not modify the Element returned.
    """
    element = folder_cache.get(text)
    if element is None:
        element = _parse_folder(text)
        if 2 * sys.getsizeof(text) <= FOLDER_CACHE_ENTRY_BYTES:  # else too large anyway
            folder_cache.put(text, element, folder_footprint(text, element))
    return element


def _parse_folder(text: str) -> ET.Element:
    """expat without namespace processing, because IBM writes ``xsi:nil`` without
    declaring the ``xsi`` prefix; a DOCTYPE is refused, so no entity is ever expanded.
    (The XML modules load with the first folder parsed, not with mqjms.)"""
    import xml.etree.ElementTree as ET
    from xml.parsers import expat

    parser = expat.ParserCreate()
    builder = ET.TreeBuilder()

    def start(name: str, attrs: dict[str, str] | list[str]) -> None:
        builder.start(name, attrs if isinstance(attrs, dict) else {})

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = _reject_doctype
    parser.EntityDeclHandler = _reject_doctype
    try:
        parser.Parse(text, True)
        return builder.close()
    except expat.ExpatError as exc:
        raise ValueError(
            f"not well-formed XML: {expat.ErrorString(exc.code)} "
            f"at line {exc.lineno} column {exc.offset}"
        ) from exc
    except (_Rejected, UnicodeError) as exc:
        raise ValueError(str(exc)) from exc


def folder_name(text: str) -> str:
    """The folder's root element name, e.g. ``'jms'``; ValueError if not well-formed."""
    return parse_folder(text).tag


__all__ = [
    "FOLDER_CACHE_BYTES",
    "FOLDER_CACHE_ENTRIES",
    "FOLDER_CACHE_ENTRY_BYTES",
    "folder_cache",
    "folder_footprint",
    "folder_name",
    "parse_folder",
]
