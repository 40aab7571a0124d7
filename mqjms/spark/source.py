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

import pyarrow as pa
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
from mqjms.qmgr.locks import FileLock
from mqjms.transport import Connection, Handle, connect
from mqjms.transport.url import redact

from . import arrow, columns, exclusive, failures, isolation
from .options import SourceOptions, include_raw
from .staging import STEP, Meta, Staging

log = get_logger("mqjms.spark")

INPUT = C.MQOO_INPUT_AS_Q_DEF | C.MQOO_FAIL_IF_QUIESCING | C.MQOO_INQUIRE
READ_PAGE = 500  # staged numbers a task reads at once


class MqjmsDataSource(DataSource):
    """``format("mqjms")``: read a queue as a stream, browse one as a batch, write rows
    as messages."""

    @classmethod
    def name(cls) -> str:
        return "mqjms"

    def schema(self) -> str:
        return columns.SCHEMA + (columns.RAW_COLUMNS if include_raw(self.options) else "")

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        return QueueStreamReader(SourceOptions.parse(self.options, streaming=True), schema)

    def reader(self, schema: StructType) -> DataSourceReader:
        from .browse import BrowseReader

        return BrowseReader(SourceOptions.parse(self.options, streaming=False), schema)

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from .sink import OVERWRITE, QueueBatchWriter

        if overwrite:
            raise ValueError(OVERWRITE)
        return QueueBatchWriter(dict(self.options), schema)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        from .sink import QueueStreamWriter

        return QueueStreamWriter(dict(self.options), schema)


@dataclass(frozen=True)
class SeqRange(InputPartition):
    """Staged messages ``(lo, hi]``: what one task reads."""

    lo: int
    hi: int


