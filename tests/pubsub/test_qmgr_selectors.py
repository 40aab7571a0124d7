"""Subscriptions' selectors on the embedded queue manager: one stored selector that cannot
be read selects nothing for its subscription (a warning, once), never failing publishers;
one nested too deeply is 2459 at MQSUB, never a RecursionError."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.semantics.pubsub import Subscription, SubscriptionDescriptor
from mqjms.transport import Connection

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED


def sd(topic: str, selector: str = "") -> SubscriptionDescriptor:
    return SubscriptionDescriptor(options=MANAGED, object_string=topic, selection_string=selector)


def publish(conn: Connection, topic: str, body: bytes) -> None:
    handle = conn.open_topic(topic, C.MQOO_OUTPUT)
    try:
        conn.put(handle, MQMD(Format=C.MQFMT_STRING), body)
    finally:
        conn.close(handle)


def bodies(conn: Connection, sub: Subscription) -> list[bytes]:
    out = []
    while (got := conn.get(sub.handle)) is not None:
        out.append(got[1])
    return out


@pytest.mark.parametrize(
    "stored", ["price >>> 1", "(" * 5000 + "a = 1" + ")" * 5000], ids=["bad", "deep"]
)
def test_a_stored_selector_that_cannot_be_read_selects_nothing_and_publishing_goes_on(
    conns: Callable[[], Connection], qmgr_dir: Path, stored: str, events: list[dict[str, Any]]
) -> None:
    conn = conns()
    plain = conn.subscribe(sd("t/sel"))
    broken = conn.subscribe(sd("t/sel", "JMSPriority >= 0"))
    db = sqlite3.connect(qmgr_dir / "qmgr.db")
    with db:  # as an edited database or an older grammar left it
        db.execute("UPDATE subscriptions SET selector = ? WHERE selector <> ''", (stored,))
    db.close()
    publish(conn, "t/sel", b"one")
    publish(conn, "t/sel", b"two")
    assert bodies(conn, plain) == [b"one", b"two"]
    assert bodies(conn, broken) == []
    warned = [e for e in events if e["event"] == "topic.selector_unreadable"]
    assert len(warned) == 1  # once, not on every publish
    assert warned[0]["log_level"] == "warning"
    assert warned[0]["subscription"]


def test_a_selector_nested_too_deeply_is_2459_at_mqsub(conns: Callable[[], Connection]) -> None:
    with pytest.raises(MQError) as failure:
        conns().subscribe(sd("t/deep", "(" * 5000 + "a = 1" + ")" * 5000))
    assert failure.value.reason == C.MQRC_SELECTOR_SYNTAX_ERROR
