"""A listener service the Spark tests run with ``mqjms.spark.run`` (imported by workers)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import mqjms
import mqjms.spark
from mqjms.transport import embedded
from tests.spark.sink_gate import depth

app = mqjms.Worker()
moved: list[str] = []


class Unshippable(ValueError):
    """An order no retry can fix: straight to the backout queue."""


@app.listener("ORDERS.IN", on_poison=lambda event: moved.append(event.md.MsgId.hex()))
def ship(msg: mqjms.Message) -> None:
    if msg.body.startswith("poison"):
        raise ValueError(f"cannot ship {msg.body}")
    if msg.body.startswith("never"):
        raise Unshippable(msg.body)
    mqjms.send("ORDERS.SHIPPED", f"shipped {msg.body}", properties={"n": msg.body})


move_on_app = mqjms.Worker()
move_on_app.listener("ORDERS.IN", move_on=Unshippable)(ship)


crash_app = mqjms.Worker()


@crash_app.listener("ORDERS.IN")
def ship_or_crash(msg: mqjms.Message) -> None:
    """Ships; a message ``crash <flag> <url> <n>`` first kills its Python worker (its task
    fails, so does the batch) once ``n`` messages were shipped by the other partition, so
    that the batch is replayed after part of it committed its sends."""
    if msg.body.startswith("crash"):
        _, flag, url, shipped = msg.body.split(" ")
        if not Path(flag).exists():
            deadline = time.monotonic() + 120
            while depth(url, "ORDERS.SHIPPED") < int(shipped) and time.monotonic() < deadline:
                time.sleep(0.05)
            Path(flag).touch()
            os._exit(1)
    mqjms.send("ORDERS.SHIPPED", f"shipped {msg.body}")


threshold_app = mqjms.Worker()


@threshold_app.listener("ORDERS.IN")
def lower_the_threshold(msg: mqjms.Message) -> None:
    """Fails every delivery; the message is ``<log file> <url>``: each delivery's
    BackoutCount goes to the log, and the one with BackoutCount 1 lowers BOTHRESH to 2."""
    log_file, url = msg.body.split(" ")
    with open(log_file, "a") as log:
        log.write(f"{msg.md.BackoutCount}\n")
    if msg.md.BackoutCount == 1:
        embedded.queue_manager(url).alter_queue("ORDERS.IN", {"BOTHRESH": 2})
    raise ValueError("never processed")