class QueueStreamReader(DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Stage-then-ack: offsets are staging numbers ``{"seq": N}``."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema
        self._conn: Connection | None = None
        self._handle: Handle | None = None
        self._staging: Staging | None = None
        self._handler: PoisonHandler | None = None
        self._lock: FileLock | None = None
        self._available_now = False
        self._last_end = 0
        # the batch latestOffset planned last, ((lo, hi), its messages): partitions() of
        # that batch follows at once, and need not read the same numbers again
        self._planned: tuple[tuple[int, int], list[Meta]] | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"options": self.options, "schema": self.schema}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A copy (planner, task) starts unconnected: connections never travel."""
        self.options, self.schema = state["options"], state["schema"]
        self._conn = self._handle = self._staging = self._handler = self._lock = None
        self._available_now, self._last_end, self._planned = False, 0, None

    # ------------------------------------------------------------------ runner side
    def _ensure(self) -> tuple[Connection, Handle, Staging, PoisonHandler]:
        if self._conn is None:
            _exit_on_sigterm()
            with failures.named(f"the mqjms stream from {self.options.queue!r}"):
                lock = exclusive.hold(self.options)  # one query per consumer
                try:
                    conn = connect(self.options.url, "mqjms-spark")
                except BaseException:
                    lock.release()
                    raise
                try:
                    handle = conn.open(self.options.queue, INPUT)
                    self._staging = self.options.open_staging(conn)
                except BaseException:
                    conn.disconnect()
                    lock.release()
                    raise
            self._conn, self._handle, self._handler = conn, handle, PoisonHandler()
            self._lock = lock
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
        """A new query starts with what is staged (another query of this consumer left
        it, never committed), else after the last number given."""
        _, _, staging, _ = self._ensure()
        first = staging.first()
        offset = first - 1 if first is not None else staging.last()
        staging.ledger.starting_at(offset)
        self._last_end = max(self._last_end, offset)
        return {"seq": offset}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(self.options.max_batch)

    def latestOffset(
        self, start: dict[str, int] | None = None, limit: ReadLimit | None = None
    ) -> dict[str, int]:
        _, _, staging, _ = self._ensure()
        lo = int(start["seq"]) if start else self._last_end
        staging.ledger.forget_attempts(lo)  # Spark asks past them: those batches completed
        size = self.options.max_batch
        if isinstance(limit, ReadMaxRows):
            size = int(limit.max_rows)
        elif isinstance(limit, ReadAllAvailable):
            size = max(size, self.options.max_batch)
        target = staging.ledger.target() if self._available_now else None
        if target is None and staging.last() - lo < size:
            self._stage(size - (staging.last() - lo))
        end, planned = staging.plan_end(lo, size, target)
        self._planned = ((lo, end), planned)
        self._last_end = max(self._last_end, end)
        return {"seq": end}

    def _stage(self, count: int) -> None:
        """Up to ``count`` messages, :data:`~.staging.STEP` at a time (a step that finds
        fewer found the queue's end)."""
        conn, handle, staging, _ = self._ensure()
        staged = 0
        while staged < count:
            step = min(count - staged, STEP)
            now = staging.stage(conn, handle, step)
            staged += now
            if now < step:
                break
        if staged:
            log.debug("spark.staged", queue=self.options.queue, messages=staged)

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
        """Lag: the last staged number plus what still waits on the queue (where CURDEPTH
        counts the reserved messages, those are not waiting)."""
        conn, handle, staging, _ = self._ensure()
        depth = int(conn.inquire(handle, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])
        waiting = depth - staging.count() if self.options.reserves else depth
        return {"seq": staging.last() + max(0, waiting)}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[SeqRange]:
        conn, handle, staging, handler = self._ensure()
        lo, hi = int(start["seq"]), int(end["seq"])
        self._last_end = max(self._last_end, hi)  # a replay plans without latestOffset
        known, self._planned = self._planned, None
        planned = known[1] if known is not None and known[0] == (lo, hi) else None
        emitted, _ = isolation.plan(staging, handler, conn, handle, lo, hi, planned)
        return split(lo, hi, self.options.partitions) if emitted else []

    def commit(self, end: dict[str, int]) -> None:
        _, _, staging, _ = self._ensure()
        staging.release(int(end["seq"]))

    def stop(self) -> None:
        """The query stopped: what was staged beyond the last batch Spark planned goes
        back to the queue (at most that batch stays staged), then disconnect."""
        conn, handle, staging, lock = self._conn, self._handle, self._staging, self._lock
        self._conn = self._handle = self._staging = self._lock = None
        try:
            if conn is not None and handle is not None and staging is not None:
                conn.backout()
                given = staging.give_back(conn, handle, self._last_end)
                if given:
                    log.info(
                        "spark.given_back",
                        queue=self.options.queue,
                        messages=given,
                        after=self._last_end,
                    )
        finally:
            if staging is not None:
                staging.close()
            if conn is not None:
                try:
                    conn.backout()
                finally:
                    conn.disconnect()
                log.info("spark.source_stopped", queue=self.options.queue)
            if lock is not None:
                lock.release()

    # ------------------------------------------------------------------ task side
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, SeqRange)
        raw = self.options.include_raw
        return arrow.record_batches(
            self._rows(partition),
            arrow.arrow_schema(self.schema),
            weight=lambda row: len(row[3]) * (2 if raw else 1),  # body (and raw)
        )

    def _rows(self, partition: SeqRange) -> Iterator[tuple[Any, ...]]:
        """The staged messages of ``partition``, a page at a time (memory stays bounded)."""
        staging, _ = self.options.open_staging_for_read()
        queue, raw = self.options.queue, self.options.include_raw
        try:
            for lo in range(partition.lo, partition.hi, READ_PAGE):
                for seq, md, data in staging.read_packed(lo, min(lo + READ_PAGE, partition.hi)):
                    yield columns.packed_row(seq, md, data, queue, raw)
        finally:
            staging.close()


def split(lo: int, hi: int, parts: int) -> list[SeqRange]:
    """``(lo, hi]`` in ``parts`` ranges of numbers (fewer when it holds fewer numbers).
    Only the bounds decide, never what is staged now, so a replayed batch has the same
    partitions even after some of its messages left staging, and a sink that marks the
    partitions it committed skips exactly those."""
    parts = max(1, min(parts, hi - lo))
    step = -(-(hi - lo) // parts)
    return [SeqRange(a, min(a + step, hi)) for a in range(lo, hi, step)]


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
