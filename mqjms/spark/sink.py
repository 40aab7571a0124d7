"""The sink: DataFrame rows become queue messages, exactly once (spark.md 6.4).

``df.writeStream.format("mqjms")`` and ``df.write.format("mqjms")`` with options ``url``,
``queue`` (else a ``queue`` column: the option wins, as Kafka's ``topic`` option does, so
rows read from a queue, whose ``queue`` column names it, go where the option says),
``sinkId`` (default: the queue) and ``markerQueue``. Columns: ``text`` (a TextMessage) or
``body`` (binary: a BytesMessage), and optional ``correl_id`` (hex of 24 bytes, text or
binary), ``properties`` (map), ``priority``, ``persistent``, ``queue``, ``msg_id``; their
types are checked as the write is planned (:mod:`.sink_columns`).

Each task puts its rows under syncpoint with a commit marker (:mod:`.markers`) and commits
at its end, so a failed task leaves nothing, and a task that Spark runs again (a replayed
micro-batch after a crash, a retried task) finds its marker and puts nothing. Each
message's MsgId is derived, not random: from the row's ``msg_id`` (a row that came from a
queue keeps one id however often it is written) or else from the sink and its query, the
micro-batch (``streaming.sql.batchId``), the partition and the row's place in it.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pyspark import TaskContext
from pyspark.sql.datasource import DataSourceStreamWriter, DataSourceWriter, WriterCommitMessage
from pyspark.sql.types import StructType

from mqjms.jms.message import (
    DEFAULT_PRIORITY,
    NON_PERSISTENT,
    PERSISTENT,
    Queue,
    make_message,
    to_mq,
)
from mqjms.logs import get_logger
from mqjms.mq.md import MQMD
from mqjms.transport import connect, resolve_url
from mqjms.transport.registry import transport_for

from . import failures, markers, sink_columns
from .ids import derived_msg_id

log = get_logger("mqjms.spark")


__all__ = ["QueueBatchWriter", "QueueStreamWriter", "derived_msg_id", "message_for_row"]


@dataclass
class PutCommit(WriterCommitMessage):
    """What a task committed, for the driver's log and its removal of old markers."""

    query: str
    partition: int
    messages: int


#: The JMS headers the source puts among a row's properties (JMSDestination is the queue
#: the sink writes to).
NO_QUEUE = 'the mqjms sink needs a queue: .option("queue", ...) or a queue column'
OVERWRITE = (
    'the mqjms sink only appends: mode("overwrite") would first remove the messages already '
    'on the queue, which a sink never does; use mode("append")'
)
JMS_HEADERS = ("JMSType", "JMSDestination", "JMSReplyTo", "JMSCorrelationID")


def message_for_row(values: Mapping[str, Any], default_queue: str) -> tuple[str, MQMD, bytes]:
    """The queue, MQMD and bytes for one row, as a JMS producer writes them. The sink's
    ``default_queue`` (its option) wins over the row's ``queue``."""
    queue = str(default_queue or values.get("queue") or "")
    if not queue:
        raise ValueError(NO_QUEUE)
    if "text" not in values and "body" not in values:  # a typo must not put empty messages
        raise ValueError(
            'the mqjms sink writes a column "text" (a TextMessage) or "body" (bytes); the '
            f"rows have {', '.join(sorted(values)) or 'no columns'}"
        )
    body: Any = values.get("text")  # a text row stays a TextMessage
    if body is None:
        body = values.get("body")
    properties = {str(k): v for k, v in (values.get("properties") or {}).items()}
    # the source's properties carry the JMS headers too: headers again, not user properties
    headers = {name: str(properties.pop(name)) for name in JMS_HEADERS if name in properties}
    message = make_message(bytes(body) if isinstance(body, bytearray) else body, properties)
    message.jms_type = headers.get("JMSType") or message.jms_type
    message.jms_reply_to = headers.get("JMSReplyTo") or message.jms_reply_to
    message.jms_correlation_id = headers.get("JMSCorrelationID") or message.jms_correlation_id
    correl = values.get("correl_id")
    priority = values.get("priority")
    md, data = to_mq(
        message,
        Queue.parse(queue),
        priority=DEFAULT_PRIORITY if priority is None else priority,
        delivery_mode=NON_PERSISTENT if values.get("persistent") is False else PERSISTENT,
    )
    if correl:
        md.CorrelId = _correl(correl)
    return queue, md, data


def _correl(value: object) -> bytes:
    if isinstance(value, bytes | bytearray):  # a BINARY column: the CorrelId itself
        if len(value) > 24:
            raise ValueError(f"correl_id has {len(value)} bytes; a CorrelId has 24")
        return bytes(value).ljust(24, b"\x00")
    value = str(value)
    if len(value) == 48:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    return value.encode("utf-8")[:24].ljust(24, b"\x00")


