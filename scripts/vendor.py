#!/usr/bin/env python3
"""Fetch the real ibmmq and pymqi source distributions the drop-in's tests compare with.

The tests of ``mqjms.pymqi``/``mqjms.ibmmq`` check the facade against the libraries' own
Python layers, run ibmmq's examples (its sdist ships them) and the libraries' pure tests
unchanged. Nothing of theirs is committed: this puts their sdists, unpacked, in
``$MQJMS_VENDOR`` or ``~/.cache/mqjms/vendor`` (tests/mqi/mqi_vendor.py looks there):

* ibmmq 2.1.2 from PyPI's simple API (JSON), its sha256 checked against the index's and
  against the one pinned here;
* pymqi 1.12.13 with ``pip download --no-binary :all: --no-deps``, its sha256 checked;
* the examples and tests of dsuch/pymqi and ibm-messaging/mq-mqi-python (pymqi's sdist
  ships neither) at pinned commits from GitHub's archive service, checked against a
  digest of every file's sha256, into ``github/OWNER/NAME/code/{examples,tests}``.

Run again, it does nothing for what is there already. ``--check`` only says what is
missing. Exit status 0 when everything is there, 1 when an sdist is missing, 2 when only
a GitHub checkout is (GitHub is not reachable from every machine that reaches PyPI).
A machine without network still runs every other test: these skip, unless
``MQJMS_REQUIRE_VENDOR=1`` (CI) makes a missing vendor file a failure.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path, PurePosixPath

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

GITHUB_ARCHIVE = "https://codeload.github.com/{repo}/tar.gz/{commit}"
GITHUB_FOLDERS = ("code/examples", "code/tests")
CHECKOUTS = {
    # repository: (commit, digest of "path\0sha256\n" over GITHUB_FOLDERS' files, sorted)
    "dsuch/pymqi": (
        "16184a62f368fde6eaa17d80c818be1b2d4bdbe9",
        "13cfbb29bcb23ab827b61aa3ecbc53f2eecfd89ac95c87fa19281fd52419bef6",
    ),
    "ibm-messaging/mq-mqi-python": (
        "e35541ae87939466095ddb0e608c5b4dcd74b77c",
        "23c6b2a13ee5fd1a58ebec63ec1db508b5a3d2407e1742b079801a16626546e6",
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


def manifest_digest(checkout: Path) -> str:
    """One digest of every file under GITHUB_FOLDERS: path and sha256, sorted."""
    digest = hashlib.sha256()
    files = sorted(
        path
        for folder in GITHUB_FOLDERS
        for path in (checkout / folder).rglob("*")
        if path.is_file()
    )
    for path in files:
        relative = path.relative_to(checkout).as_posix()
        digest.update(f"{relative}\0{sha256(path)}\n".encode())
    return digest.hexdigest()


def fetch_checkout(repo: str, root: Path, check_only: bool) -> bool:
    """GITHUB_FOLDERS of ``repo`` at its pinned commit, in ``root/github/repo``."""
    commit, pinned = CHECKOUTS[repo]
    target = root / "github" / repo
    if all((target / folder).is_dir() for folder in GITHUB_FOLDERS):
        if manifest_digest(target) == pinned:
            print(f"vendor: {repo}@{commit[:7]}: present in {root}")
            return True
        print(f"vendor: {repo}: {target} is not the pinned commit {commit[:7]}", file=sys.stderr)
        return False
    if check_only:
        print(f"vendor: {repo}@{commit[:7]}: missing from {root}")
        return False
    url = GITHUB_ARCHIVE.format(repo=repo, commit=commit)
    # optional (CI's machine may not reach GitHub): a stalled network must not hold setup long
    with urllib.request.urlopen(url, timeout=60) as response:
        archive = response.read()
    with tempfile.TemporaryDirectory(dir=root) as scratch:
        staged = Path(scratch)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            for member in tar.getmembers():
                inside = PurePosixPath(*PurePosixPath(member.name).parts[1:])  # NAME-COMMIT/
                if member.isfile() and any(
                    inside.is_relative_to(folder) for folder in GITHUB_FOLDERS
                ):
                    extracted = tar.extractfile(member)
                    assert extracted is not None
                    path = staged / inside
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(extracted.read())
        if manifest_digest(staged) != pinned:
            raise SystemExit(f"vendor: {url} does not hold the files mqjms checked")
        for folder in GITHUB_FOLDERS:
            (target / folder).parent.mkdir(parents=True, exist_ok=True)
            (staged / folder).replace(target / folder)
    print(f"vendor: {repo}@{commit[:7]}: unpacked into {target}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only say what is missing")
    args = parser.parse_args(argv)
    root = vendor_root()
    sdists_ok = checkouts_ok = True
    for name, version in SDISTS:
        try:
            sdists_ok = fetch(name, version, root, args.check) and sdists_ok
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"vendor: {name} {version}: {exc}", file=sys.stderr)
            sdists_ok = False
    for repo in CHECKOUTS:
        try:
            checkouts_ok = fetch_checkout(repo, root, args.check) and checkouts_ok
        except (OSError, urllib.error.URLError, tarfile.TarError) as exc:
            print(f"vendor: {repo}: {exc}", file=sys.stderr)
            checkouts_ok = False
    return 0 if sdists_ok and checkouts_ok else 1 if not sdists_ok else 2


if __name__ == "__main__":
    sys.exit(main())
