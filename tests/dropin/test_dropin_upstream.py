"""pymqi's and ibmmq's own pure tests pass, unchanged, on the drop-in (issue 14).

``test_rfh2.py`` parses the captured RFH2 messages (shared/testdata/rfh2, the same bytes
both libraries ship in tests/messages) and ``test_api_transition_pep8.py`` checks the
API's old and new names. Each runs as the library's own suite would, with unittest, in a
process where ``import pymqi`` / ``import ibmmq`` is the drop-in (``python -m
mqjms.pymqi -m unittest``). The test files are read from the vendor cache; their
``messages`` directory is pointed at shared/testdata/rfh2 (nothing is copied).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mqi import mqi_vendor as vendor

REPO = Path(__file__).resolve().parents[2]
SHARED_RFH2 = (
    next(
        (
            p
            for p in (REPO.parent / "shared", REPO.parents[1] / "shared")
            if (p / "testdata").is_dir()
        ),
        REPO / "shared",
    )
    / "testdata"
    / "rfh2"
)


def _tests_dir(flavour: str) -> Path:
    if flavour == "ibmmq":
        return vendor.ibmmq_package_dir().parent / "tests"
    return vendor.pymqi_github_code() / "tests"


@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
@pytest.mark.parametrize("name", ["test_rfh2", "test_api_transition_pep8"])
def test_upstream_suite_passes_unchanged(flavour: str, name: str, tmp_path: Path) -> None:
    source = _tests_dir(flavour) / f"{name}.py"
    if not source.exists():
        pytest.skip(f"{source} is absent")
    (tmp_path / f"{name}.py").symlink_to(source)  # run as it is, from beside our data
    messages = SHARED_RFH2 if SHARED_RFH2.is_dir() else source.parent / "messages"
    (tmp_path / "messages").symlink_to(messages)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    result = subprocess.run(
        [sys.executable, "-m", f"mqjms.{flavour}", "-m", "unittest", "-v", name],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "\nOK" in result.stderr, result.stderr
