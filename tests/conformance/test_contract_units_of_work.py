"""Put and get with and without syncpoint; commit, backout and disconnect (issue 2, MQI
semantics). Written against the transport contract only."""

from __future__ import annotations

import pytest

from mqjms.mq import MQMD, C
from mqjms.transport import Connection
from tests.conformance.helpers import drain

IN = C.MQOO_INPUT_SHARED
OUT = C.MQOO_OUTPUT
INQ = C.MQOO_INQUIRE


def put_bodies(conn: Connection, queue: str, *bodies: bytes, syncpoint: bool = False) -> None:
    for body in bodies:
        conn.put(queue, MQMD(), body, syncpoint=syncpoint)


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


def test_put_then_get_without_syncpoint(conn: Connection, queue: str) -> None:
    md = MQMD(Format=C.MQFMT_STRING, CorrelId=b"corr".ljust(24, b"\0"), ReplyToQ="REPLY.Q")
    put_md = conn.put(queue, md, b"hello")
    handle = conn.open(queue, IN)
    got = conn.get(handle)
    assert got is not None
    got_md, data = got
    assert data == b"hello"
    assert got_md.MsgId == put_md.MsgId
    assert got_md.CorrelId == b"corr".ljust(24, b"\0")
    assert got_md.Format == C.MQFMT_STRING
    assert got_md.ReplyToQ == "REPLY.Q"
    assert got_md.BackoutCount == 0
    assert conn.get(handle) is None  # removed for good, no unit of work involved
    conn.backout()  # nothing to back out
    assert conn.get(handle) is None


def test_put_through_a_handle_and_get_in_order(conn: Connection, queue: str) -> None:
    out = conn.open(queue, OUT)
    for i in range(5):
        conn.put(out, MQMD(), f"m{i}".encode())
    conn.close(out)
    assert [d for _, d in drain(conn, queue)] == [b"m0", b"m1", b"m2", b"m3", b"m4"]


def test_get_under_syncpoint_then_commit_removes(connections, queue: str) -> None:
    a, b = connections(), connections()
    put_bodies(a, queue, b"one")
    ha = a.open(queue, IN)
    got = a.get(ha, syncpoint=True)
    assert got is not None and got[1] == b"one"
    hb = b.open(queue, IN)
    assert b.get(hb) is None  # locked by a's unit of work
    a.commit()
    assert b.get(hb) is None
    assert a.get(ha) is None
    assert depth(b, queue) == 0


# On a STOMP broker a backout re-sends the message (that is how BackoutCount is carried),
# so it returns to the back of the queue, not to its original position (docs/stomp.md).
@pytest.mark.requires("backout_in_place")
def test_backout_increments_backout_count_of_every_message_and_keeps_position(
    connections, queue: str
) -> None:
    conn, other = connections(), connections()
    put_bodies(conn, queue, b"A", b"B", b"C")
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True)[1] == b"A"
    assert conn.get(handle, syncpoint=True)[1] == b"B"
    put_bodies(other, queue, b"D")  # arrives after A and B were got
    conn.backout()
    got = drain(other, queue)
    assert [d for _, d in got] == [b"A", b"B", b"C", b"D"]  # original positions
    assert [md.BackoutCount for md, _ in got] == [1, 1, 0, 0]


def test_backout_count_grows_with_each_backout(conn: Connection, queue: str) -> None:
    put_bodies(conn, queue, b"poison")
    handle = conn.open(queue, IN)
    for expected in range(3):
        md, _ = conn.get(handle, syncpoint=True)
        assert md.BackoutCount == expected
        conn.backout()
    md, _ = conn.get(handle, syncpoint=True)
    assert md.BackoutCount == 3
    conn.commit()
    assert conn.get(handle) is None


def test_put_in_unit_of_work_invisible_until_commit(connections, queue: str) -> None:
    producer, consumer = connections(), connections()
    put_bodies(producer, queue, b"tx1", b"tx2", syncpoint=True)
    handle = consumer.open(queue, IN)
    assert consumer.get(handle) is None
    producer.commit()
    assert consumer.get(handle)[1] == b"tx1"
    assert consumer.get(handle)[1] == b"tx2"


def test_put_in_unit_of_work_gone_on_backout(connections, queue: str) -> None:
    producer, consumer = connections(), connections()
    put_bodies(producer, queue, b"before")
    put_bodies(producer, queue, b"tx", syncpoint=True)
    producer.backout()
    got = drain(consumer, queue)
    assert [d for _, d in got] == [b"before"]
    assert got[0][0].BackoutCount == 0  # a backout of puts touches no other message


def test_one_unit_of_work_holds_gets_and_puts(connections, queue: str, broker) -> None:
    broker.define_queue("CONF.OUT")
    conn, observer = connections(), connections()
    put_bodies(conn, queue, b"request")
    handle = conn.open(queue, IN)
    conn.get(handle, syncpoint=True)
    conn.put("CONF.OUT", MQMD(), b"reply", syncpoint=True)
    conn.backout()
    conn.close(handle)  # (valid on MQ too) a STOMP consumer gives back what it prefetched
    assert drain(observer, "CONF.OUT") == []
    assert [(md.BackoutCount, d) for md, d in drain(observer, queue)] == [(1, b"request")]


