"""The ``mqjms`` command: mqsc, put, get and browse, in-process and once as a real process."""

from __future__ import annotations

import base64
import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import structlog

import mqjms
from mqjms.cli import main
from mqjms.mq import constants as C
from mqjms.mq.dlh import MQDLH
from mqjms.qmgr import QueueManager

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
SINGLE_RFH2 = SHARED / "testdata" / "rfh2" / "single_rfh2.dat"
RFH2_BODY = "<testData><testVar>testValue</testVar></testData>"


def rfh2_file() -> Path:
    if not SINGLE_RFH2.exists():
        pytest.skip(f"{SINGLE_RFH2} is absent: clone the repo with shared/ beside it")
    return SINGLE_RFH2


class CLI:
    """Runs ``mqjms`` in this process against one embedded queue manager."""

    def __init__(
        self, url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        self.url = url
        self.capsys = capsys
        self.monkeypatch = monkeypatch
        self.out = ""
        self.err = ""

    def __call__(self, *argv: str, stdin: str | None = None) -> int:
        if stdin is not None:
            self.monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        self.capsys.readouterr()
        status = main([argv[0], "--url", self.url, *argv[1:]])
        self.out, self.err = self.capsys.readouterr()
        return status

    def mqsc(self, script: str) -> int:
        return self("mqsc", stdin=script)

    def put(self, queue: str, *args: str) -> str:
        assert self("put", queue, *args) == 0, self.err
        return self.out.strip()

    def messages(self, command: str, queue: str, *args: str) -> list[dict[str, Any]]:
        assert self(command, queue, "--json", *args) == 0, self.err
        return [json.loads(line) for line in self.out.splitlines()]


@pytest.fixture
def cli(
    embedded_url: str,
    qm: QueueManager,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> CLI:
    runner = CLI(embedded_url, capsys, monkeypatch)
    assert runner.mqsc("DEFINE QLOCAL(ORDERS.IN)\nDEFINE QLOCAL(REPLIES)") == 0, runner.out
    return runner


# --- mqsc -----------------------------------------------------------------------------


def test_mqsc_prints_runmqsc_style_output(cli: CLI) -> None:
    for _ in range(3):
        cli.put("ORDERS.IN", "--body", "x")
    status = cli.mqsc(
        "* orders\n"
        "ALTER QLOCAL(ORDERS.IN) DESCR('Orders in') BOTHRESH(3) +\n"
        "      BOQNAME(ORDERS.BO) HARDENBO\n"
        "DISPLAY QLOCAL(ORDERS.IN) CURDEPTH BOTHRESH BOQNAME HARDENBO SHARE DESCR\n"
    )
    assert status == 0, cli.out
    lines = cli.out.splitlines()
    assert lines[0].startswith("Starting MQSC for queue manager ")
    assert (
        "     1 : ALTER QLOCAL(ORDERS.IN) DESCR('Orders in') BOTHRESH(3) "
        "BOQNAME(ORDERS.BO) HARDENBO" in lines
    )
    assert "AMQ8008I: mqjms queue changed." in lines
    start = lines.index("AMQ8409I: Display Queue details.")
    assert [line.strip() for line in lines[start + 1 : start + 9]] == [
        "QUEUE(ORDERS.IN)",
        "TYPE(QLOCAL)",
        "DESCR(Orders in)",
        "BOTHRESH(3)",
        "BOQNAME(ORDERS.BO)",
        "HARDENBO",
        "SHARE",
        "CURDEPTH(3)",
    ]
    assert lines[-3:] == [
        "2 MQSC commands read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_mqsc_failures_give_reason_and_exit_10(cli: CLI) -> None:
    status = cli.mqsc(
        "DELETE QLOCAL(NO.SUCH.QUEUE)\nDEFINE QLOCAL(X) MAXDEPTH(\nDISPLAY QLOCAL(ORDERS.IN)\n"
    )
    assert status == 10
    assert "MQRC_UNKNOWN_OBJECT_NAME (2085): queue 'NO.SUCH.QUEUE' is not defined" in cli.out
    assert "AMQ8405I: Syntax error detected at or near end of command segment below:-" in cli.out
    assert "MQRCCF_PARM_SYNTAX_ERROR (3097): " in cli.out
    assert cli.out.splitlines()[-3:] == [
        "3 MQSC commands read.",
        "One command has a syntax error.",
        "One valid MQSC command could not be processed.",
    ]


def test_mqsc_reads_a_file_and_no_echo(cli: CLI, tmp_path: Path) -> None:
    script = tmp_path / "setup.mqsc"
    script.write_text("DEFINE QLOCAL(FROM.FILE) MAXDEPTH(7)\nDIS QL(FROM.FILE) MAXDEPTH\n")
    assert cli("mqsc", "-e", str(script)) == 0
    assert "MAXDEPTH(7)" in cli.out and " : DEFINE" not in cli.out
    assert cli("mqsc", str(tmp_path / "missing.mqsc")) == 2
    assert cli.err.startswith("mqjms: cannot read ") and cli.out == ""


def test_mqsc_file_that_is_not_utf8_runs_none_of_its_commands(cli: CLI, tmp_path: Path) -> None:
    script = tmp_path / "latin1.mqsc"
    script.write_bytes(b"DEFINE QLOCAL(BEFORE.BAD.BYTE)\n* caf\xe9\n")
    assert cli("mqsc", str(script)) == 2
    assert cli.err.startswith(f"mqjms: cannot read {script}: not UTF-8 text (byte 36")
    assert "Traceback" not in cli.err
    assert cli("put", "BEFORE.BAD.BYTE", "--body", "x") == 2  # never defined
    assert "MQRC_UNKNOWN_OBJECT_NAME" in cli.err


def test_mqsc_file_lines_end_at_newlines_only(cli: CLI, tmp_path: Path) -> None:
    script = tmp_path / "unicode.mqsc"
    script.write_text("DEFINE QLOCAL(SPLIT.NOT) DESCR('a\u0085b\u2028c')\n", encoding="utf-8")
    assert cli("mqsc", str(script)) == 0, cli.out
    assert "AMQ8006I" in cli.out or "created" in cli.out


def test_mqsc_needs_an_embedded_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mqsc", "--url", "stomp://localhost:61613"]) == 2
    assert "embedded" in capsys.readouterr().err


# --- put, get, browse -----------------------------------------------------------------


def test_put_text_then_browse_and_get_json(cli: CLI) -> None:
    msg_id = cli.put(
        "ORDERS.IN",
        "--body",
        "h\u00e9llo w\u00f6rld",
        "--priority",
        "4",
        "--reply-to",
        "REPLIES",
        "--correl-id",
        "c0ffee",
    )
    assert len(msg_id) == 48
    [browsed] = cli.messages("browse", "ORDERS.IN")
    [again] = cli.messages("browse", "ORDERS.IN")  # a browse leaves it on the queue
    assert browsed["md"]["MsgId"] == again["md"]["MsgId"] == msg_id
    [got] = cli.messages("get", "ORDERS.IN")
    assert set(got) == {"md", "rfh2", "dlh", "properties", "jms", "body"}
    md = got["md"]
    assert (md["Format"], md["CodedCharSetId"], md["Encoding"]) == ("MQSTR", 1208, 546)
    assert (md["Priority"], md["ReplyToQ"], md["BackoutCount"]) == (4, "REPLIES", 0)
    assert md["CorrelId"] == "c0ffee" + "00" * 21
    assert md["MsgId"] == msg_id and md["Expiry"] == C.MQEI_UNLIMITED
    assert (got["rfh2"], got["dlh"], got["body"]) == ([], None, "h\u00e9llo w\u00f6rld")
    assert cli.messages("get", "ORDERS.IN") == []  # it was removed


def test_get_that_cannot_write_its_output_says_so_and_keeps_the_message(
    cli: CLI, qm: QueueManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    # standard output on a full disk: "mqjms: No space left on device" said neither what
    # could not be written nor that the message was kept
    cli.put("ORDERS.IN", "--body", "kept")

    class Full(io.StringIO):
        def flush(self) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["get", "ORDERS.IN", "--url", cli.url]) == 1
    monkeypatch.undo()
    err = cli.capsys.readouterr().err
    assert "cannot write message 1 to standard output (No space left on device)" in err
    assert "it stays on ORDERS.IN" in err
    assert qm.queue_depth("ORDERS.IN") == 1


def test_put_binary_file_gives_base64_body(cli: CLI, tmp_path: Path) -> None:
    data = bytes(range(256)) + b"\xff\xfe"
    path = tmp_path / "blob.bin"
    path.write_bytes(data)
    cli.put("ORDERS.IN", "--file", str(path))
    [got] = cli.messages("get", "ORDERS.IN")
    assert got["md"]["Format"] == ""
    assert base64.b64decode(got["body"]["base64"]) == data
    # MQSTR that does not decode in its CCSID is shown as base64 as well
    path.write_bytes(b"\xff\xfe\xfd")
    cli.put("ORDERS.IN", "--file", str(path), "--format", "MQSTR", "--ccsid", "1208")
    [bad] = cli.messages("get", "ORDERS.IN")
    assert base64.b64decode(bad["body"]["base64"]) == b"\xff\xfe\xfd"


def test_put_of_a_file_that_never_ends_is_refused_not_read_for_ever(
    cli: CLI, qm: QueueManager
) -> None:
    # /dev/zero was read until memory ran out; nothing bigger than the largest MAXMSGL
    # (100 MiB) can be put, so no more than that is read
    assert cli("put", "ORDERS.IN", "--file", "/dev/zero") == 2
    assert "MQRC_MSG_TOO_BIG_FOR_Q_MGR (2031): /dev/zero holds more than 104857600" in cli.err
    assert "Traceback" not in cli.err and qm.queue_depth("ORDERS.IN") == 0


def test_browse_and_get_do_not_send_a_bodys_control_characters_to_the_terminal(
    cli: CLI,
) -> None:
    # the summary wrote a text body as it was: a message could clear the screen, retitle
    # the window or set the clipboard of whoever browsed it; JSON left C1's CSI as it was
    body = "a\x1b]0;title\x07b\x1b[2Jc\x9b31md\x7f\te"
    cli.put("ORDERS.IN", "--body", body)
    assert cli("browse", "ORDERS.IN") == 0
    assert "    a\\x1b]0;title\\x07b\\x1b[2Jc\\x9b31md\\x7f\te" in cli.out.splitlines()
    assert cli("get", "ORDERS.IN", "--json") == 0
    assert not any(0x7F <= ord(c) < 0xA0 or (ord(c) < 0x20 and c != "\n") for c in cli.out)
    assert json.loads(cli.out)["body"] == body


def test_put_other_ccsid(cli: CLI) -> None:
    cli.put("ORDERS.IN", "--body", "caf\u00e9", "--ccsid", "819")
    [got] = cli.messages("browse", "ORDERS.IN")
    assert got["md"]["CodedCharSetId"] == 819 and got["body"] == "caf\u00e9"
    assert cli("put", "ORDERS.IN", "--body", "\u20ac", "--ccsid", "819") == 2
    assert "CCSID 819" in cli.err


@pytest.mark.parametrize(
    ("ccsid", "text", "data"),
    [(37, "HELLO [x]", "c8c5d3d3d640baa7bb"), (1047, "[x]^", "ada7bd5f"), (1148, "\u20ac", "9f")],
)
def test_put_and_browse_ebcdic_ccsids(
    cli: CLI, tmp_path: Path, ccsid: int, text: str, data: str
) -> None:
    # Hardening issue item 16: put --ccsid 37 failed ("no codec") and browse showed a
    # CCSID 37 body as base64; 1047 was taken for cp1140. One table serves the CLI and API.
    cli.put("ORDERS.IN", "--body", text, "--ccsid", str(ccsid))
    [got] = cli.messages("browse", "ORDERS.IN")
    assert got["md"]["CodedCharSetId"] == ccsid and got["body"] == text
    with mqjms.ConnectionFactory(cli.url).connect() as conn:
        received = conn.session().consumer("ORDERS.IN").receive(timeout=1.0)
    assert isinstance(received, mqjms.TextMessage) and received.body == text
    path = tmp_path / "ebcdic.bin"
    path.write_bytes(bytes.fromhex(data))  # IBM's bytes for the text in that CCSID
    cli.put("ORDERS.IN", "--file", str(path), "--format", "MQSTR", "--ccsid", str(ccsid))
    [got] = cli.messages("get", "ORDERS.IN")
    assert got["body"] == text


def test_put_unsupported_ccsid_names_it_with_the_reason(cli: CLI) -> None:
    assert cli("put", "ORDERS.IN", "--body", "x", "--ccsid", "4242") == 2
    assert "MQRC_TARGET_CCSID_ERROR (2115)" in cli.err and "CCSID 4242" in cli.err
    assert "Traceback" not in cli.err


def test_put_rfh2_file(cli: CLI) -> None:
    path = rfh2_file()
    cli.put(
        "ORDERS.IN",
        "--file",
        str(path),
        "--format",
        "MQHRF2",
        "--encoding",
        "273",
        "--ccsid",
        "1208",
    )
    [got] = cli.messages("get", "ORDERS.IN")
    assert (got["md"]["Format"], got["md"]["Encoding"]) == ("MQHRF2", 273)
    [rfh2] = got["rfh2"]
    assert {
        k: rfh2[k]
        for k in (
            "StrucId",
            "Version",
            "StrucLength",
            "Encoding",
            "CodedCharSetId",
            "Format",
            "Flags",
            "NameValueCCSID",
        )
    } == {
        "StrucId": "RFH",
        "Version": 2,
        "StrucLength": 284,
        "Encoding": 273,
        "CodedCharSetId": 1208,
        "Format": "MQSTR",
        "Flags": 0,
        "NameValueCCSID": 1208,
    }
    assert rfh2["folders"][1:] == [
        "<testFolder><testVar>testValue</testVar></testFolder>",
        "<mcd><Msd>xmlnsc</Msd></mcd>",
    ]
    assert rfh2["folders"][0].startswith("<psc><Command>RegSub</Command>")
    assert got["body"] == RFH2_BODY


def test_dead_letter_message(cli: CLI, tmp_path: Path) -> None:
    dlh = MQDLH(
        Reason=C.MQRC_Q_FULL,
        DestQName="ORDERS.IN",
        DestQMgrName="QM1",
        Encoding=546,
        CodedCharSetId=1208,
        Format="MQSTR",
        PutApplName="amqsput",
    )
    path = tmp_path / "dead.bin"
    path.write_bytes(dlh.pack(546) + b"undeliverable")
    cli.put("ORDERS.IN", "--file", str(path), "--format", "MQDEAD", "--ccsid", "1208")
    [got] = cli.messages("browse", "ORDERS.IN")
    assert got["md"]["Format"] == "MQDEAD"
    assert got["dlh"]["StrucId"] == "DLH"
    assert (got["dlh"]["Reason"], got["dlh"]["DestQName"], got["dlh"]["Format"]) == (
        C.MQRC_Q_FULL,
        "ORDERS.IN",
        "MQSTR",
    )
    assert got["body"] == "undeliverable" and got["rfh2"] == []


def test_dead_letter_header_before_an_rfh2_chain(cli: CLI, tmp_path: Path) -> None:
    dlh = MQDLH(
        Reason=C.MQRC_NOT_AUTHORIZED,
        DestQName="ORDERS.IN",
        Encoding=273,
        CodedCharSetId=1208,
        Format="MQHRF2",
    )
    path = tmp_path / "dead-jms.bin"
    path.write_bytes(dlh.pack(546) + rfh2_file().read_bytes())
    cli.put("ORDERS.IN", "--file", str(path), "--format", "MQDEAD", "--ccsid", "1208")
    [got] = cli.messages("browse", "ORDERS.IN")
    assert got["dlh"]["Reason"] == C.MQRC_NOT_AUTHORIZED
    assert [h["Format"] for h in got["rfh2"]] == ["MQSTR"] and got["body"] == RFH2_BODY


def test_malformed_header_is_reported_not_raised(cli: CLI, tmp_path: Path) -> None:
    path = tmp_path / "short.bin"
    path.write_bytes(b"RFH \x00\x00\x00\x02")
    cli.put("ORDERS.IN", "--file", str(path), "--format", "MQHRF2")
    [got] = cli.messages("browse", "ORDERS.IN")
    assert got["error"].startswith("MQRC_RFH_ERROR")
    assert base64.b64decode(got["body"]["base64"]) == b"RFH \x00\x00\x00\x02"


def test_report_names_and_other_md_options(cli: CLI) -> None:
    cli.put(
        "ORDERS.IN",
        "--body",
        "r",
        "--report",
        "MQRO_EXPIRATION_WITH_DATA",
        "--report",
        "discard_msg",
        "--expiry",
        "600",
        "--persistent",
        "--msg-type",
        "request",
        "--reply-to",
        "REPLIES",
    )
    [got] = cli.messages("get", "ORDERS.IN")
    md = got["md"]
    assert md["Report"] == C.MQRO_EXPIRATION_WITH_DATA | C.MQRO_DISCARD_MSG
    assert md["Persistence"] == C.MQPER_PERSISTENT and md["MsgType"] == C.MQMT_REQUEST
    assert 0 < md["Expiry"] <= 600
    assert cli("put", "ORDERS.IN", "--body", "r", "--report", "MQRO_BOGUS") == 2
    assert "MQRO_BOGUS" in cli.err and "MQRO_EXPIRATION_WITH_DATA" in cli.err


def test_expiry_zero_fails_with_2013(cli: CLI) -> None:
    # seed 000: an Expiry of zero is not valid on MQPUT (MQRC_EXPIRY_ERROR)
    assert cli("put", "ORDERS.IN", "--body", "x", "--expiry", "0") == 2
    assert cli.err.startswith("mqjms: MQRC_EXPIRY_ERROR (2013): ")
    assert cli.out == ""
    assert cli.messages("browse", "ORDERS.IN") == []


def test_count_all_and_empty_queues(cli: CLI) -> None:
    ids = cli.put("ORDERS.IN", "--body", "n", "--count", "5").split()
    assert len(set(ids)) == 5
    assert [m["md"]["MsgId"] for m in cli.messages("browse", "ORDERS.IN", "--count", "2")] == ids[
        :2
    ]
    assert [m["md"]["MsgId"] for m in cli.messages("get", "ORDERS.IN")] == ids[:1]
    assert [m["md"]["MsgId"] for m in cli.messages("get", "ORDERS.IN", "--count", "2")] == ids[1:3]
    assert [m["md"]["MsgId"] for m in cli.messages("get", "ORDERS.IN", "--all")] == ids[3:]
    # empty: nothing printed, status 0, for browse and get alike
    for command in ("browse", "get"):
        assert cli(command, "ORDERS.IN", "--json") == 0 and cli.out == ""
    assert cli("get", "ORDERS.IN", "--wait", "0.05") == 0 and cli.out == ""
    assert "no message" in cli.err


def test_readable_output(cli: CLI) -> None:
    msg_id = cli.put(
        "ORDERS.IN", "--body", "plain text", "--report", "MQRO_COA", "--reply-to", "ORDERS.REPLY"
    )
    assert cli("browse", "ORDERS.IN") == 0
    assert "message 1 on ORDERS.IN" in cli.out and msg_id in cli.out
    assert "MQRO_COA" in cli.out and "plain text" in cli.out


def test_match_by_msg_id(cli: CLI) -> None:
    first = cli.put("ORDERS.IN", "--body", "1")
    second = cli.put("ORDERS.IN", "--body", "2")
    [got] = cli.messages("get", "ORDERS.IN", "--msg-id", second)
    assert got["body"] == "2"
    assert [m["md"]["MsgId"] for m in cli.messages("browse", "ORDERS.IN")] == [first]


# --- errors and exit statuses ---------------------------------------------------------


def test_mq_errors_print_reason_and_exit_2(cli: CLI) -> None:
    assert cli("put", "NO.SUCH.QUEUE", "--body", "x") == 2
    assert cli.err.startswith("mqjms: MQRC_UNKNOWN_OBJECT_NAME (2085): ")
    assert cli("get", "NO.SUCH.QUEUE", "--json") == 2
    assert "MQRC_UNKNOWN_OBJECT_NAME (2085)" in cli.err
    assert cli.mqsc("ALTER QLOCAL(ORDERS.IN) GET(DISABLED)") == 0
    assert cli("get", "ORDERS.IN") == 2
    assert cli.err.startswith("mqjms: MQRC_GET_INHIBITED (2016): ")
    assert cli("put", "ORDERS.IN", "--file", "/no/such/file") == 2
    assert cli.err.startswith("mqjms: cannot read ")
    assert "Traceback" not in cli.err


def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert main(["put", "Q"]) == 2  # --body or --file is required
    assert main(["put", "Q", "--body", "x", "--file", "f"]) == 2
    assert main(["get", "Q", "--count", "0"]) == 2
    assert main(["get", "Q", "--correl-id", "xyz"]) == 2
    assert main(["nosuchcommand"]) == 2
    assert main(["put", "Q", "--body", "x", "--url", "nourl"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--encoding", str(2**32)),
        ("--priority", str(2**31)),
        ("--expiry", str(-(2**31) - 1)),
        ("--ccsid", str(2**31)),
        ("--reply-to", "Q" * 49),
        ("--reply-to-qmgr", "M" * 49),
    ],
)
def test_a_field_value_mq_cannot_hold_is_a_usage_error(cli: CLI, option: str, value: str) -> None:
    assert cli("put", "ORDERS.IN", "--body", "x", option, value) == 2
    assert f"argument {option}: " in cli.err and "Traceback" not in cli.err
    assert cli("get", "ORDERS.IN") == 0 and cli.out == ""  # nothing was put


def test_a_wait_that_is_not_a_number_is_a_usage_error(cli: CLI) -> None:
    assert cli("get", "ORDERS.IN", "--wait", "nan") == 2  # it waited forever
    assert "argument --wait: 'nan' is not a number of seconds" in cli.err


def test_an_embedded_directory_path_too_long_is_2058(capsys: pytest.CaptureFixture[str]) -> None:
    url = "embedded:///tmp/" + "x" * 300
    assert main(["put", "Q", "--body", "x", "--url", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mqjms: MQRC_Q_MGR_NAME_ERROR (2058): ") and "too long" in err


def test_an_unexpected_error_is_one_line_with_the_traceback_on_demand(
    cli: CLI, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mqjms.cli import put

    def broken(args: Any) -> int:
        raise RuntimeError("a bug of ours")

    monkeypatch.setattr(put, "run", broken)  # the parser is built at each main()
    assert cli("put", "ORDERS.IN", "--body", "x") == 1
    assert cli.err == (
        "mqjms: unexpected error: RuntimeError: a bug of ours (run with -v to see where)\n"
    )
    assert main(["-v", "put", "ORDERS.IN", "--body", "x", "--url", cli.url]) == 1
    err = cli.capsys.readouterr().err
    assert "Traceback" in err and "a bug of ours" in err


def test_help_documents_the_json_body(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "--help"]) == 0
    assert '{"base64": "..."}' in capsys.readouterr().out.replace("\n", " ")


def test_logging_setup_is_restored(cli: CLI) -> None:
    before = structlog.get_config()
    cli("browse", "ORDERS.IN", "--json")
    assert structlog.get_config() == before


# --- the real entry point -------------------------------------------------------------


def test_python_m_mqjms_in_a_subprocess(tmp_path: Path) -> None:
    url = f"embedded://{tmp_path / 'proc-qm'}"
    env = {**os.environ, "MQJMS_URL": url}

    def mqjms(*argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "mqjms", *argv],
            input=stdin,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=False,
        )

    defined = mqjms("mqsc", stdin="DEFINE QLOCAL(PROC.Q)\nDISPLAY QLOCAL(PROC.Q) CURDEPTH\n")
    assert defined.returncode == 0, defined.stderr
    assert "   CURDEPTH(0)" in defined.stdout
    # persistent: each process opens the directory anew (a queue manager restart)
    put = mqjms("put", "PROC.Q", "--body", "across processes", "--persistent")
    assert put.returncode == 0, put.stderr
    got = mqjms("get", "PROC.Q", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["body"] == "across processes"
    assert json.loads(got.stdout)["md"]["MsgId"] == put.stdout.strip()
    failing = mqjms("mqsc", stdin="DELETE QLOCAL(NOPE)\n")
    assert failing.returncode == 10 and "MQRC_UNKNOWN_OBJECT_NAME (2085)" in failing.stdout
    expired = mqjms("put", "PROC.Q", "--body", "x", "--expiry", "0")
    assert expired.returncode == 2
    assert "MQRC_EXPIRY_ERROR (2013)" in expired.stderr and "Traceback" not in expired.stderr


def test_ctrl_c_while_the_subcommands_load_exits_130_without_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # SIGINT 0.15 s after `mqjms run` started met the subcommands' imports, outside the
    # handler's try: a KeyboardInterrupt traceback reached the user
    import mqjms.cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(mqjms.cli, "build_parser", interrupted)
    assert mqjms.cli.main(["run", "app:app"]) == 130
    assert "Traceback" not in capsys.readouterr().err
