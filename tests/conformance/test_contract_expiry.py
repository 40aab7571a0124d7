"""Message expiry exactly as seeds 000 (MQMD Expiry), 001 (MDEXP) and 004 (Japanese, with
extra notes) say. Written against the transport contract only.

Expiry is in tenths of a second; the tests use lifetimes of 1-3 tenths and short sleeps.
"""

from __future__ import annotations

import time

import pytest

from mqjms.mq import MQMD, C, MQError
from mqjms.transport import Browse, Connection
from tests.conformance.helpers import drain

pytestmark = pytest.mark.requires("expiry")

IN = C.MQOO_INPUT_SHARED
BROWSE = C.MQOO_BROWSE
REPLY = "CONF.REPLY"
SHORT = 1  # tenths of a second
PAST_SHORT = 0.2  # seconds: comfortably past SHORT


def depth(conn: Connection, queue: str) -> int:
    return int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH])


def put(conn: Connection, queue: str, body: bytes, **md: object) -> MQMD:
    return conn.put(queue, MQMD(**md), body)  # type: ignore[arg-type]


@pytest.fixture
def reply_queue(broker) -> str:
    broker.define_queue(REPLY)
    return REPLY


# --------------------------------------------------------------------------- remaining time


def test_get_returns_the_remaining_expiry_decreasing(conn: Connection, queue: str) -> None:
    # seed 000 / 001 / 004: "When the message is retrieved ... the Expiry field represents
    # the amount of the original expiry time that still remains"
    put(conn, queue, b"x", Expiry=50)
    handle = conn.open(queue, IN | BROWSE)
    first = conn.get(handle, browse=Browse.FIRST)[0].Expiry
    assert 0 < first <= 50
    time.sleep(0.25)
    second = conn.get(handle, browse=Browse.FIRST)[0].Expiry
    assert 0 < second < first
    md, _ = conn.get(handle)
    assert 0 < md.Expiry <= second


def test_unlimited_expiry_stays_unlimited(conn: Connection, queue: str) -> None:
    # seed 000: after a successful get Expiry is > 0 or MQEI_UNLIMITED
    put(conn, queue, b"x")
    md, _ = conn.get(conn.open(queue, IN))
    assert md.Expiry == C.MQEI_UNLIMITED


def test_expiry_after_a_successful_get_is_positive_even_nearly_expired(
    conn: Connection, queue: str
) -> None:
    # seed 000: "the value in the Expiry field ... after a successful MQGET call is either
    # greater than zero, or the special value MQEI_UNLIMITED"
    for _ in range(20):
        put(conn, queue, b"x", Expiry=SHORT)
    handle = conn.open(queue, IN)
    while (got := conn.get(handle)) is not None:
        assert got[0].Expiry > 0


# --------------------------------------------------------------------------- never returned


