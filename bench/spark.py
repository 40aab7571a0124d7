#!/usr/bin/env python3
"""Benchmark: the mqjms Spark source into a noop sink against a plain get loop of the same
queue; listeners on Spark against a Worker.

    python3 bench/spark.py [--messages N] [--batch B] [--listener-messages L] [--rounds R]
                           [--quick] [--json]

In interleaved rounds (the disk's fsync time probed before each round), on one embedded
queue manager in a fresh temporary directory and one ``local[2]`` Spark session (started
once, not timed), each contender consumes ``N`` non-persistent messages, loaded beforehand
(not timed):

* **plain**: one connection, MQGET under syncpoint, MQCMIT every ``B`` messages;
* **source**: ``spark.readStream.format("mqjms")`` with ``maxMessagesPerBatch`` ``B`` on two
  partitions into the ``noop`` sink, the default trigger (each micro-batch stages its own
  messages, as a running stream does); its rate is the steady state (every micro-batch
  but the first, by Spark's own progress reports: staging, planning, the tasks' reads,
  Spark's logs and the commit that releases the range).

The figure is source / plain per round (target >= 0.8), and the source's rate (target >=
30,000 rows/s).

Then, in rounds of their own, the same no-op ``@app.listener`` drains ``L`` messages:

* **worker**: ``mqjms.Worker`` (concurrency 1) in this process, from start to the last
  commit;
* **listener**: ``mqjms.spark.run(app, spark, available_now=True)``, from the call to its
  return (the query's start and Spark's fixed cost per micro-batch included: that is what
  a user waits for).

No target: the figure says what Spark's fixed costs amount to against a Worker on one
machine. ``--quick`` (CI) runs in about half a minute. Needs ``mqjms[spark]``; without
pyspark it says so and exits 0. Targets are information; the exit status is 0 unless the
benchmark broke.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``bench`` and ``mqjms`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mqjms
from bench._common import (
    FsyncProbe,
    Report,
    Rounds,
    Sample,
    add_common_args,
    clock,
    finish_args,
    quiet_logging,
    scratch_dir,
)
from mqjms.listeners import Worker
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.spark.options import DEFAULT_MAX_BATCH
from mqjms.transport import connect, embedded

REPO = Path(__file__).resolve().parent.parent

QUEUE = "BENCH.IN"
TARGET_RATIO = ">= 0.8"
TARGET_RATE = ">= 30,000 rows/s"


def fill(url: str, count: int) -> None:
    conn = connect(url, "bench-loader")
    md = MQMD(Format=C.MQFMT_STRING)
    for i in range(count):
        conn.put(QUEUE, md, f"order {i}".encode(), syncpoint=True)
        if i % 1000 == 999:
            conn.commit()
    conn.commit()
    conn.disconnect()


def plain_reader(url: str, count: int, batch: int) -> Sample:
    """The minimal reader: destructive gets under syncpoint, a commit every ``batch``."""
    fill(url, count)
    conn = connect(url, "bench-plain")
    handle = conn.open(QUEUE, C.MQOO_INPUT_SHARED)
    got = 0
    with clock() as took:
        while got < count and conn.get(handle, syncpoint=True) is not None:
            got += 1
            if got % batch == 0:
                conn.commit()
        conn.commit()
    conn.disconnect()
    if got != count:
        raise RuntimeError(f"plain: {got} of {count} messages got")
    return Sample(took().seconds, operations=got)


def spark_source(spark: Any, url: str, count: int, batch: int, checkpoint: Path) -> Sample:
    """Spark's own timing of the steady micro-batches (all but the first, which starts the
    Python workers), each staging its own messages as a running stream does."""
    fill(url, count)
    df = (
        spark.readStream.format("mqjms")
        .option("url", url)
        .option("queue", QUEUE)
        .option("maxMessagesPerBatch", batch)
        .option("numPartitions", 2)
        .load()
    )
    # the default trigger, not AvailableNow: AvailableNow stages the whole queue before
    # its first batch, so the batches after it would be timed without their staging
    query = df.writeStream.format("noop").option("checkpointLocation", str(checkpoint)).start()
    try:
        while _rows(query) < count and query.isActive:
            time.sleep(0.02)
        query.processAllAvailable()  # the batch that reached ``count`` is reported
    finally:
        query.stop()
    if query.exception() is not None:
        raise RuntimeError(f"source: {query.exception()}")
    release_last_batch(url, query)
    progress = [p for p in query.recentProgress if p["numInputRows"]]
    # at least once into the noop sink: a micro-batch retried (``spark.batch_split``) reads
    # its messages again, so there may be more rows than messages, never fewer
    if sum(p["numInputRows"] for p in progress) < count:
        raise RuntimeError(f"source: {sum(p['numInputRows'] for p in progress)} of {count} rows")
    steady = progress[1:] or progress
    rows = sum(p["numInputRows"] for p in steady)
    seconds = sum(p["durationMs"]["triggerExecution"] for p in steady) / 1000
    return Sample(seconds, operations=rows)


def _rows(query: Any) -> int:
    return sum(int(p["numInputRows"]) for p in query.recentProgress)


def release_last_batch(url: str, query: Any) -> None:
    """Spark commits a source range one batch late: the run's last batch stays reserved
    on the queue (and counted in its depth) unless released, as ``mqjms.spark.run`` does
    after an AvailableNow run."""
    from mqjms.spark.options import SourceOptions

    end = query.lastProgress["sources"][0]["endOffset"]
    seq = int((json.loads(end) if isinstance(end, str) else end)["seq"])
    conn = connect(url, "bench-release")
    staging = SourceOptions.parse({"url": url, "queue": QUEUE}, streaming=True).open_staging(conn)
    try:
        staging.release(seq)
    finally:
        staging.close()
        conn.disconnect()


def noop(msg: mqjms.Message) -> None:
    """The listener both runners call: the cost measured is theirs, not the listener's."""


