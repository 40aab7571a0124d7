"""Transmission queues (USAGE(XMITQ)) and the second Expiry of an MQXMIT message.

Seeds 000/001/004 note 9: a message whose Format is MQFMT_XMIT_Q_HEADER has two Expiry
fields, the MQMD's and the one in the MQMD embedded in its MQXQH.

- A put directly to a transmission queue with Format MQXMIT must begin with an MQXQH
  whose embedded Expiry is valid, the data long enough to include it, and the two Expiry
  fields consistent (the embedded one may be shorter, as the note's last point allows,
  not longer); otherwise the put fails with MQRC_EXPIRY_ERROR (2013) and no report. The
  format name itself is not enforced (seed 001: "the queue manager does not enforce
  this"): any other Format is put as it is. A put to a remote queue is wrapped by the
  queue manager itself (:mod:`.remote`); no channel moves messages on.
- A get of an MQXMIT message, from any queue, decrements both fields by the time spent on
  the queue; an embedded Expiry that has elapsed while the outer one has not is set to 0.
  Data too short to include it is returned as it is, with no error. Whether the message
  is discarded depends on the outer Expiry only.

The time spent on the queue needs the arrival time, which the schema does not keep: for
MQXMIT messages only, it is appended to the stored MQMD (8 bytes after the 364 of the
MQMD, which every reader of that column ignores).
"""

from __future__ import annotations

import sqlite3
import struct

from mqjms.mq import constants as C
from mqjms.mq import xqh
from mqjms.mq.errors import failed
from mqjms.mq.md import MQMD, MQMD_LENGTH_2

from . import mdstore
from .messages import remaining_tenths

XMITQ = "XMITQ"
_ARRIVAL = struct.Struct(">d")


def is_xmit(md: MQMD) -> bool:
    return md.Format.strip() == C.MQFMT_XMIT_Q_HEADER


def check_put(md: MQMD, data: bytes, queue: str, usage: object) -> None:
    """Seed 000 note 9: a put directly to a local transmission queue (see module doc)."""
    if usage != XMITQ or not is_xmit(md):
        return
    where = f"a message with Format MQXMIT put to transmission queue {queue!r}"
    if not xqh.starts_with_xqh(data):
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"{where} must begin with an MQXQH (StrucId 'XQH '), not {data[:4]!r}",
        )
    inner = xqh.embedded_expiry(data, md.Encoding)
    if inner is None:
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"{where} has {len(data)} bytes: too short to include the Expiry of the MQMD in "
            f"its MQXQH ({xqh.EMBEDDED_EXPIRY_END} bytes), or Encoding {md.Encoding} is not valid",
        )
    if inner == 0 or inner < C.MQEI_UNLIMITED:
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"{where}: the Expiry {inner} in its MQXQH is not valid: give tenths of a second "
            "> 0 or MQEI_UNLIMITED (-1)",
        )
    if _outlives(inner, md.Expiry):
        raise failed(
            C.MQRC_EXPIRY_ERROR,
            f"{where}: the Expiry {inner} in its MQXQH is inconsistent with the MQMD's "
            f"Expiry {md.Expiry} (the embedded message cannot outlive the one carrying it)",
        )


def _outlives(inner: int, outer: int) -> bool:
    if inner == C.MQEI_UNLIMITED:
        return outer != C.MQEI_UNLIMITED
    return outer != C.MQEI_UNLIMITED and inner > outer


def record_arrival(db: sqlite3.Connection, row_id: int, md: MQMD, now: float) -> None:
    """Keep when an MQXMIT message arrived, for :func:`on_get` (nothing for others)."""
    if is_xmit(md):
        stored = md.pack() + _ARRIVAL.pack(now)  # the MQMD as messages.insert stores it
        db.execute("UPDATE messages SET md = ? WHERE id = ?", (mdstore.pack(stored), row_id))


def on_get(md: MQMD, data: bytes, md_bytes: bytes, now: float) -> bytes:
    """The data an MQGET returns: for an MQXMIT message, the embedded Expiry decremented
    by the time spent on the queue (0 once elapsed); otherwise ``data`` as it is."""
    if not is_xmit(md) or len(md_bytes) < MQMD_LENGTH_2 + _ARRIVAL.size:
        return data
    inner = xqh.embedded_expiry(data, md.Encoding)
    if inner is None or inner == C.MQEI_UNLIMITED:
        return data
    (arrived,) = _ARRIVAL.unpack_from(md_bytes, MQMD_LENGTH_2)
    remaining = max(remaining_tenths(arrived + inner / 10.0, now), 0)
    return xqh.with_embedded_expiry(data, md.Encoding, remaining)
