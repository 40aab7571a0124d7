"""mqjms's packages load their public names on first access (PEP 562, :mod:`mqjms._lazy`).

What must hold for that to be invisible: every name in ``__all__`` resolves, in a fresh
interpreter and through ``from ... import *``; ``dir()`` lists them; type checkers see the
same names (the ``TYPE_CHECKING`` imports match the table the package loads from); and no
lazy name is also a submodule's name (importing the submodule would hide it).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from mqjms._lazy import exports

REPO = Path(__file__).resolve().parents[2]

LAZY_PACKAGES = [
    "mqjms",
    "mqjms.backout",
    "mqjms.jms",
    "mqjms.listeners",
    "mqjms.mq",
    "mqjms.semantics",
    "mqjms.transport",
]


def _run(code: str) -> object:
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_public_name_resolves_in_a_fresh_interpreter_and_dir_lists_it(
    package: str,
) -> None:
    found = _run(
        f"""
        import json, importlib
        package = importlib.import_module({package!r})
        names = list(package.__all__)
        missing = [n for n in names if n not in dir(package)]
        values = {{n: getattr(package, n) is not None for n in names}}
        star = {{}}
        exec("from {package} import *", star)
        print(json.dumps({{"missing_from_dir": missing, "resolved": values,
                          "star": sorted(set(names) - set(star))}}))
        """
    )
    assert isinstance(found, dict)
    assert found["missing_from_dir"] == []
    assert found["star"] == []  # `from package import *` bound every name in __all__
    assert all(found["resolved"].values())


def test_from_mqjms_import_a_name_works_in_a_fresh_interpreter() -> None:
    found = _run(
        """
        import importlib, json
        from mqjms import Worker, TextMessage
        importlib.import_module("mqjms.listeners.send")  # the submodule, then the name
        from mqjms.listeners import send
        print(json.dumps([Worker.__name__, TextMessage.__name__, send.__qualname__]))
        """
    )
    assert found == ["Worker", "TextMessage", "send"]


def _lazy_table(package: ModuleType) -> set[str]:
    where: dict[str, tuple[str, ...]] = getattr(package, "_WHERE", {})
    return {name for names in where.values() for name in names}


def _module_tree(package: ModuleType) -> ast.Module:
    assert package.__file__ is not None
    return ast.parse(Path(package.__file__).read_text())


def _type_checking_imports(package: ModuleType) -> dict[str, tuple[str, bool]]:
    """What the package imports under ``if TYPE_CHECKING:`` (what mypy and IDEs see): each
    name, the module it comes from, and whether it is an explicit re-export (``X as X``)."""
    imports: dict[str, tuple[str, bool]] = {}
    for node in _module_tree(package).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    module = importlib.util.resolve_name(
                        "." * stmt.level + (stmt.module or ""), package.__name__
                    )
                    for alias in stmt.names:
                        imports[alias.asname or alias.name] = (module, alias.asname == alias.name)
    return imports


def _literal_all(package: ModuleType) -> set[str] | None:
    """``__all__`` when it is a list of strings, which type checkers read; None when it is
    computed (then ``from package import *`` defines nothing for mypy)."""
    for node in _module_tree(package).body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__":
            if isinstance(node.value, ast.List) and all(
                isinstance(e, ast.Constant) for e in node.value.elts
            ):
                return {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
            return None
    raise AssertionError(f"{package.__name__} has no __all__")


@pytest.mark.parametrize("package_name", LAZY_PACKAGES)
def test_type_checkers_see_each_name_exported_from_where_the_package_loads_it(
    package_name: str,
) -> None:
    package = importlib.import_module(package_name)
    where: dict[str, tuple[str, ...]] = getattr(package, "_WHERE", {})
    assert where, f"{package_name} has no _WHERE table"
    imports = _type_checking_imports(package)
    listed = _literal_all(package)
    assert listed is not None, f"{package_name}.__all__ must be a literal list of strings"
    for module, names in where.items():
        module = importlib.util.resolve_name(module, package_name)
        for name in names:
            assert name in imports, f"{name} is not imported under TYPE_CHECKING"
            assert imports[name][0] == module, f"{name}: loaded from {module}, typed from another"
            assert name in listed, f"{name} is not in __all__"


@pytest.mark.parametrize("package_name", LAZY_PACKAGES)
def test_all_lists_the_lazy_names_and_attributes_the_package_sets(package_name: str) -> None:
    package = importlib.import_module(package_name)
    lazy = _lazy_table(package)
    assert lazy <= set(package.__all__)
    # the others are set eagerly (__version__) or are modules loaded lazily (mqjms.mq.C)
    assert {n for n in package.__all__ if n not in lazy} <= set(dir(package))
    assert len(package.__all__) == len(set(package.__all__))


@pytest.mark.parametrize("package_name", LAZY_PACKAGES)
def test_no_lazy_name_is_also_a_submodule_name(package_name: str) -> None:
    package = importlib.import_module(package_name)
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert _lazy_table(package) & submodules == set()


def test_exports_loads_a_name_once_then_it_is_a_plain_attribute() -> None:
    package = ModuleType("mqjms_lazy_probe")
    sys.modules[package.__name__] = package
    try:
        getattr_, dir_ = exports(
            package.__name__,
            {"json": ("dumps",)},
            modules={"decoder": "json.decoder"},
        )
        assert getattr_("dumps") is json.dumps
        assert vars(package)["dumps"] is json.dumps  # cached: no second __getattr__
        assert getattr_("decoder") is sys.modules["json.decoder"]
        assert {"dumps", "decoder"} <= set(dir_())
        with pytest.raises(AttributeError, match="has no attribute 'loads'"):
            getattr_("loads")
    finally:
        del sys.modules[package.__name__]


def test_an_unknown_name_is_an_attribute_error() -> None:
    import mqjms

    assert not hasattr(mqjms, "NoSuchThing")
    with pytest.raises(AttributeError, match="module 'mqjms' has no attribute 'NoSuchThing'"):
        mqjms.NoSuchThing  # type: ignore[attr-defined]  # noqa: B018


def test_subpackages_are_attributes_of_mqjms_after_import_mqjms() -> None:
    # as when mqjms imported its API eagerly: mqjms.transport.connect(url) in the docs
    code = (
        "import mqjms; mqjms.transport.connect; mqjms.mq.MQMD; mqjms.jms.Session; "
        "mqjms.semantics.Capability; mqjms.backout.PoisonHandler; mqjms.listeners.Worker; "
        "mqjms.qmgr; mqjms.logs.configure; print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr
