"""Closing the queue manager while other threads are inside MQI calls.

Closing must wait for a call in flight or wake it and fail it cleanly, with an MQError
(MQRC_Q_MGR_STOPPING, MQRC_HCONN_ERROR...), and never touch a SQLite handle another
thread has closed: that was a segfault in about one run in six of the listener
reconnect tests. The race is narrow, so the child process closes queue managers under
busy threads many times over; a crash shows as its exit status.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager

REPO = Path(__file__).resolve().parents[2]
#: What a call that the close ended may fail with: the connection or the queue manager
#: is gone (2009, 2018, 2059, 2161, 2162, 2202, 2203).
CLEAN_ENDINGS = {
    "MQRC_CONNECTION_BROKEN",
    "MQRC_HCONN_ERROR",
    "MQRC_Q_MGR_NOT_AVAILABLE",
    "MQRC_Q_MGR_QUIESCING",
    "MQRC_Q_MGR_STOPPING",
    "MQRC_CONNECTION_QUIESCING",
    "MQRC_CONNECTION_STOPPING",
}


def test_closing_under_busy_threads_ends_their_calls_with_mq_errors(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    result = subprocess.run(
        [sys.executable, "-m", "tests.qmgr.close_child", "60", "4", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("DONE "), result.stdout[-2000:]
    ended: dict[str, int] = json.loads(last.removeprefix("DONE "))
    assert set(ended) <= CLEAN_ENDINGS, ended
    assert sum(ended.values()) == 60 * 4


def test_a_connection_used_after_its_queue_manager_closed_fails_cleanly(
    qm: QueueManager,
) -> None:
    qm.define_queue("QLOCAL", "AFTER.Q")
    conn = qm.connect()
    handle = conn.open("AFTER.Q", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
    qm.close()
    for call in (
        lambda: conn.get(handle),
        lambda: conn.put("AFTER.Q", MQMD(), b"x"),
        lambda: conn.inquire(handle, [C.MQIA_CURRENT_Q_DEPTH]),
        lambda: conn.inquire_qmgr([C.MQCA_DEAD_LETTER_Q_NAME]),
        conn.commit,
    ):
        try:
            call()
        except MQError as exc:
            assert exc.reason_name in CLEAN_ENDINGS, exc
        else:
            raise AssertionError("a call on a closed queue manager's connection worked")


def test_disconnect_from_another_thread_ends_a_waiting_get(qm: QueueManager) -> None:
    qm.define_queue("QLOCAL", "WAIT.Q")
    conn = qm.connect()
    handle = conn.open("WAIT.Q", C.MQOO_INPUT_SHARED)
    outcome: list[BaseException | object] = []

    def wait() -> None:
        try:
            outcome.append(conn.get(handle, wait=None))
        except BaseException as exc:  # examined below
            outcome.append(exc)

    waiter = threading.Thread(target=wait)
    waiter.start()
    waiter.join(0.2)
    conn.disconnect()
    waiter.join(10)
    assert not waiter.is_alive()
    [error] = outcome
    assert isinstance(error, MQError) and error.reason_name in CLEAN_ENDINGS, repr(error)
