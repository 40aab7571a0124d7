"""What a publication costs in SQL on the embedded queue manager, counted with sqlite3's
``set_trace_callback`` (never timed): no sqlite_master lookup per publication, the
publisher's own subscriptions found through an index, selectors compiled once."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QueueManager, subscriptions
from mqjms.semantics import selector
from mqjms.semantics.pubsub import SubscriptionDescriptor

MANAGED = C.MQSO_CREATE | C.MQSO_MANAGED


def test_a_publication_does_not_look_up_sqlite_master(tmp_path: Path) -> None:
    qm = QueueManager(tmp_path / "qm")
    conn = qm.connect()
    try:
        conn.subscribe(SubscriptionDescriptor(options=MANAGED, object_string="cost/t"))
        handle = conn.open_topic("cost/t", C.MQOO_OUTPUT)
        conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"warm")  # first-use work
        statements: list[str] = []
        conn._db.set_trace_callback(statements.append)
        try:
            for _ in range(3):
                conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"m")
        finally:
            conn._db.set_trace_callback(None)
        assert not [s for s in statements if "sqlite_master" in s], statements
        assert any("substatus" in s for s in statements)  # NUMMSGS still counted
        counted = conn._db.execute("SELECT nummsgs FROM substatus").fetchall()
        assert counted == [(4,)]
    finally:
        conn.disconnect()
        qm.close()


def test_the_publishers_own_subscriptions_are_found_through_an_index(tmp_path: Path) -> None:
    with QueueManager(tmp_path / "qm"):
        pass
    db = sqlite3.connect(tmp_path / "qm" / "qmgr.db")
    with db:  # as a queue manager made before the index left it
        db.execute("DROP INDEX subscribers_origin")
    db.close()
    with QueueManager(tmp_path / "qm"):  # gains it at open
        pass
    db = sqlite3.connect(tmp_path / "qm" / "qmgr.db")
    try:
        for query in (
            "SELECT sub FROM subscribers WHERE origin = ?",
            "SELECT sub FROM subscribers WHERE origin = ? AND no_local",
        ):
            plan = " ".join(str(r[-1]) for r in db.execute("EXPLAIN QUERY PLAN " + query, ("",)))
            assert "subscribers_origin" in plan, plan
    finally:
        db.close()


def test_many_distinct_selectors_stay_compiled() -> None:
    texts = [f"n = {i}" for i in range(2000)]
    for text in texts:
        selector.compile_selector(text)
    before = selector._compiled.cache_info().hits
    for text in texts:
        selector.compile_selector(text)
    assert selector._compiled.cache_info().hits - before == len(texts)


def test_a_publication_reads_only_the_subscriptions_that_may_match_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the load probe: every publish read and matched every subscription in Python
    # (11 ms a publish with 1000 subscriptions on other topics)
    qm = QueueManager(tmp_path / "qm")
    conn = qm.connect()
    try:
        for i in range(40):
            conn.subscribe(SubscriptionDescriptor(options=MANAGED, object_string=f"other/{i}"))
        reaching = [
            conn.subscribe(SubscriptionDescriptor(options=MANAGED, object_string=topic))
            for topic in ("cost/t", "cost/#", "+/t")
        ]
        reaching.append(
            conn.subscribe(
                SubscriptionDescriptor(
                    options=MANAGED | C.MQSO_WILDCARD_CHAR, object_string="co?t*"
                )
            )
        )
        conn.subscribe(SubscriptionDescriptor(options=MANAGED, object_string="cost/t/deeper"))
        read: list[object] = []
        real_row = subscriptions._row
        monkeypatch.setattr(subscriptions, "_row", lambda raw: read.append(raw) or real_row(raw))
        handle = conn.open_topic("cost/t", C.MQOO_OUTPUT)
        conn.put(handle, MQMD(Format=C.MQFMT_STRING), b"m")
        assert len(read) == 4  # the exact one and the three wildcard ones, no other
        assert [conn.get(sub.handle) is not None for sub in reaching] == [True] * 4
    finally:
        conn.disconnect()
        qm.close()
