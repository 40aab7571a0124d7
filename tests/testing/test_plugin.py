"""The pytest plugin as a user meets it: ``pip install mqjms`` registers it (pytest11 entry
point), a test asks for ``mq`` and gets a throwaway queue manager, and naming the plugin
in ``pytest_plugins`` as well does no harm."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import mqjms
from mqjms.testing import TestQueueManager

REPO = Path(__file__).resolve().parents[2]
PLUGIN = "mqjms.testing.plugin"

SERVICE = """
import json

import mqjms

app = mqjms.Worker("embedded:///var/lib/orders")  # run_until_idle points it at the test's


class InvalidOrder(ValueError):
    pass


@app.listener("ORDERS.IN", concurrency=2, move_on=InvalidOrder)
def handle(msg: mqjms.Message) -> None:
    order = json.loads(msg.body)
    if order["quantity"] <= 0:
        raise InvalidOrder(f"order {order['id']}: quantity {order['quantity']}")
"""

USER_TEST = """
from mqjms.testing import TestQueueManager

from service import app


def test_orders(mq: TestQueueManager) -> None:
    mq.mqsc("DEFINE QLOCAL(ORDERS.IN) BOTHRESH(3) BOQNAME(ORDERS.BACKOUT)")
    mq.mqsc("DEFINE QLOCAL(ORDERS.BACKOUT)")
    mq.put("ORDERS.IN", '{"id": 1, "quantity": 2}')
    mq.put("ORDERS.IN", '{"id": 2, "quantity": -1}')
    mq.put("ORDERS.IN", "not json")
    summary = mq.run_until_idle(app)
    assert summary.committed == 1
    assert summary.destinations() == {"ORDERS.BACKOUT": 2}
    # two consumers: which of the two reaches the backout queue first is theirs to race
    by_failure = {m.properties["mqjms_failure_exception"]: m for m in mq.browse("ORDERS.BACKOUT")}
    invalid = by_failure["service.InvalidOrder"]
    unreadable = by_failure["json.decoder.JSONDecodeError"]
    assert invalid.properties["mqjms_failure_message"] == "order 2: quantity -1"
    assert unreadable.md.BackoutCount == 0 and mq.depth("ORDERS.IN") == 0
"""


# The README's "listener service in ten lines", with somewhere to ship to.
README_SERVICE = """
import json

import mqjms

app = mqjms.Worker("embedded:///var/lib/orders")
shipped = []


def ship(order):
    shipped.append(order)


@app.listener("ORDERS.IN", concurrency=4)
def handle(msg: mqjms.Message) -> None:
    order = json.loads(msg.body)
    ship(order)
