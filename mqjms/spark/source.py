"""The ``mqjms`` data source: streaming source, batch browse and sink, for PySpark >= 4.2.

::

    mqjms.spark.register(spark)
    df = (spark.readStream.format("mqjms").option("url", url).option("queue", "ORDERS.IN")
          .option("staging", checkpoint + "/staging").load())

The stream reader is built several times (the driver's long-lived runner, a planner, one
copy per task), so nothing connects in ``__init__``: the runner connects on first use, a
task reads staging on its own (see spark.md 3.1).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
    InputPartition,
)
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadLimit,
    ReadMaxRows,
    SupportsTriggerAvailableNow,
)
from pyspark.sql.types import StructType

from mqjms.backout import PoisonHandler
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.transport import Browse, Connection, Handle, connect
from mqjms.transport.url import redact

from . import columns, isolation
from .options import SourceOptions
from .staging import Staging

log = get_logger("mqjms.spark")

INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_INQUIRE


class MqjmsDataSource(DataSource):
    """``format("mqjms")``: read a queue as a stream, browse one as a batch, write rows
    as messages."""

    @classmethod
    def name(cls) -> str:
        return "mqjms"

    def schema(self) -> str:
        raw = str(self.options.get("includeRaw", "false")).lower() == "true"
        return columns.SCHEMA + (columns.RAW_COLUMNS if raw else "")

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return QueueStreamReader(SourceOptions.parse(self.options, streaming=True))

    def reader(self, schema: StructType) -> DataSourceReader:
        return BrowseReader(SourceOptions.parse(self.options, streaming=False))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from .sink import QueueBatchWriter

        return QueueBatchWriter(dict(self.options))

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        from .sink import QueueStreamWriter

        return QueueStreamWriter(dict(self.options))


@dataclass(frozen=True)
class SeqRange(InputPartition):
    """Staged messages ``(lo, hi]``: what one task reads."""

    lo: int
    hi: int


class QueueStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Stage-then-ack: offsets are staging numbers ``{"seq": N}``."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options
        self._conn: Connection | None = None
        self._handle: Handle | None = None
        self._staging: Staging | None = None
        self._handler: PoisonHandler | None = None
        self._available_now = False
        self._last_end = 0

    def __getstate__(self) -> dict[str, Any]:
        return {"options": self.options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy (planner, task) starts unconnected: connections never travel."""
        self.options = state["options"]
        self._conn = self._handle = self._staging = self._handler = None
        self._available_now, self._last_end = False, 0

    # ------------------------------------------------------------------ runner side
    def _ensure(self) -> tuple[Connection, Handle, Staging, PoisonHandler]:
        if self._conn is None:
            _exit_on_sigterm()
            conn = connect(self.options.url, "mqjms-spark")
            try:
                handle = conn.open(self.options.queue, INPUT)
                self._staging = self.options.open_staging(conn)
            except BaseException:
                conn.disconnect()
                raise
            self._conn, self._handle, self._handler = conn, handle, PoisonHandler()
            log.info(
                "spark.source_started",
                url=redact(self.options.url),
                queue=self.options.queue,
                owner=self.options.owner,
                staging=str(self._staging.directory),
                store=type(self._staging).__name__,
            )
        assert self._handle is not None and self._staging is not None
        assert self._handler is not None
        return self._conn, self._handle, self._staging, self._handler

    def initialOffset(self) -> dict[str, int]:
        _, _, staging, _ = self._ensure()
        first = staging.first()
        return {"seq": first - 1 if first is not None else staging.last()}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.options.max_batch)

    def latestOffset(
        self, start: dict[str, int] | None = None, limit: ReadLimit | None = None
    ) -> dict[str, int]:
        _, _, staging, _ = self._ensure()
        lo = int(start["seq"]) if start else self._last_end
        size = self.options.max_batch
        if isinstance(limit, ReadMaxRows):
            size = int(limit.max_rows)
        elif isinstance(limit, ReadAllAvailable):
            size = max(size, self.options.max_batch)
        target = staging.ledger.target() if self._available_now else None
        if target is None and staging.last() - lo < size:
            self._stage(size - (staging.last() - lo))
        end = staging.plan_end(lo, size, target)
        self._last_end = end
        return {"seq": end}

    def _stage(self, count: int) -> None:
        conn, handle, staging, _ = self._ensure()
        staged = staging.stage(conn, handle, count)
        if staged:
            log.debug(
                "spark.staged", queue=self.options.queue, messages=len(staged), last=staged[-1].seq
            )

    def prepareForTriggerAvailableNow(self) -> None:
        """AvailableNow: stage what the queue holds now; the run ends after it."""
        _, _, staging, _ = self._ensure()
        while True:
            before = staging.last()
            self._stage(self.options.max_batch)
            if staging.last() == before:
                break
        staging.ledger.set("target", str(staging.last()))
        self._available_now = True

    def reportLatestOffset(self) -> dict[str, int]:
        """Lag: the last staged number plus what still waits on the queue."""
        conn, handle, staging, _ = self._ensure()
        depth = int(conn.inquire(handle, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])
        waiting = (
            depth - len(staging.metas(self._last_end, staging.last()))
            if (self.options.reserves)
            else depth
        )
        return {"seq": staging.last() + max(0, waiting)}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[SeqRange]:
        conn, handle, staging, handler = self._ensure()
        emitted, _ = isolation.plan(
            staging, handler, conn, handle, int(start["seq"]), int(end["seq"])
        )
        return split(
            emitted_seqs=[m.seq for m in emitted],
            lo=int(start["seq"]),
            parts=self.options.partitions,
        )

    def commit(self, end: dict[str, int]) -> None:
        _, _, staging, _ = self._ensure()
        staging.release(int(end["seq"]))

    def stop(self) -> None:
        conn, self._conn = self._conn, None
        if self._staging is not None:
            self._staging.close()
            self._staging = None
        if conn is not None:
            try:
                conn.backout()
            finally:
                conn.disconnect()
            log.info("spark.source_stopped", queue=self.options.queue)

    # ------------------------------------------------------------------ task side
    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, SeqRange)
        staging, _ = self.options.open_staging_for_read()
        try:
            staged = staging.read(partition.lo, partition.hi)
        finally:
            staging.close()
        queue, raw = self.options.queue, self.options.include_raw
        for item in staged:
            yield columns.row(item.seq, item.md, item.data, queue, raw)


