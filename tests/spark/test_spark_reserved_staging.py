"""A large micro-batch is staged and released in steps (several queue manager
transactions) with exactly the outcome of one step (no Spark session needed)."""

from __future__ import annotations

from typing import Any

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager
from mqjms.spark import reserved
from mqjms.spark.options import SourceOptions
from mqjms.transport import connect

Q = "ORDERS.IN"
OWNER = f"spark:{Q}"


def test_a_batch_is_staged_and_released_in_steps(
    qm: QueueManager, embedded_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("pyarrow")
    pytest.importorskip("pyspark")
    from mqjms.spark import source

    monkeypatch.setattr(source, "STEP", 3)
    monkeypatch.setattr(reserved, "STEP", 3)
    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    for i in range(12):
        conn.put(Q, MQMD(Format=C.MQFMT_STRING), f"m{i}".encode())
    options = SourceOptions.parse(
        {"url": embedded_url, "queue": Q, "maxMessagesPerBatch": 10}, streaming=True
    )
    reader = source.QueueStreamReader(options, None)  # type: ignore[arg-type]
    try:
        start = reader.initialOffset()
        end = reader.latestOffset(start, None)  # four steps: 3 + 3 + 3 + 1
        assert (start, end) == ({"seq": 0}, {"seq": 10})
        assert conn.reservation_count(OWNER) == 10 and qm.queue_depth(Q) == 12
        assert [(p.lo, p.hi) for p in reader.partitions(start, end)] == [(0, 5), (5, 10)]
        reader.commit(end)  # four releases: <= 3, <= 6, <= 9, <= 10
        assert conn.reservation_count(OWNER) == 0 and qm.queue_depth(Q) == 2
        assert reader.latestOffset(end, None) == {"seq": 12}  # a short step: the queue's end
        assert conn.reservation_count(OWNER) == 2
    finally:
        reader.stop()
    assert conn.reservation_count(OWNER) == 2  # planned: stays staged (one batch at most)
    assert [d for _, _, _, d in conn.reserved(OWNER, 0, 99)] == [b"m10", b"m11"]
    conn.disconnect()


def test_suspects_stay_reserved_with_their_tags_when_the_query_stops(
    qm: QueueManager, embedded_url: str, tmp_path: object
) -> None:
    # stop() gives back what no batch holds; given back too, suspects lost their tags,
    # were planned beside innocent messages again, and each later failure raised those
    # messages' BackoutCount until good ones reached BOTHRESH and were moved
    from pathlib import Path

    qm.define_queue("QLOCAL", Q)
    conn = connect(embedded_url)
    for i in range(6):
        conn.put(Q, MQMD(Format=C.MQFMT_STRING), f"m{i}".encode())
    handle = conn.open(Q, C.MQOO_INPUT_AS_Q_DEF | C.MQOO_INQUIRE)
    staging = reserved.ReservedStaging(Path(str(tmp_path)) / "st", OWNER, Q, conn)
    try:
        staging.stage(conn, handle, 4)
        staging.renumber([1, 2], staging.ledger.new_tag(), 1)  # a failed pair: suspects
        assert staging.give_back(conn, handle, 4) == 0  # seqs 5, 6: the suspects, kept
        staging.stage(conn, handle, 10)  # the next start stages the rest after them
        metas = staging.metas(0, staging.last())
        assert [(m.tag > 0, m.backout) for m in metas] == [
            (False, 0),
            (False, 0),
            (True, 1),
            (True, 1),
            (False, 0),
            (False, 0),
        ]
        assert staging.give_back(conn, handle, 4) == 2  # untagged ones go back
        assert qm.queue_depth(Q) == 6
    finally:
        staging.close()
        conn.disconnect()


@pytest.mark.parametrize("url", ["localhost:1414", "nosuch://host/x"])
def test_a_url_of_no_transport_is_refused_as_the_query_is_planned(url: str) -> None:
    # "localhost:1414" read as scheme "localhost" passed the planning check and failed in
    # a task; the source and the sink name the transports there are
    pytest.importorskip("pyspark")
    from mqjms.spark.sink import QueueBatchWriter

    with pytest.raises(ValueError, match=r"unknown transport .* use one of embedded:"):
        SourceOptions.parse({"url": url, "queue": Q}, streaming=True)
    with pytest.raises(ValueError, match="unknown transport"):
        QueueBatchWriter({"url": url, "queue": Q})


def test_a_misspelt_option_is_warned_of_and_a_bad_flag_refused(events: Any) -> None:
    # maxMessagePerBatch (no s) was silently without effect; includeRaw=maybe read as false
    pytest.importorskip("pyspark")
    options = SourceOptions.parse(
        {"url": "embedded:///tmp/x", "queue": Q, "maxMessagePerBatch": 5}, streaming=True
    )
    assert options.max_batch != 5
    [warning] = [e for e in events if e["event"] == "spark.options_unknown"]
    assert warning["options"] == ["maxmessageperbatch"]
    with pytest.raises(ValueError, match="includeRaw must be true or false, not 'maybe'"):
        SourceOptions.parse(
            {"url": "embedded:///tmp/x", "queue": Q, "includeRaw": "maybe"}, streaming=True
        )
