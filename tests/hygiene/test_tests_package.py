"""tests/ stays a package: helpers are imported by name (``tests.stomp.activemq_support``),
never found by editing ``sys.path`` or loaded from a file path, so every test module and
child process sees one copy of each helper."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
# mqi_vendor loads the real pymqi/ibmmq from their source distributions, outside the repo.
ALLOWED = {TESTS / "mqi" / "mqi_vendor.py"}
PATH_HACKS = re.compile(r"sys\.path\s*(\.insert|\.append|\[|=|\+=)|spec_from_file_location")


def test_every_test_folder_is_a_package() -> None:
    folders = {p.parent for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts}
    missing = sorted(
        str(f.relative_to(TESTS.parent)) for f in folders if not (f / "__init__.py").exists()
    )
    assert missing == [], f"add an __init__.py to: {', '.join(missing)}"


def test_no_test_module_edits_sys_path_or_loads_a_file_by_path() -> None:
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{number}"
        for path in sorted(TESTS.rglob("*.py"))
        if path not in ALLOWED and path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if PATH_HACKS.search(line)
    ]
    assert offenders == [], "import helpers as tests.<folder>.<module>: " + ", ".join(offenders)


def test_helpers_are_imported_by_their_package_name() -> None:
    helpers = {
        path.stem
        for path in TESTS.rglob("*.py")
        if not path.stem.startswith(("test_", "__")) and path.stem != "conftest"
    } | {"conftest"}
    bare = re.compile(rf"^\s*(from|import)\s+({'|'.join(sorted(helpers))})\b", re.MULTILINE)
    offenders = [
        f"{path.relative_to(TESTS.parent)}: {match.group(0).strip()}"
        for path in sorted(TESTS.rglob("*.py"))
        for match in bare.finditer(path.read_text())
    ]
    assert offenders == [], "import them as tests.<folder>.<module>: " + ", ".join(offenders)
