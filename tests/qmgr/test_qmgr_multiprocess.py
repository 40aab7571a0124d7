"""Several OS processes on one embedded queue manager directory (issue 2, Done when):
exactly-once delivery to two competing processes, recovery of a SIGKILLed process's unit
of work within ``RECOVERY_INTERVAL``, and persistence across a restart of every process.

The other processes run ``python -m tests.qmgr.qmgr_child`` (in this folder) with ``subprocess``.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.qmgr import RECOVERY_INTERVAL
from mqjms.transport import Browse, connect, embedded
from tests.qmgr.conftest import SpawnChild


def depth(url: str, queue: str) -> int:
    return embedded.queue_manager(url).queue_depth(queue)


@pytest.mark.slow
def test_two_processes_deliver_each_of_10000_messages_exactly_once(
    embedded_url: str, children: SpawnChild, tmp_path: Path
) -> None:
    # issue 2, Done when: two OS processes getting from one queue at once deliver each of
    # 10,000 messages exactly once
    total = 10_000
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.IN", {"MAXDEPTH": total})
    conn = connect(embedded_url)
    for i in range(total):
        conn.put("MP.IN", MQMD(), b"%05d" % i, syncpoint=True)
    conn.commit()
    assert qm.queue_depth("MP.IN") == total

    outs = [tmp_path / "got0.txt", tmp_path / "got1.txt"]
    consumers = [children("consume", embedded_url, "MP.IN", str(out)) for out in outs]
    for child in consumers:
        child.expect("READY")
    for child in consumers:  # start both at once
        child.send("go")
    counts = [int(child.expect("DONE", timeout=90)) for child in consumers]
    for child in consumers:
        assert child.wait() == 0

    got = [out.read_bytes().split() for out in outs]
    assert [len(g) for g in got] == counts
    everything = Counter(got[0] + got[1])
    duplicates = [body for body, n in everything.items() if n > 1]
    assert duplicates == []
    assert set(everything) == {b"%05d" % i for i in range(total)}
    assert all(n > 0 for n in counts), f"one process got nothing: {counts}"
    assert qm.queue_depth("MP.IN") == 0
    assert conn.get(conn.open("MP.IN", C.MQOO_INPUT_SHARED)) is None


@pytest.mark.slow
def test_sigkilled_process_leaves_its_message_available_with_backout_count_1(
    embedded_url: str, children: SpawnChild
) -> None:
    # issue 2: a connection that ends without committing, including a process killed with
    # SIGKILL, has its unit of work backed out with BackoutCount incremented, detected by
    # the next user within RECOVERY_INTERVAL (mqjms/qmgr/manager.py)
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.KILL")
    conn = connect(embedded_url)
    conn.put("MP.KILL", MQMD(Persistence=C.MQPER_PERSISTENT), b"in flight")

    child = children("hold", embedded_url, "MP.KILL")
    assert child.expect("HELD", timeout=30) == "in flight"
    handle = conn.open("MP.KILL", C.MQOO_INPUT_SHARED)
    # the held message is invisible while the child lives, and stays in its unit of work
    assert conn.get(handle, wait=RECOVERY_INTERVAL + 0.5) is None
    # got in a unit of work: out of CURDEPTH (IBM's CurrentQDepth), still on the queue
    assert qm.queue_depth("MP.KILL") == 0 and qm.uncommitted_messages("MP.KILL") == 1
    child.kill()
    # within RECOVERY_INTERVAL the next get notices the dead connection (wait=5 is the
    # documented bound plus slack)

    later = connect(embedded_url)
    h = later.open("MP.KILL", C.MQOO_INPUT_SHARED)
    got = later.get(h, wait=5)
    assert got is not None, "the killed process's message did not come back"
    md, data = got
    assert (data, md.BackoutCount) == (b"in flight", 1)
    assert later.get(h) is None
    # the dead connection's handle is gone too
    assert qm.display_queues("MP.KILL", "QLOCAL", ["IPPROCS"])[0]["IPPROCS"] == 2


@pytest.mark.slow
def test_sigkilled_process_put_in_unit_of_work_vanishes(
    embedded_url: str, children: SpawnChild
) -> None:
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.IN")
    qm.define_queue("QLOCAL", "MP.OUT")
    conn = connect(embedded_url)
    conn.put("MP.IN", MQMD(), b"request")
    child = children("abandon", embedded_url, "MP.IN", "MP.OUT")
    assert child.expect("HELD") == "request"
    assert child.wait() == 0  # left with os._exit(0) while this process keeps the qmgr open
    handle = conn.open("MP.IN", C.MQOO_INPUT_SHARED)
    md, data = conn.get(handle, wait=5)
    assert (data, md.BackoutCount) == (b"request", 1)
    assert qm.queue_depth("MP.OUT") == 0


def persistent_bodies(url: str, queue: str) -> list[bytes]:
    conn = connect(url)
    handle = conn.open(queue, C.MQOO_BROWSE)
    out = []
    browse = Browse.FIRST
    while (got := conn.get(handle, browse=browse)) is not None:
        browse = Browse.NEXT
        if got[0].Persistence == C.MQPER_PERSISTENT:
            out.append(got[1])
    conn.disconnect()
    return out


@pytest.mark.slow
def test_persistent_messages_survive_every_process_closing_and_a_restart(
    embedded_url: str, children: SpawnChild
) -> None:
    # issue 2, Done when: persistent messages survive closing and reopening the queue
    # manager, and a restart of every process; non-persistent ones do not survive a restart
    # of the queue manager
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.KEEP")
    embedded.close_all()  # this process lets go: the child is the only user

    child = children("put", embedded_url, "MP.KEEP", "3")
    child.expect("DONE")
    assert child.wait() == 0  # every process has closed the queue manager

    expected = [b"persistent 0", b"persistent 1", b"persistent 2"]
    assert persistent_bodies(embedded_url, "MP.KEEP") == expected
    embedded.close_all()
    reopened = embedded.queue_manager(embedded_url)
    reopened.restart()  # nobody else has it open, so the restart goes ahead
    conn = connect(embedded_url)
    handle = conn.open("MP.KEEP", C.MQOO_INPUT_SHARED)
    got = []
    while (msg := conn.get(handle)) is not None:
        assert msg[0].Persistence == C.MQPER_PERSISTENT
        got.append(msg[1])
    assert got == expected


@pytest.mark.slow
def test_restart_refused_while_another_process_has_it_open(
    embedded_url: str, children: SpawnChild
) -> None:
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.KEEP")
    qm.define_queue("QLOCAL", "MP.HELD")
    child = children("hold-exclusive", embedded_url, "MP.HELD")
    child.expect("HELD")
    connect(embedded_url).put("MP.KEEP", MQMD(), b"transient")
    with pytest.raises(MQError) as err:
        qm.restart()
    assert err.value.reason == C.MQRC_OBJECT_IN_USE
    assert qm.queue_depth("MP.KEEP") == 1
    child.kill()  # a dead process no longer holds the queue manager open
    qm.restart()
    assert qm.queue_depth("MP.KEEP") == 0


@pytest.mark.slow
def test_restart_backs_out_a_unit_of_work_left_by_a_process_that_exited(
    embedded_url: str, children: SpawnChild
) -> None:
    # issue 2: a restart backs out every unit of work left behind (BackoutCount + 1)
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.IN", {"DEFPSIST": "YES"})
    qm.define_queue("QLOCAL", "MP.OUT")
    connect(embedded_url).put("MP.IN", MQMD(), b"request")
    embedded.close_all()

    child = children("abandon", embedded_url, "MP.IN", "MP.OUT")
    assert child.expect("HELD") == "request"
    assert child.wait() == 0  # nobody has the queue manager open now

    conn = connect(embedded_url)
    md, data = conn.get(conn.open("MP.IN", C.MQOO_INPUT_SHARED))
    assert (data, md.BackoutCount) == (b"request", 1)
    assert embedded.queue_manager(embedded_url).queue_depth("MP.OUT") == 0


@pytest.mark.slow
def test_exclusive_input_of_a_killed_process_is_released_within_the_bound(
    embedded_url: str, children: SpawnChild
) -> None:
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.EXCL")
    conn = connect(embedded_url)  # connected before the kill: no new connect afterwards
    child = children("hold-exclusive", embedded_url, "MP.EXCL")
    child.expect("HELD")
    with pytest.raises(MQError) as err:
        conn.open("MP.EXCL", C.MQOO_INPUT_EXCLUSIVE)
    assert err.value.reason == C.MQRC_OBJECT_IN_USE
    child.kill()
    deadline = time.monotonic() + RECOVERY_INTERVAL + 3
    while True:
        try:
            conn.open("MP.EXCL", C.MQOO_INPUT_EXCLUSIVE)
            break
        except MQError as exc:
            assert exc.reason == C.MQRC_OBJECT_IN_USE
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


@pytest.mark.slow
def test_temporary_dynamic_queue_of_a_killed_process_is_deleted(
    embedded_url: str, children: SpawnChild
) -> None:
    qm = embedded.queue_manager(embedded_url)
    child = children("hold-dynamic", embedded_url, "SYSTEM.DEFAULT.MODEL.QUEUE")
    name = child.expect("HELD")
    assert name in qm.queue_names() and qm.queue_depth(name) == 1
    child.kill()
    deadline = time.monotonic() + RECOVERY_INTERVAL + 3
    while name in qm.queue_names() and time.monotonic() < deadline:
        connect(embedded_url).disconnect()  # the next user notices the dead connection
        time.sleep(0.1)
    assert name not in qm.queue_names()


@pytest.mark.slow
def test_get_with_wait_returns_a_message_put_by_another_process(
    embedded_url: str, children: SpawnChild
) -> None:
    qm = embedded.queue_manager(embedded_url)
    qm.define_queue("QLOCAL", "MP.WAIT")
    conn = connect(embedded_url)
    handle = conn.open("MP.WAIT", C.MQOO_INPUT_SHARED)
    children("put", embedded_url, "MP.WAIT", "1")  # starts, puts, ends while we wait
    got = conn.get(handle, wait=30)
    assert got is not None and got[1] == b"persistent 0"
    got = conn.get(handle, wait=30, syncpoint=True)
    assert got is not None and got[1] == b"transient 0"
    conn.commit()


def _held_by_a_killed_process(url: str, children: SpawnChild, queue: str) -> None:
    """``queue`` gets one message, which a child gets in its unit of work and is killed."""
    embedded.queue_manager(url).define_queue("QLOCAL", queue)
    connect(url).put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), b"in flight")
    child = children("hold", url, queue)
    assert child.expect("HELD", timeout=30) == "in flight"
    child.kill()


@pytest.mark.slow
def test_a_get_that_never_waits_finds_what_a_killed_process_held(
    embedded_url: str, children: SpawnChild
) -> None:
    # a program that only polls (MQGMO_NO_WAIT, receive_no_wait) on a connection made
    # before the kill: before, it never noticed the dead process (only a connect or a
    # waiting get did), so the message stayed out of its reach for as long as it ran
    conn = connect(embedded_url)
    _held_by_a_killed_process(embedded_url, children, "MP.POLL")
    handle = conn.open("MP.POLL", C.MQOO_INPUT_SHARED)
    deadline = time.monotonic() + RECOVERY_INTERVAL + 3
    while (got := conn.get(handle)) is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert got is not None, "a polling get never found the killed process's message"
    assert (got[1], got[0].BackoutCount) == (b"in flight", 1)


@pytest.mark.slow
def test_an_inquiry_counts_no_opens_or_messages_of_a_killed_process(
    embedded_url: str, children: SpawnChild
) -> None:
    # MQINQ (IPPROCS, CURDEPTH) on a connection made before the kill: before, it kept
    # counting the dead process's open handle, and the message its unit of work held
    # stayed out of CURDEPTH, until some other call noticed the death
    conn = connect(embedded_url)
    _held_by_a_killed_process(embedded_url, children, "MP.INQ")
    selectors = [C.MQIA_OPEN_INPUT_COUNT, C.MQIA_CURRENT_Q_DEPTH]
    deadline = time.monotonic() + RECOVERY_INTERVAL + 3
    while (counts := conn.inquire("MP.INQ", selectors)) != {
        C.MQIA_OPEN_INPUT_COUNT: 0,
        C.MQIA_CURRENT_Q_DEPTH: 1,
    } and time.monotonic() < deadline:
        time.sleep(0.1)
    assert counts == {C.MQIA_OPEN_INPUT_COUNT: 0, C.MQIA_CURRENT_Q_DEPTH: 1}


@pytest.mark.slow
def test_display_counts_no_opens_or_messages_of_a_killed_process(
    embedded_url: str, children: SpawnChild
) -> None:
    # DISPLAY QLOCAL (and PCF INQUIRE_Q, INQUIRE_Q_STATUS) in a long-lived process, a
    # monitoring program's: before, the dead process's open handle and unit of work
    # counted until some get, connect or MQINQ noticed the death
    qm = embedded.queue_manager(embedded_url)
    _held_by_a_killed_process(embedded_url, children, "MP.ADM")
    deadline = time.monotonic() + RECOVERY_INTERVAL + 3
    while (shown := qm.display_queues("MP.ADM", "QLOCAL", ["CURDEPTH", "IPPROCS"])[0]) != {
        "QUEUE": "MP.ADM",
        "TYPE": "QLOCAL",
        "CURDEPTH": 1,
        "IPPROCS": 0,
    }:
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert (shown["CURDEPTH"], shown["IPPROCS"]) == (1, 0)
    assert qm.uncommitted_messages("MP.ADM") == 0 and qm.queue_handles("MP.ADM") == []
