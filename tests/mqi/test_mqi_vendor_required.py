"""CI runs the upstream checks rather than skipping them (issue 14: a skip on a fresh CI
machine is a failure): ``MQJMS_REQUIRE_VENDOR=1`` turns a missing vendor file into a
failure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.mqi import mqi_vendor as vendor


def test_a_missing_vendor_file_skips_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MQJMS_REQUIRE_VENDOR", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"scripts/vendor\.py"):
        vendor.absent("x.py is absent")


def test_a_missing_vendor_file_fails_when_required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MQJMS_REQUIRE_VENDOR", "1")
    with pytest.raises(pytest.fail.Exception, match="MQJMS_REQUIRE_VENDOR"):
        vendor.absent("x.py is absent")


def test_ci_requires_the_vendor_files() -> None:
    run = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert "export MQJMS_REQUIRE_VENDOR=1" in run
    assert run.index("scripts/setup") < run.index("MQJMS_REQUIRE_VENDOR")
