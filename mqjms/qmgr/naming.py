"""Object names as administrators write them: queue type keywords with their
abbreviations, and generic names (a trailing ``*``), for MQSC and the Python API alike."""

from __future__ import annotations

import fnmatch

from mqjms.mq import constants as C
from mqjms.mq.errors import failed
from mqjms.semantics.attributes import ALIAS, LOCAL, MODEL, REMOTE

#: The queue types' keywords and their abbreviations (DEFINE QL(...)).
QUEUE_KEYWORDS: dict[str, tuple[str, ...]] = {
    LOCAL: ("QL",),
    ALIAS: ("QA",),
    MODEL: ("QM",),
    REMOTE: ("QR",),
}
#: Every way to write a queue type, to its canonical keyword.
QUEUE_TYPE_NAMES: dict[str, str] = {
    spelling: qtype
    for qtype, abbreviations in QUEUE_KEYWORDS.items()
    for spelling in (qtype, *abbreviations)
}


def queue_type(keyword: str) -> str:
    """The canonical queue type (QLOCAL, QALIAS, QMODEL, QREMOTE) for any spelling of it."""
    qtype = QUEUE_TYPE_NAMES.get(keyword.upper())
    if qtype is None:
        raise failed(
            C.MQRCCF_OBJECT_WRONG_TYPE, f"{keyword} is not QLOCAL, QALIAS, QMODEL or QREMOTE"
        )
    return qtype


def matches(pattern: str, name: str) -> bool:
    """MQSC generic names: a trailing ``*`` matches any suffix; otherwise an exact match."""
    if pattern.endswith("*"):
        return name.startswith(pattern[:-1])
    return fnmatch.fnmatchcase(name, pattern) if "*" in pattern else name == pattern