def worker_app(url: str, appl_name: str) -> Worker:
    app = Worker(url, appl_name=appl_name, shutdown_timeout=10)
    app.get_wait = 0.05  # an idle consumer notices the stop soon
    app.listener(QUEUE)(noop)
    return app


def worker_drain(url: str, count: int) -> Sample:
    """A Worker on this machine, from its start to its ``count``-th commit."""
    fill(url, count)
    app = worker_app(url, "bench-worker")
    with clock() as took:
        app.start()
        while app.stats.committed < count and app.error is None:
            time.sleep(0.001)
    app.stop()
    if app.stats.committed != count:
        raise RuntimeError(f"worker: {app.stats.committed} of {count} ({app.error!r})")
    return Sample(took().seconds, operations=count)


def spark_listener(spark: Any, url: str, count: int, batch: int, checkpoint: Path) -> Sample:
    """``mqjms.spark.run(..., available_now=True)``, from the call to its return."""
    import mqjms.spark

    fill(url, count)
    app = worker_app(url, "bench-listener")
    with clock() as took:
        mqjms.spark.run(
            app, spark, checkpoint=str(checkpoint), available_now=True, max_messages_per_batch=batch
        )
    left = embedded.queue_manager(url).queue_depth(QUEUE)
    if left:
        raise RuntimeError(f"listener: {left} of {count} messages left on {QUEUE}")
    return Sample(took().seconds, operations=count)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench/spark.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--messages", type=int, help="messages per run (default 200000; 60000 quick)")
    p.add_argument(
        "--batch",
        type=int,
        help="messages per micro-batch and per plain MQCMIT (default: the source's default "
        "maxMessagesPerBatch, 50000; 20000 quick)",
    )
    p.add_argument(
        "--listener-messages",
        type=int,
        help="messages per listener run, Worker and Spark (default 20000; 4000 quick)",
    )
    add_common_args(p, rounds=3, quick_rounds=1)
    args = p.parse_args(argv)
    if args.messages is None:
        args.messages = 60_000 if args.quick else 200_000
    if args.batch is None:
        args.batch = 20_000 if args.quick else DEFAULT_MAX_BATCH
    if args.listener_messages is None:
        args.listener_messages = 4_000 if args.quick else 20_000
    finish_args(p, args, "messages", "batch", "listener_messages")
    quiet_logging()
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        print("spark: pyspark is not installed (pip install 'mqjms[spark]'): skipped")
        return 0
    import mqjms.spark

    # executors import this module's listener by name (``bench.spark``) and this mqjms
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p
    )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    report = Report("spark", "the mqjms Spark source (noop sink) vs. a plain get loop")
    with scratch_dir(args.dir, "spark") as root, clock() as wall:
        url = f"embedded://{root / 'qm'}"
        embedded.queue_manager(url).define_queue("QLOCAL", QUEUE, {"MAXDEPTH": 999_999})
        spark = (
            SparkSession.builder.master("local[2]")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        spark.sparkContext.setLogLevel("ERROR")
        mqjms.spark.register(spark)
        probe = FsyncProbe(root)
        runs = iter(range(1_000))
        try:
            rounds = Rounds.run(
                {
                    "plain": lambda n: plain_reader(url, n, args.batch),
                    "source": lambda n: spark_source(
                        spark, url, n, args.batch, root / f"ck-{next(runs)}"
                    ),
                },
                args.messages,
                args.rounds,
                probe,
            )
            listeners = Rounds.run(
                {
                    "worker": lambda n: worker_drain(url, n),
                    "listener": lambda n: spark_listener(
                        spark, url, n, args.batch, root / f"ck-{next(runs)}"
                    ),
                },
                args.listener_messages,
                args.rounds,
                None,
            )
        finally:
            probe.close()
            spark.stop()
            embedded.close_all()
    report.metric(
        "config.messages",
        "messages per run",
        args.messages,
        note=f"non-persistent; batches of {args.batch:,}; local[2]; "
        f"{args.rounds} interleaved rounds",
    )
    report.disk(rounds.fsync)
    report.section("rows per second")
    report.rate(
        "rates.plain",
        "plain get loop",
        rounds.rate("plain"),
        "rows/s",
        note=f"MQCMIT every {args.batch:,}",
    )
    report.rate(
        "rates.source",
        "spark source",
        rounds.rate("source"),
        "rows/s",
        note=f"steady micro-batches; target {TARGET_RATE}",
    )
    report.data_only("rates.source.target", TARGET_RATE)
    report.section("ratio (per round)")
    report.ratio("ratio", "source / plain", rounds.ratio("source", "plain"), TARGET_RATIO)
    report.section(f"listeners: a no-op listener drains {args.listener_messages:,} messages")
    report.rate("listeners.worker", "Worker (this machine)", listeners.rate("worker"), "msgs/s")
    report.rate(
        "listeners.spark",
        "mqjms.spark.run",
        listeners.rate("listener"),
        "msgs/s",
        note="available_now, start to return: Spark's fixed costs included",
    )
    report.ratio("listeners.ratio", "Spark / Worker", listeners.ratio("listener", "worker"))
    report.metric("time_s", "time taken", round(wall().seconds, 1), "s")
    print(report.render(args.json))
    return 0


if __name__ == "__main__":
    sys.exit(main())
