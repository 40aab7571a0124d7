"""A STOMP password appears in no log line, error, repr or public attribute (docs/stomp.md).

Every URL mqjms logs, shows or raises goes through ``mqjms.transport.url.redact``; these
tests run the real thing (the CLI, a Worker under ``mqjms run``, the trigger monitor, at
``-vv``) with a password URL and grep everything they print.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from structlog.testing import capture_logs

import mqjms
from mqjms.mq import MQError
from mqjms.transport import connect
from mqjms.transport.url import redact
from mqjms.trigger.command import describe
from mqjms.trigger.monitor import EXIT_NOT_RUN
from tests.stomp.activemq_support import StompBroker

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "Pw-9c1e7-h2"
REFUSED = f"stomp://bob:{PASSWORD}@127.0.0.1:1?reconnect=0"  # nothing listens on port 1


def with_password(url: str) -> str:
    return url.replace("stomp://", f"stomp://bob:{PASSWORD}@", 1)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("stomp://bob:pw@host:61613?bothresh=3", "stomp://bob:***@host:61613?bothresh=3"),
        ("stomp+ssl://bob:p%40ss@host?ca=/ca.pem", "stomp+ssl://bob:***@host?ca=/ca.pem"),
        ("stomp://bob:p@ss/w:rd@host", "stomp://bob:***@host"),  # unencoded @ and /
        ("stomp://bob:pw?d@host:61613", "stomp://bob:***@host:61613"),  # unencoded ? and #
        ("stomp://bob:pw#d@host:61613", "stomp://bob:***@host:61613"),
        ("stomp://u:p?w@host:61613/?passcode=s", "stomp://u:***@host:61613/?passcode=***"),
        # an @ in a query or fragment of a URL without a password is left alone
        ("stomp://host:61613/q?reply_to=a@b.c", "stomp://host:61613/q?reply_to=a@b.c"),
        ("stomp://host:61613?login=a@b", "stomp://host:61613?login=a@b"),
        ("stomp://host?client_id=a:b@c", "stomp://host?client_id=a:b@c"),
        ("stomp://host#frag:x@y", "stomp://host#frag:x@y"),
        ("stomp://host?passcode=pw&prefix=A.", "stomp://host?passcode=***&prefix=A."),
        ("stomp://host?Password=pw&token=t", "stomp://host?Password=***&token=***"),
        ("mq://bob:pw@QM1@host(1414)/CHL", "mq://bob:***@host(1414)/CHL"),
        ("stomp:bob:pw@host", "stomp:***@host"),  # no // : masked all the same
        ("bob:pw@host:61613", "bob:***@host:61613"),  # no scheme at all
        ("stomp://bob@host:61613", "stomp://bob@host:61613"),
        ("mq://QM1@host(1414)/CHL", "mq://QM1@host(1414)/CHL"),
        ("embedded:///var/lib/mq?qmgr=QM1", "embedded:///var/lib/mq?qmgr=QM1"),
    ],
)
def test_redact_masks_the_password_and_secret_parameters(url: str, shown: str) -> None:
    # hardening item 2: one redaction function for every URL that is logged or shown
    assert redact(url) == shown


def test_public_objects_show_the_url_without_its_password(amq: StompBroker) -> None:
    # hardening item 2: repr(ConnectionFactory(url)), repr(Worker(url)), .url
    url = with_password(amq.url)
    factory = mqjms.ConnectionFactory(url)
    app = mqjms.Worker(url)
    monitor = mqjms.TriggerMonitor(url, "INITQ")
    shown = [repr(factory), factory.url, repr(app), str(app.url), repr(monitor), monitor.url]
    assert all(PASSWORD not in text and "bob:***@" in text for text in shown), shown
    amq.define_queue("APP.IN")
    # ... and the real URL still connects
    with factory.connect() as conn, conn.session() as session:
        session.producer("APP.IN").send(mqjms.TextMessage("hello"))
        assert session.consumer("APP.IN").receive_body(str, timeout=10) == "hello"


@pytest.mark.parametrize(
    "url",
    [
        f"stomp://bob:{PASSWORD}@127.0.0.1:port",  # not a port number
        f"stomp://127.0.0.1:61613?passcode={PASSWORD}",  # an unknown parameter
        f"stomp://bob:{PASSWORD}@127.0.0.1:61613?reconnect=soon",
        f"amqp://bob:{PASSWORD}@127.0.0.1",  # an unknown transport
        f"mq://bob:{PASSWORD}@QM1@host(1414)/CHL",  # a password in an mq:// URL
        f"bob:{PASSWORD}@127.0.0.1:61613",  # no scheme
        f"stomp://bob:{PASSWORD}?x@127.0.0.1:61613",  # a ? not percent-encoded
        REFUSED,
    ],
)
def test_errors_for_a_bad_url_or_a_refused_connection_hide_the_password(url: str) -> None:
    # hardening item 2: exception texts (a bad URL, a refused connection)
    with pytest.raises((ValueError, MQError)) as err:
        connect(url)
    assert PASSWORD not in str(err.value) and PASSWORD not in repr(err.value)


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("stomp://127.0.0.1:99999", "the port 99999 is not 0-65535"),
        ("stomp://127.0.0.1:-1", "the port -1 is not 0-65535"),
        ("stomp://127.0.0.1:port", "what follows the host is not a port number"),
        ("stomp://bob:SeCrEt", "it may be a password; a user and password go before the host"),
        ("stomp://bob:Se:CrEt", "it may be a password"),
        ("stomp://bob:SeCrEt/x", "it may be a password"),
        (
            "stomp://bob:Pw#9@127.0.0.1:61613",
            "a password holding '#', '?' or '/' ends the address early (percent-encode it, "
            "or give it in MQJMS_STOMP_PASSWORD)",
        ),
    ],
)
def test_a_port_that_does_not_read_as_one_is_said_as_it_is(url: str, said: str) -> None:
    # all were "the port is not a number", the last about a URL whose port was a number
    from mqjms.transport.stomp import parse_url

    with pytest.raises(ValueError) as err:
        parse_url(url)
    assert said in str(err.value) and "Pw#9" not in str(err.value)
    assert "SeCrEt" not in str(err.value)  # user:password with the @host left out


def test_the_drop_ins_error_for_a_bad_url_is_an_mqmierror_without_the_password() -> None:
    import mqjms.pymqi as pymqi
    from mqjms.mqi import routing

    routing.configure(qmgrs={"QMBAD": f"stomp://bob:{PASSWORD}?x@127.0.0.1:61613"})
    try:
        with pytest.raises(pymqi.MQMIError) as err:
            pymqi.connect("QMBAD")
    finally:
        routing.reset()
    assert err.value.reason == pymqi.CMQC.MQRC_HOST_NOT_AVAILABLE
    assert PASSWORD not in str(err.value) and PASSWORD not in repr(err.value)


def test_trigger_monitor_not_run_logs_the_url_without_its_password() -> None:
    # hardening item 2: trigger.monitor_not_run logged the full URL
    with capture_logs() as events:
        assert mqjms.TriggerMonitor(REFUSED, "INITQ").run() == EXIT_NOT_RUN
    [event] = [e for e in events if e["event"] == "trigger.monitor_not_run"]
    assert event["url"] == "stomp://bob:***@127.0.0.1:1?reconnect=0"
    assert PASSWORD not in repr(events)


def test_the_command_a_trigger_monitor_logs_hides_a_url_password_in_envrdata() -> None:
    # hardening item 2: ENVRDATA('--url stomp://bob:pw@host') is logged in trigger.started
    argv = ["mqjms", "run", "svc:app", "TMC " + " " * 728, "--url", with_password("stomp://h")]
    shown = describe(argv)
    assert PASSWORD not in shown and "stomp://bob:***@h" in shown and "<MQTMC2 732>" in shown


SERVICE = textwrap.dedent(
    """
    import mqjms

    app = mqjms.Worker()


    @app.on_start
    def show() -> None:
        print("repr:", repr(app), "url:", app.url, flush=True)


    @app.listener("APP.IN")
    def handle(msg: mqjms.Message) -> None:
        print("got:", msg.body, flush=True)
    """
)


def test_cli_worker_and_trigger_monitor_at_debug_never_show_the_password(
    amq: StompBroker, tmp_path: Path
) -> None:
    # hardening item 2: worker.started, trigger.monitor_started and trigger.monitor_not_run
    # logged the full URL; docs/stomp.md promises no log line, error or repr shows it.
    amq.define_queue("APP.IN")
    amq.define_queue("INITQ")
    url = with_password(amq.url)
    (tmp_path / "service.py").write_text(SERVICE)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )

    def mqjms_cli(*argv: str) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "mqjms", "-vv", *argv],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            cwd=tmp_path,
        )
        return done.stdout + done.stderr

    outputs = [
        mqjms_cli("put", "--url", url, "APP.IN", "--body", "hello"),
        mqjms_cli("browse", "--url", url, "APP.IN"),
        mqjms_cli("run", "service:app", "--url", url, "--idle-timeout", "1"),
        mqjms_cli("trigger-monitor", "--url", url, "--initq", "INITQ", "--wait", "0.5"),
        mqjms_cli("trigger-monitor", "--url", REFUSED, "--initq", "INITQ"),
        mqjms_cli("get", "--url", REFUSED, "APP.IN"),
        mqjms_cli("get", "--url", f"{amq.url}&passcode={PASSWORD}", "APP.IN"),
        mqjms_cli("get", "--url", f"stomp://bob:{PASSWORD}@127.0.0.1:port", "APP.IN"),
    ]
    text = "\n".join(outputs)
    assert PASSWORD not in text, text
    # the events that used to leak did run, with the URL masked
    for shown in (
        "worker.started",
        "trigger.monitor_started",
        "trigger.monitor_not_run",
        "got: hello",
        "repr: Worker('stomp://bob:***@",
        "url='stomp://bob:***@",
    ):
        assert shown in text, text
