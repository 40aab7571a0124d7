"""A package's public names, imported on first access (PEP 562).

``import mqjms`` (or any of its packages) then costs what the program touches, not the
whole API: a worker that never sees a dead-letter header never loads the module that
parses one. Each package imports its names under ``TYPE_CHECKING``, for type checkers and
IDEs, and says here where each one lives::

    if not TYPE_CHECKING:
        __getattr__, __dir__ = exports(__name__, {".worker": ("Worker",)})

Its ``__all__`` is a literal list of the table's names: type checkers read no computed
``__all__``, and ``from package import *`` would then define nothing for them (a test keeps
the list, the imports and the table in step).

A name that is also a submodule's name (``mqjms.listeners.send``) must be imported
eagerly instead: importing the submodule sets the package attribute to the module, which
would hide the lazy name.
"""

import sys

# typing's TYPE_CHECKING without importing typing (nor __future__, nor collections.abc):
# this module and mqjms's own __init__ are all ``import mqjms`` loads; mypy knows the name
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


def exports(
    package: str,
    names: "Mapping[str, tuple[str, ...]]",
    modules: "Mapping[str, str] | None" = None,
) -> "tuple[Callable[[str], Any], Callable[[], list[str]]]":
    """``__getattr__`` and ``__dir__`` for ``package``: ``names`` maps a module (a
    submodule of ``package`` when it starts with a dot) to the names it defines;
    ``modules`` maps a name to a module that is itself the value (``C`` for
    ``.constants``). A value, once imported, is stored in the package's namespace, so
    later accesses are plain lookups."""

    def absolute(module: str) -> str:
        return package + module if module.startswith(".") else module

    where = {name: (absolute(m), True) for m, listed in names.items() for name in listed}
    where.update({name: (absolute(m), False) for name, m in (modules or {}).items()})
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> "Any":
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = found
        __import__(module)  # not importlib.import_module: -X importtime sees this one
        value = sys.modules[module]
        if attribute:
            value = getattr(value, name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
