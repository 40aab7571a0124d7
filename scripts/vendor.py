#!/usr/bin/env python3
"""Fetch the real ibmmq and pymqi source distributions the drop-in's tests compare with.

The tests of ``mqjms.pymqi``/``mqjms.ibmmq`` check the facade against the libraries' own
Python layers, run ibmmq's examples (its sdist ships them) and the libraries' pure tests
unchanged. Nothing of theirs is committed: this puts their sdists, unpacked, in
``$MQJMS_VENDOR`` or ``~/.cache/mqjms/vendor`` (tests/mqi/mqi_vendor.py looks there):

* ibmmq 2.1.2 from PyPI's simple API (JSON), its sha256 checked against the index's and
  against the one pinned here;
* pymqi 1.12.13 with ``pip download --no-binary :all: --no-deps``, its sha256 checked.

Run again, it does nothing for what is there already. ``--check`` only says what is
missing. Exit status 0 when both are there, 1 otherwise (a machine without network still
runs every other test: these skip).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

SIMPLE_API = "https://pypi.org/simple/{name}/"
JSON_ACCEPT = "application/vnd.pypi.simple.v1+json"
SDISTS = {
    # name, version: (the directory the tests need, sha256 of the sdist)
    ("ibmmq", "2.1.2"): (
        "code/ibmmq",
        "b9fc092f9ffa2ddf03e49558c726f458cab9e74a260a0cc2da2b944f5a27adcc",
    ),
    ("pymqi", "1.12.13"): (
        "code/pymqi",
        "a74a48d6f0c59180f678a926927b69d8d7e7df0b228f8903c08b95f54627051c",
    ),
}


def vendor_root() -> Path:
    return Path(os.environ.get("MQJMS_VENDOR") or Path.home() / ".cache" / "mqjms" / "vendor")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def from_simple_api(name: str, version: str, target: Path) -> Path:
    """Download ``name-version.tar.gz`` as PyPI's simple API lists it, hash-checked."""
    filename = f"{name}-{version}.tar.gz"
    request = urllib.request.Request(SIMPLE_API.format(name=name), headers={"Accept": JSON_ACCEPT})
    with urllib.request.urlopen(request, timeout=60) as response:
        index = json.load(response)
    entry = next((f for f in index.get("files", []) if f.get("filename") == filename), None)
    if entry is None:
        raise SystemExit(f"vendor: {filename} is not listed by {SIMPLE_API.format(name=name)}")
    listed = entry.get("hashes", {}).get("sha256")
    path = target / filename
    with urllib.request.urlopen(entry["url"], timeout=300) as response, path.open("wb") as out:
        while block := response.read(1 << 20):
            out.write(block)
    if listed is None or sha256(path) != listed:
        path.unlink(missing_ok=True)
        raise SystemExit(f"vendor: {filename} does not match the sha256 the index lists")
    return path


def with_pip(name: str, version: str, target: Path) -> Path:
    """Download the sdist with pip (source only, no dependencies)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-binary", ":all:",
         "--no-deps", "--disable-pip-version-check", f"{name}=={version}", "-d", str(target)],
        check=True,
    )  # fmt: skip
    return target / f"{name}-{version}.tar.gz"


def unpack(archive: Path, root: Path) -> None:
    with tarfile.open(archive) as tar:
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(root, **kwargs)  # hash-checked, and the "data" filter


def fetch(name: str, version: str, root: Path, check_only: bool) -> bool:
    needed, pinned = SDISTS[(name, version)]
    if (root / f"{name}-{version}" / needed).is_dir():
        print(f"vendor: {name} {version}: present in {root}")
        return True
    if check_only:
        print(f"vendor: {name} {version}: missing from {root}")
        return False
    root.mkdir(parents=True, exist_ok=True)
    archive = root / f"{name}-{version}.tar.gz"
    if not archive.exists() or sha256(archive) != pinned:
        with tempfile.TemporaryDirectory(dir=root) as scratch:
            get = from_simple_api if name == "ibmmq" else with_pip
            downloaded = get(name, version, Path(scratch))
            if sha256(downloaded) != pinned:
                raise SystemExit(f"vendor: {downloaded.name} is not the release mqjms checked")
            downloaded.replace(archive)
    unpack(archive, root)
    print(f"vendor: {name} {version}: unpacked into {root}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say what is missing")
    args = parser.parse_args(argv)
    root = vendor_root()
    ok = True
    for name, version in SDISTS:
        try:
            ok = fetch(name, version, root, args.check) and ok
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"vendor: {name} {version}: {exc}", file=sys.stderr)
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
