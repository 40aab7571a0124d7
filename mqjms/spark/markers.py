"""Commit markers: what makes the sink and the listeners' sends exactly once.

Spark replays a micro-batch that did not complete (a kill -9 of the driver, a lost
executor, a stopped query) and retries a failed task, and their partitions put their
messages again. A derived MsgId is not enough: neither the embedded queue manager nor
ActiveMQ Classic nor IBM MQ drops a message whose MsgId it has seen. So each partition
that puts messages also puts a *marker*: one message on the marker queue, its MsgId
derived from (query, batch, partition), **in the same unit of work** as the partition's
messages. A partition first looks for its marker (a browse by MsgId, which every
transport does); when it is there, its messages were committed, and it puts nothing.
The marker's body says what the partition committed (how many messages, and for
listeners the failures to settle), so a skipped partition still reports it.

Markers of a batch stay until the query commits a later one (a replay of the batch
always finds them), then the driver removes them: the queue holds about one batch's.
The queue is ``MQJMS.SPARK.MARKERS`` unless the ``markerQueue`` option names another;
the embedded queue manager defines it on first use, elsewhere an administrator does.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from mqjms.transport import Browse, Connection, Handle, connect
from mqjms.transport.url import scheme_of

from .ids import derived_msg_id

log = get_logger("mqjms.spark")

MARKER_QUEUE = "MQJMS.SPARK.MARKERS"


@dataclass(frozen=True)
class Marker:
    """The marker of one partition of one batch (or batch write job) of one query."""

    queue: str
    query: str
    batch: int | str  # a micro-batch id, or a batch write's job token
    partition: int

    @property
    def msg_id(self) -> bytes:
        return derived_msg_id("marker", self.query, self.batch, self.partition)

    @property
    def correl_id(self) -> bytes:
        """Every marker of the query has it: the driver finds them by it."""
        return query_correl_id(self.query)


def query_correl_id(query: str) -> bytes:
    return derived_msg_id("marker-query", query)


def find(conn: Connection, url: str, marker: Marker) -> dict[str, Any] | None:
    """The marker's record when its partition committed, else None."""
    handle = _open(conn, url, marker.queue, C.MQOO_BROWSE)
    try:
        got = conn.get(handle, browse=Browse.FIRST, msg_id=marker.msg_id)
    finally:
        conn.close(handle)
    if got is None:
        return None
    record: dict[str, Any] = json.loads(got[1])
    return record


def put(conn: Connection, marker: Marker, record: dict[str, Any]) -> None:
    """Put the marker under syncpoint (after :func:`find`, which made sure its queue
    exists): the caller's commit makes it visible with the partition's messages."""
    md = MQMD(
        MsgId=marker.msg_id,
        CorrelId=marker.correl_id,
        Format=C.MQFMT_STRING,
        Persistence=C.MQPER_PERSISTENT,
    )
    body = {"query": marker.query, "batch": marker.batch, "partition": marker.partition}
    data = json.dumps({**body, **record}).encode()
    conn.put(marker.queue, md, data, syncpoint=True, new_msg_id=False)


def put_once(
    url: str,
    marker: Marker,
    items: Iterable[tuple[str, MQMD, bytes]],
    record: dict[str, Any] | None = None,
    *,
    appl_name: str,
) -> dict[str, Any]:
    """Put ``items`` and the marker in one unit of work, unless the marker shows that
    this partition committed before; the marker's record either way (``messages``: how
    many the partition put, and the caller's ``record``)."""
    conn = connect(url, appl_name)
    try:
        found = find(conn, url, marker)
        if found is not None:
            log.info(
                "spark.partition_skipped",
                queue=marker.queue,
                batch=marker.batch,
                partition=marker.partition,
                messages=found.get("messages"),
            )
            return found
        count = 0
        for queue, md, data in items:
            conn.put(queue, md, data, syncpoint=True, new_msg_id=False)
            count += 1
        done = {**(record or {}), "messages": count}
        put(conn, marker, done)
        conn.commit()
    except BaseException:
        conn.backout()
        raise
    finally:
        conn.disconnect()
    return done


def forget_before(conn: Connection, url: str, queue: str, query: str, batch: int | None) -> int:
    """Remove ``query``'s markers of batches before ``batch`` (all of them when None: a
    batch write that completed); how many."""
    handle = _open(conn, url, queue, C.MQOO_INPUT_SHARED | C.MQOO_BROWSE)
    correl = query_correl_id(query)
    old: list[bytes] = []
    try:
        cursor = Browse.FIRST
        while (got := conn.get(handle, browse=cursor, correl_id=correl)) is not None:
            cursor = Browse.NEXT
            seen = json.loads(got[1]).get("batch")
            if batch is None or (isinstance(seen, int) and seen < batch):
                old.append(got[0].MsgId)
        for msg_id in old:
            conn.get(handle, msg_id=msg_id, syncpoint=True)
        conn.commit()
    finally:
        conn.close(handle)
    return len(old)


def _open(conn: Connection, url: str, queue: str, options: int) -> Handle:
    """Open the marker queue, defining it first on the embedded queue manager."""
    try:
        handle = conn.open(queue, options | C.MQOO_FAIL_IF_QUIESCING)
    except MQError as exc:
        if exc.reason != C.MQRC_UNKNOWN_OBJECT_NAME:
            raise
        if scheme_of(url) != "embedded":
            raise MQError(
                C.MQCC_FAILED,
                C.MQRC_UNKNOWN_OBJECT_NAME,
                f"the mqjms sink keeps commit markers on queue {queue}: define it "
                f"(DEFINE QLOCAL({queue}) DEFPSIST(YES)), or name another with "
                '.option("markerQueue", ...)',
            ) from None
        _define(url, queue)
        handle = conn.open(queue, options | C.MQOO_FAIL_IF_QUIESCING)
    return handle


def _define(url: str, queue: str) -> None:
    from mqjms.transport import embedded

    try:
        embedded.queue_manager(url).define_queue("QLOCAL", queue, {"DEFPSIST": "YES"})
    except MQError as exc:
        if exc.reason != C.MQRCCF_OBJECT_ALREADY_EXISTS:  # another task defined it meanwhile
            raise
    log.info("spark.marker_queue_defined", queue=queue)