def test_disconnect_without_commit_backs_out(connections, queue: str, broker) -> None:
    broker.define_queue("CONF.OUT")
    conn, later = connections(), connections()
    put_bodies(later, queue, b"held")
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True)[1] == b"held"
    conn.put("CONF.OUT", MQMD(), b"uncommitted", syncpoint=True)
    conn.disconnect()
    got = drain(later, queue)
    assert [(md.BackoutCount, d) for md, d in got] == [(1, b"held")]
    assert drain(later, "CONF.OUT") == []


def test_commit_makes_gets_and_puts_permanent(connections, queue: str, broker) -> None:
    broker.define_queue("CONF.OUT")
    conn, observer = connections(), connections()
    put_bodies(conn, queue, b"in")
    handle = conn.open(queue, IN)
    conn.get(handle, syncpoint=True)
    conn.put("CONF.OUT", MQMD(), b"out", syncpoint=True)
    conn.commit()
    conn.backout()  # after the commit there is nothing left to undo
    assert drain(observer, queue) == []
    assert [d for _, d in drain(observer, "CONF.OUT")] == [b"out"]


def test_unit_of_work_is_per_connection(connections, queue: str) -> None:
    a, b = connections(), connections()
    put_bodies(a, queue, b"x", b"y")
    ha, hb = a.open(queue, IN), b.open(queue, IN)
    assert a.get(ha, syncpoint=True)[1] == b"x"
    assert b.get(hb, syncpoint=True)[1] == b"y"
    b.commit()
    a.backout()
    got = drain(b, queue)
    assert [(md.BackoutCount, d) for md, d in got] == [(1, b"x")]


def test_curdepth_counts_committed_messages(conn: Connection, queue: str) -> None:
    assert depth(conn, queue) == 0
    put_bodies(conn, queue, b"1", b"2", b"3")
    assert depth(conn, queue) == 3
    handle = conn.open(queue, IN)
    conn.get(handle, syncpoint=True)
    conn.commit()
    assert depth(conn, queue) == 2
    conn.get(handle)
    assert depth(conn, queue) == 1


def test_persistence_as_queue_default(conn: Connection, broker) -> None:
    broker.define_queue("CONF.PSIST", DEFPSIST="YES")
    broker.define_queue("CONF.NPSIST", DEFPSIST="NO")
    conn.put("CONF.PSIST", MQMD(), b"p")
    conn.put("CONF.NPSIST", MQMD(), b"n")
    conn.put("CONF.NPSIST", MQMD(Persistence=C.MQPER_PERSISTENT), b"explicit")
    assert [md.Persistence for md, _ in drain(conn, "CONF.PSIST")] == [C.MQPER_PERSISTENT]
    # sorted: ActiveMQ keeps persistent and non-persistent messages in separate stores, so
    # their relative arrival order is not kept; the persistence of each is what is checked
    assert sorted(md.Persistence for md, _ in drain(conn, "CONF.NPSIST")) == [
        C.MQPER_NOT_PERSISTENT,
        C.MQPER_PERSISTENT,
    ]


@pytest.mark.requires("alias")
def test_alias_puts_and_gets_reach_the_base_queue(conn: Connection, queue: str, broker) -> None:
    broker.define_alias("CONF.ALIAS", queue)
    conn.put("CONF.ALIAS", MQMD(), b"via alias")
    assert depth(conn, queue) == 1
    handle = conn.open("CONF.ALIAS", IN)
    assert handle.name == "CONF.ALIAS"
    assert handle.resolved_name == queue
    assert conn.get(handle)[1] == b"via alias"


def test_competing_consumers_in_threads_get_each_message_exactly_once(
    connections, queue: str, broker
) -> None:
    import threading

    broker.alter_queue(queue, MAXDEPTH=1000)
    total, workers = 400, 4
    producer = connections()
    for i in range(total):
        producer.put(queue, MQMD(), b"%04d" % i, syncpoint=True)
    producer.commit()
    consumers = [connections() for _ in range(workers)]  # one connection per thread
    got: list[list[bytes]] = [[] for _ in range(workers)]
    errors: list[BaseException] = []

    def consume(index: int) -> None:
        conn = consumers[index]
        try:
            handle = conn.open(queue, IN)
            while (msg := conn.get(handle, syncpoint=True, wait=0.3)) is not None:
                if int(msg[1]) % 7 == 0 and msg[0].BackoutCount == 0:
                    conn.backout()  # some go back once and are got again, by anyone
                    continue
                conn.commit()
                got[index].append(msg[1])
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=consume, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    everything = [body for bodies in got for body in bodies]
    assert len(everything) == len(set(everything)) == total
    assert set(everything) == {b"%04d" % i for i in range(total)}
    assert depth(producer, queue) == 0


@pytest.mark.requires("restart", "persistence")
def test_restart_keeps_persistent_and_drops_non_persistent_messages(
    connections, queue: str, broker
) -> None:
    # issue 2: persistent messages survive a restart, non-persistent ones do not; a unit
    # of work left open by the restart is backed out
    conn = connections()
    conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), b"p1")
    conn.put(queue, MQMD(Persistence=C.MQPER_NOT_PERSISTENT), b"n1")
    conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), b"p2")
    conn.put(queue, MQMD(Persistence=C.MQPER_PERSISTENT), b"uncommitted", syncpoint=True)
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True)[1] == b"p1"
    broker.restart()
    got = drain(connections(), queue)
    assert [(md.BackoutCount, d) for md, d in got] == [(1, b"p1"), (0, b"p2")]
