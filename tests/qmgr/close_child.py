"""Closes queue managers while other threads are inside MQI calls, many times over:
``python -m tests.qmgr.close_child ROUNDS THREADS DIR`` (the repository on ``PYTHONPATH``).

Each round opens a queue manager on ``DIR/<round>``; every thread connects and loops
put, get under syncpoint, commit and a get that waits, until the main thread closes the
queue manager under it. The close race used to be a use of a SQLite handle after another
thread closed it (a segfault), so this runs in its own process: the test reads the exit
status and the last line, ``DONE {"reason": count, ...}``, the MQRC names (or exception
types) the threads ended with.
"""

from __future__ import annotations

import faulthandler
import json
import sys
import threading
from collections import Counter
from pathlib import Path

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import QueueManager


def worker(qm: QueueManager, ready: threading.Barrier, ended: Counter[str]) -> None:
    outcome = "returned"
    try:
        conn = qm.connect()
        handle = conn.open("CLOSE.Q", C.MQOO_INPUT_SHARED | C.MQOO_INQUIRE)
        ready.wait()
        while True:
            conn.put("CLOSE.Q", MQMD(), b"body", syncpoint=True)
            conn.commit()
            conn.get(handle, syncpoint=True)
            conn.inquire(handle, [C.MQIA_CURRENT_Q_DEPTH])
            conn.commit()
            conn.get(handle, wait=0.05)
    except threading.BrokenBarrierError:
        outcome = "barrier"
    except MQError as exc:
        outcome = exc.reason_name
    except BaseException as exc:  # anything but an MQError is a failure the test reports
        outcome = type(exc).__name__
    ended[outcome] += 1


def main(rounds: int, threads: int, directory: Path) -> None:
    faulthandler.enable()
    ended: Counter[str] = Counter()
    for number in range(rounds):
        qm = QueueManager(directory / str(number))
        qm.define_queue("QLOCAL", "CLOSE.Q", {"MAXDEPTH": 1_000_000})
        ready = threading.Barrier(threads + 1, timeout=30)
        workers = [threading.Thread(target=worker, args=(qm, ready, ended)) for _ in range(threads)]
        for thread in workers:
            thread.start()
        ready.wait()
        qm.close()
        for thread in workers:
            thread.join(30)
        if any(thread.is_alive() for thread in workers):
            ended["still running after close"] += 1
        if any(t.name.startswith("mqjms-expiry") for t in threading.enumerate()):
            ended["expiry scanner running after close"] += 1
    print("DONE " + json.dumps(dict(ended)), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]))
