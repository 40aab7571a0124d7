"""Rows to Arrow record batches, a column at a time.

A Python data source may yield tuples, and Spark then converts every value through a
Python function of its type (26 columns: 26 calls a message) before building Arrow
arrays. Yielding ``pyarrow.RecordBatch`` skips that: pyarrow converts each column's
list in C. The schema is Spark's own conversion of the source's schema (Spark checks
that it matches exactly).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pyarrow as pa
from pyspark.sql.pandas.types import to_arrow_schema
from pyspark.sql.types import StructType

BATCH_ROWS = 10_000  # Spark's spark.sql.execution.arrow.maxRecordsPerBatch default
BATCH_BYTES = 64 << 20  # large messages: a batch ends sooner, so memory stays bounded


def arrow_schema(schema: StructType) -> pa.Schema:
    """The Arrow schema Spark expects of a data source with ``schema``."""
    return to_arrow_schema(schema, timezone="UTC")


def record_batches(
    rows: Iterable[tuple[Any, ...]],
    schema: pa.Schema,
    weight: Callable[[tuple[Any, ...]], int] = lambda row: 0,
    rows_per_batch: int = BATCH_ROWS,
    bytes_per_batch: int = BATCH_BYTES,
) -> Iterator[pa.RecordBatch]:
    """``rows`` (tuples in the schema's column order) as record batches of at most
    ``rows_per_batch`` rows, ended early once their ``weight`` passes ``bytes_per_batch``."""
    chunk: list[tuple[Any, ...]] = []
    size = 0
    for row in rows:
        chunk.append(row)
        size += weight(row)
        if len(chunk) >= rows_per_batch or size >= bytes_per_batch:
            yield _batch(chunk, schema)
            chunk, size = [], 0
    if chunk:
        yield _batch(chunk, schema)


def _batch(rows: list[tuple[Any, ...]], schema: pa.Schema) -> pa.RecordBatch:
    columns = zip(*rows, strict=True)
    arrays = [pa.array(values, type=f.type) for values, f in zip(columns, schema, strict=True)]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)
