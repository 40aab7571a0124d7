"""``python -m mqjms.pymqi PROGRAM.py [args]``: a pymqi or ibmmq program, run unchanged.

The runner makes ``import pymqi`` (or ``import ibmmq``) resolve to mqjms's flavour module
in this process and the processes it starts (:func:`install_aliases`, and
:mod:`mqjms.mqi.aliases` for a multiprocessing child or a ``python`` it runs), then runs the
program as ``python PROGRAM.py`` would: ``__name__ == "__main__"``, ``sys.argv`` the
program's, its directory first on ``sys.path``. ``-m MODULE`` runs a module instead.
Nothing named pymqi or ibmmq is ever installed, so the real library, where present, is
untouched for everyone else.
"""

from __future__ import annotations

import importlib
import os
import runpy
import sys
import types
from collections.abc import Sequence

FLAVOURS = ("pymqi", "ibmmq")
_SUBMODULES = ("CMQC", "CMQCFC", "CMQXC", "CMQZC", "CMQSTRC")
# ibmmq's CMQC.py puts the package's directory first on sys.path, so once ibmmq is
# imported its constant modules import as top-level ones too (``import CMQC``, as pymqi
# before 1.5 installed them): programs carried over from those days rely on it
_IBMMQ_TOP_LEVEL = ("CMQC", "CMQCFC", "CMQXC", "CMQSTRC")


def install_aliases(flavour: str = "pymqi") -> types.ModuleType:
    """Make ``import <flavour>`` (and its CMQC, CMQCFC... submodules) import mqjms's
    ``mqjms.<flavour>`` in this process; for ibmmq, ``import CMQC`` (CMQCFC, CMQXC,
    CMQSTRC) too, where no such module is loaded, as after importing the real ibmmq.
    Returns that module."""
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour {flavour!r} is not one of {', '.join(FLAVOURS)}")
    module = importlib.import_module(f"mqjms.{flavour}")
    sys.modules[flavour] = module
    for name in _SUBMODULES:
        found = getattr(module, name, None)
        if isinstance(found, types.ModuleType):
            sys.modules[f"{flavour}.{name}"] = found
            if flavour == "ibmmq" and name in _IBMMQ_TOP_LEVEL:
                sys.modules.setdefault(name, found)
    return module


def _alias_in_children(flavour: str) -> None:
    """The processes the program starts import the drop-in as ``flavour`` too: its alias
    package's directory first on ``sys.path`` (multiprocessing gives a ``spawn`` or
    ``forkserver`` child the parent's) and on ``PYTHONPATH`` (any ``python`` it runs)."""
    from .aliases import search_path

    where = search_path(flavour)
    sys.path.insert(0, where)
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([where, inherited] if inherited else [where])


USAGE = "usage: python -m mqjms.{flavour} PROGRAM.py [ARGS...] | -m MODULE [ARGS...]"


def main(flavour: str, argv: Sequence[str] | None = None) -> int:
    """Run the program named in ``argv`` with ``import <flavour>`` aliased."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE.format(flavour=flavour), file=sys.stderr)
        return 0 if args else 2
    install_aliases(flavour)
    _alias_in_children(flavour)
    if args[0] == "-m":
        if len(args) < 2:
            print(USAGE.format(flavour=flavour), file=sys.stderr)
            return 2
        sys.argv = args[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        return 0
    program = args[0]
    if not os.path.exists(program):
        print(f"mqjms.{flavour}: cannot open {program!r}: no such file", file=sys.stderr)
        return 2
    sys.argv = args
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    runpy.run_path(program, run_name="__main__")
    return 0
