"""What ``import mqjms`` does not import (issue 9, target 5: it adds at most 60 ms).

Checked by the modules a fresh interpreter holds after the import, never by time: the
heavy imports load on first need instead (structlog with the first event, tenacity with
the first reconnection wait, asyncio with the first ``async def`` listener, the trigger
monitor on first access, the transports, the drop-in and Spark when used).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: Never loaded by ``import mqjms``: module -> why it is expensive or optional.
NOT_IMPORTED = {
    "structlog": "its dev console loads rich when installed: most of the old import time",
    "rich": "structlog's pretty tracebacks",
    "tenacity": "reconnection waits only",
    "asyncio": "async listeners only",
    "urllib.request": "xml.sax.saxutils loads it (http, email, ssl) for quoteattr",
    "http.client": "see urllib.request",
    "ssl": "see urllib.request",
    "importlib.metadata": "transport entry points, read when a URL needs them",
    "calendar": "loads locale; JMSTimestamp from an MQMD only",
    "subprocess": "the trigger monitor starts programs",
    "mqjms.trigger": "mqjms.TriggerMonitor, loaded on first access",
    "mqjms.transport.stomp": "a transport: loaded by its URL scheme",
    "mqjms.qmgr": "the embedded queue manager: loaded by an embedded:// connection",
    "mqjms.spark": "the Spark extra",
    "pyspark": "the Spark extra",
    "mqjms.pymqi": "the drop-in",
    "mqjms.ibmmq": "the drop-in",
    "stomp": "stomp.py, for stomp:// only",
    "mqjms.cli": "the mqjms command",
}

PROBE = textwrap.dedent(
    """
    import json, sys
    import mqjms
    assert mqjms.Worker and mqjms.ConnectionFactory  # the public API is there
    print(json.dumps(sorted(sys.modules)))
    """
)


def _modules_after(code: str) -> set[str]:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=REPO, capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout))


def test_import_mqjms_leaves_the_heavy_and_optional_modules_unloaded() -> None:
    loaded = _modules_after(PROBE)
    found = {
        name: why
        for name, why in NOT_IMPORTED.items()
        if any(m == name or m.startswith(name + ".") for m in loaded)
    }
    assert found == {}


def test_the_lazy_parts_load_on_first_use() -> None:
    # mqjms.TriggerMonitor still works (PEP 562), and a logged warning loads structlog
    code = PROBE.replace(
        "print(",
        "assert mqjms.TriggerMonitor.__name__ == 'TriggerMonitor'\n"
        "mqjms.logs.get_logger('mqjms.test').debug('quiet')\n"
        "assert 'structlog' not in sys.modules, 'a disabled debug event loaded structlog'\n"
        "import io; sys.stderr = io.StringIO()\n"
        "mqjms.logs.get_logger('mqjms.test').warning('shown')\n"
        "assert 'shown' in sys.stderr.getvalue()\n"
        "print(",
    )
    loaded = _modules_after(code)
    assert {"mqjms.trigger", "structlog"} <= loaded
