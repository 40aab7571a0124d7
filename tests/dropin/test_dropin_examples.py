"""The examples of ibm-messaging/mq-mqi-python (ibmmq, from its source distribution) and of
dsuch/pymqi run unchanged on the embedded queue manager (issue 14's acceptance).

Each runs as its own process, ``python -m mqjms.ibmmq EXAMPLE.py`` (or ``mqjms.pymqi``),
with MQJMS_URL naming a fresh queue manager on which examples/pymqi/dev-config.mqsc
defined IBM's developer configuration. Nothing of theirs is in this repository: the
files are read from the vendor cache (tests/mqi/mqi_vendor.py; ``scripts/setup``
downloads the sdists), and the tests skip, saying so, without them. Every example file is
either run here or listed in EXCLUDED with the reason it cannot run without an IBM MQ
installation, a channel or authority records. publish_message.py and subscribe.py also
run together: the subscriber receives what the publisher publishes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mqjms.mq import MQMD, C
from mqjms.mq.dlh import MQDLH
from mqjms.mq.rfh2 import RFH2, build_chain
from mqjms.transport import Connection, connect, embedded
from tests.mqi import mqi_vendor as vendor

REPO = Path(__file__).resolve().parents[2]
DEV_CONFIG = REPO / "examples" / "pymqi" / "dev-config.mqsc"

Setup = Callable[[Connection], None]


@dataclass(frozen=True)
class Example:
    expect: tuple[str, ...] = ()  # lines of output that must appear
    setup: Setup | None = None
    args: tuple[str, ...] = ()
    interrupt_after: str | None = None  # a long-running program: Ctrl-C once this appears
    check: Callable[[Connection], None] | None = None
    exit_codes: tuple[int, ...] = (0,)
    min_python: tuple[int, int] = (3, 11)
    extra: dict[str, str] = field(default_factory=dict)


def put(queue: str, *bodies: bytes, **md: object) -> Setup:
    def setup(conn: Connection) -> None:
        for body in bodies:
            conn.put(queue, MQMD(**md), body)  # type: ignore[arg-type]

    return setup


def depth_is(queue: str, count: int) -> Callable[[Connection], None]:
    def check(conn: Connection) -> None:
        assert int(conn.inquire(queue, [C.MQIA_CURRENT_Q_DEPTH])[C.MQIA_CURRENT_Q_DEPTH]) == count

    return check


def _dead_letter(conn: Connection) -> None:
    """A dead-letter message holding an RFH2, as dlq_browse and hdr_browse format them."""
    rfh2 = RFH2(Format=C.MQFMT_STRING, folders=["<usr><reason>test</reason></usr>"])
    inner = build_chain([rfh2], b"the original body", C.MQENC_NATIVE)
    dlh = MQDLH(Reason=C.MQRC_BACKOUT_THRESHOLD_REACHED, DestQName="DEV.QUEUE.1",
                DestQMgrName="QM1", Format=C.MQFMT_RF_HEADER_2, CodedCharSetId=1208)  # fmt: skip
    md = MQMD(Format=C.MQFMT_DEAD_LETTER_HEADER, CodedCharSetId=1208)
    for queue in ("SYSTEM.DEAD.LETTER.QUEUE", "DEV.DEAD.LETTER.QUEUE"):
        conn.put(queue, md, dlh.pack() + inner)


def _request_with_reply_to(conn: Connection) -> None:
    conn.put("TEST.1", MQMD(ReplyToQ="REPLYTO.QUEUE.1", Format=C.MQFMT_STRING), b"ping")


def _identity_is_set(conn: Connection) -> None:
    handle = conn.open("DEV.QUEUE.1", C.MQOO_BROWSE)
    from mqjms.transport import Browse

    got = conn.get(handle, browse=Browse.FIRST)
    assert got is not None and got[0].ApplIdentityData == "MyApplId"


def _queue_defined(name: str) -> Callable[[Connection], None]:
    def check(conn: Connection) -> None:
        conn.inquire(name, [C.MQIA_MAX_Q_DEPTH])  # 2085 if it is not there

    return check


IBMMQ: dict[str, Example] = {
    "alternate_user_id": Example(("Done.",), check=depth_is("DEV.QUEUE.1", 1)),
    "async_consume": Example(
        ("Msg=b'Hello'", "MQCBCT_MSG_REMOVED", "MQRC_NO_MSG_AVAILABLE", "Done."),
        setup=put("DEV.QUEUE.1", b"Hello"),
    ),
    "channel_compression": Example(("Done.",)),
    "checking_cc_and_rc": Example(),  # connects: no error to report
    "connect_client": Example(("Connection succeeded",)),
    "connect_client_creds": Example(("Connection succeeded.",)),
    "connect_client_tls": Example(("Connection successful.", "Here is the message again")),
    "connect_simple": Example(("Connection succeeded.",)),
    "def_queue": Example(("Done.",), check=_queue_defined("MYQUEUE.1")),
    "dis_channels": Example(("No channels matched prefix `SYSTEM.*`", "Done.")),
    # APPLTAG as IBM MQ on Linux names a program: its process's name (15 bytes at most)
    "dis_conns": Example(
        (
            "Listing connections...",
            f'Found application "{Path(sys.executable).name[:15]}"',
            "Done.",
        )
    ),
    "dis_queues": Example(('Found queue "SYSTEM.DEFAULT.LOCAL.QUEUE"', "depth: 0", "Done.")),
    "dis_queues_extended": Example(('Found queue "SYSTEM.DEAD.LETTER.QUEUE"', "Done.")),
    "dlq_browse": Example(
        ("DLH:", "RFH:", "MSG:  b'the original body'", "No more messages."), setup=_dead_letter
    ),
    "dynamic_queues": Example(("Done.",), check=depth_is("DEV.QUEUE.1", 1)),
    "get_message": Example(("Message: b'Hello'",), setup=put("DEV.QUEUE.1", b"Hello")),
    "get_wait_multiple_messages": Example(
        ("Message:  b'one'", "Message:  b'three'", "No more messages."),
        setup=put("DEV.QUEUE.1", b"one", b"two", b"three"),
    ),
    "get_wait_single_message": Example(("Message:  b'Hello'",), setup=put("DEV.QUEUE.1", b"Hello")),
    "get_wait_truncated_message": Example(
        ("Message has been sucessfully truncated.", "Original length: 5", "Message:  b'He'"),
        setup=put("DEV.QUEUE.1", b"Hello"),
        min_python=(3, 12),  # its f-string reuses the quotes (PEP 701)
    ),
    "hdr_browse": Example(
        (
            "Header: MQDEAD",
            "Header: MQHRF2",
            "Folder usr",
            "the original body",
            "No more messages.",
        ),
        setup=_dead_letter,
        args=("DEV.DEAD.LETTER.QUEUE",),
    ),
    "inq_set": Example(("QMgr version:  b'09040000'", "MQIA_TRIGGER_DEPTH", "Done.")),
    "is_connected": Example(("qmgr.is_connected=`True`",)),
    "message_priority": Example(("Received a message, priority",)),
    "message_properties": Example(
        ("Property name: `Property_1`, property value: `42`", "No more properties"),
        check=depth_is("DEV.QUEUE.1", 0),
    ),
    "put1_message": Example(("Done.",), check=depth_is("DEV.QUEUE.1", 1)),
    "put_async_message": Example(("Put Success: 10", "Put Failure: 10", "Done.")),
    "put_get_correl_id": Example(("Got response message",), interrupt_after="Got response message"),
    "put_message": Example(("Done.",), check=depth_is("DEV.QUEUE.1", 1)),
    "publish_message": Example(("Message published OK", "Done.")),  # no subscriber: no copy
    "subscribe": Example(("No more messages.",)),  # nothing published within its 5 s wait
    "set_identity": Example(("Done.",), check=_identity_is_set),
}
PYMQI: dict[str, Example] = {
    "alternate_user_id": Example(check=depth_is("TEST.1", 1)),
    "avoid_mqrc_already_connected1": Example(check=depth_is("TEST.1", 1)),
    "avoid_mqrc_already_connected2": Example(check=depth_is("TEST.1", 1)),
    "channel_compression": Example(check=depth_is("TEST.1", 1)),
    "checking_cc_and_rc": Example(),
    "connect_bindings": Example(),
    "connect_client_creds": Example(),
    "define_queue": Example(check=_queue_defined("MYQUEUE.1")),
    "dis_channels": Example(("No channels matched prefix `SYSTEM.*`",)),
    "dis_queues": Example(("Found queue `b'SYSTEM.DEFAULT.MODEL.QUEUE",)),
    "dynamic_queues": Example(check=depth_is("TEST.1", 1)),
    "get_message": Example(setup=put("TEST.1", b"Hello"), check=depth_is("TEST.1", 0)),
    "get_wait_multiple_messages": Example(  # loops for ever: ended with Ctrl-C
        setup=put("TEST.1", b"one", b"two"),
        interrupt_after="",
        check=depth_is("TEST.1", 0),
        exit_codes=(1, 130, -signal.SIGINT),
    ),
    "get_wait_single_message": Example(setup=put("TEST.1", b"Hello"), check=depth_is("TEST.1", 0)),
    "is_connected": Example(("qmgr.is_connected=`True`",)),
    "message_priority": Example(("Received a message, priority `2`.",)),
    "message_property_set": Example(("property value: `Hello from Python!`",)),
    "ping_queue_manager": Example(),
    "put_get_correl_id": Example(("Got response message",), interrupt_after="Got response message"),
    "put_message": Example(check=depth_is("TEST.1", 1)),
    "reply_to_queues": Example(setup=_request_with_reply_to, check=depth_is("REPLYTO.QUEUE.1", 1)),
    "ssl_tls": Example(("Here is the message again: [b'Hello from Python!']",)),
}
EXCLUDED = {
    "check_mq_version_rpm": "reads the RPM database for an MQ client installation",
    "check_mq_version_windows": "reads the Windows registry for an MQ installation",
    "def_channel": "defines a channel (mqjms has none)",
    "define_channel": "defines a channel (mqjms has none)",
    "set_auth_rec": "sets authority records",
    "connect_client": "pymqi's copy uses names it never defines (NameError on real pymqi too)",
}


def _examples(flavour: str) -> Path:
    if flavour == "ibmmq":
        return vendor.ibmmq_package_dir().parent / "examples"
    return vendor.pymqi_github_code() / "examples"


@pytest.fixture
def qmgr_url(tmp_path: Path) -> str:
    """A fresh embedded queue manager QM1 with examples/pymqi/dev-config.mqsc run on it."""
    url = f"embedded://{tmp_path}/qm?qmgr=QM1"
    results = embedded.queue_manager(url).mqsc(DEV_CONFIG.read_text())
    assert all(result.ok for result in results), [r.render() for r in results if not r.ok]
    return url


def _run(flavour: str, program: Path, spec: Example, url: str, cwd: Path) -> tuple[int, str]:
    env = dict(os.environ, MQJMS_URL=url, **spec.extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", f"mqjms.{flavour}", str(program), *spec.args]
    if spec.interrupt_after is None:
        done = subprocess.run(
            command, env=env, cwd=cwd, capture_output=True, text=True, timeout=120
        )
        return done.returncode, done.stdout + done.stderr
    child = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    assert child.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + 60
    try:
        if spec.interrupt_after:
            while time.monotonic() < deadline:
                line = child.stdout.readline()
                if not line:
                    break
                seen.append(line)
                if spec.interrupt_after in line:
                    break
        else:
            time.sleep(3)  # long enough to drain what setup put
        child.send_signal(signal.SIGINT)
        rest, _ = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
    return child.returncode, "".join(seen) + rest


def _params(flavour: str, specs: dict[str, Example]) -> list[object]:
    return [pytest.param(flavour, name, id=f"{flavour}-{name}") for name in sorted(specs)]


@pytest.mark.parametrize(("flavour", "name"), _params("ibmmq", IBMMQ) + _params("pymqi", PYMQI))
def test_example_runs_unchanged(flavour: str, name: str, qmgr_url: str, tmp_path: Path) -> None:
    spec = (IBMMQ if flavour == "ibmmq" else PYMQI)[name]
    if sys.version_info < spec.min_python:
        pytest.skip(f"{name}.py needs Python {'.'.join(map(str, spec.min_python))}")
    program = _examples(flavour) / f"{name}.py"
    if not program.exists():
        vendor.absent(f"{program} is absent")
    conn = connect(qmgr_url)
    try:
        if spec.setup is not None:
            spec.setup(conn)
        code, output = _run(flavour, program, spec, qmgr_url, tmp_path)
        assert code in spec.exit_codes, output
        for expected in spec.expect:
            assert expected in output, output
        if spec.exit_codes == (0,) and spec.interrupt_after is None:
            # (an interrupted program's daemon threads may fail after it disconnected)
            assert "Traceback" not in output, output
        if spec.check is not None:
            spec.check(conn)
    finally:
        conn.disconnect()


@pytest.mark.parametrize("flavour", ["ibmmq", "pymqi"])
def test_every_example_is_run_or_excluded_with_a_reason(flavour: str) -> None:
    found = {path.stem for path in _examples(flavour).glob("*.py")}
    specs = IBMMQ if flavour == "ibmmq" else PYMQI
    assert found - set(specs) - set(EXCLUDED) == set()


def test_subscribe_receives_what_publish_message_publishes(qmgr_url: str, tmp_path: Path) -> None:
    """ibmmq's subscribe.py (a managed non-durable subscription to dev/, a 5 s wait) gets
    the publication of publish_message.py, both unchanged, each its own process."""
    examples = _examples("ibmmq")
    if not (examples / "subscribe.py").exists():
        vendor.absent(f"{examples} is absent")
    env = dict(os.environ, MQJMS_URL=qmgr_url)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "mqjms.ibmmq"]
    subscriber = subprocess.Popen(
        [*command, str(examples / "subscribe.py")],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        admin = embedded.queue_manager(qmgr_url)
        deadline = time.monotonic() + 60
        while not admin.display_subscriptions() and subscriber.poll() is None:
            assert time.monotonic() < deadline, "subscribe.py did not subscribe"
            time.sleep(0.05)
        code, output = _run("ibmmq", examples / "publish_message.py", Example(), qmgr_url, tmp_path)
        assert code == 0 and "Message published OK" in output, output
        received, _ = subscriber.communicate(timeout=60)
    finally:
        if subscriber.poll() is None:
            subscriber.kill()
    assert subscriber.returncode == 0, received
    assert "Received publication:  b'Hello from Python! Published at" in received, received
    assert "No more messages." in received, received
    assert admin.display_subscriptions() == []  # non-durable: gone with the subscriber