def split(emitted_seqs: list[int], lo: int, parts: int) -> list[SeqRange]:
    """``parts`` ranges over the emitted numbers (at most one per message)."""
    if not emitted_seqs:
        return []
    parts = max(1, min(parts, len(emitted_seqs)))
    size = -(-len(emitted_seqs) // parts)
    ranges = []
    low = lo
    for i in range(0, len(emitted_seqs), size):
        high = emitted_seqs[min(i + size, len(emitted_seqs)) - 1]
        ranges.append(SeqRange(low, high))
        low = high
    return ranges


class BrowseReader(DataSourceReader):
    """A batch read browses the queue (MQOO_BROWSE): nothing is removed, ever. Meant for
    backout and dead-letter queues; the MQDLH and the failure properties are columns."""

    def __init__(self, options: SourceOptions) -> None:
        self.options = options

    def partitions(self) -> Sequence[InputPartition]:
        return [InputPartition(0)]  # an MQ browse cursor cannot be split

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        conn = connect(self.options.url, "mqjms-spark-browse")
        try:
            handle = conn.open(self.options.queue, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
            position, cursor = 0, Browse.FIRST
            while True:
                got = conn.get(handle, browse=cursor)
                if got is None:
                    break
                position += 1
                cursor = Browse.NEXT
                yield columns.row(position, got[0], got[1], self.options.queue)
            conn.close(handle)
        finally:
            conn.disconnect()


def _exit_on_sigterm() -> None:
    """Spark ends the source runner with SIGTERM when a query stops (spark.md 3.4):
    exit through SystemExit so that ``stop()`` runs and the connection ends cleanly."""
    if threading.current_thread() is not threading.main_thread():
        return
    if "python_streaming_source_runner" not in " ".join(sys.argv) and not any(
        "streaming_source_runner" in str(m) for m in list(sys.modules) if "runner" in m
    ):
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
