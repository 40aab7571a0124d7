"""examples/spark/orders_to_parquet.py runs as its docstring says: good orders land in
Parquet once each, the order that cannot parse is isolated and moved to BOQNAME."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from examples.spark import orders_to_parquet
from tests.spark.spark_support import Queues


def test_orders_to_parquet_isolates_the_bad_order(
    spark: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    queues = Queues("embedded", tmp_path)
    queues.define("ORDERS.IN", BOTHRESH=2, BOQNAME="ORDERS.BACKOUT")  # seed 002
    queues.define("ORDERS.BACKOUT")
    orders = [json.dumps({"id": i, "sku": f"SKU-{i}", "quantity": i + 1}) for i in range(12)]
    orders[3] = "{not json"
    ids = queues.put_text("ORDERS.IN", *orders)
    out, checkpoint = tmp_path / "out", tmp_path / "ck"
    argv = ["orders_to_parquet.py", "--url", queues.url, "--out", str(out)]
    monkeypatch.setattr(sys, "argv", [*argv, "--checkpoint", str(checkpoint), "--available-now"])
    orders_to_parquet.main()
    rows = spark.read.parquet(str(out)).collect()
    assert sorted(r.id for r in rows) == [i for i in range(12) if i != 3]
    assert len({r.msg_id for r in rows}) == 11
    moved = queues.drain("ORDERS.BACKOUT")
    assert [md.MsgId for md, _ in moved] == [ids[3]]
    queues.close()
