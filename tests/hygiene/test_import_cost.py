"""What ``import mqjms`` does not import (issue 9, target 5: it adds at most 60 ms).

Checked by the modules a fresh interpreter holds after the import, never by time: the
heavy imports load on first need instead (structlog with the first event, tenacity with
the first reconnection wait, asyncio with the first ``async def`` listener, the trigger
monitor on first access, the transports, the drop-in and Spark when used). ``import
mqjms`` alone loads none of its API (each name on first access); a worker program, which
touches ``Worker``, ``ConnectionFactory`` and ``TextMessage``, loads none of the rarer
paths (dead letters, exception reports, selectors, pub/sub, health checks).
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

#: Never loaded by a worker program's imports (bench/startup.py's WORKER): module -> why.
NOT_IMPORTED_BY_A_WORKER = {
    "mqjms.semantics.deadletter": "the MQDLH and its put: a poison message with no BOQNAME",
    "mqjms.mq.dlh": "see mqjms.semantics.deadletter",
    "mqjms.semantics.put": "MQPUT's defaults, for the dead-letter put and the emulations",
    "mqjms.backout.exception_report": "a poison message whose Report options ask for one",
    "mqjms.semantics.reports": "see mqjms.backout.exception_report",
    "mqjms.semantics.selector": "message selectors: a topic listener or consumer with one",
    "mqjms.semantics.pubsub": "subscriptions: the first topic listener or consumer",
    "mqjms.semantics.topics": "topic strings' rules: the first subscription",
    "mqjms.listeners.health": "Worker.health(), queue_depths() and a failed start",
    "mqjms.jms.consumer": "session.consumer(), not a Worker",
    "mqjms.jms.producer": "session.producer()",
    "mqjms.mq.tm": "trigger messages",
    "uuid": "a JMS connection's origin: with the first connection (it loads platform)",
    "platform": "see uuid",
    "pathlib": "an embedded: URL's directory, when it is connected to",
    "tempfile": "never on this path",
    "fnmatch": "never on this path",
}

#: A typical worker program's imports: what bench/startup.py times as "a worker's imports".
WORKER = "import mqjms; mqjms.Worker; mqjms.ConnectionFactory; mqjms.TextMessage"

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


def test_import_mqjms_alone_loads_none_of_its_api() -> None:
    bare = _modules_after("import json, sys; print(json.dumps(sorted(sys.modules)))")
    loaded = _modules_after("import json, sys, mqjms; print(json.dumps(sorted(sys.modules)))")
    assert sorted(m for m in loaded if m.startswith("mqjms")) == ["mqjms", "mqjms._lazy"]
    added = loaded - bare
    assert added == {"mqjms", "mqjms._lazy"}, "import mqjms imported more than itself"


def test_a_worker_programs_imports_leave_the_rarer_paths_unloaded() -> None:
    # what the interpreter loads by itself (a .pth file may import pathlib) is not ours
    bare = _modules_after("import json, sys; print(json.dumps(sorted(sys.modules)))")
    loaded = _modules_after(f"import json, sys; {WORKER}; print(json.dumps(sorted(sys.modules)))")
    assert {"mqjms.listeners.worker", "mqjms.jms.factory", "mqjms.jms.message"} <= loaded
    found = {
        name: why
        for name, why in {**NOT_IMPORTED, **NOT_IMPORTED_BY_A_WORKER}.items()
        if any(m == name or m.startswith(name + ".") for m in loaded - bare)
    }
    assert found == {}


def test_the_rarer_paths_still_load_when_used() -> None:
    code = textwrap.dedent(
        f"""
        import json, sys
        {WORKER}
        from mqjms.jms.topic import subscription_name
        from mqjms.listeners import Worker
        assert subscription_name("app", "s", durable=True, shared=False) == "JMS:app:s"
        app = Worker("embedded:///nowhere")
        app.listener(topic="prices/#", selector="price > 1")(lambda msg: None)
        print(json.dumps(sorted(sys.modules)))
        """
    )
    loaded = _modules_after(code)
    assert {"mqjms.semantics.pubsub", "mqjms.semantics.selector"} <= loaded
