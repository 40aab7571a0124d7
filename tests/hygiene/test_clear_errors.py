"""A wrong input gets one clear line, never a raw traceback (hardening item 15).

An ``embedded:`` URL naming a file or a directory that cannot be written, a queue that is
not a name, and a program that exits without closing its connections.
"""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import mqjms
from mqjms.cli import main
from mqjms.mq import C, MQError
from mqjms.qmgr import QueueManager
from mqjms.qmgr.connection import QMConnection
from mqjms.transport import Browse, connect, embedded

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    path = tmp_path / "not-a-directory"
    path.write_text("precious\n")
    return path


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A queue manager directory that cannot be created: its parent is read-only (root
    ignores file modes, so as root a directory in sysfs, where nobody may create one)."""
    if os.geteuid() != 0:
        parent = tmp_path / "read-only"
        parent.mkdir()
        parent.chmod(0o555)
        yield parent / "qm"
        parent.chmod(0o755)
    elif Path("/sys/kernel").is_dir():
        yield Path("/sys/mqjms-test-qm")
    else:
        pytest.skip("no directory here that root cannot write")


@pytest.mark.parametrize("under", ["", "qm"], ids=["the-file", "a-directory-under-it"])
def test_an_embedded_url_naming_a_file_is_mqrc_2058(a_file: Path, under: str) -> None:
    # hardening item 15: FileExistsError/NotADirectoryError from mkdir was a raw traceback
    # (and a Worker retried it forever as a lost connection); MQCONN's reason for a queue
    # manager that cannot be named so is MQRC_Q_MGR_NAME_ERROR
    url = f"embedded://{a_file / under if under else a_file}"
    with pytest.raises(MQError) as err:
        mqjms.ConnectionFactory(url).connect().session()
    assert err.value.reason == C.MQRC_Q_MGR_NAME_ERROR
    assert f"{a_file} is a file, not a directory" in err.value.detail
    assert "name a directory" in err.value.detail
    assert a_file.read_text() == "precious\n"


def test_an_embedded_url_through_a_symbolic_link_loop_is_an_mqerror(tmp_path: Path) -> None:
    # a fault probe: Path.resolve raised RuntimeError("Symlink loop ..."), which the CLI
    # printed as an unexpected error, without a reason code
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for url in (f"embedded://{loop}", f"embedded://{loop}/qm"):
        with pytest.raises(MQError) as err:
            connect(url)
        assert err.value.reason == C.MQRC_RESOURCE_PROBLEM
        assert f"cannot use {loop}" in err.value.detail


def test_an_unwritable_directory_is_mqrc_2035(unwritable: Path) -> None:
    # hardening item 15: PermissionError from mkdir was a raw traceback
    with pytest.raises(MQError) as err:
        connect(f"embedded://{unwritable}")
    assert err.value.reason == C.MQRC_NOT_AUTHORIZED
    assert str(unwritable) in err.value.detail and "write" in err.value.detail


def test_a_queue_that_is_not_a_name_is_a_type_error(embedded_url: str) -> None:
    # hardening item 15: session.consumer(None) and Worker.listener(123) were
    # AttributeErrors from deep inside ('NoneType' object has no attribute 'startswith')
    with mqjms.ConnectionFactory(embedded_url).connect() as conn, conn.session() as session:
        with pytest.raises(TypeError, match="not NoneType None"):
            session.consumer(None)  # type: ignore[arg-type]
        with pytest.raises(TypeError, match="not int 7"):
            session.producer(7)  # type: ignore[arg-type]
        with pytest.raises(MQError) as err:
            session.consumer("")
        assert err.value.reason == C.MQRC_OBJECT_NAME_ERROR  # 2152, as MQOPEN says
    app = mqjms.Worker(embedded_url)
    with pytest.raises(TypeError, match=r"a queue is a name .* not int 123"):

        @app.listener(123)  # type: ignore[arg-type]
        def handle(msg: mqjms.Message) -> None: ...


EXIT_WITHOUT_CLOSING = textwrap.dedent(
    """
    import sys

    import mqjms
    from mqjms.transport import embedded

    url = sys.argv[1]
    embedded.queue_manager(url).define_queue("QLOCAL", "APP.IN", {})
    factory = mqjms.ConnectionFactory(url)
    session = factory.connect().session(transacted=True)
    session.producer("APP.IN").send(mqjms.TextMessage("keep me"))
    session.commit()
    print(session.consumer("APP.IN").receive(5).body)  # got in a unit of work, never ended
    """
)


def test_a_program_that_exits_without_closing_prints_no_traceback(tmp_path: Path) -> None:
    # hardening item 15: the atexit close_all() disconnected connections whose database
    # the weakref finalizers had already closed: sqlite3.ProgrammingError traceback
    url = f"embedded://{tmp_path / 'qm'}"
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", EXIT_WITHOUT_CLOSING, url],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 0 and done.stdout == "keep me\n", done.stderr
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr
    # nothing lost: the unit of work was backed out at exit (seed 002: BackoutCount + 1)
    embedded.close_all()
    conn = connect(url)
    try:
        got = conn.get(conn.open("APP.IN", C.MQOO_BROWSE), browse=Browse.FIRST)
    finally:
        conn.disconnect()
    assert got is not None
    md, data = got
    assert b"keep me" in data and md.BackoutCount == 1


BAD_SERVICE = textwrap.dedent(
    """
    import mqjms

    app = mqjms.Worker()


    @app.listener(123)
    def handle(msg: mqjms.Message) -> None: ...
    """
)
SERVICE = BAD_SERVICE.replace("listener(123)", 'listener("APP.IN")')


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def test_the_cli_prints_one_line_for_each(
    a_file: Path, unwritable: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # hardening item 15: the CLI prints one line (no traceback) for each
    capsys.readouterr()
    assert main(["put", "--url", f"embedded://{a_file}", "APP.IN", "--body", "x"]) == 2
    assert one_line(capsys.readouterr().err).startswith("mqjms: MQRC_Q_MGR_NAME_ERROR (2058): ")
    assert main(["get", "--url", f"embedded://{unwritable}", "APP.IN"]) == 2
    assert one_line(capsys.readouterr().err).startswith("mqjms: MQRC_NOT_AUTHORIZED (2035): ")
    (tmp_path / "bad_service.py").write_text(BAD_SERVICE)
    assert main(["run", f"{tmp_path / 'bad_service.py'}:app"]) == 2
    line = one_line(capsys.readouterr().err)
    assert "worker.load_failed" in line and "TypeError: a queue is a name" in line
    (tmp_path / "service.py").write_text(SERVICE)
    assert main(["run", f"{tmp_path / 'service.py'}:app", "--url", f"embedded://{a_file}"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "MQRC_Q_MGR_NAME_ERROR (2058" in err, err


@pytest.mark.parametrize("facade", [QueueManager, QMConnection], ids=lambda c: c.__name__)
def test_every_public_call_of_the_queue_manager_lets_no_sqlite3_error_out(facade: type) -> None:
    # each part (mixin) of the queue manager and of its connections is under @translating,
    # so a storage failure anywhere is an MQ reason naming the database (a part added
    # without it would let sqlite3's own exception reach a user); the generic
    # EmulatedConnection hands its calls to steps the queue manager's parts translate
    bare = [
        f"{part.__name__}.{name}"
        for part in facade.__mro__
        if part.__module__.startswith("mqjms.qmgr.")
        for name, member in vars(part).items()
        if inspect.isfunction(member)
        and not name.startswith("_")
        and not hasattr(member, "__wrapped__")
    ]
    assert not bare, f"not under @translating: {bare}"
