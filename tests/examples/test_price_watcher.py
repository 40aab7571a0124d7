"""examples/price_watcher.py does what its docstring says, tested with the ``mq`` fixture:
its durable wildcard subscription is made first (``mq.subscribe(app)``, as its first start
would), prices are published, and the worker runs until idle."""

from __future__ import annotations

from examples.price_watcher import app
from mqjms.testing import TestQueueManager


def test_prices_are_watched_and_an_unreadable_one_is_moved_aside(mq: TestQueueManager) -> None:
    mq.mqsc(
        """
        DEFINE QMODEL(PRICES.MODEL) DEFTYPE(PERMDYN) BOTHRESH(2) BOQNAME(PRICES.BACKOUT) REPLACE
        DEFINE QLOCAL(PRICES.BACKOUT) REPLACE
        DEFINE TOPIC(PRICES) TOPICSTR('prices') MDURMDL(PRICES.MODEL) DEFPSIST(YES) REPLACE
        """
    )
    [managed] = mq.subscribe(app)
    assert managed.startswith("SYSTEM.MANAGED.DURABLE.")
    [sub] = mq.mqsc("DISPLAY SUB('JMS:price-watcher:watcher') DEST TOPICSTR")[0].objects
    assert sub["DEST"] == managed and sub["TOPICSTR"] == "prices/#"
    mq.publish("prices/eu/EURUSD", '{"instrument": "EURUSD", "bid": 1.0841, "ask": 1.0843}')
    mq.publish("prices/us/AAPL", "not a price")
    mq.publish("stocks/us/AAPL", '{"instrument": "AAPL"}')  # not under prices/: not watched
    summary = mq.run_until_idle(app, timeout=30)
    assert summary.committed == 1
    # seed 002: BOTHRESH 2 and BOQNAME from the topic's MDURMDL, on the managed queue
    assert summary.backed_out == 2 and summary.destinations() == {"PRICES.BACKOUT": 1}
    [moved] = mq.browse("PRICES.BACKOUT")
    assert moved.body == "not a price" and moved.md is not None
    assert moved.md.BackoutCount == 0
    assert moved.properties["mqjms_failure_exception"] == "json.decoder.JSONDecodeError"
    assert moved.md.Persistence == 1  # the topic's DEFPSIST(YES)
    assert mq.depth(managed) == 0
