"""The trigger monitor (issue 5): it gets trigger messages under the transport contract
and starts the process definition's program as runmqtrm does (ApplId, the MQTMC2, EnvData),
supervises it, dead-letters what it cannot act on, and never starts two servers for one
queue at a time."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mqjms.cli import main
from mqjms.mq import MQDLH, MQMD, MQTM, C, parse_dlh, parse_tmc2, parse_xqh
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.trigger import (
    EXIT_NOT_RUN,
    EXIT_STOPPED,
    CommandError,
    TriggerMonitor,
    command_line,
)
from tests.trigger.trigger_helpers import APPQ, INITQ, PROC, define_triggered, depth, put

HERE = Path(__file__).resolve().parent
RECORD_ARGS = HERE / "record_args.py"
DLQ = "SYSTEM.DEAD.LETTER.QUEUE"


def wait_for(predicate: Callable[[], object], timeout: float = 20.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or predicate}")
        time.sleep(0.05)


def named(events: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [e for e in events if e.get("event") == name]


@pytest.fixture
def args_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "args.jsonl"
    monkeypatch.setenv("RECORD_ARGS_FILE", str(path))
    return path


def recorded(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def recorder_process(tqm: QueueManager) -> str:
    """APP.PROC runs record_args.py with this Python, ENVRDATA '--flag "two words"'."""
    tqm.alter_process(
        PROC,
        {
            "APPLICID": f"{shlex.quote(sys.executable)} {shlex.quote(str(RECORD_ARGS))}",
            "ENVRDATA": '--flag "two words"',
            "USERDATA": "for the app",
        },
    )
    return PROC


@pytest.fixture
def make_monitor(embedded_url: str) -> Iterator[Callable[..., TriggerMonitor]]:
    made: list[TriggerMonitor] = []

    def make(initq: str = INITQ, **options: Any) -> TriggerMonitor:
        options.setdefault("poll_interval", 0.1)
        options.setdefault("stop_timeout", 5.0)
        monitor = TriggerMonitor(embedded_url, initq, **options)
        made.append(monitor)
        return monitor

    yield make
    for monitor in made:
        monitor.stop(timeout=20.0)


def trigger_md(**fields: Any) -> MQMD:
    return MQMD(Format=C.MQFMT_TRIGGER, Persistence=C.MQPER_NOT_PERSISTENT, **fields)


# --------------------------------------------------------------------------- command line


def test_command_line_is_applid_mqtmc2_envdata() -> None:
    # issue 5: "APPLICID is a command line, the MQTMC2 (732 chars) is passed as an argument,
    # followed by ENVRDATA" (runmqtrm's command string)
    tm = MQTM(
        QName="Q1",
        ProcessName="P1",
        ApplType=C.MQAT_UNIX,
        ApplId="/opt/app/server --mode 'a b'",
        EnvData="--x 1 &",  # runmqtrm's background marker: every program runs in background
    )
    argv = command_line(tm, "QM1")
    assert argv[:3] == ["/opt/app/server", "--mode", "a b"]
    tmc2 = argv[3]
    assert len(tmc2) == 732 and tmc2.startswith("TMC    2")
    assert parse_tmc2(tmc2.encode("latin-1")).QMgrName == "QM1"
    assert argv[4:] == ["--x", "1"]


def test_command_line_mqjms_runs_with_this_python() -> None:
    # issue 5: "APPLICID of the form `mqjms run module:app ...` starts a Worker (use the same
    # Python interpreter: sys.executable -m mqjms run ...)"
    tm = MQTM(QName="Q1", ApplType=C.MQAT_UNIX, ApplId="mqjms run svc:app", EnvData="")
    argv = command_line(tm, "QM1", python="/py/bin/python3")
    assert argv[:5] == ["/py/bin/python3", "-m", "mqjms", "run", "svc:app"]
    assert len(argv) == 6


@pytest.mark.parametrize(
    ("tm", "feedback"),
    [
        (MQTM(QName="Q", ApplType=C.MQAT_UNIX, ApplId="   "), C.MQFB_APPL_CANNOT_BE_STARTED),
        (MQTM(QName="Q", ApplType=C.MQAT_UNIX, ApplId="x 'open"), C.MQFB_APPL_CANNOT_BE_STARTED),
        (MQTM(QName="Q", ApplType=C.MQAT_CICS, ApplId="CKTI"), C.MQFB_APPL_TYPE_ERROR),
        (MQTM(QName="Q", ApplType=C.MQAT_UNKNOWN, ApplId=""), C.MQFB_APPL_TYPE_ERROR),
    ],
    ids=["blank", "bad-quoting", "cics", "xmitq-unknown"],
)
def test_command_line_refused(tm: MQTM, feedback: int) -> None:
    with pytest.raises(CommandError) as err:
        command_line(tm, "QM1")
    assert err.value.feedback == feedback


# --------------------------------------------------------------------------- starting


def test_monitor_starts_the_program_with_mqtmc2_and_envrdata(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
    embedded_url: str,
    events: list[dict[str, Any]],
) -> None:
    define_triggered(tqm, TRIGDATA="the trigger data")
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: monitor.stats.exited == 1, what="the program to run and exit")
    [call] = recorded(args_file)
    tmc2, *rest = call["argv"]
    assert rest == ["--flag", "two words"]
    assert len(tmc2) == 732
    tmc = parse_tmc2(tmc2.encode("latin-1"))
    assert (tmc.QName, tmc.ProcessName, tmc.TriggerData, tmc.UserData, tmc.QMgrName) == (
        APPQ,
        PROC,
        "the trigger data",
        "for the app",
        tqm.name,
    )
    assert call["url"] == embedded_url  # the program talks to the same queue manager
    [record] = monitor.history
    assert (record.queue, record.process, record.pid, record.status) == (
        APPQ,
        PROC,
        call["pid"],
        0,
    )
    [started] = named(events, "trigger.started")
    [exited] = named(events, "trigger.exited")
    for event in (started, exited):
        assert (event["queue"], event["process"], event["pid"]) == (APPQ, PROC, call["pid"])
    assert exited["status"] == 0
    lines = [e["line"] for e in named(events, "trigger.output")]
    assert f"hello from {call['pid']}" in lines and "a line on stderr" in lines
    assert depth(tqm, INITQ) == 0  # the trigger message was consumed


def test_a_programs_output_is_logged_without_the_secrets_it_was_given(
    tqm: QueueManager,
    app: QMConnection,
    make_monitor: Callable[..., TriggerMonitor],
    events: list[dict[str, Any]],
) -> None:
    # a program that cannot parse its arguments prints them back, the trigger message
    # (USERDATA, ENVRDATA) with them; a URL it prints may hold a password: each was logged
    # as trigger.output verbatim, where the monitor's own trigger.started masks them
    echo = "import sys; print('bad arguments:', sys.argv[1]); print('using stomp://app:pw9@h:1')"
    tqm.alter_process(
        PROC,
        {
            "APPLICID": f"{shlex.quote(sys.executable)} -c {shlex.quote(echo)}",
            "USERDATA": "password=Sup3rS3cret",
        },
    )
    define_triggered(tqm)
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: monitor.stats.exited == 1, what="the program to run and exit")
    lines = [e["line"] for e in named(events, "trigger.output")]
    assert lines == ["bad arguments: <MQTMC2 732>", "using stomp://app:***@h:1"]
    triggers = repr([e for e in events if e["event"].startswith("trigger.")])
    assert "Sup3rS3cret" not in triggers and "pw9" not in triggers


def test_monitor_opening_the_initiation_queue_starts_waiting_work(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
) -> None:
    # seed 003 item 13 (3): messages arrived while no trigger monitor ran; opening the
    # initiation queue triggers their queues, one program each
    define_triggered(tqm, "APP.Q1")
    define_triggered(tqm, "APP.Q2", trigtype="EVERY")
    put(app, "APP.Q1", n=3)
    put(app, "APP.Q2", n=3)
    monitor = make_monitor()
    monitor.start()
    wait_for(lambda: monitor.stats.exited == 2, what="two programs")
    queues = sorted(parse_tmc2(c["argv"][0].encode("latin-1")).QName for c in recorded(args_file))
    assert queues == ["APP.Q1", "APP.Q2"]


def test_failed_program_exit_status_and_output_logged(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
    monkeypatch: pytest.MonkeyPatch,
    events: list[dict[str, Any]],
) -> None:
    monkeypatch.setenv("RECORD_ARGS_EXIT", "3")
    define_triggered(tqm)
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: monitor.stats.exited == 1)
    [exited] = named(events, "trigger.exited")
    assert exited["status"] == 3 and exited["log_level"] == "warning"
    assert "a line on stderr" in exited["last_output"]
    assert depth(tqm, DLQ) == 0  # it started: exiting badly is not "cannot be started"


# --------------------------------------------------------------------------- undeliverable


def dead_letters(qm: QueueManager) -> list[tuple[MQMD, MQDLH, bytes]]:
    conn = qm.connect("dlq-reader")
    handle = conn.open(DLQ, C.MQOO_INPUT_SHARED)
    out = []
    while (got := conn.get(handle)) is not None:
        md, data = got
        assert md.Format.strip() == C.MQFMT_DEAD_LETTER_HEADER
        dlh, rest = parse_dlh(data, md.Encoding)
        out.append((md, dlh, rest))
    conn.disconnect()
    return out


def test_program_that_cannot_be_started_is_dead_lettered(
    tqm: QueueManager,
    app: QMConnection,
    make_monitor: Callable[..., TriggerMonitor],
    events: list[dict[str, Any]],
) -> None:
    # issue 5: "a program that fails to start produces what IBM's trigger monitor produces:
    # the trigger message goes to the dead-letter queue with an MQDLH whose Reason is
    # MQFB_APPL_CANNOT_BE_STARTED (265)"
    tqm.alter_process(PROC, {"APPLICID": "/no/such/program --serve"})
    define_triggered(tqm)
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: monitor.stats.not_started == 1 and depth(tqm, DLQ) == 1)
    [(md, dlh, rest)] = dead_letters(tqm)
    assert dlh.Reason == C.MQFB_APPL_CANNOT_BE_STARTED == 265
    assert dlh.DestQName == INITQ
    assert dlh.DestQMgrName == tqm.name
    assert dlh.Format.strip() == C.MQFMT_TRIGGER  # the original Format, to restore it
    assert MQTM.unpack(rest, dlh.Encoding).QName == APPQ  # the trigger message as it was
    assert md.Expiry == C.MQEI_UNLIMITED
    assert monitor.history == []
    assert named(events, "trigger.not_started")[0]["queue"] == APPQ
    assert depth(tqm, INITQ) == 0


def test_program_that_cannot_be_started_reports_when_asked(
    tqm: QueueManager,
    app: QMConnection,
    make_monitor: Callable[..., TriggerMonitor],
) -> None:
    # issue 5: "(and/or a report if the trigger message asked for one)": an exception
    # report with Feedback MQFB_APPL_CANNOT_BE_STARTED to the ReplyToQ; MQRO_DISCARD_MSG
    # means no dead-letter entry
    tqm.define_queue("QLOCAL", "REPORTS")
    monitor = make_monitor()
    monitor.start()
    tm = MQTM(QName=APPQ, ProcessName="P", ApplType=C.MQAT_UNIX, ApplId="/no/such/program")
    data = tm.pack()
    app.put(
        INITQ,
        trigger_md(
            Report=C.MQRO_EXCEPTION_WITH_DATA | C.MQRO_PASS_CORREL_ID,
            ReplyToQ="REPORTS",
            CorrelId=b"corr".ljust(24, b"\0"),
        ),
        data,
    )
    app.put(
        INITQ,
        trigger_md(
            Report=C.MQRO_EXCEPTION | C.MQRO_DISCARD_MSG | C.MQRO_PASS_MSG_ID,
            ReplyToQ="REPORTS",
            MsgId=b"trigger-message-id".ljust(24, b"\0"),
        ),
        data,
        new_msg_id=False,
    )
    wait_for(lambda: monitor.stats.not_started == 2 and depth(tqm, "REPORTS") == 2)
    reader = tqm.connect("reports")
    handle = reader.open("REPORTS", C.MQOO_INPUT_SHARED)
    first = reader.get(handle)
    second = reader.get(handle)
    assert first is not None and second is not None
    assert first[0].MsgType == C.MQMT_REPORT
    assert first[0].Feedback == C.MQFB_APPL_CANNOT_BE_STARTED
    assert first[0].CorrelId == b"corr".ljust(24, b"\0")
    assert first[1] == data[:100]  # WITH_DATA: the first 100 bytes
    assert second[0].Feedback == C.MQFB_APPL_CANNOT_BE_STARTED and second[1] == b""
    assert second[0].MsgId == b"trigger-message-id".ljust(24, b"\0")  # MQRO_PASS_MSG_ID
    assert first[0].MsgId != second[0].MsgId  # MQRO_NEW_MSG_ID, the default: a new one
    reader.disconnect()
    assert len(dead_letters(tqm)) == 1  # the MQRO_DISCARD_MSG one was not dead-lettered


def test_a_report_for_another_queue_manager_goes_to_its_transmission_queue(
    tqm: QueueManager,
    app: QMConnection,
    make_monitor: Callable[..., TriggerMonitor],
) -> None:
    # the report goes to the ReplyToQ on the ReplyToQMgr: for another queue manager, on
    # the transmission queue named after it, behind an MQXQH (it went to a local queue of
    # that name, or failed 2085)
    tqm.define_queue("QLOCAL", "QM.SENDER", {"USAGE": "XMITQ"})
    monitor = make_monitor()
    monitor.start()
    tm = MQTM(QName=APPQ, ProcessName="P", ApplType=C.MQAT_UNIX, ApplId="/no/such/program")
    app.put(
        INITQ,
        trigger_md(
            Report=C.MQRO_EXCEPTION | C.MQRO_DISCARD_MSG,
            ReplyToQ="SENDER.REPLIES",
            ReplyToQMgr="QM.SENDER",
        ),
        tm.pack(),
    )
    wait_for(lambda: monitor.stats.not_started == 1 and depth(tqm, "QM.SENDER") == 1)
    reader = tqm.connect("xmitq")
    handle = reader.open("QM.SENDER", C.MQOO_INPUT_SHARED)
    got = reader.get(handle)
    reader.disconnect()
    assert got is not None
    xqh, _ = parse_xqh(got[1], got[0].Encoding)
    assert xqh.RemoteQName.strip() == "SENDER.REPLIES"
    assert xqh.RemoteQMgrName.strip() == "QM.SENDER"
    assert xqh.MsgDesc.Feedback == C.MQFB_APPL_CANNOT_BE_STARTED


@pytest.mark.parametrize(
    ("md", "data"),
    [
        (MQMD(Format=C.MQFMT_STRING), b"not a trigger message"),
        (MQMD(Format=C.MQFMT_TRIGGER), b"TM  short"),
        (MQMD(Format=C.MQFMT_TRIGGER), MQTM(QName="Q").pack().replace(b"TM  ", b"XX  ", 1)),
        (MQMD(Format=C.MQFMT_TRIGGER), MQTM(QName="").pack()),
    ],
    ids=["format", "short", "strucid", "blank-qname"],
)
def test_invalid_trigger_message_is_dead_lettered_with_tm_error(
    tqm: QueueManager,
    app: QMConnection,
    make_monitor: Callable[..., TriggerMonitor],
    events: list[dict[str, Any]],
    md: MQMD,
    data: bytes,
) -> None:
    # issue 5: "messages that are not valid MQTMs are reported and dead-lettered with an
    # MQDLH, reason MQFB_TM_ERROR, like runmqtrm"
    monitor = make_monitor()
    monitor.start()
    app.put(INITQ, md, data)
    wait_for(lambda: monitor.stats.invalid == 1 and depth(tqm, DLQ) == 1)
    [(_, dlh, rest)] = dead_letters(tqm)
    assert dlh.Reason == C.MQFB_TM_ERROR == 266
    assert dlh.DestQName == INITQ
    assert rest == data
    assert named(events, "trigger.invalid_message")
    assert monitor.status is None  # still running


def test_unsupported_application_type_is_dead_lettered(
    tqm: QueueManager, app: QMConnection, make_monitor: Callable[..., TriggerMonitor]
) -> None:
    # runmqtrm starts the default application type: others get MQFB_APPL_TYPE_ERROR
    tqm.alter_process(PROC, {"APPLTYPE": "CICS", "APPLICID": "CKTI"})
    define_triggered(tqm)
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: depth(tqm, DLQ) == 1)
    [(_, dlh, _)] = dead_letters(tqm)
    assert dlh.Reason == C.MQFB_APPL_TYPE_ERROR == 267


# --------------------------------------------------------------------------- one server


def test_one_server_per_queue_duplicates_are_not_started(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
    monkeypatch: pytest.MonkeyPatch,
    events: list[dict[str, Any]],
) -> None:
    # issue 5: "the monitor never starts two servers for one FIRST event ... while it runs,
    # further trigger messages for that queue are consumed and logged as duplicates"
    monkeypatch.setenv("RECORD_ARGS_SLEEP", "3")
    define_triggered(tqm, trigtype="EVERY")
    monitor = make_monitor()
    monitor.start()
    put(app, n=4)  # four trigger messages; the program takes no message off the queue
    wait_for(lambda: monitor.stats.received == 4)
    assert monitor.stats.started == 1
    assert list(monitor.running()) == [APPQ]
    # The program ends with the messages still there and nobody serving: the deferred
    # trigger message starts it once more, no more.
    wait_for(lambda: monitor.stats.exited == 2, timeout=30)
    time.sleep(0.5)
    assert monitor.stats.started == 2
    assert len(recorded(args_file)) == 2
    assert monitor.stats.duplicates == 2 and monitor.stats.deferred == 1
    assert named(events, "trigger.duplicate")
    runs = monitor.history
    assert runs[0].ended is not None and runs[0].ended <= runs[1].started  # never overlapping


def test_deferred_trigger_for_an_emptied_queue_starts_nothing(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RECORD_ARGS_SLEEP", "3")
    define_triggered(tqm, trigtype="EVERY")
    monitor = make_monitor()
    monitor.start()
    put(app, n=2)
    wait_for(lambda: monitor.stats.received == 2)
    server = tqm.connect("someone-else")
    handle = server.open(APPQ, C.MQOO_INPUT_SHARED)
    while server.get(handle) is not None:  # another server empties the queue meanwhile
        pass
    server.disconnect()
    wait_for(lambda: monitor.stats.exited == 1)
    time.sleep(0.5)
    assert monitor.stats.started == 1
    assert monitor.stats.duplicates == 1


# --------------------------------------------------------------------------- lifecycle


def test_not_run_without_the_initiation_queue(
    tqm: QueueManager, make_monitor: Callable[..., TriggerMonitor]
) -> None:
    # runmqtrm's return code 20: error; trigger monitor not run
    monitor = make_monitor("NO.SUCH.INITQ")
    assert monitor.run() == EXIT_NOT_RUN
    with pytest.raises(RuntimeError, match="not run"):
        make_monitor("NO.SUCH.INITQ").start()


def test_stop_ends_running_programs(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RECORD_ARGS_SLEEP", "60")
    define_triggered(tqm)
    monitor = make_monitor()
    monitor.start()
    put(app)
    wait_for(lambda: recorded(args_file), what="the program to start")
    assert monitor.stop() == EXIT_STOPPED
    [record] = monitor.history
    assert record.status == -signal.SIGTERM
    assert monitor.running() == {}


def test_force_stop_kills_a_program_that_ignores_sigterm(
    tqm: QueueManager,
    app: QMConnection,
    args_file: Path,
    make_monitor: Callable[..., TriggerMonitor],
) -> None:
    code = (
        "import os, signal, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "open(os.environ['RECORD_ARGS_FILE'], 'a').write('{}\\n'); time.sleep(60)"
    )
    tqm.alter_process(PROC, {"APPLICID": f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"})
    define_triggered(tqm)
    monitor = make_monitor(stop_timeout=60.0)
    monitor.start()
    put(app)
    wait_for(lambda: recorded(args_file), what="the program to start")
    monitor.request_stop()
    time.sleep(0.5)
    assert monitor.running()  # SIGTERM ignored: still running, the monitor waits for it
    monitor.force_stop()
    assert monitor.stop(timeout=20) == EXIT_STOPPED
    [record] = monitor.history
    assert record.status == -signal.SIGKILL


def test_wait_ends_an_idle_monitor(
    tqm: QueueManager, make_monitor: Callable[..., TriggerMonitor]
) -> None:
    monitor = make_monitor(wait=0.3)
    started = time.monotonic()
    assert monitor.run() == EXIT_STOPPED
    assert time.monotonic() - started >= 0.3


# --------------------------------------------------------------------------- the command


def test_cli_trigger_monitor_not_run(tqm: QueueManager, embedded_url: str) -> None:
    assert main(["trigger-monitor", "--url", embedded_url, "--initq", "NO.SUCH.Q"]) == 20


def test_cli_trigger_monitor_with_wait(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    embedded_url: str,
) -> None:
    define_triggered(tqm)
    put(app)  # before the monitor: its opening of the initiation queue triggers (item 13)
    status = main(["trigger-monitor", "--url", embedded_url, "--initq", INITQ, "--wait", "0.5"])
    assert status == 0
    [call] = recorded(args_file)
    assert parse_tmc2(call["argv"][0].encode("latin-1")).QName == APPQ


@pytest.mark.slow
def test_cli_trigger_monitor_stops_on_sigterm(
    tqm: QueueManager,
    app: QMConnection,
    recorder_process: str,
    args_file: Path,
    embedded_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Graceful stop on SIGTERM: the monitor ends its programs and exits 0
    monkeypatch.setenv("RECORD_ARGS_SLEEP", "60")
    define_triggered(tqm)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mqjms",
            "trigger-monitor",
            "--url",
            embedded_url,
            "--initq",
            INITQ,
            "--stop-timeout",
            "5",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
    )
    try:
        wait_for(lambda: tqm.display_queues(INITQ, "QLOCAL", ["IPPROCS"])[0]["IPPROCS"] == 1)
        put(app)
        wait_for(lambda: recorded(args_file), what="the program to start")
        child_pid = recorded(args_file)[0]["pid"]
        proc.send_signal(signal.SIGTERM)
        _, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, stderr
    assert "trigger.exited" in stderr and f"pid={child_pid}" in stderr
    with pytest.raises(ProcessLookupError):
        os.kill(child_pid, 0)