"""


def _entry_points() -> dict[str, str]:
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    return dict(project["entry-points"]["pytest11"])


def test_pyproject_registers_the_plugin_under_its_module_name() -> None:
    # the entry point's name is the module's, so `pytest_plugins = [PLUGIN]` is a no-op
    # when pytest has loaded it already, not "Plugin already registered under a different name"
    assert _entry_points() == {PLUGIN: PLUGIN}


def test_an_installed_mqjms_gives_a_users_tests_the_mq_fixture(pytester: pytest.Pytester) -> None:
    # What `pip install mqjms` writes for pytest to find: the pyproject's entry points.
    dist = pytester.mkdir("site") / "mqjms_fixture-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mqjms-fixture\nVersion: 0\n")
    lines = [f"{name} = {target}" for name, target in _entry_points().items()]
    (dist / "entry_points.txt").write_text("[pytest11]\n" + "\n".join(lines) + "\n")
    pytester.makepyfile(service=SERVICE, test_orders=USER_TEST)
    # a conftest naming the plugin too, as one written for PYTEST_DISABLE_PLUGIN_AUTOLOAD
    pytester.makeconftest(f"pytest_plugins = [{PLUGIN!r}]")
    pytester.syspathinsert(dist.parent)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_the_fixture_points_mqjms_url_at_its_queue_manager(mq: TestQueueManager) -> None:
    mq.define_queue("Q")
    with mqjms.ConnectionFactory().connect() as conn:  # the default URL: MQJMS_URL
        conn.session().producer("Q").send("via the default URL")
    [msg] = mq.browse("Q")
    assert msg.body == "via the default URL" and mq.url.startswith("embedded://")


def test_puts_bodies_as_a_plain_mq_application_and_messages_as_jms_does(
    mq: TestQueueManager,
) -> None:
    from mqjms.mq import C

    mq.define_queue("Q", MSGDLVSQ="FIFO")  # in put order, whatever their priority
    text = mq.put("Q", "café", Priority=7)
    raw = mq.put("Q", b"\x00\x01", Format=C.MQFMT_NONE)
    jms = mq.put("Q", mqjms.TextMessage("hello", {"orderId": 7}), Persistence=1)
    latin = mq.put("Q", "café", CodedCharSetId=819)
    mds = [md for md, _ in mq.browse_raw("Q")]
    assert [md.MsgId for md in mds] == [text.MsgId, raw.MsgId, jms.MsgId, latin.MsgId]
    first, second, third, fourth = mq.browse("Q")
    assert (first.body, first.md.Format, first.md.Priority) == ("café", C.MQFMT_STRING, 7)
    assert isinstance(second, mqjms.BytesMessage) and second.body == b"\x00\x01"
    assert third.md.Format == C.MQFMT_RF_HEADER_2 and third.properties == {"orderId": 7}
    assert third.body == "hello" and third.md.Persistence == 1
    assert mq.browse_raw("Q")[3][1] == "café".encode("latin-1") and fourth.body == "café"
    assert mq.depth("Q") == 4


def test_mqsc_runs_scripts_and_names_the_command_that_failed(mq: TestQueueManager) -> None:
    from mqjms.mq import C, MQError

    mq.mqsc("DEFINE QLOCAL(A.Q) BOTHRESH(5) BOQNAME(A.BO)\nDEFINE QALIAS(A.ALIAS) TARGET(A.Q)")
    [shown] = mq.mqsc("DISPLAY QLOCAL(A.Q) BOTHRESH BOQNAME")
    assert shown.objects[0]["BOTHRESH"] == 5 and shown.objects[0]["BOQNAME"] == "A.BO"
    assert mq.base_queue("A.ALIAS") == "A.Q"
    with pytest.raises(MQError) as raised:
        mq.mqsc("ALTER QLOCAL(A.Q) BOTHRESH(1)\nALTER QLOCAL(NO.SUCH.Q) BOTHRESH(1)")
    assert raised.value.reason == C.MQRC_UNKNOWN_OBJECT_NAME
    assert "MQSC command 2 failed: ALTER QLOCAL(NO.SUCH.Q) BOTHRESH(1)" in str(raised.value)
    assert mq.queue_manager.display_queues("A.Q", attrs=["BOTHRESH"])[0]["BOTHRESH"] == 1


def test_another_transport_needs_its_own_administration() -> None:
    with pytest.raises(ValueError, match="pass admin="):
        TestQueueManager("stomp://user:secret@localhost:61613")
    with pytest.raises(ValueError) as raised:
        TestQueueManager("stomp://user:secret@localhost:61613")
    assert "secret" not in str(raised.value)  # URLs are redacted


def test_a_users_test_file_sees_the_helper_not_a_test_class(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_imports=textwrap.dedent(
            """
            from mqjms.testing import TestQueueManager

            def test_nothing(mq: TestQueueManager) -> None:
                assert isinstance(mq, TestQueueManager)
            """
        )
    )
    result = pytester.runpytest("-p", PLUGIN, "-W", "error::pytest.PytestCollectionWarning")
    result.assert_outcomes(passed=1)


def test_the_readme_example_passes(pytester: pytest.Pytester) -> None:
    section = (REPO / "README.md").read_text().split("## Testing your service\n", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    pytester.makepyfile(myservice=README_SERVICE, test_orders=example)
    result = pytester.runpytest("-p", PLUGIN, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_loading_the_plugin_imports_no_queue_manager() -> None:
    # pytest loads it in every session of every project that has mqjms installed
    code = (
        "import sys, mqjms.testing.plugin; "
        "print(sorted(m for m in sys.modules if m.startswith(('mqjms.qmgr', 'mqjms.testing.'))))"
    )
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['mqjms.testing.plugin']"
