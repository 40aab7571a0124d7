"""mqjms on Apache Spark (PySpark >= 4.2): a data source named ``mqjms`` and listeners on Spark.

::

    import mqjms.spark
    mqjms.spark.register(spark)                     # format("mqjms"): source, browse, sink
    mqjms.spark.run(app, spark, checkpoint="/shared/ck")   # a Worker's listeners, on Spark

``pip install 'mqjms[spark]'``. Importing this package does not import pyspark; the
functions that need it import it when called (``import mqjms`` never does).
See docs/spark.md for the delivery guarantees and what a cluster needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqjms.listeners.send import send  # mqjms.send, by its earlier name

if TYPE_CHECKING:
    from mqjms.listeners import Worker

__all__ = ["register", "run", "send"]


def register(spark: Any) -> None:
    """Register the ``mqjms`` data source with a SparkSession."""
    from .source import MqjmsDataSource

    spark.dataSource.register(MqjmsDataSource)


def run(
    app: Worker,
    spark: Any,
    *,
    checkpoint: str,
    available_now: bool = False,
    url: str | None = None,
    max_messages_per_batch: int = 1000,
    trigger_seconds: float = 0.5,
    timeout: float | None = None,
) -> None:
    """Run ``app``'s listeners on Spark (see :mod:`mqjms.spark.runner`)."""
    from .runner import run_on_spark

    run_on_spark(
        app,
        spark,
        checkpoint=checkpoint,
        available_now=available_now,
        url=url,
        max_messages_per_batch=max_messages_per_batch,
        trigger_seconds=trigger_seconds,
        timeout=timeout,
    )
