"""Shared fixtures: temporary queue managers and the transport-parametrised broker.

The conformance suite (``tests/conformance``) is written only against
``mqjms.transport.connect(url)`` and the :class:`Broker` helper below, so that every
transport runs the same tests. Adding a transport means adding a :class:`Broker`
subclass and a ``pytest.param`` to :data:`TRANSPORT_PARAMS` (with its marker, e.g.
``pytest.mark.stomp`` for a real ActiveMQ broker that the setup starts). What a transport
can do is what its connections declare (``capabilities``: :class:`mqjms.semantics.Capability`);
:attr:`Broker.features` is their names plus what the helper itself can do (``restart``),
and a test marked ``@pytest.mark.requires("fifo")`` is skipped where one is missing.
A test that needs the embedded queue manager itself (it restarts it, counts its SQLite
transactions) is marked ``@pytest.mark.embedded_only("why")`` and is parametrised with
embedded alone. The conformance, seed 002, JMS API and listener suites all run this way.

mqjms.testing's pytest plugin (the ``mq`` fixture users get) is loaded for every test.

No test may create ``./.mqjms`` (the default embedded queue manager) in the repository:
``MQJMS_URL`` points at a temporary directory for the whole session, and any ``.mqjms``
directory that appears in the repository or the working directory anyway is removed at
the end of the session and reported as an error.
"""

from __future__ import annotations

import abc
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from structlog.testing import LogCapture

import mqjms.logs
from mqjms.qmgr import QMConnection, QueueManager
from mqjms.semantics import Capability
from mqjms.transport import embedded
from mqjms.transport.url import ENV_VAR

REPO = Path(__file__).resolve().parent.parent

# mqjms.testing's fixtures: pytest loads the plugin through its entry point when mqjms is
# installed; a checkout run from PYTHONPATH has no entry point, so it is named here too
# (under the same name, so the two never clash).
pytest_plugins = ["mqjms.testing.plugin", "pytester"]


def features_of(capabilities: frozenset[Capability], *helper: str) -> frozenset[str]:
    """A Broker's features: its transport's declared capabilities by name, and ``helper``
    features (what the Broker helper itself can do, such as restart the broker, or be
    reached from a child process: ``processes``)."""
    return frozenset({str(capability) for capability in capabilities} | set(helper))


# --------------------------------------------------------------------------- session guard

