"""Load a Worker by name and run it: what ``mqjms run module:app [--url URL]`` does.

A spec is ``module:attr`` (``myservice:app``, ``pkg.service:worker.app``) or
``path/to/file.py:attr``; ``:attr`` defaults to ``app``. The current directory is put
on ``sys.path`` first, as ``python -m`` does, so a service next to the caller imports.
"""

from __future__ import annotations

import errno
import importlib
import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from mqjms.logs import get_logger

from .worker import IMPORTING, Worker

log = get_logger("mqjms.listeners")

EXIT_USAGE = 2  # the spec could not be loaded


class AppLoadError(Exception):
    """The ``module:attr`` spec does not name a Worker; the message says why."""


def load_app(spec: str) -> Worker:
    """The Worker that ``spec`` names (``module:attr`` or ``path/to/file.py:attr``)."""
    text = spec.strip()
    target, _, attr = text.rpartition(":") if ":" in text else (text, "", "app")
    attr = attr or "app"
    if not target:
        raise AppLoadError(f"{spec!r} names no module: use module:attr or path/to/file.py:attr")
    IMPORTING.append(spec)
    try:
        module = _load_module(target, spec)
    finally:
        IMPORTING.pop()
    obj: object = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise AppLoadError(
                f"{spec!r}: module {module.__name__!r} has no attribute {attr!r}"
            ) from None
    if not isinstance(obj, Worker):
        raise AppLoadError(
            f"{spec!r} is a {type(obj).__name__}, not an mqjms.Worker "
            "(app = mqjms.Worker(...) with @app.listener(queue) functions)"
        )
    return obj


def _load_module(target: str, spec: str) -> ModuleType:
    if target.endswith(".py") or os.sep in target or "/" in target:
        path = _file_path(target, spec)
        if not path.is_file():
            raise AppLoadError(f"{spec!r}: {path} is not a file")
        name = path.stem
        found = importlib.util.spec_from_file_location(name, path)
        if found is None or found.loader is None:
            raise AppLoadError(f"{spec!r}: {path} cannot be imported as a Python module")
        module = importlib.util.module_from_spec(found)
        sys.path.insert(0, str(path.parent))  # so the file can import its neighbours
        sys.modules[name] = module
        try:
            found.loader.exec_module(module)
        except BaseException as exc:
            sys.modules.pop(name, None)
            if isinstance(exc, Exception):
                raise _import_failed(spec, str(path), exc) from exc
            raise
        return module
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        if exc.name and target.startswith(exc.name):
            raise AppLoadError(f"{spec!r}: no module named {exc.name!r}") from None
        raise _import_failed(spec, target, exc) from exc
    except Exception as exc:
        raise _import_failed(spec, target, exc) from exc


def _file_path(target: str, spec: str) -> Path:
    """``target`` made absolute, its ``~`` expanded; what stops that is named as it is."""
    try:
        path = Path(target).expanduser()
    except RuntimeError as exc:  # ~nosuchuser, or no HOME: "Could not determine home ..."
        raise AppLoadError(f"{spec!r}: {target} cannot be found ({exc})") from None
    try:
        return path.resolve()
    except OSError as exc:  # ELOOP from Python 3.13, or another fault of the file system
        raise AppLoadError(f"{spec!r}: {target} is not a file ({exc.strerror or exc})") from None
    except RuntimeError as exc:  # before 3.13: "Symlink loop from ..."
        why = os.strerror(errno.ELOOP) if "loop" in str(exc).lower() else str(exc)
        raise AppLoadError(f"{spec!r}: {target} is not a file ({why})") from None


def _import_failed(spec: str, target: str, exc: Exception) -> AppLoadError:
    """The module raised while being imported (e.g. ``@app.listener(123)``, a TypeError):
    one line naming it; the traceback is logged at DEBUG (``mqjms -vv run``)."""
    log.debug("worker.load_traceback", spec=spec, exc_info=exc)
    return AppLoadError(f"{spec!r}: importing {target} failed: {type(exc).__name__}: {exc}")


def run(spec: str, url: str | None = None) -> int:
    """Load the Worker ``spec`` names, use ``url`` instead of its own when given, and run
    it until SIGTERM or SIGINT. Returns the exit status: 0 after a clean stop, 1 when a
    listener could not run or the shutdown deadline backed a message out, 2 when the spec
    could not be loaded."""
    try:
        app = load_app(spec)
    except AppLoadError as exc:
        log.error("worker.load_failed", spec=spec, error=str(exc))
        return EXIT_USAGE
    if url:
        app.url = url
    return app.run()
