"""Loading a Worker by name (``module:attr``, ``path/to/file.py:attr``) and running it:
what ``mqjms run module:app [--url URL]`` calls."""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import mqjms
from mqjms.listeners import AppLoadError, load_app, run
from tests.listeners.helpers import IN, named, wait_for

SERVICE = """
import mqjms

app = mqjms.Worker("embedded:///nowhere/overridden", shutdown_timeout=2)
app.get_wait = 0.1
seen = []


@app.listener("APP.IN")
def handle(msg: mqjms.Message) -> None:
    seen.append(msg.body)


class Holder:
    worker = app


not_a_worker = 42
"""


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"listener_service_{tmp_path.name}".replace("-", "_")
    (tmp_path / f"{name}.py").write_text(SERVICE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)


def test_load_app_by_module_attr_path_and_default_attr(service: str, tmp_path: Path) -> None:
    app = load_app(f"{service}:app")
    assert isinstance(app, mqjms.Worker)
    assert load_app(service) is app  # ":app" is the default
    assert load_app(f"{service}:Holder.worker") is app
    by_path = load_app(f"{tmp_path / service}.py:app")
    assert isinstance(by_path, mqjms.Worker) and by_path.listeners[0].queue == IN


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no_such_module_xyz:app", "no module named 'no_such_module_xyz'"),
        ("{service}:missing", "has no attribute 'missing'"),
        ("{service}:not_a_worker", "not an mqjms.Worker"),
        ("/no/such/file.py:app", "is not a file"),
        (":app", "names no module"),
    ],
)
def test_load_app_errors_say_what_was_wrong(service: str, spec: str, message: str) -> None:
    with pytest.raises(AppLoadError, match=message):
        load_app(spec.format(service=service))


def test_a_path_that_is_a_symbolic_link_loop_is_a_load_error(tmp_path: Path) -> None:
    # a fault probe: Path.resolve raised RuntimeError("Symlink loop ..."), which mqjms run
    # printed as an unexpected error
    loop = tmp_path / "loop.py"
    loop.symlink_to(loop)
    with pytest.raises(AppLoadError, match=r"loop\.py is not a file") as caught:
        load_app(f"{loop}:app")
    assert os.strerror(errno.ELOOP) in str(caught.value)


def test_a_home_directory_that_cannot_be_found_is_named_not_a_symbolic_link_loop() -> None:
    # a fault probe: expanduser's RuntimeError ("Could not determine home directory.")
    # was reported as "Too many levels of symbolic links"
    with pytest.raises(AppLoadError, match="home directory") as caught:
        load_app("~nosuchuserxyz/app.py:app")
    assert os.strerror(errno.ELOOP) not in str(caught.value)


def test_a_file_system_fault_in_the_path_is_named_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a fault probe: every OSError of Path.resolve was reported as a symbolic link loop
    def denied(self: Path, strict: bool = False) -> Path:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(self))

    monkeypatch.setattr(Path, "resolve", denied)
    with pytest.raises(AppLoadError, match=os.strerror(errno.EACCES)) as caught:
        load_app(f"{tmp_path / 'app.py'}:app")
    assert os.strerror(errno.ELOOP) not in str(caught.value)


def test_run_returns_2_when_the_spec_does_not_load() -> None:
    assert run("no_such_module_xyz:app") == 2


def test_run_overrides_the_url_and_returns_0_after_a_clean_stop(mq, service: str) -> None:
    app = load_app(f"{service}:app")
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(run(f"{service}:app", url=mq.url)))
    thread.start()
    try:
        mq.send(IN, "hello")
        wait_for(lambda: app.stats.committed == 1)
        assert app.url == mq.url
        assert sys.modules[service].seen == ["hello"]
    finally:
        wait_for(lambda: app.running)
        app.request_stop()
        thread.join(10)
    assert status == [0]


def test_run_returns_1_when_a_listener_cannot_start(mq, service: str) -> None:
    app = load_app(f"{service}:app")
    mq.delete_queue(IN)
    start = time.monotonic()
    assert run(f"{service}:app", url=mq.url) == 1  # MQRC 2085: APP.IN is not defined
    assert time.monotonic() - start < 30
    assert not app.running


def test_app_run_at_a_modules_top_level_is_ignored_while_mqjms_run_imports_it(
    mq, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events
) -> None:
    # A service ending in app.run() without the __main__ guard (as Flask apps often end)
    # ran its worker inside `mqjms run`'s import: on the module's URL, not --url; the
    # first SIGTERM only ended that run, and the command then ran the worker again.
    # As `flask run` does, the call is ignored with a warning and the command runs it
    name = f"toplevel_run_{tmp_path.name}".replace("-", "_")
    (tmp_path / f"{name}.py").write_text(
        "import mqjms\n\n"
        f"app = mqjms.Worker({mq.url!r}, shutdown_timeout=2)\n"
        "seen = []\n\n\n"
        f"@app.listener({IN!r})\n"
        "def handle(msg: mqjms.Message) -> None:\n"
        "    seen.append(msg.body)\n"
        "    app.stop()  # from a listener: only requested\n\n\n"
        "app.run()\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    mq.send(IN, "hello")
    try:
        app = load_app(f"{name}:app")
        assert sys.modules[name].seen == [] and not app.running
        assert mq.depth(IN) == 1
        [ignored] = named(events, "worker.run_ignored")
        assert ignored["spec"] == f"{name}:app" and "__main__" in ignored["reason"]
        assert app.run() == 0  # outside the import it runs (the listener stops it)
        assert sys.modules[name].seen == ["hello"]
    finally:
        sys.modules.pop(name, None)
