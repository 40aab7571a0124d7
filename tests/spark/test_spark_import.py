"""``import mqjms`` (and ``import mqjms.spark``) never imports pyspark."""

from __future__ import annotations

import subprocess
import sys


def test_import_mqjms_does_not_import_pyspark() -> None:
    code = (
        "import sys, mqjms, mqjms.spark; "
        "print(any(m == 'pyspark' or m.startswith('pyspark.') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