class _RowWriter:
    def __init__(self, options: Mapping[str, str], schema: StructType | None = None) -> None:
        if schema is not None:
            sink_columns.check(schema)  # a column of a wrong type fails now, not in a task
        opts = {str(k).lower(): v for k, v in options.items()}
        self.url = resolve_url(opts.get("url"))
        transport_for(self.url)  # a URL of no transport fails the write now, not in a task
        self.queue = str(opts.get("queue") or "")
        if not self.queue and schema is not None and "queue" not in schema.fieldNames():
            # every row would fail in its task, under a Python worker's traceback
            raise ValueError(NO_QUEUE)
        self.sink_id = str(opts.get("sinkid") or self.queue or "mqjms")
        self.marker_queue = str(opts.get("markerqueue") or markers.MARKER_QUEUE)

    def _put(self, rows: Iterator[Any], query: str, batch: int | str) -> PutCommit:
        context = TaskContext.get()
        partition = context.partitionId() if context else 0
        first = next(rows, None)
        if first is None:  # nothing to put, nothing to mark
            return PutCommit(query, partition, 0)
        token = f"batch{batch}" if isinstance(batch, int) else batch

        def messages() -> Iterator[tuple[str, MQMD, bytes]]:
            for ordinal, row in enumerate(itertools.chain((first,), rows)):
                values = row.asDict(recursive=True)
                queue, md, data = message_for_row(values, self.queue)
                source = values.get("msg_id")
                md.MsgId = (
                    derived_msg_id(self.sink_id, source)
                    if source
                    # the query's id too: two streams into one queue (the same sinkId,
                    # batch, partition and row) must not give two messages one MsgId
                    else derived_msg_id(query, token, partition, ordinal)
                )
                yield queue, md, data

        marker = markers.Marker(self.marker_queue, query, batch, partition)
        with failures.named(f"the mqjms sink (partition {partition} of {token})"):
            done = markers.put_once(self.url, marker, messages(), appl_name="mqjms-spark-sink")
        return PutCommit(query, partition, int(done.get("messages", 0)))

    def _forget(
        self, messages: list[WriterCommitMessage | None], before: int | None, batch: object
    ) -> None:
        """Remove the markers no replay needs any more; a failure only delays that."""
        queries = {m.query for m in messages if isinstance(m, PutCommit)}
        if not queries:
            return
        try:
            conn = connect(self.url, "mqjms-spark-sink")
            try:
                for query in queries:
                    markers.forget_before(conn, self.url, self.marker_queue, query, before)
            finally:
                conn.disconnect()
        except Exception as exc:  # the markers stay; the next commit removes them
            log.warning(
                "spark.markers_kept",
                queue=self.marker_queue,
                batch=batch,
                error=f"{type(exc).__name__}: {exc}",
            )


class QueueStreamWriter(_RowWriter, DataSourceStreamWriter):
    """``writeStream.format("mqjms")``: one unit of work per task and micro-batch."""

    def write(self, iterator: Iterator[Any]) -> PutCommit:
        context = TaskContext.get()
        batch = context.getLocalProperty("streaming.sql.batchId") if context else None
        query_id = context.getLocalProperty("sql.streaming.queryId") if context else None
        # the query's id is kept in its checkpoint: the same across restarts
        query = f"{self.sink_id}:{query_id}"
        return self._put(iterator, query, int(batch or 0))

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        """Batch ``batchId`` is done: the markers of earlier batches can go (Spark never
        replays a batch before the last one it planned)."""
        total = sum(m.messages for m in messages if isinstance(m, PutCommit))
        log.info("spark.sink_committed", queue=self.queue, batch=batchId, messages=total)
        self._forget(messages, batchId, batchId)

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        log.warning("spark.sink_aborted", queue=self.queue, batch=batchId)


class QueueBatchWriter(_RowWriter, DataSourceWriter):
    """``write.format("mqjms")``: one unit of work per task; a retried task puts the same
    MsgIds (the job's token is fixed when the write is planned)."""

    def __init__(self, options: Mapping[str, str], schema: StructType | None = None) -> None:
        super().__init__(options, schema)
        self.job = uuid.uuid4().hex

    def write(self, iterator: Iterator[Any]) -> PutCommit:
        return self._put(iterator, f"{self.sink_id}:job{self.job}", f"job{self.job}")

    def commit(self, messages: list[WriterCommitMessage | None]) -> None:
        """The job is done (no task of it runs again): its markers go."""
        self._forget(messages, None, f"job{self.job}")

    def abort(self, messages: list[WriterCommitMessage | None]) -> None:
        """The job failed; what its completed tasks put stays (a task is all or nothing,
        a job is not), and so would their markers without this."""
        log.warning("spark.sink_job_aborted", queue=self.queue, job=self.job)
        self._forget(messages, None, f"job{self.job}")