def test_expired_message_is_never_returned_by_get_or_browse(conn: Connection, queue: str) -> None:
    # seed 000: "A message that has expired is never returned to an application (either by
    # a browse or a non-browse MQGET call)"
    put(conn, queue, b"old", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    handle = conn.open(queue, IN | BROWSE)
    assert conn.get(handle, browse=Browse.FIRST) is None
    assert conn.get(handle, browse=Browse.NEXT) is None
    assert conn.get(handle) is None
    assert conn.get(handle, syncpoint=True, wait=0.1) is None


def test_consumer_gets_nothing_and_no_error_for_an_expired_message(
    conn: Connection, queue: str
) -> None:
    # seed 004 note 2: a consumer whose message expired receives nothing and no error
    put(conn, queue, b"old", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    handle = conn.open(queue, IN)
    assert conn.get(handle, wait=0.1) is None  # no MQError raised


# ActiveMQ discards expired messages itself, eagerly: the lazy discard that seed 000 describes
# (and its counting in CURDEPTH until then) is the queue manager's, not a broker's.
@pytest.mark.requires("lazy_expiry")
def test_expired_messages_count_toward_depth_until_discarded(conn: Connection, queue: str) -> None:
    # seed 000/001 note 2: expired messages count toward the number of messages on the queue
    put(conn, queue, b"old1", Expiry=SHORT)
    put(conn, queue, b"old2", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    assert depth(conn, queue) == 2
    handle = conn.open(queue, IN)
    assert conn.get(handle) is None  # the get that would have returned them discards them
    assert depth(conn, queue) == 0


# ActiveMQ discards expired messages itself, eagerly: the lazy discard that seed 000 describes
# (and its counting in CURDEPTH until then) is the queue manager's, not a broker's.
@pytest.mark.requires("lazy_expiry")
def test_browse_discards_the_expired_message_it_would_have_returned(
    conn: Connection, queue: str
) -> None:
    # seed 000: "discarded when a browse or nonbrowse MQGET call occurs that would have
    # returned the message had it not already expired"
    put(conn, queue, b"old", Expiry=SHORT)
    put(conn, queue, b"live")
    time.sleep(PAST_SHORT)
    assert depth(conn, queue) == 2
    handle = conn.open(queue, BROWSE)
    assert conn.get(handle, browse=Browse.FIRST)[1] == b"live"
    assert depth(conn, queue) == 1


# --------------------------------------------------------------------------- what a get discards


@pytest.mark.requires("fifo")
def test_fifo_get_discards_every_expired_message_up_to_the_first_unexpired(
    conn: Connection, broker
) -> None:
    # seed 000 / 001: "reading from a FIFO ordered queue discards all the expired messages
    # up to the first unexpired message"
    broker.define_queue("CONF.FIFO", MSGDLVSQ="FIFO")
    put(conn, "CONF.FIFO", b"e1", Expiry=SHORT, Priority=9)
    put(conn, "CONF.FIFO", b"e2", Expiry=SHORT, Priority=0)
    put(conn, "CONF.FIFO", b"live", Priority=5)
    put(conn, "CONF.FIFO", b"e3", Expiry=SHORT, Priority=9)
    time.sleep(PAST_SHORT)
    assert depth(conn, "CONF.FIFO") == 4
    handle = conn.open("CONF.FIFO", IN)
    assert conn.get(handle)[1] == b"live"
    assert depth(conn, "CONF.FIFO") == 1  # e3 lies after the first unexpired message
    assert conn.get(handle) is None
    assert depth(conn, "CONF.FIFO") == 0


# ActiveMQ discards expired messages itself, eagerly: the lazy discard that seed 000 describes
# (and its counting in CURDEPTH until then) is the queue manager's, not a broker's.
@pytest.mark.requires("lazy_expiry")
@pytest.mark.requires("priority")
def test_priority_get_discards_higher_and_earlier_equal_priority_expired_messages(
    conn: Connection, broker
) -> None:
    # seed 000 / 001: "With a priority ordered queue, the same call will discard expired
    # messages of higher priority and messages of an equal priority that arrived on the
    # queue before the first unexpired message"
    broker.define_queue("CONF.PRIO", MSGDLVSQ="PRIORITY")
    put(conn, "CONF.PRIO", b"hi", Expiry=SHORT, Priority=7)
    put(conn, "CONF.PRIO", b"eq.before", Expiry=SHORT, Priority=4)
    put(conn, "CONF.PRIO", b"live", Priority=4)
    put(conn, "CONF.PRIO", b"eq.after", Expiry=SHORT, Priority=4)
    put(conn, "CONF.PRIO", b"lo", Expiry=SHORT, Priority=1)
    time.sleep(PAST_SHORT)
    assert depth(conn, "CONF.PRIO") == 5
    handle = conn.open("CONF.PRIO", IN)
    assert conn.get(handle)[1] == b"live"
    assert depth(conn, "CONF.PRIO") == 2  # eq.after and lo were not in the get's way
    assert conn.get(handle) is None
    assert depth(conn, "CONF.PRIO") == 0


# ActiveMQ discards expired messages itself, eagerly: the lazy discard that seed 000 describes
# (and its counting in CURDEPTH until then) is the queue manager's, not a broker's.
@pytest.mark.requires("lazy_expiry")
def test_get_with_match_discards_only_matching_expired_messages(
    conn: Connection, queue: str
) -> None:
    # seed 000: only a get that "would have returned the message" discards it
    corr = b"WANTED".ljust(24, b"\0")
    put(conn, queue, b"other", Expiry=SHORT)
    put(conn, queue, b"wanted.old", Expiry=SHORT, CorrelId=corr)
    put(conn, queue, b"wanted", CorrelId=corr)
    time.sleep(PAST_SHORT)
    handle = conn.open(queue, IN)
    assert conn.get(handle, correl_id=corr)[1] == b"wanted"
    assert depth(conn, queue) == 1  # "other" was never a candidate


# --------------------------------------------------------------------------- expiration reports


@pytest.mark.requires("expiration_report")
@pytest.mark.parametrize(
    ("report", "expected_data"),
    [
        (C.MQRO_EXPIRATION, b""),
        (C.MQRO_EXPIRATION_WITH_DATA, bytes(range(100))),
        (C.MQRO_EXPIRATION_WITH_FULL_DATA, bytes(range(250))),
    ],
    ids=["EXPIRATION", "WITH_DATA", "WITH_FULL_DATA"],
)
def test_expiration_report_goes_to_reply_to_queue(
    conn: Connection, queue: str, reply_queue: str, report: int, expected_data: bytes
) -> None:
    # seed 000: "A report is generated when an expired message is discarded, if the message
    # specified one of the MQRO_EXPIRATION_* report options"; _WITH_DATA carries the first
    # 100 bytes, _WITH_FULL_DATA all of them
    original = put(
        conn,
        queue,
        bytes(range(250)),
        Expiry=SHORT,
        Report=report,
        ReplyToQ=reply_queue,
        Format=C.MQFMT_NONE,
    )
    time.sleep(PAST_SHORT)
    assert conn.get(conn.open(queue, IN)) is None
    reports = drain(conn, reply_queue)
    assert len(reports) == 1
    md, data = reports[0]
    assert md.MsgType == C.MQMT_REPORT == 4
    assert md.Feedback == C.MQFB_EXPIRATION == 258
    assert md.CorrelId == original.MsgId  # MQRO_COPY_MSG_ID_TO_CORREL_ID (the default)
    assert md.MsgId not in (original.MsgId, C.MQMI_NONE)  # MQRO_NEW_MSG_ID (the default)
    assert data == expected_data


@pytest.mark.requires("expiration_report")
def test_expiration_report_passes_ids_when_asked(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    corr = b"CORR".ljust(24, b"\0")
    original = put(
        conn,
        queue,
        b"x",
        Expiry=SHORT,
        ReplyToQ=reply_queue,
        CorrelId=corr,
        Report=C.MQRO_EXPIRATION | C.MQRO_PASS_MSG_ID | C.MQRO_PASS_CORREL_ID,
    )
    time.sleep(PAST_SHORT)
    assert conn.get(conn.open(queue, IN)) is None
    [(md, _)] = drain(conn, reply_queue)
    assert (md.MsgId, md.CorrelId) == (original.MsgId, corr)


@pytest.mark.requires("expiration_report")
def test_expiration_report_has_put_date_and_time(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    put(conn, queue, b"x", Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=reply_queue)
    time.sleep(PAST_SHORT)
    assert conn.get(conn.open(queue, IN)) is None
    [(md, _)] = drain(conn, reply_queue)
    assert md.PutDate.strip() and md.PutTime.strip()
    assert md.PutApplName.strip()


@pytest.mark.requires("expiration_report")
def test_no_report_without_expiration_report_options(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    # seed 000: "If none of these options is specified, no such report is generated"
    put(conn, queue, b"x", Expiry=SHORT, ReplyToQ=reply_queue, Report=C.MQRO_COA)
    time.sleep(PAST_SHORT)
    assert conn.get(conn.open(queue, IN)) is None
    assert depth(conn, queue) == 0
    # the COA report asked for (where the transport sends one), no expiration report
    assert [md.Feedback for md, _ in drain(conn, reply_queue)] in ([], [C.MQFB_COA])


@pytest.mark.requires("expiration_report")
def test_expiration_report_generated_at_discard_not_at_expiry(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    # seed 000/001 note 3: the report is generated when the message is discarded, not when it
    # becomes eligible for discarding
    put(conn, queue, b"x", Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=reply_queue)
    time.sleep(PAST_SHORT)
    assert depth(conn, reply_queue) == 0  # eligible, but not discarded yet
    assert conn.get(conn.open(queue, BROWSE), browse=Browse.FIRST) is None  # discards
    assert depth(conn, reply_queue) == 1


@pytest.mark.requires("expiration_report")
def test_undeliverable_report_does_not_fail_the_get(conn: Connection, queue: str) -> None:
    put(conn, queue, b"x", Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ="CONF.NOWHERE")
    put(conn, queue, b"live")
    time.sleep(PAST_SHORT)
    assert conn.get(conn.open(queue, IN))[1] == b"live"
    assert depth(conn, queue) == 0


# --------------------------------------------------------------------------- units of work


@pytest.mark.requires("expiration_report")
def test_discard_and_report_are_not_part_of_the_unit_of_work(
    connections, queue: str, reply_queue: str
) -> None:
    # seed 000/001 note 4: discarding an expired message, and generating an expiration report,
    # are never part of the application's unit of work, even when an MQGET under syncpoint
    # caused the discard
    conn, observer = connections(), connections()
    put(conn, queue, b"old", Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=reply_queue)
    put(conn, queue, b"live")
    time.sleep(PAST_SHORT)
    handle = conn.open(queue, IN)
    _, data = conn.get(handle, syncpoint=True)
    assert data == b"live"
    # the report is visible to others before the unit of work ends
    assert depth(observer, reply_queue) == 1
    conn.backout()
    # the backout brings back only what the unit of work got, not the expired message
    assert [(m.BackoutCount, d) for m, d in drain(observer, queue)] == [(1, b"live")]
    # and the report stays
    [(report, _)] = drain(observer, reply_queue)
    assert report.Feedback == C.MQFB_EXPIRATION


@pytest.mark.requires("expiration_report")
def test_discard_by_a_get_under_syncpoint_that_finds_nothing_stays_after_backout(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    # seed 000/001 note 4
    put(conn, queue, b"old", Expiry=SHORT, Report=C.MQRO_EXPIRATION, ReplyToQ=reply_queue)
    time.sleep(PAST_SHORT)
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True) is None
    conn.backout()
    assert depth(conn, queue) == 0
    assert depth(conn, reply_queue) == 1


@pytest.mark.requires("expiration_report")
def test_nearly_expired_message_backed_out_may_expire_before_it_is_got_again(
    conn: Connection, queue: str, reply_queue: str
) -> None:
    # seed 000/001 note 5: a nearly expired message got in a unit of work that is backed out
    # can become eligible for discarding before it is got again
    put(conn, queue, b"nearly", Expiry=3, Report=C.MQRO_EXPIRATION, ReplyToQ=reply_queue)
    handle = conn.open(queue, IN)
    md, data = conn.get(handle, syncpoint=True)
    assert data == b"nearly" and md.Expiry > 0
    time.sleep(0.4)
    conn.backout()
    assert depth(conn, queue) == 1  # back on the queue, expired, not yet discarded
    assert conn.get(handle) is None
    assert depth(conn, queue) == 0
    assert depth(conn, reply_queue) == 1


def test_remaining_expiry_keeps_decreasing_across_a_backout(conn: Connection, queue: str) -> None:
    # seed 000: the Expiry got is what remains of the original time; a backout does not
    # give the message a new lifetime (note 5 relies on that)
    put(conn, queue, b"x", Expiry=30)
    handle = conn.open(queue, IN)
    first = conn.get(handle, syncpoint=True)[0].Expiry
    time.sleep(0.25)
    conn.backout()
    md, _ = conn.get(handle)
    assert md.BackoutCount == 1
    assert 0 < md.Expiry < first


def test_message_got_and_committed_before_expiry_is_gone(conn: Connection, queue: str) -> None:
    put(conn, queue, b"x", Expiry=3)
    handle = conn.open(queue, IN)
    assert conn.get(handle, syncpoint=True)[1] == b"x"
    conn.commit()
    time.sleep(0.35)
    assert conn.get(handle) is None
    assert depth(conn, queue) == 0


def test_expiry_of_a_syncpoint_put_starts_at_the_put_not_the_commit(
    connections, queue: str
) -> None:
    # seed 004: the expiry interval of a message put under syncpoint starts when it is
    # put, not when the syncpoint is committed; it may end before the commit, and then the
    # message is discarded soon after and never returned to an MQGET
    producer, consumer = connections(), connections()
    put_md = producer.put(queue, MQMD(Expiry=2), b"late commit", syncpoint=True)
    assert put_md.Expiry == 2
    time.sleep(0.3)
    producer.commit()
    handle = consumer.open(queue, IN)
    assert consumer.get(handle) is None
    assert depth(consumer, queue) == 0


def test_remaining_expiry_of_a_syncpoint_put_counts_from_the_put(connections, queue: str) -> None:
    # seed 004: the interval starts at the put
    producer, consumer = connections(), connections()
    producer.put(queue, MQMD(Expiry=30), b"x", syncpoint=True)
    time.sleep(0.3)
    producer.commit()
    md, _ = consumer.get(consumer.open(queue, IN))
    assert 0 < md.Expiry <= 28


# --------------------------------------------------------------------------- invalid Expiry


@pytest.mark.requires("expiration_report")
@pytest.mark.parametrize("expiry", [0, -2, -999])
def test_invalid_expiry_fails_and_produces_no_report(
    conn: Connection, queue: str, reply_queue: str, expiry: int
) -> None:
    # seed 000/001 note 1: Expiry 0 fails with MQRC_EXPIRY_ERROR and no report is generated
    # (other values below -1 are not valid either: MQEI_UNLIMITED is the only negative one)
    with pytest.raises(MQError) as err:
        put(
            conn,
            queue,
            b"x",
            Expiry=expiry,
            Report=C.MQRO_EXPIRATION_WITH_FULL_DATA,
            ReplyToQ=reply_queue,
        )
    assert err.value.reason == C.MQRC_EXPIRY_ERROR == 2013
    handle = conn.open(queue, IN)
    assert conn.get(handle) is None
    assert depth(conn, queue) == 0
    assert depth(conn, reply_queue) == 0


def test_expiry_zero_under_syncpoint_fails_and_leaves_nothing(conn: Connection, queue: str) -> None:
    # seed 000/001 note 1
    with pytest.raises(MQError) as err:
        put_md = MQMD(Expiry=0)
        conn.put(queue, put_md, b"x", syncpoint=True)
    assert err.value.reason == C.MQRC_EXPIRY_ERROR
    conn.commit()
    assert depth(conn, queue) == 0
