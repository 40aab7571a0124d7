"""Listeners on Spark: the same ``@app.listener`` functions a Worker runs, on executors.

``mqjms.spark.run(app, spark, checkpoint=...)`` starts one streaming query per listener:
the ``mqjms`` source on the listener's queue (staging under the checkpoint), and a
``foreachBatch`` that hands each message to the listener as the same ``mqjms.Message`` a
Worker gives. Per message, as a Worker (seed 002, asynchronous delivery):

* the listener returns: done; what it sent with :func:`mqjms.spark.send` is put with the
  task's other sends in one unit of work, MsgIds derived from the message (idempotent);
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
import json
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mqjms.backout import BackoutAttributes, Failure, PoisonHandler
from mqjms.jms.message import to_message
from mqjms.logs import get_logger
from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.transport import connect, resolve_url

from . import outbox, poison
from .options import SourceOptions, safe_name
from .sink import derived_msg_id, put_all

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


def process_partition(
    listener: Listener, url: str, rows: Iterable[Any]
) -> Iterator[tuple[int, str, str, str, bool]]:
    """Executor side: call the listener for each message; put the sends of those that
    succeeded in one unit of work; yield the failures."""
    failed: list[tuple[int, str, str, str, bool]] = []
    sends: list[tuple[str, MQMD, bytes]] = []
    for row in rows:
        md = MQMD.unpack(bytes(row["mqmd"]))
        message = to_message(md, bytes(row["raw"]), listener.queue, lazy=True)
        box = outbox.Outbox()
        token = outbox.current.set(box)
        try:
            _call(listener, message)
        except BaseException as exc:
            failure = Failure.from_exception(exc, listener.name, listener.queue)
            failed.append(
                (
                    int(row["seq"]),
                    md.MsgId.hex(),
                    failure.exception_type,
                    failure.message,
                    listener.moves_on(exc),
                )
            )
            continue
        finally:
            outbox.current.reset(token)
        for ordinal, (queue, out_md, data) in enumerate(box.items):
            out_md.MsgId = derived_msg_id("send", md.MsgId.hex(), ordinal)
            sends.append((queue, out_md, data))
    if sends:
        put_all(url, sends, appl_name="mqjms-spark-listener")
    yield from failed


def _call(listener: Listener, message: Any) -> None:
    result = listener.fn(message)
    if inspect.isawaitable(result):

        async def wait() -> None:
            await result

        asyncio.run(wait())


class ListenerBatch:
    """The ``foreachBatch`` function of one listener's query (runs on the driver)."""

    def __init__(self, listener: Listener, options: SourceOptions, hooks: tuple[Any, ...]) -> None:
        self.listener = listener
        self.options = options
        self.hooks = hooks
        self.handler = PoisonHandler()

    def __call__(self, frame: Any, batch_id: int) -> None:
        listener, url = self.listener, self.options.url
        rows = frame.select("seq", "mqmd", "raw").rdd.mapPartitions(
            lambda part: process_partition(listener, url, part)
        )
        failed = [FailedDelivery(*values) for values in rows.collect()]
        if failed:
            self._settle(failed, batch_id)

    def _settle(self, failed: list[FailedDelivery], batch_id: int) -> None:
        """Count each failure as a backout in staging; move what reached BOTHRESH."""
        conn = connect(self.options.url, "mqjms-spark-driver")
        try:
            handle = conn.open(self.options.queue, C.MQOO_INQUIRE | C.MQOO_FAIL_IF_QUIESCING)
            staging = self.options.open_staging(conn)
            try:
                attrs = poison.thresholds(self.handler, conn, handle)
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
            poison.move(self.handler, conn, handle, staging, new[0], failure, hooks)


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
            .writeStream.foreachBatch(ListenerBatch(self.listener, self.options, self.hooks))
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
