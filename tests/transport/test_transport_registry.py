"""Transports by URL scheme (issue 8): the registry, its entry points, lazy loading, and
the errors for a scheme nobody provides."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms import transport
from mqjms.mq import MQMD
from mqjms.qmgr import QMConnection
from mqjms.semantics import Connection, ConnectionWrapper

REPO = Path(__file__).resolve().parents[2]


class Labelled(ConnectionWrapper):
    """A third party's transport: the embedded one under another name."""


@pytest.fixture
def loop_scheme(embedded_url: str) -> Iterator[list[str]]:
    urls: list[str] = []

    def connect(url: str, appl_name: str | None) -> Connection:
        urls.append(url)
        return Labelled(transport.connect(embedded_url, appl_name))

    transport.register("loop", connect)
    yield urls
    transport.unregister("loop")


def test_a_registered_transport_serves_its_scheme(loop_scheme: list[str], qm: object) -> None:
    conn = transport.connect("loop://anything?x=1", "app")
    try:
        assert isinstance(conn, Labelled) and loop_scheme == ["loop://anything?x=1"]
        assert "loop" in transport.schemes()
        conn.put("SYSTEM.DEFAULT.LOCAL.QUEUE", MQMD(), b"through loop:")
        # the wrapper keeps what the embedded connection declares
        assert conn.capabilities == QMConnection.capabilities
    finally:
        conn.disconnect()


def test_unknown_scheme_names_the_schemes_there_are() -> None:
    with pytest.raises(ValueError) as err:
        transport.connect("amqp://bob:s3cret@host")
    text = str(err.value)
    assert "unknown transport 'amqp'" in text and "s3cret" not in text
    assert "embedded:, mq:, stomp:, stomp+ssl:" in text and "mqjms.transport.register" in text


def test_mq_scheme_is_a_built_in_transport() -> None:
    from mqjms.transport import registry

    assert registry.BUILT_IN["mq"] == "mqjms.transport.ibmmq:connect"
    assert "mq" in transport.schemes()


def test_builtins_need_no_installed_metadata(embedded_url: str) -> None:
    # the fallback table: a source tree without entry points still connects
    from mqjms.transport import registry

    assert set(registry.BUILT_IN) <= set(transport.schemes())
    conn = transport.connect(embedded_url)
    assert isinstance(conn, QMConnection)
    conn.disconnect()


def run_python(code: str, *paths: Path) -> str:
    path = ":".join([*(str(p) for p in paths), str(REPO)])
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": path, "PATH": "/usr/bin:/bin"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_an_entry_point_adds_a_transport(tmp_path: Path) -> None:
    # a distribution declaring [mqjms.transports] echo = ...: found without register()
    dist = tmp_path / "mqjms_echo-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mqjms-echo\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[mqjms.transports]\necho = mqjms_echo:connect\n")
    (tmp_path / "mqjms_echo.py").write_text(
        textwrap.dedent(
            f"""
            from mqjms import transport
            from mqjms.semantics import ConnectionWrapper

            def connect(url, appl_name):
                return ConnectionWrapper(transport.connect("embedded://{tmp_path}/qm"))
            """
        )
    )
    out = run_python(
        """
        from mqjms import transport
        conn = transport.connect("echo://somewhere")
        print(type(conn).__name__, conn.qmgr_name != "", "echo" in transport.schemes())
        conn.disconnect()
        """,
        tmp_path,
    )
    assert out.split() == ["ConnectionWrapper", "True", "True"]


def test_importing_mqjms_loads_no_transport() -> None:
    # a STOMP-only service does not load the embedded queue manager, nor stomp.py until
    # it connects
    out = run_python(
        """
        import sys
        import mqjms, mqjms.transport
        loaded = sorted(m for m in sys.modules
                        if m.startswith(("mqjms.qmgr", "mqjms.transport.stomp", "stomp")))
        print(loaded)
        """
    )
    assert out.strip() == "[]"


@pytest.mark.parametrize("url", [123, b"embedded:///tmp/qm"])
def test_a_url_that_is_not_a_str_is_a_type_error_saying_so(url: object) -> None:
    with pytest.raises(TypeError, match="the transport URL must be a str"):
        transport.connect(url)  # type: ignore[arg-type]


def test_a_stomp_url_parameter_that_is_not_a_number_is_named() -> None:
    from mqjms.transport.stomp.config import parse_url

    with pytest.raises(ValueError, match="heartbeat='abc' is not a whole number"):
        parse_url("stomp://user:s3cret@host:61613?heartbeat=abc")
    with pytest.raises(ValueError, match="receipt_timeout='soon' is not a number of seconds"):
        parse_url("stomp://host:61613?receipt_timeout=soon")
