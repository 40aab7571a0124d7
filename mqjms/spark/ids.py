"""Message ids that the same parts always give, so a replay puts the very same ids."""

from __future__ import annotations

import hashlib


def derived_msg_id(*parts: object) -> bytes:
    """A 24-byte MsgId (or CorrelId) derived from ``parts``."""
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()[:24]
