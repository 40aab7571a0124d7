"""MQGMO_CONVERT: a message's MQSTR text in the character set and encoding the program's
MQMD asks for, or returned as it is with MQ's warning when it cannot be converted."""

from __future__ import annotations

from mqjms.mq import ccsid
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD


def converted(
    md: MQMD, data: bytes, target_ccsid: int, target_encoding: int
) -> tuple[bytes, MQError | None]:
    """MQGMO_CONVERT: MQSTR text in the CCSID the program's MQMD asked for (its queue
    manager's, 1208, for MQCCSI_Q_MGR), 2119 (a warning: the message is returned as it
    is) when it cannot be. A message of no format (MQFMT_NONE) or an application's own
    (no conversion exit here) whose CCSID or encoding differs from the asked ones is
    returned as it is with 2110 MQRC_FORMAT_ERROR, a warning, as IBM MQ does; IBM's
    other formats (headers) are returned as they are."""
    wanted = C.CCSID_UTF8 if target_ccsid in (C.MQCCSI_Q_MGR, C.MQCCSI_INHERIT) else target_ccsid
    source = C.CCSID_UTF8 if md.CodedCharSetId in (C.MQCCSI_Q_MGR, 0) else md.CodedCharSetId
    fmt = md.Format.rstrip()
    if fmt != C.MQFMT_STRING.rstrip():
        if fmt.startswith("MQ") or (
            wanted == source and _encoding(md.Encoding) == _encoding(target_encoding)
        ):
            return data, None
        what = f"format {fmt!r} has no conversion exit" if fmt else "the message has no format"
        return data, MQError(
            C.MQCC_WARNING,
            C.MQRC_FORMAT_ERROR,
            f"not converted: {what} (CCSID {source}, encoding {md.Encoding}; asked for CCSID "
            f"{wanted}, encoding {target_encoding})",
        )
    if wanted == source and _encoding(md.Encoding) == _encoding(target_encoding):
        return data, None
    try:
        text = ccsid.decode(data, source, md.Encoding)
        converted = ccsid.encode(text, wanted, target_encoding)
    except (MQError, UnicodeError) as exc:
        return data, MQError(C.MQCC_WARNING, C.MQRC_NOT_CONVERTED, str(exc))
    # the MQMD describes the data returned: the character set and encoding asked for
    md.CodedCharSetId, md.Encoding = wanted, target_encoding
    return converted, None


def _encoding(value: int) -> int:
    """An encoding's integer, decimal and float parts (what conversion would change)."""
    return value & (C.MQENC_INTEGER_MASK | C.MQENC_DECIMAL_MASK | C.MQENC_FLOAT_MASK)


__all__ = ["converted"]
