"""A listener service the Spark tests run with ``mqjms.spark.run`` (imported by workers)."""

from __future__ import annotations

import mqjms
import mqjms.spark

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
