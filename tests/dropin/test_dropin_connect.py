"""Connecting, routing, disconnecting and running programs unchanged (issue 14).

Every way pymqi and ibmmq programs connect works and goes where MQJMS_URL or configure()
says; without either the error says what to set, and never shows a password. MQDISC
commits; a process that ends normally disconnects (committing) while one that dies
backs out. ``python -m mqjms.pymqi PROGRAM.py`` runs a program with ``import pymqi``
resolved to the drop-in, and nothing named pymqi or ibmmq is installed otherwise.
Ctrl-C during a wait raises KeyboardInterrupt and leaves the connection usable.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mqjms.ibmmq
import mqjms.pymqi
from mqjms.mq import C
from mqjms.mqi import routing
from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"
REPO = Path(__file__).resolve().parents[2]
CHILD = "runs a child process with MQJMS_URL: the routing is the same on every transport"


def test_the_connection_goes_to_mqjms_url(
    mq: ModuleType, env: MQEnv, monkeypatch: pytest.MonkeyPatch
) -> None:
    routing.reset()
    monkeypatch.setenv("MQJMS_URL", env.url)
    qmgr = mq.connect("ANY.NAME", "SOME.CHANNEL", "mq.example.com(1414)", "app", "pw")
    try:
        name = qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME)
        assert name.strip() == env.qmgr_name.encode()
    finally:
        qmgr.disconnect()


def test_configure_routes_names_to_their_own_urls(
    mq: ModuleType, env: MQEnv, tmp_path: Path
) -> None:
    other = f"embedded://{tmp_path}/other?qmgr=QM2"
    routing.configure(url=env.url, qmgrs={"QM2": other})
    second = mq.connect("QM2")
    first = mq.connect("QM1")
    try:
        assert second.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip() == b"QM2"
        assert first.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip() == env.qmgr_name.encode()
    finally:
        second.disconnect()
        first.disconnect()


def test_a_ccdt_group_name_goes_where_its_queue_manager_name_does(
    mq: ModuleType, env: MQEnv, tmp_path: Path
) -> None:
    # '*QM2' asks for any queue manager of the CCDT's group QM2, as programs that
    # reconnect across a group name it
    other = f"embedded://{tmp_path}/other?qmgr=QM2"
    routing.configure(url=env.url, qmgrs={"QM2": other, "*QM3": other})
    for name in ("*QM2", "*QM3"):
        qmgr = mq.connect(name)
        try:
            assert qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip() == b"QM2"
        finally:
            qmgr.disconnect()
    qmgr = mq.connect("*QM4")  # not listed: the default URL
    try:
        assert qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME).strip() == env.qmgr_name.encode()
    finally:
        qmgr.disconnect()


def test_without_a_url_the_error_says_to_set_mqjms_url(
    mq: ModuleType, monkeypatch: pytest.MonkeyPatch, events: list[dict[str, Any]]
) -> None:
    routing.reset()
    monkeypatch.delenv("MQJMS_URL", raising=False)
    with pytest.raises(mq.MQMIError) as failure:
        mq.connect("QM1", "DEV.APP.SVRCONN", "localhost(1414)", "app", "s3cret-pw")
    assert failure.value.reason == C.MQRC_Q_MGR_NOT_AVAILABLE
    assert "MQJMS_URL" in failure.value.detail and "s3cret-pw" not in failure.value.detail
    assert "s3cret-pw" not in str(failure.value) and "s3cret-pw" not in repr(failure.value)
    # str(e) is pymqi's or ibmmq's text alone; the warning logged says what to set
    assert str(failure.value).endswith("Reason 2059: FAILED: MQRC_Q_MGR_NOT_AVAILABLE")
    assert [e["event"] for e in events if "MQJMS_URL" in e.get("detail", "")] == ["mqi.no_url"]
    # nor does any event logged on the way, in any of its fields
    assert events and not [e for e in events if "s3cret-pw" in repr(e)]


def test_connect_needs_a_name_or_a_channel(mq: ModuleType) -> None:
    with pytest.raises(TypeError) as failure:
        mq.connect(None, user="app", password="s3cret-pw")
    assert "s3cret-pw" not in str(failure.value)
    assert str(failure.value) == "Invalid arguments: [None, None, None, 'app', '***']"
    # no password given: nothing to hide, the list as the library shows it
    with pytest.raises(TypeError) as failure:
        mq.connect(None)
    assert str(failure.value) == "Invalid arguments: [None, None, None, None, None]"


def test_credentials_are_checked_as_the_libraries_check_them(mq: ModuleType, env: MQEnv) -> None:
    qmgr = mq.QueueManager(None)
    with pytest.raises(ValueError, match="Password must not be None"):
        qmgr.connect_with_options("QM1", user="app")
    with pytest.raises(ValueError, match="instances of str or bytes"):
        qmgr.connect_with_options("QM1", user="app", password=1234)
    if mq.__name__.endswith("ibmmq"):  # ibmmq names the CSP's fields, and wants a CSP
        csp = mq.CSP()
        csp.UserId = "app"
        with pytest.raises(mq.PYIFError, match="CSPUserId"):
            qmgr.connect_with_options("QM1", csp=csp)
        with pytest.raises(TypeError, match="csp must be an instance of CSP"):
            qmgr.connect_with_options("QM1", csp=mq.CNO())
    assert not qmgr.is_connected


def test_connection_states_and_handles(mq: ModuleType, env: MQEnv) -> None:
    qmgr = mq.QueueManager(None)
    assert qmgr.is_connected is False
    with pytest.raises(mq.PYIFError):
        qmgr.get_handle()
    cd = mq.CD()
    qmgr.connect_tcp_client("QM1", cd, "DEV.APP.SVRCONN", "127.0.0.1(1414)")
    assert cd.ChannelName == b"DEV.APP.SVRCONN" and cd.ChannelType == mq.CMQXC.MQCHT_CLNTCONN
    assert qmgr.is_connected and isinstance(qmgr.get_handle(), int)
    with pytest.raises(mq.MQMIError) as failure:
        qmgr.connect("QM1")  # MQCONN
    assert (failure.value.comp, failure.value.reason) == (C.MQCC_WARNING, 2002)
    assert qmgr.is_connected  # still connected
    first = qmgr.get_handle()
    if mq.__name__.endswith("ibmmq"):  # its MQCONNX adds MQCNO_HANDLE_SHARE_BLOCK
        cno = mq.CNO()
        qmgr.connect_with_options("QM1", cno=cno)
        assert cno.Options & mq.CMQC.MQCNO_HANDLE_SHARE_BLOCK  # as ibmmq sets it
        assert qmgr.is_connected and qmgr.get_handle() != first
        with pytest.raises(TypeError, match="cno must be an instance of CNO"):
            qmgr.connect_with_options("QM1", cno=mq.CD())
    else:
        with pytest.raises(mq.MQMIError) as failure:
            qmgr.connect_tcp_client("QM1", mq.CD(), "DEV.APP.SVRCONN", "127.0.0.1(1414)")
        assert (failure.value.comp, failure.value.reason) == (C.MQCC_WARNING, 2002)
        assert qmgr.get_handle() == first
    for _ in range(3):  # a shared handle may connect again
        qmgr.connect_with_options("QM1", opts=mq.CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    qmgr.disconnect()
    assert qmgr.is_connected is False
    with pytest.raises(mq.PYIFError):
        qmgr.disconnect()


def test_ibmmq_get_name_is_the_name_connected_with_also_after_disconnect(env: MQEnv) -> None:
    # ibmmq keeps the name: programs log "disconnected from <name>" after disconnect()
    qmgr = mqjms.ibmmq.connect("QM1", "DEV.APP.SVRCONN", "127.0.0.1(1414)")
    assert qmgr.get_name() == "QM1"
    qmgr.disconnect()
    assert qmgr.get_name() == "QM1"
    with pytest.raises(mqjms.ibmmq.PYIFError):
        mqjms.ibmmq.QueueManager(None).get_name()  # never connected: no name


def test_is_connected_is_a_property_over_the_method_is_connected(
    mq: ModuleType, env: MQEnv
) -> None:
    """Both libraries define ``_is_connected`` as a method and ``is_connected =
    property(_is_connected)``: programs call ``qmgr._is_connected()`` (it was the
    property itself here, so the call raised ``'bool' object is not callable``)."""
    qmgr = mq.QueueManager(None)
    assert qmgr._is_connected() is False
    qmgr.connect("QM1")
    assert qmgr._is_connected() is True and qmgr.is_connected is True
    assert isinstance(mq.QueueManager.is_connected, property)
    qmgr.disconnect()
    assert qmgr._is_connected() is False


def test_connections_and_queues_are_context_managers(mq: ModuleType, env: MQEnv) -> None:
    """Some of pymqi's later examples (its GitHub main branch, not 1.12) write
    ``with pymqi.connect(...) as qmgr:`` and ``with pymqi.Queue(qmgr, name) as queue:``:
    the queue is closed and the connection disconnected (MQDISC, committing) at the end
    of the block."""
    with mq.connect("QM1", "DEV.APP.SVRCONN", "127.0.0.1(1414)", "app", "pw") as qmgr:
        with mq.Queue(qmgr, Q) as queue:
            queue.put(b"in a block", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
        with pytest.raises(mq.PYIFError):
            queue.close()  # closed by the block
        with mq.Queue(qmgr, Q):
            pass  # never opened: nothing to close
    assert qmgr.is_connected is False
    assert env.depth(Q) == 1  # MQDISC committed the put


def test_the_embedded_url_names_the_queue_manager(mq: ModuleType, tmp_path: Path) -> None:
    routing.configure(url=f"embedded://{tmp_path}/named?qmgr=QM1")
    try:
        qmgr = mq.connect("QM1")
        assert qmgr.inquire(mq.CMQC.MQCA_Q_MGR_NAME) == b"QM1".ljust(48)
        qmgr.disconnect()
    finally:
        routing.reset()


def test_disconnect_commits(mq: ModuleType, env: MQEnv) -> None:
    # MQDISC commits (IBM MQ, distributed): unlike the JMS close underneath
    qmgr = mq.connect("QM1")
    mq.Queue(qmgr, Q).put(b"kept", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    qmgr.disconnect()
    assert [data for _, data in env.browse(Q)] == [b"kept"]


def test_begin_starts_a_unit_of_work_with_no_external_participants(
    mq: ModuleType, env: MQEnv
) -> None:
    # MQBEGIN on a queue manager with no XA resource manager: warning 2121
    # MQRC_NO_EXTERNAL_PARTICIPANTS (both libraries raise it), and the unit of work goes on;
    # 2128 when it holds work already; a client connection has no MQBEGIN (2012). Before,
    # every begin() was 2298, so a program that ignores 2121 stopped there.
    qmgr = mq.connect("QM1")
    with pytest.raises(mq.MQMIError) as began:
        qmgr.begin()
    assert (began.value.comp, began.value.reason) == (
        mq.CMQC.MQCC_WARNING,
        mq.CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS,
    )
    with pytest.raises(mq.MQMIError) as begun:  # begun, no work yet: in progress all the same
        qmgr.begin()
    assert (begun.value.comp, begun.value.reason) == (
        mq.CMQC.MQCC_FAILED,
        mq.CMQC.MQRC_UOW_IN_PROGRESS,
    )
    qmgr.commit()  # ends it: MQBEGIN may begin the next
    with pytest.raises(mq.MQMIError) as next_one:
        qmgr.begin()
    assert next_one.value.reason == mq.CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS
    queue = mq.Queue(qmgr, "DEV.QUEUE.1", mq.CMQC.MQOO_OUTPUT)
    queue.put(b"in the unit of work", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    with pytest.raises(mq.MQMIError) as again:
        qmgr.begin()
    assert again.value.reason == mq.CMQC.MQRC_UOW_IN_PROGRESS
    qmgr.backout()  # the put was in the unit of work: gone
    with pytest.raises(mq.MQMIError) as after_backout:
        qmgr.begin()
    assert after_backout.value.reason == mq.CMQC.MQRC_NO_EXTERNAL_PARTICIPANTS
    qmgr.commit()
    assert env.depth("DEV.QUEUE.1") == 0
    qmgr.disconnect()
    client = mq.QueueManager(None)
    client.connect_tcp_client("QM1", mq.CD(), "DEV.APP.SVRCONN", "localhost(1414)")
    with pytest.raises(mq.MQMIError) as refused:
        client.begin()
    assert refused.value.reason == mq.CMQC.MQRC_ENVIRONMENT_ERROR
    client.disconnect()
    # the module's connect() with a channel and a connection name is a client's too (it
    # was an MQCONN: 2121)
    client = mq.connect("QM1", "DEV.APP.SVRCONN", "localhost(1414)")
    with pytest.raises(mq.MQMIError) as refused:
        client.begin()
    assert refused.value.reason == mq.CMQC.MQRC_ENVIRONMENT_ERROR
    client.disconnect()


def test_no_top_level_pymqi_or_ibmmq_is_installed() -> None:
    assert "pymqi" not in sys.modules or sys.modules["pymqi"] is not mqjms.pymqi
    assert "ibmmq" not in sys.modules or sys.modules["ibmmq"] is not mqjms.ibmmq


# --------------------------------------------------------------------------- programs


def run(
    env: MQEnv,
    tmp_path: Path,
    flavour: str,
    source: str,
    *args: str,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent(source))
    return subprocess.run(
        [sys.executable, "-m", f"mqjms.{flavour}", str(program), *args],
        env=_child_env(env),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
    )


def _child_env(env: MQEnv) -> dict[str, str]:
    child = dict(os.environ)
    child["MQJMS_URL"] = env.url
    child["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), child.get("PYTHONPATH")]))
    child.pop("MQJMS_LOG_LEVEL", None)
    return child


@pytest.mark.embedded_only(CHILD)
@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_the_runner_runs_a_program_unchanged(env: MQEnv, tmp_path: Path, flavour: str) -> None:
    result = run(
        env,
        tmp_path,
        flavour,
        f"""
        import sys
        import {flavour}
        from {flavour} import CMQC
        qmgr = {flavour}.connect("QM1", "DEV.APP.SVRCONN", "127.0.0.1(1414)", "app", "pw")
        {flavour}.Queue(qmgr, "{Q}").put("from " + sys.argv[1])
        print(__name__, {flavour}.__name__, sys.argv[1:], CMQC.MQRC_NO_MSG_AVAILABLE)
        qmgr.disconnect()
        """,
        "one",
        "two",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[0] == f"__main__ mqjms.{flavour} ['one', 'two'] 2033"
    assert result.stderr == ""  # quiet: nothing below WARNING is logged
    assert [data for _, data in env.browse(Q)] == [b"from one"]


@pytest.mark.embedded_only(CHILD)
@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_a_daemon_thread_in_an_mq_call_at_exit_ends_quietly(
    env: MQEnv, tmp_path: Path, flavour: str
) -> None:
    # with IBM's library a daemon thread blocked in MQGET (or still connecting) when the
    # program ends stays there until the process is gone; here the at-exit MQDISC woke
    # it with 2162, and its traceback was printed, about one run in two
    source = f"""
        import threading
        import {flavour}
        from {flavour} import CMQC

        def wait_forever():
            qmgr = {flavour}.connect("QM1")
            gmo = {flavour}.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=CMQC.MQWI_UNLIMITED)
            {flavour}.Queue(qmgr, "DEV.QUEUE.2").get(None, {flavour}.MD(), gmo)

        qmgr = {flavour}.connect("QM1")
        queue = {flavour}.Queue(qmgr, "DEV.QUEUE.1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        queue.put(b"left")
        queue.get(None, {flavour}.MD(), {flavour}.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        for _ in range(2):  # one waiting, one perhaps still connecting, at the exit
            threading.Thread(target=wait_forever, daemon=True).start()
        print("leaving")
        """
    for _ in range(6):
        result = run(env, tmp_path, flavour, source)
        assert (result.returncode, result.stdout, result.stderr) == (0, "leaving\n", "")


@pytest.mark.embedded_only(CHILD)
@pytest.mark.parametrize("flavour", ["pymqi", "ibmmq"])
def test_the_programs_child_processes_import_the_drop_in_too(
    env: MQEnv, tmp_path: Path, flavour: str
) -> None:
    # a multiprocessing child started by spawn (forkserver: Linux's default from Python
    # 3.14) imports the program's main module again, and a python the program runs
    # imports for itself: both find the drop-in, as an installed library would be found
    result = run(
        env,
        tmp_path,
        flavour,
        f"""
        import multiprocessing
        import subprocess
        import sys

        import {flavour}


        def put(text):
            import {flavour}

            qmgr = {flavour}.connect("QM1")
            {flavour}.Queue(qmgr, "{Q}").put(text)
            qmgr.disconnect()
            return {flavour}.__name__


        if __name__ == "__main__":
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                print(pool.map(put, ["from a spawned child"]))
            code = "import {flavour}, sys; print({flavour}.__name__)"
            print(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                 text=True, check=True).stdout.strip())
        """,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == [f"['mqjms.{flavour}']", f"mqjms.{flavour}"]
    assert [data for _, data in env.browse(Q)] == [b"from a spawned child"]


@pytest.mark.embedded_only(CHILD)
def test_a_program_ending_without_disconnect_commits(env: MQEnv, tmp_path: Path) -> None:
    # pymqi's and ibmmq's QueueManager.__del__ disconnect (MQDISC commits)
    result = run(
        env,
        tmp_path,
        "pymqi",
        f"""
        import pymqi
        qmgr = pymqi.connect("QM1")
        pmo = pymqi.PMO(Options=pymqi.CMQC.MQPMO_SYNCPOINT)
        pymqi.Queue(qmgr, "{Q}").put(b"committed at exit", pymqi.MD(), pmo)
        """,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    got = env.get_raw(Q, wait=5.0)
    assert got is not None and got[1] == b"committed at exit"


@pytest.mark.embedded_only(CHILD)
def test_without_disconnect_on_exit_an_ending_program_backs_out(env: MQEnv, tmp_path: Path) -> None:
    result = run(
        env,
        tmp_path,
        "pymqi",
        f"""
        import pymqi
        qmgr = pymqi.QueueManager("QM1", disconnect_on_exit=False)
        pmo = pymqi.PMO(Options=pymqi.CMQC.MQPMO_SYNCPOINT)
        pymqi.Queue(qmgr, "{Q}").put(b"backed out", pymqi.MD(), pmo)
        """,
    )
    assert result.returncode == 0, result.stderr
    assert env.get_raw(Q, wait=2.0) is None


@pytest.mark.embedded_only(CHILD)
def test_a_process_that_dies_backs_out_its_unit_of_work(env: MQEnv, tmp_path: Path) -> None:
    env.put_raw(Q, b"in flight")
    result = run(
        env,
        tmp_path,
        "ibmmq",
        f"""
        import os
        import ibmmq
        qmgr = ibmmq.connect("QM1")
        gmo = ibmmq.GMO(Options=ibmmq.CMQC.MQGMO_SYNCPOINT)
        print(ibmmq.Queue(qmgr, "{Q}").get(None, ibmmq.MD(), gmo), flush=True)
        os._exit(3)
        """,
    )
    assert result.returncode == 3 and "in flight" in result.stdout
    got = env.get_raw(Q, wait=10.0)
    assert got is not None and got[1] == b"in flight" and got[0].BackoutCount == 1


@pytest.mark.embedded_only(CHILD)
def test_the_program_after_one_that_died_writes_nothing_to_stderr(
    env: MQEnv, tmp_path: Path
) -> None:
    # backing out the dead one's unit of work is the queue manager's housekeeping (IBM MQ
    # notes it in its error log); the next program, as with real pymqi, says nothing
    env.put_raw(Q, b"in flight")
    died = run(
        env,
        tmp_path,
        "pymqi",
        f"""
        import os
        import pymqi
        qmgr = pymqi.connect("QM1")
        gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_SYNCPOINT)
        print(pymqi.Queue(qmgr, "{Q}").get(None, pymqi.MD(), gmo), flush=True)
        os._exit(3)
        """,
    )
    assert died.returncode == 3
    after = run(
        env,
        tmp_path,
        "pymqi",
        f"""
        import pymqi
        qmgr = pymqi.connect("QM1")
        md = pymqi.MD()
        print(pymqi.Queue(qmgr, "{Q}").get(None, md), md.BackoutCount)
        qmgr.disconnect()
        """,
    )
    assert after.returncode == 0, after.stderr
    assert after.stdout.split() == ["b'in", "flight'", "1"]
    assert after.stderr == ""


@pytest.mark.embedded_only(CHILD)
def test_ctrl_c_during_a_wait_leaves_the_connection_usable(env: MQEnv, tmp_path: Path) -> None:
    program = tmp_path / "waiting.py"
    program.write_text(
        textwrap.dedent(
            f"""
            import pymqi
            qmgr = pymqi.connect("QM1")
            queue = pymqi.Queue(qmgr, "{Q}")
            gmo = pymqi.GMO(Options=pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_SYNCPOINT)
            gmo.WaitInterval = pymqi.CMQC.MQWI_UNLIMITED
            try:
                print("waiting", flush=True)  # inside: a Ctrl-C just after it is caught too
                queue.get(None, pymqi.MD(), gmo)
            except KeyboardInterrupt:
                print("interrupted", flush=True)
            pmo = pymqi.PMO(Options=pymqi.CMQC.MQPMO_SYNCPOINT)
            pymqi.Queue(qmgr, "DEV.QUEUE.2").put(b"after ctrl-c", pymqi.MD(), pmo)
            qmgr.commit()
            qmgr.disconnect()
            print("committed", flush=True)
            """
        )
    )
    child = subprocess.Popen(
        [sys.executable, "-m", "mqjms.pymqi", str(program)],
        env=_child_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "waiting"
        time.sleep(0.5)  # most often inside the wait by now (either way it is caught)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert out.split() == ["interrupted", "committed"]
    assert [data for _, data in env.browse("DEV.QUEUE.2")] == [b"after ctrl-c"]


def test_install_aliases_makes_the_library_names_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    from mqjms.mqi.runner import install_aliases

    for name in ("ibmmq", "ibmmq.CMQC", "ibmmq.CMQSTRC"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    module = install_aliases("ibmmq")
    try:
        import ibmmq  # type: ignore[import-not-found]
        from ibmmq import CMQSTRC  # type: ignore[import-not-found]

        assert ibmmq is module is mqjms.ibmmq
        assert CMQSTRC.MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"
    finally:
        for name in ("ibmmq", "ibmmq.CMQC", "ibmmq.CMQCFC", "ibmmq.CMQXC", "ibmmq.CMQZC"):
            sys.modules.pop(name, None)
        sys.modules.pop("ibmmq.CMQSTRC", None)
        for name in ("CMQC", "CMQCFC", "CMQXC", "CMQSTRC"):  # ibmmq's top-level ones too
            if sys.modules.get(name) is getattr(mqjms.ibmmq, name, None):
                sys.modules.pop(name)


def test_after_import_ibmmq_its_constant_modules_import_as_top_level_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ibmmq's CMQC.py puts its package directory on sys.path: `import CMQC` then works,
    # as it did with pymqi before 1.5, and programs carried over from then rely on it
    from mqjms.mqi.runner import install_aliases

    names = ("CMQC", "CMQCFC", "CMQXC", "CMQSTRC")
    for name in ("ibmmq", *names, *(f"ibmmq.{n}" for n in names)):
        monkeypatch.delitem(sys.modules, name, raising=False)
    install_aliases("ibmmq")
    try:
        import CMQC  # type: ignore[import-not-found]
        import CMQCFC  # type: ignore[import-not-found]
        from CMQSTRC import MQRC_DICT  # type: ignore[import-not-found]

        assert CMQC is mqjms.ibmmq.CMQC
        assert CMQCFC.MQCMD_INQUIRE_Q == mqjms.ibmmq.CMQCFC.MQCMD_INQUIRE_Q
        assert MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"
    finally:
        for name in ("ibmmq", "ibmmq.CMQZC", *names, *(f"ibmmq.{n}" for n in names)):
            sys.modules.pop(name, None)


class _InterruptedDuring:
    """The real transport connection; a Ctrl-C arrives while its ``verb`` runs (as one
    does when the user presses it during any MQI call)."""

    def __init__(self, conn: object, verb: str) -> None:
        self._conn = conn
        self._verb = verb

    def __getattr__(self, name: str) -> object:
        found = getattr(self._conn, name)
        if name != self._verb:
            return found

        def interrupted(*args: object, **kwargs: object) -> object:
            os.kill(os.getpid(), signal.SIGINT)
            return found(*args, **kwargs)

        return interrupted


@pytest.mark.parametrize("verb", ["open", "put"])
def test_ctrl_c_during_any_call_is_raised_once_the_call_is_done(
    mq: ModuleType, env: MQEnv, qmgr, verb: str
) -> None:
    # A KeyboardInterrupt inside the transport could leave it half way (a lock held, a
    # message neither put nor not); the program gets it when the call is over, as it
    # would from the C library, whose call returns before Python sees the signal. A lazy
    # open is a call of its own: interrupted there, the put never starts.
    hconn = qmgr._hconn
    hconn.conn = _InterruptedDuring(hconn.conn, verb)
    queue = mq.Queue(qmgr, Q)
    try:
        with pytest.raises(KeyboardInterrupt):
            queue.put(b"interrupted")
    finally:
        hconn.conn = hconn.conn._conn
    if env.url.startswith("embedded"):  # a broker does not count the opens (OPPROCS)
        inquiry = mq.Queue(qmgr, Q, C.MQOO_INQUIRE)
        assert inquiry.inquire(C.MQIA_OPEN_OUTPUT_COUNT) == 1  # the open was done
        inquiry.close()
    queue.put(b"next")  # on that handle: the connection works
    interrupted = [b"interrupted"] if verb == "put" else []
    assert [data for _, data in env.browse(Q)] == [*interrupted, b"next"]


def test_a_forked_child_neither_uses_nor_ends_its_parents_connection(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # a child that exits normally ran the inherited at-exit MQDISC, committing its
    # parent's unit of work; and its MQI calls went into the parent's (IBM MQ: the
    # connection handle is not valid in the child)
    queue = mq.Queue(qmgr, "DEV.QUEUE.3")
    queue.put(b"uncommitted", mq.MD(), mq.PMO(Options=mq.CMQC.MQPMO_SYNCPOINT))
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            queue.put(b"from the child")
        except mq.MQMIError as exc:
            code = 0 if exc.reason == mq.CMQC.MQRC_HCONN_ERROR else 2
        finally:
            from mqjms.mqi import hconn

            hconn.disconnect_all()  # what the child's exit runs
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    qmgr.backout()
    assert env.depth("DEV.QUEUE.3") == 0  # backed out: the child committed nothing


def test_a_forked_child_gets_2018_even_while_a_parent_thread_holds_the_connection(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # the child checked whose connection it was only once it had the lock, which a
    # parent's thread (say, in a waiting get) held when the process forked: it hung
    queue = mq.Queue(qmgr, "DEV.QUEUE.3")
    lock = qmgr._live().lock
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            held.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(30)
    try:
        pid = os.fork()
        if pid == 0:
            signal.alarm(20)  # a hang ends the child (exit status: killed by SIGALRM)
            code = 1
            try:
                queue.put(b"from the child")
            except mq.MQMIError as exc:
                code = 0 if exc.reason == mq.CMQC.MQRC_HCONN_ERROR else 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    finally:
        done.set()
        holder.join()
    assert os.waitstatus_to_exitcode(status) == 0
