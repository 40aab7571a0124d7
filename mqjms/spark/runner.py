"""Listeners on Spark: the same ``@app.listener`` functions a Worker runs, on executors.

``mqjms.spark.run(app, spark, checkpoint=...)`` starts one streaming query per listener:
the ``mqjms`` source on the listener's queue (staging under the checkpoint), and a
``foreachBatch`` that hands each message to the listener as the same ``mqjms.Message`` a
Worker gives. Per message, as a Worker (seed 002, asynchronous delivery):

* the listener returns: done; what it sent with :func:`mqjms.send` is put with the task's
  other sends and a commit marker in one unit of work (:mod:`.markers`), MsgIds derived
  from the message: a replayed task finds its marker and neither calls the listeners
  again nor sends twice;
* it raises: a backout for that message, counted in staging (BackoutCount + 1), the
  failure remembered; the message is renumbered to run again alone later, while the rest
  of the batch completes;
* at BOTHRESH (or at once for a ``move_on`` exception) it is moved to BOQNAME with the
  same ``mqjms_failure_*`` properties a Worker adds, and the listener's ``on_poison`` and
  the worker's poison hooks are called.

A failure of the batch itself (an executor lost, a bug) fails the query: it is restarted
and the source isolates the range (see :mod:`.isolation`). ``available_now=True`` drains
the queues and returns once every processed message is gone from its input queue.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqjms.backout import BackoutAttributes, Failure, PoisonHandler
from mqjms.jms.message import to_message
from mqjms.listeners.send import collecting
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import connect, resolve_url

from . import markers, poison
from .ids import derived_msg_id
from .options import SourceOptions, safe_name

if TYPE_CHECKING:
    from mqjms.listeners import Listener, Worker

log = get_logger("mqjms.spark")

MAX_RESTARTS = 20  # failed batches in a row before run() gives up


@dataclass(frozen=True)
class FailedDelivery:
    """A message whose listener raised, as a task reports it to the driver."""

    seq: int
    msg_id: str
    exception_type: str
    message: str
    move_on: bool


FailedRow = tuple[int, str, str, str, bool]  # a FailedDelivery as a task yields it


@dataclass(frozen=True)
class TaskBatch:
    """What a task needs to know of its micro-batch to mark it: the listener's query
    (its checkpoint, stable across restarts), the batch id and the marker queue."""

    query: str
    batch: int
    marker_queue: str = markers.MARKER_QUEUE


def process_partition(
    listener: Listener, url: str, task: TaskBatch, rows: Iterable[Any]
) -> Iterator[FailedRow]:
    """Executor side: call the listener for each message; put the sends of those that
    succeeded and the marker in one unit of work; yield the failures. A partition that
    committed before (its marker is there) is not run again: its failures come back."""
    from pyspark import TaskContext

    context = TaskContext.get()
    marker = markers.Marker(
        task.marker_queue, task.query, task.batch, context.partitionId() if context else 0
    )
    rows = iter(rows)
    first = next(rows, None)
    if first is None:
        return
    conn = connect(url, "mqjms-spark-listener")
    try:
        done = markers.find(conn, url, marker)
    finally:
        conn.disconnect()
    if done is None:
        failed, sends = _run_listener(listener, itertools.chain((first,), rows))
        done = markers.put_once(
            url, marker, sends, {"failed": failed}, appl_name="mqjms-spark-listener"
        )
    else:
        log.info("spark.partition_skipped", queue=listener.queue, batch=task.batch)
    for values in done.get("failed", []):
        seq, msg_id, exception_type, message, move_on = values
        yield int(seq), str(msg_id), str(exception_type), str(message), bool(move_on)


def _run_listener(
    listener: Listener, rows: Iterable[Any]
) -> tuple[list[FailedRow], list[tuple[str, MQMD, bytes]]]:
    """Call the listener for each row: the failures, and the sends of the successes
    (MsgIds derived from the message and the send's place among its sends)."""
    failed: list[FailedRow] = []
    sends: list[tuple[str, MQMD, bytes]] = []
    for row in rows:
        md = MQMD.unpack(bytes(row["mqmd"]))
        message = to_message(md, bytes(row["raw"]), listener.queue, lazy=True)
        with collecting() as box:
            try:
                _call(listener, message)
            except BaseException as exc:
                failure = Failure.from_exception(exc, listener.name, listener.queue)
                seq, move_on = int(row["seq"]), listener.moves_on(exc)
                failed.append(
                    (seq, md.MsgId.hex(), failure.exception_type, failure.message, move_on)
                )
                continue
        for ordinal, item in enumerate(box.sends):
            item.md.MsgId = derived_msg_id("send", md.MsgId.hex(), ordinal)
            sends.append((item.queue, item.md, item.data))
    return failed, sends


def _call(listener: Listener, message: Any) -> None:
    result = listener.fn(message)
    if inspect.isawaitable(result):

        async def wait() -> None:
            await result

        asyncio.run(wait())


class ListenerBatch:
    """The ``foreachBatch`` function of one listener's query (runs on the driver)."""

    def __init__(
        self, listener: Listener, options: SourceOptions, hooks: tuple[Any, ...], query: str
    ) -> None:
        self.listener = listener
        self.options = options
        self.hooks = hooks
        self.query = query
        self.handler = PoisonHandler()

    def __call__(self, frame: Any, batch_id: int) -> None:
        listener, url = self.listener, self.options.url
        task = TaskBatch(self.query, batch_id)
        rows = frame.select("seq", "mqmd", "raw").rdd.mapPartitions(
            lambda part: process_partition(listener, url, task, part)
        )
        failed = [FailedDelivery(*values) for values in rows.collect()]
        if failed:
            self._settle(failed, batch_id)
        self._forget_markers(batch_id)

    def _forget_markers(self, batch_id: int) -> None:
        """Batch ``batch_id`` is done: earlier batches are never replayed, so their markers
        go (this batch's stay: a crash before Spark records it replays it)."""
        conn = connect(self.options.url, "mqjms-spark-driver")
        try:
            markers.forget_before(
                conn, self.options.url, markers.MARKER_QUEUE, self.query, batch_id
            )
        finally:
            conn.disconnect()

    def _settle(self, failed: list[FailedDelivery], batch_id: int) -> None:
        """Count each failure as a backout in staging; move what reached BOTHRESH."""
        conn = connect(self.options.url, "mqjms-spark-driver")
        try:
            handle = conn.open(self.options.queue, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
            staging = self.options.open_staging(conn)
            try:
                # seed 002: cached for the query, though each batch connects afresh
                attrs = poison.thresholds(self.handler, conn, handle, scope=self)
                for delivery in failed:
                    self._settle_one(conn, handle, staging, delivery, attrs, batch_id)
            finally:
                staging.close()
        finally:
            conn.disconnect()

    def _settle_one(
        self,
        conn: Any,
        handle: Any,
        staging: Any,
        delivery: FailedDelivery,
        attrs: BackoutAttributes,
        batch_id: int,
    ) -> None:
        failure = Failure(
            delivery.exception_type, delivery.message, self.listener.name, self.listener.queue
        )
        staging.ledger.remember_failure(bytes.fromhex(delivery.msg_id), failure)
        new = staging.renumber([delivery.seq], staging.ledger.new_tag(), 1)
        if not new:
            return  # settled before this replay of the batch
        staging.ledger.extend_target(new)
        meta = staging.metas(new[0] - 1, new[0])
        count = meta[0].backout if meta else 0
        log.warning(
            "message.backed_out",
            queue=self.listener.queue,
            listener=self.listener.name,
            msg_id=delivery.msg_id,
            backout_count=count,
            exception_type=delivery.exception_type,
            reason=delivery.message,
            batch=batch_id,
        )
        if delivery.move_on or self.handler.threshold_reached(count, attrs):
            hooks = (*self.hooks, self.listener.on_poison)
            poison.move(self.handler, conn, handle, staging, new[0], failure, hooks, scope=self)


def run_on_spark(
    app: Worker,
    spark: Any,
    *,
    checkpoint: str,
    available_now: bool,
    url: str | None,
    max_messages_per_batch: int,
    trigger_seconds: float,
    timeout: float | None,
) -> None:
    from . import register

    if not app.listeners:
        raise ValueError("no listeners: register one with @app.listener(queue)")
    register(spark)
    url = resolve_url(url or getattr(app, "_url", None))
    started = [
        _Query(
            lst,
            _options(lst, url, checkpoint, max_messages_per_batch),
            Path(checkpoint) / safe_name(lst.queue),
            tuple(app.poison_hooks),
        )
        for lst in app.listeners
    ]
    for query in started:
        query.start(spark, available_now, trigger_seconds)
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        while any(q.active for q in started):
            for query in started:
                query.watch(spark, available_now, trigger_seconds)
            if deadline is not None and time.monotonic() > deadline:
                break
            time.sleep(0.2)
    finally:
        for query in started:
            query.stop()
    if available_now:
        for query in started:
            query.release_last()


def _options(listener: Listener, url: str, checkpoint: str, batch: int) -> SourceOptions:
    base = Path(checkpoint) / safe_name(listener.queue)
    return SourceOptions.parse(
        {
            "url": url,
            "queue": listener.queue,
            "staging": str(base / "staging"),
            "consumer": f"spark-listener:{listener.queue}",
            "includeRaw": "true",
            "maxMessagesPerBatch": str(batch),
        },
        streaming=True,
    )


class _Query:
    """One listener's streaming query, restarted after a failed batch."""

    def __init__(
        self, listener: Listener, options: SourceOptions, base: Path, hooks: tuple[Any, ...]
    ) -> None:
        self.listener, self.options, self.base, self.hooks = listener, options, base, hooks
        self.query: Any = None
        self.restarts = 0
        self.active = False

    def start(self, spark: Any, available_now: bool, trigger_seconds: float) -> None:
        reader = spark.readStream.format("mqjms")
        for key, value in {
            "url": self.options.url,
            "queue": self.options.queue,
            "staging": self.options.staging,
            "consumer": self.options.owner,
            "includeRaw": "true",
            "maxMessagesPerBatch": str(self.options.max_batch),
        }.items():
            reader = reader.option(key, value)
        writer = (
            reader.load()
            .writeStream.foreachBatch(
                ListenerBatch(self.listener, self.options, self.hooks, self._marker_query())
            )
            .option("checkpointLocation", str(self.base / "checkpoint"))
            .queryName(f"mqjms-{safe_name(self.listener.queue)}")
        )
        writer = (
            writer.trigger(availableNow=True)
            if available_now
            else writer.trigger(processingTime=f"{trigger_seconds} seconds")
        )
        self.query = writer.start()
        self.active = True
        log.info("spark.listener_started", queue=self.listener.queue, listener=self.listener.name)

    def _marker_query(self) -> str:
        """The listener's query as its markers name it: its checkpoint, which a restart
        keeps."""
        return f"listener:{self.base.resolve()}"

    def watch(self, spark: Any, available_now: bool, trigger_seconds: float) -> None:
        if not self.active or self.query.isActive:
            return
        error = self.query.exception()
        if error is None:
            self.active = False
            return
        self.restarts += 1
        log.warning(
            "spark.query_failed",
            queue=self.listener.queue,
            restarts=self.restarts,
            error=str(error).splitlines()[0][:500],
        )
        if self.restarts > MAX_RESTARTS:
            self.active = False
            raise RuntimeError(
                f"the Spark query of listener {self.listener.name} failed {self.restarts} "
                f"times in a row: {str(error).splitlines()[0][:500]}"
            )
        self.start(spark, available_now, trigger_seconds)

    def stop(self) -> None:
        if self.query is not None and self.query.isActive:
            self.query.stop()
        self.active = False

    def release_last(self) -> None:
        """Spark commits a source range one batch late; after an AvailableNow run every
        batch has completed, so the last range is released here."""
        progress = self.query.lastProgress if self.query is not None else None
        if not progress or not progress.get("sources"):
            return
        end = progress["sources"][0].get("endOffset")
        if not end:
            return
        seq = int(json.loads(end)["seq"]) if isinstance(end, str) else int(end["seq"])
        conn = connect(self.options.url, "mqjms-spark-driver")
        try:
            staging = self.options.open_staging(conn)
            try:
                staging.release(seq)
                staging.ledger.set("target", None)
            finally:
                staging.close()
        finally:
            conn.disconnect()
