"""The batch read: ``spark.read.format("mqjms")`` browses a queue, never removing a message.

Meant for backout and dead-letter queues: the MQDLH fields and the ``mqjms_failure_*``
properties are columns (see :mod:`.columns`). A DataSourceReader has no commit, so a
destructive read could lose messages when a job fails; a redrive is a pipeline instead
(write the chosen rows, then remove exactly those: ``examples/spark/backout_report.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSourceReader, InputPartition
from pyspark.sql.types import StructType

from mqjms.mq import constants as C
from mqjms.transport import Browse, connect

from . import arrow, columns, failures
from .options import SourceOptions


class BrowseReader(DataSourceReader):
    """Browses the queue (MQOO_BROWSE) in one task: an MQ browse cursor cannot be split."""

    def __init__(self, options: SourceOptions, schema: StructType) -> None:
        self.options = options
        self.schema = schema

    def partitions(self) -> Sequence[InputPartition]:
        """One partition, once the queue is known to be there (an unknown queue fails the
        read as it is planned, not later in a task)."""
        with failures.named(f"spark.read of {self.options.queue!r}"):
            conn = connect(self.options.url, "mqjms-spark-browse")
            try:
                conn.close(conn.open(self.options.queue, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING))
            finally:
                conn.disconnect()
        return [InputPartition(0)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        return arrow.record_batches(
            self._rows(), arrow.arrow_schema(self.schema), weight=lambda row: len(row[3])
        )

    def _rows(self) -> Iterator[tuple[Any, ...]]:
        with failures.named(f"spark.read of {self.options.queue!r}"):
            yield from self._browse()

    def _browse(self) -> Iterator[tuple[Any, ...]]:
        conn = connect(self.options.url, "mqjms-spark-browse")
        try:
            handle = conn.open(self.options.queue, C.MQOO_BROWSE | C.MQOO_FAIL_IF_QUIESCING)
            position, cursor = 0, Browse.FIRST
            while (got := conn.get(handle, browse=cursor)) is not None:
                position += 1
                cursor = Browse.NEXT
                yield columns.row(
                    position, got[0], got[1], self.options.queue, self.options.include_raw
                )
            conn.close(handle)
        finally:
            conn.disconnect()