_STRAY_CANDIDATES = tuple(
    dict.fromkeys((REPO / ".mqjms", REPO / "tests" / ".mqjms", Path.cwd().resolve() / ".mqjms"))
)
_preexisting: set[Path] = set()
_session_tmp: str | None = None
_saved_env: str | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _session_tmp, _saved_env
    config.addinivalue_line(
        "markers",
        "requires(*features): the test needs these Broker features; skipped on a transport "
        "that lacks one (see Broker.features)",
    )
    config.addinivalue_line(
        "markers", "embedded: runs only on the embedded transport (conformance parameter)"
    )
    config.addinivalue_line(
        "markers", "stomp: runs on a real STOMP broker (ActiveMQ) started by the test setup"
    )
    config.addinivalue_line(
        "markers",
        "embedded_only(reason): the test needs the embedded queue manager itself (it "
        "restarts it, counts its SQLite transactions...): its transport is embedded alone",
    )
    _preexisting.update(p for p in _STRAY_CANDIDATES if p.exists())
    # Anything that falls back to the default URL (including child processes, which
    # inherit the environment) lands in a temporary directory, never in ./.mqjms.
    _session_tmp = tempfile.mkdtemp(prefix="mqjms-tests-")
    _saved_env = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = f"embedded://{_session_tmp}/default"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    embedded.close_all()
    stray = [p for p in _STRAY_CANDIDATES if p.exists() and p not in _preexisting]
    for path in stray:
        shutil.rmtree(path, ignore_errors=True)
    if _session_tmp is not None:
        shutil.rmtree(_session_tmp, ignore_errors=True)
    if _saved_env is None:
        os.environ.pop(ENV_VAR, None)
    else:
        os.environ[ENV_VAR] = _saved_env
    if stray:
        names = ", ".join(str(p) for p in stray)
        writer = session.config.get_terminal_writer()
        writer.line()
        writer.line(
            f"ERROR: tests left stray embedded queue manager directories (removed): {names}",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def _close_embedded_managers() -> Iterator[None]:
    """Every test ends with the process's embedded queue managers closed (threads stopped,
    locks released), so no test sees another's state."""
    yield
    embedded.close_all()


@pytest.fixture(autouse=True)
def _structlog_as_it_was() -> Iterator[None]:
    """structlog's configuration after each test is what it was before: structlog's own
    ``capture_logs`` leaves structlog *configured* (with its defaults: every event printed
    on standard output), so mqjms's events would then go there in every later test."""
    was_configured = structlog.is_configured()
    old = structlog.get_config()
    command_default = mqjms.logs._command_default
    yield
    if was_configured:
        structlog.configure(**old)
        mqjms.logs._command_default = command_default
    elif structlog.is_configured():
        mqjms.logs.reset()


@pytest.fixture
def events() -> Iterator[list[dict[str, Any]]]:
    """Every structlog event (DEBUG and up) logged during the test, from any thread."""
    was_configured = structlog.is_configured()
    old = structlog.get_config()
    capture = LogCapture()
    structlog.configure(
        processors=[capture],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=False,
    )
    try:
        yield capture.entries
    finally:
        # Back to exactly what it was: an unconfigured structlog stays unconfigured, so
        # later tests see mqjms's library defaults (quiet below WARNING), not stdout.
        if was_configured:
            structlog.configure(**old)
        else:
            structlog.reset_defaults()


# --------------------------------------------------------------------------- embedded fixtures


@pytest.fixture
def qmgr_dir(tmp_path: Path) -> Path:
    """A fresh directory for one embedded queue manager."""
    return tmp_path / "qm"


@pytest.fixture
def embedded_url(qmgr_dir: Path) -> str:
    """``embedded:///<tmp>/qm``: the URL of the queue manager in :func:`qmgr_dir`."""
    return f"embedded://{qmgr_dir}"


@pytest.fixture
def qm(embedded_url: str) -> Iterator[QueueManager]:
    """The process's QueueManager on :func:`qmgr_dir`, closed after the test.

    It is the instance ``mqjms.transport.connect(embedded_url)`` uses, so
    ``embedded.close_all()`` closes it too (afterwards get a new one with
    ``embedded.queue_manager(embedded_url)``); ``qm.restart()`` restarts the queue manager.
    """
    manager = embedded.queue_manager(embedded_url)
    yield manager
    manager.close()


# --------------------------------------------------------------------------- Broker helper


class Broker(abc.ABC):
    """Test-side administration of the thing a transport URL talks to.

    The conformance tests speak the transport contract through ``connect(broker.url)``;
    whatever MQ would do with MQSC (define queues with attributes, alter them, restart the
    queue manager) goes through this helper, which each transport implements with its
    own admin interface (embedded: the QueueManager API; STOMP: the broker's admin hook
    plus the attribute store the STOMP transport keeps).
    """

    name: str = "abstract"
    #: What this transport can do (see :func:`features_of`); tests marked ``requires(x)`` are
    #: skipped without ``x``.
    features: frozenset[str] = frozenset()
    #: The queue manager's DEADQ when nobody changed it.
    default_deadq: str = "SYSTEM.DEAD.LETTER.QUEUE"

    @property
    @abc.abstractmethod
    def url(self) -> str:
        """The transport URL for ``mqjms.transport.connect``."""

    @abc.abstractmethod
    def define_queue(self, name: str, **attrs: object) -> None:
        """DEFINE QLOCAL(name) with MQSC attributes, e.g. ``BOTHRESH=3, BOQNAME="X"``."""

    @abc.abstractmethod
    def define_alias(self, name: str, target: str, **attrs: object) -> None:
        """DEFINE QALIAS(name) TARGET(target) with MQSC attributes."""

    @abc.abstractmethod
    def alter_queue(self, name: str, **attrs: object) -> None:
        """ALTER the queue's attributes (e.g. ``GET="DISABLED"``)."""

    @abc.abstractmethod
    def alter_qmgr(self, **attrs: object) -> None:
        """ALTER QMGR (e.g. ``DEADQ="MY.DLQ"``)."""

    def delete_queue(self, name: str) -> None:
        """DELETE QLOCAL(name) PURGE: afterwards opening or putting to it gives 2085."""
        raise NotImplementedError(f"the {self.name} Broker helper cannot delete queues")

    def define_model(self, name: str, **attrs: object) -> None:
        """DEFINE QMODEL(name) with MQSC attributes (a managed queue's model, seed 002)."""
        raise NotImplementedError(f"the {self.name} Broker helper cannot define model queues")

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> None:
        """DEFINE TOPIC(name) TOPICSTR(topic_string) with MQSC attributes (MDURMDL, ...)."""
        raise NotImplementedError(f"the {self.name} Broker helper cannot define topics")

    @abc.abstractmethod
    def restart(self) -> None:
        """Stop the queue manager / broker and start it again (every connection ends)."""

    def close(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release whatever the helper holds (called after each test)."""


class EmbeddedBroker(Broker):
    """The embedded queue manager: administration through the QueueManager API on the
    process's shared instance. A restart closes every queue manager object of this process
    (``embedded.close_all()``: all connections end) and then restarts the queue manager
    (``QueueManager.restart()``, endmqm + strmqm) on a fresh instance."""

    name = "embedded"
    features = features_of(QMConnection.capabilities, "restart", "processes")

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._url = f"embedded://{directory}"

    @property
    def url(self) -> str:
        return self._url

    @property
    def qm(self) -> QueueManager:
        return embedded.queue_manager(self._url)

    def define_queue(self, name: str, **attrs: object) -> None:
        self.qm.define_queue("QLOCAL", name, attrs)

    def define_alias(self, name: str, target: str, **attrs: object) -> None:
        self.qm.define_queue("QALIAS", name, {"TARGET": target, **attrs})

    def alter_queue(self, name: str, **attrs: object) -> None:
        self.qm.alter_queue(name, attrs)

    def alter_qmgr(self, **attrs: object) -> None:
        self.qm.alter_qmgr(attrs)

    def delete_queue(self, name: str) -> None:
        self.qm.delete_queue(name, purge=True)

    def define_model(self, name: str, **attrs: object) -> None:
        self.qm.define_queue("QMODEL", name, attrs)

    def define_topic(self, name: str, topic_string: str, **attrs: object) -> None:
        self.qm.define_topic(name, {"TOPICSTR": topic_string, **attrs})

    def restart(self) -> None:
        embedded.close_all()
        self.qm.restart()

    def close(self) -> None:
        embedded.close_all()


def _embedded_broker(tmp_path: Path) -> Broker:
    return EmbeddedBroker(tmp_path / "broker")


def _stomp_broker(tmp_path: Path) -> Broker:
    """ActiveMQ over STOMP (tests/stomp/activemq_support.py), started once per session."""
    from tests.stomp.activemq_support import BrokerUnavailable, StompBroker

    try:
        return StompBroker()  # type: ignore[return-value]
    except BrokerUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"ActiveMQ is needed in CI and could not be started: {exc}")
        pytest.skip(f"ActiveMQ cannot be installed on this machine: {exc}")


def _mq_broker(library: str) -> Any:
    """mq:// through the real ``library`` (tests/ibmmq: its Python layer over a stand-in for
    its native extension, on an embedded queue manager; or MQJMS_TEST_MQ_URL's queue manager)."""

    def make(tmp_path: Path) -> Broker:
        from tests.ibmmq.brokers import mq_broker

        return mq_broker(tmp_path / "broker", library)

    return make


# name -> factory; every conformance, seed 002 and JMS API test runs on each.
BROKER_FACTORIES = {
    "embedded": _embedded_broker,
    "stomp": _stomp_broker,
    "mq-ibmmq": _mq_broker("ibmmq"),
    "mq-pymqi": _mq_broker("pymqi"),
}
TRANSPORT_PARAMS = [
    pytest.param("embedded", marks=pytest.mark.embedded, id="embedded"),
    pytest.param("stomp", marks=pytest.mark.stomp, id="stomp"),
    pytest.param("mq-ibmmq", marks=pytest.mark.ibmmq, id="mq-ibmmq"),
    pytest.param("mq-pymqi", marks=pytest.mark.ibmmq, id="mq-pymqi"),
]
EMBEDDED_ONLY = [param for param in TRANSPORT_PARAMS if param.id == "embedded"]
#: The suites that run on mq:// too (conformance, seed 002, JMS API, listeners); the rest
#: of the transport-parametrised tests run on embedded and STOMP.
MQ_SUITES = ("conformance", "backout", "consumer", "listeners")
NOT_MQ = [param for param in TRANSPORT_PARAMS if not str(param.id).startswith("mq-")]


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """``embedded_only(reason)``: parametrise the test's transport with embedded alone
    (a parametrize mark of the test's own, which takes precedence over the fixture's)."""
    marker = metafunc.definition.get_closest_marker("embedded_only")
    if marker is None:
        suite = metafunc.definition.path.parent.name
        own = any(
            "transport" in str(mark.args[0]).replace(" ", "").split(",")
            for mark in metafunc.definition.iter_markers("parametrize")
            if mark.args
        )
        if "transport" in metafunc.fixturenames and suite not in MQ_SUITES and not own:
            metafunc.definition.add_marker(
                pytest.mark.parametrize("transport", NOT_MQ, indirect=True)
            )
        return
    if not marker.args or not str(marker.args[0]).strip():
        raise pytest.UsageError(f"{metafunc.definition.nodeid}: embedded_only needs a reason")
    if "transport" in metafunc.fixturenames:
        metafunc.definition.add_marker(
            pytest.mark.parametrize("transport", EMBEDDED_ONLY, indirect=True)
        )


@pytest.fixture(params=TRANSPORT_PARAMS)
def transport(request: pytest.FixtureRequest) -> str:
    """The transport under test (a conformance parameter)."""
    return str(request.param)


@pytest.fixture
def broker(transport: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Broker]:
    """The Broker helper for :func:`transport`; skips tests whose ``requires`` it lacks."""
    instance = BROKER_FACTORIES[transport](tmp_path)
    try:
        for marker in request.node.iter_markers("requires"):
            missing = set(marker.args) - instance.features
            if missing:
                pytest.skip(f"{transport} transport lacks {', '.join(sorted(missing))}")
        yield instance
    finally:
        instance.close()


@pytest.fixture
def transport_url(broker: Broker) -> str:
    """The URL the conformance tests connect to, parametrised over transports."""
    return broker.url
