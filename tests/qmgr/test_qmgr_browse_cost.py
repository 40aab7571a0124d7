"""Browse cost does not grow with the position in the queue (hardening issue item 12).

Browsing was quadratic in depth (4k messages 2.7 s, 67k about 14 minutes): each
browse-next walked the priority index from the head. Each step now seeks the index just
past the cursor's key. Wall time is not asserted: the test counts the SQLite virtual
machine instructions each browse step executes (``set_progress_handler``), which are the
same on any machine. ``bench/browse.py`` measures the time.
"""

from __future__ import annotations

import statistics

import pytest

from mqjms.mq import MQMD, C
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.transport import Browse

DEPTH = 3000
SAMPLE = 200
GRANULARITY = 10  # the progress handler runs every this many VM instructions


def fill(conn: QMConnection, queue: str, priorities: list[int]) -> None:
    for i in range(DEPTH):
        md = MQMD(Priority=priorities[i % len(priorities)])
        conn.put(queue, md, b"%05d" % i, syncpoint=True)
    conn.commit()


def instructions_per_step(conn: QMConnection, queue: str) -> list[int]:
    """Browse the whole queue; the VM instructions (in units of GRANULARITY) of each step."""
    handle = conn.open(queue, C.MQOO_BROWSE)
    counter = [0]

    def count() -> int:
        counter[0] += 1
        return 0  # 0: go on

    db = conn._db  # the connection's own SQLite handle, to count what its queries cost
    costs: list[int] = []
    option = Browse.FIRST
    db.set_progress_handler(count, GRANULARITY)
    try:
        while True:
            counter[0] = 0
            got = conn.get(handle, browse=option)
            if got is None:
                break
            costs.append(counter[0])
            option = Browse.NEXT
    finally:
        db.set_progress_handler(None, GRANULARITY)
    assert len(costs) == DEPTH
    return costs


@pytest.mark.parametrize(
    ("delivery", "priorities"),
    [
        ("PRIORITY", [0]),
        ("PRIORITY", [9, 5, 5, 0, 3, 7, 1]),
        ("FIFO", [0]),
    ],
    ids=["priority-queue-one-priority", "priority-queue-mixed", "fifo-queue"],
)
def test_a_browse_step_at_the_tail_costs_what_one_at_the_head_does(
    qm: QueueManager, delivery: str, priorities: list[int]
) -> None:
    # hardening item 12: each browse step must cost O(log n), not O(position)
    qm.define_queue("QLOCAL", "BROWSE.Q", {"MSGDLVSQ": delivery, "MAXDEPTH": DEPTH})
    conn = qm.connect()
    fill(conn, "BROWSE.Q", priorities)
    costs = instructions_per_step(conn, "BROWSE.Q")
    head = statistics.median(costs[1:SAMPLE])  # the first step (BROWSE_FIRST) aside
    tail = statistics.median(costs[-SAMPLE:])
    # walking from the head, the last steps cost ~DEPTH/SAMPLE times the first ones
    assert tail <= 1.5 * head + 2, (head, tail)
    conn.disconnect()
