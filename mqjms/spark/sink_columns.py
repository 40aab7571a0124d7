"""The columns the sink reads, checked against the DataFrame's schema as the write is planned.

A column of another type was read anyhow, in a task: ``persistent`` as the string
"false" put persistent messages, a ``properties`` string failed with "'str' object has no
attribute 'items'" under a Python worker's traceback. Checked once on the driver, the
write fails before any task runs, naming the column, its type and what it may be. Other
columns (a DataFrame read from a queue has many) are left alone.
"""

from __future__ import annotations

from pyspark.sql.types import (
    BinaryType,
    BooleanType,
    ByteType,
    DataType,
    DoubleType,
    FloatType,
    IntegerType,
    LongType,
    MapType,
    NullType,
    ShortType,
    StringType,
    StructType,
)

_WHOLE: tuple[type[DataType], ...] = (ByteType, ShortType, IntegerType, LongType)
#: a column the sink reads: the types it may have, as a user is told them
COLUMNS: dict[str, tuple[tuple[type[DataType], ...], str]] = {
    "text": ((StringType,), "STRING"),
    "body": ((BinaryType, StringType), "BINARY (a BytesMessage) or STRING (a TextMessage)"),
    "correl_id": ((StringType, BinaryType), "STRING (48 hex digits, or text) or BINARY"),
    "priority": (_WHOLE, "INT (0 to 9)"),
    "persistent": ((BooleanType,), "BOOLEAN"),
    "queue": ((StringType,), "STRING"),
    "msg_id": ((StringType, BinaryType, *_WHOLE), "STRING, BINARY or a whole number"),
}
#: the values a JMS property may have
_PROPERTY_VALUES = (StringType, BooleanType, *_WHOLE, FloatType, DoubleType, BinaryType)


def check(schema: StructType) -> None:
    """Raise ValueError naming every column the sink reads whose type it cannot write."""
    wrong = []
    for field in schema.fields:
        name, kind = field.name, field.dataType
        if isinstance(kind, NullType):  # lit(None): null in every row
            continue
        if name == "properties":
            if not (
                isinstance(kind, MapType)
                and isinstance(kind.keyType, StringType)
                and isinstance(kind.valueType, (*_PROPERTY_VALUES, NullType))
            ):
                wrong.append(
                    f"properties is {kind.simpleString()}, not MAP<STRING, a STRING, BOOLEAN, "
                    "number or BINARY>"
                )
        elif name in COLUMNS:
            accepted, said = COLUMNS[name]
            if not isinstance(kind, accepted):
                wrong.append(f"{name} is {kind.simpleString()}, not {said}")
    if wrong:
        raise ValueError(
            "the mqjms sink cannot write these columns: "
            + "; ".join(wrong)
            + " (cast them, or rename a column the sink should not read)"
        )
