"""Where ``import pymqi`` and ``import ibmmq`` find the drop-in in a program's children.

``python -m mqjms.pymqi PROGRAM.py`` aliases the names in its own process
(:func:`mqjms.mqi.runner.install_aliases`). A process the program starts is a new
interpreter: one started by :mod:`multiprocessing` with ``spawn`` or ``forkserver`` (the
default on Linux from Python 3.14) imports the program's main module again, and a
``python`` the program runs imports what it needs. The runner puts ``for_pymqi`` (or
``for_ibmmq``) first on ``sys.path``, which multiprocessing hands to its children, and on
``PYTHONPATH``: their ``pymqi`` (``ibmmq``) package installs the aliases there too. Nothing
here is importable as ``pymqi`` or ``ibmmq`` anywhere else.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent


def search_path(flavour: str) -> str:
    """The directory whose ``<flavour>`` package is the drop-in's alias."""
    return str(HERE / f"for_{flavour}")
