"""bench/listener.py compares the Worker with a bare loop doing the same work per message:
MQCMIT and the next MQGET in one step, one database transaction, as the Worker's
``commit_and_get``. Its earlier baseline took two transactions per message, so the Worker
looked faster than the bare loop (issue 9: it printed 1.17 for a Worker at 0.78); that loop
is still shown beside it, and takes one transaction more.

Counted, not timed: the transactions (``BEGIN``) each contender runs per message.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from bench.listener import Consumers, sql_per_message


def test_the_equal_work_loop_takes_the_workers_transactions_per_message(tmp_path: Path) -> None:
    consumers = Consumers(tmp_path, payload=16)
    try:
        per_message = {
            name: sql_per_message(run, 50, kind="BEGIN")
            for name, run in (
                ("loop", partial(consumers.loop, kind="jms")),
                ("two_step", partial(consumers.loop, kind="jms", one_step=False)),
                ("worker", partial(consumers.worker, kind="jms")),
            )
        }
    finally:
        consumers.close()
    assert all(v is not None for v in per_message.values()), per_message
    rounded = {name: round(v or 0) for name, v in per_message.items()}
    assert rounded["loop"] == rounded["worker"] == 1, per_message
    assert rounded["two_step"] == rounded["loop"] + 1, per_message
