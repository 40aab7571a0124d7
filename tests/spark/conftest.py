"""Spark tests: one local[2] SparkSession for the whole test session (it costs ~5 s).

Skipped when pyspark or Java is missing, except under CI (``CI=true``), where
scripts/setup installs both and a missing one is a failure. The embedded tests use a
queue manager in a temporary directory; the STOMP tests the private ActiveMQ.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


def _missing() -> str | None:
    try:
        import pyarrow  # noqa: F401
        import pyspark  # noqa: F401
    except ImportError as exc:
        return f"pyspark/pyarrow not installed ({exc}): pip install '.[spark]'"
    if not shutil.which("java") and not os.environ.get("JAVA_HOME"):
        return "no Java: scripts/setup installs a headless JRE"
    return None


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    missing = _missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"the Spark tests must run in CI: {missing}")
        pytest.skip(missing)
    # Python workers import the listener apps of these tests (and mqjms) by name.
    paths = [str(HERE), str(REPO), os.environ.get("PYTHONPATH", "")]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("mqjms-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "1g")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    import mqjms.spark

    mqjms.spark.register(session)
    yield session
    session.stop()
