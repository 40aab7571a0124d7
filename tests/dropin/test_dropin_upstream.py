"""pymqi's and ibmmq's own tests pass, unchanged, on the drop-in (issue 14).

The pure ones: ``test_rfh2.py`` parses the captured RFH2 messages (shared/testdata/rfh2,
the same bytes both libraries ship in tests/messages) and ``test_api_transition_pep8.py``
checks the API's old and new names. The ones that need a queue manager (truncation,
str/unicode puts, put1, 200 messages of random sizes, RFH2 put and get, message
properties, publish/subscribe with managed and provided, durable and non-durable, API and
administrative subscriptions; they create their queues and subscriptions with PCF) run
against an embedded queue manager named as their configuration expects (ibmmq's QM1,
pymqi's MQTEST). Each runs as the library's own suite would, with unittest, in a process
where ``import pymqi`` / ``import ibmmq`` is the drop-in (``python -m mqjms.pymqi -m
unittest``). The test files are read from the vendor cache; their ``messages`` directory
is pointed at shared/testdata/rfh2 (nothing is copied).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from tests.mqi import mqi_vendor as vendor

REPO = Path(__file__).resolve().parents[2]


def _tests_dir(flavour: str) -> Path:
    if flavour == "ibmmq":
        return vendor.ibmmq_package_dir().parent / "tests"
    return vendor.pymqi_github_code() / "tests"


def _run_suite(flavour: str, modules: list[str], tmp_path: Path, url: str | None = None) -> str:
    tests = _tests_dir(flavour)
    for module in modules:
        if not (tests / f"{module}.py").exists():
            vendor.absent(f"{tests / module}.py is absent")
    for source in tests.glob("*.py"):  # the suite's helpers (config, utils, test_setup) too
        (tmp_path / source.name).symlink_to(source)  # run as they are, beside our data
    (tmp_path / "messages").symlink_to(vendor.rfh2_testdata())
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    if url is not None:
        env["MQJMS_URL"] = url
    result = subprocess.run(
        [sys.executable, "-m", f"mqjms.{flavour}", "-m", "unittest", "-v", *modules],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\nOK" in result.stderr, result.stderr
    return result.stderr


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
@pytest.mark.parametrize("name", ["test_rfh2", "test_api_transition_pep8"])
def test_pure_suite_passes_unchanged(flavour: str, name: str, tmp_path: Path) -> None:
    _run_suite(flavour, [name], tmp_path)


CONNECTED = {
    "ibmmq": ("QM1", ["test_base_api", "test_rfh2_put_get", "test_message_property",
                      "test_get_buffers", "test_pubsub"]),
    "pymqi": ("MQTEST", ["test_base_api", "test_rfh2_put_get", "test_message_property",
                         "test_pubsub"]),
}  # fmt: skip


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_connected_suites_pass_unchanged_on_the_embedded_queue_manager(
    flavour: str, tmp_path: Path
) -> None:
    qmgr, modules = CONNECTED[flavour]
    output = _run_suite(flavour, modules, tmp_path, f"embedded://{tmp_path}/qm?qmgr={qmgr}")
    assert "skipped" not in output.splitlines()[-1]


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_the_module_version_is_the_one_the_library_reports(flavour: str) -> None:
    """``pymqi.__version__`` is what pymqi 1.12.13's __init__.py says, "1.12.11" (it was
    "1.12.13" here); ibmmq's is its package version."""
    if flavour == "pymqi":
        source = (vendor.pymqi_package_dir() / "__init__.py").read_text()
        found = re.search(r"^__version__ = '([^']+)'", source, re.MULTILINE)
        assert found is not None and mqjms.pymqi.__version__ == found.group(1) == "1.12.11"
    else:
        assert mqjms.ibmmq.__version__ == vendor.IBMMQ_SDIST.split("-", 1)[1]
