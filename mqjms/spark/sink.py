"""The sink: DataFrame rows become queue messages, put idempotently (spark.md 6.4).

``df.writeStream.format("mqjms")`` and ``df.write.format("mqjms")`` with options ``url``,
``queue`` (or a ``queue`` column) and ``sinkId`` (default: the queue). Columns: ``text``
(a TextMessage) or ``body`` (binary: a BytesMessage), and optional ``correl_id`` (hex
of 24 bytes, or text), ``properties`` (map), ``priority``, ``queue``, ``msg_id``.

Each task puts its rows under syncpoint and commits at its end, so a failed task leaves
nothing. Each message's MsgId is derived, not random: from the row's ``msg_id`` (a row
that came from a queue keeps one id however often it is written) or else from the sink,
the micro-batch (``streaming.sql.batchId``), the partition and the row's place in it. A
replayed batch therefore puts the very same MsgIds: consumers that deduplicate on MsgId
(a JMS consumer can) see each message once.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter, WriterCommitMessage

from mqjms.jms.message import DEFAULT_PRIORITY, Queue, make_message, to_mq
from mqjms.logs import get_logger
from mqjms.mq.md import MQMD
from mqjms.transport import connect, resolve_url

log = get_logger("mqjms.spark")


@dataclass
class PutCommit(WriterCommitMessage):
    partition: int
    messages: int


def derived_msg_id(*parts: object) -> bytes:
    """A 24-byte MsgId that the same parts always give."""
    return hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()[:24]


def message_for_row(values: Mapping[str, Any], default_queue: str) -> tuple[str, MQMD, bytes]:
    """The queue, MQMD and bytes for one row, as a JMS producer writes them."""
    queue = str(values.get("queue") or default_queue or "")
    if not queue:
        raise ValueError('the mqjms sink needs a queue: .option("queue", ...) or a queue column')
    body: Any = values.get("text")  # a text row stays a TextMessage
    if body is None:
        body = values.get("body")
    properties = {str(k): v for k, v in (values.get("properties") or {}).items()}
    message = make_message(bytes(body) if isinstance(body, bytearray) else body, properties)
    correl = values.get("correl_id")
    priority = values.get("priority")
    md, data = to_mq(
        message, Queue.parse(queue), priority=DEFAULT_PRIORITY if priority is None else priority
    )
    if correl:
        md.CorrelId = _correl(str(correl))
    return queue, md, data


def _correl(value: str) -> bytes:
    if len(value) == 48:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    return value.encode("utf-8")[:24].ljust(24, b"\x00")


def put_all(
    url: str, items: Iterable[tuple[str, MQMD, bytes]], *, appl_name: str = "mqjms-spark-sink"
) -> int:
    """Put every message under syncpoint and commit once: all or nothing."""
    conn = connect(url, appl_name)
    count = 0
    try:
        for queue, md, data in items:
            conn.put(queue, md, data, syncpoint=True, new_msg_id=False)
            count += 1
        conn.commit()
    except BaseException:
        conn.backout()
        raise
    finally:
        conn.disconnect()
    return count


class _RowWriter:
    def __init__(self, options: Mapping[str, str]) -> None:
        opts = {str(k).lower(): v for k, v in options.items()}
        self.url = resolve_url(opts.get("url"))
        self.queue = str(opts.get("queue") or "")
        self.sink_id = str(opts.get("sinkid") or self.queue or "mqjms")

    def _put(self, rows: Iterator[Any], token: str) -> PutCommit:
        context = TaskContext.get()
        partition = context.partitionId() if context else 0

        def messages() -> Iterator[tuple[str, MQMD, bytes]]:
            for ordinal, row in enumerate(rows):
                values = row.asDict(recursive=True)
                queue, md, data = message_for_row(values, self.queue)
                source = values.get("msg_id")
                md.MsgId = (
                    derived_msg_id(self.sink_id, source)
                    if source
                    else derived_msg_id(self.sink_id, token, partition, ordinal)
                )
                yield queue, md, data

        count = put_all(self.url, messages())
        return PutCommit(partition, count)


class QueueStreamWriter(_RowWriter, DataSourceStreamWriter):
    """``writeStream.format("mqjms")``: one unit of work per task and micro-batch."""

    def write(self, iterator: Iterator[Any]) -> PutCommit:
        context = TaskContext.get()
        batch = context.getLocalProperty("streaming.sql.batchId") if context else None
        return self._put(iterator, f"batch{batch}")

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        total = sum(m.messages for m in messages if isinstance(m, PutCommit))
        log.info("spark.sink_committed", queue=self.queue, batch=batchId, messages=total)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.warning("spark.sink_aborted", queue=self.queue, batch=batchId)


class QueueBatchWriter(_RowWriter, DataSourceWriter):
    """``write.format("mqjms")``: one unit of work per task; a retried task puts the same
    MsgIds (the job's token is fixed when the write is planned)."""

    def __init__(self, options: Mapping[str, str]) -> None:
        super().__init__(options)
        self.job = uuid.uuid4().hex

    def write(self, iterator: Iterator[Any]) -> PutCommit:
        return self._put(iterator, f"job{self.job}")
