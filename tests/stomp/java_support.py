"""A real Java JMS client for the interoperability tests: tests/java/JmsClient.java,
compiled at test time against Debian's ActiveMQ client jars, talking OpenWire to the test
broker (``scripts/activemq`` opens the port) while mqjms talks STOMP.

``compile_client()`` needs a JDK (``scripts/setup`` installs openjdk-17-jdk-headless);
``JavaClient.run("receive", queue, ...)`` runs one command and returns its JSON.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SOURCE = REPO / "tests" / "java" / "JmsClient.java"
OPENWIRE_ENV = "MQJMS_TEST_OPENWIRE_URL"
JARS = (
    "activemq-client.jar",
    "geronimo-jms_1.1_spec.jar",
    "geronimo-j2ee-management-1.1-spec.jar",
    "hawtbuf.jar",
    "slf4j-api.jar",
    "slf4j-nop.jar",
)
JAR_DIR = Path("/usr/share/java")


class JavaUnavailable(Exception):
    """No JDK or no ActiveMQ client jars here."""


def compile_client(out_dir: Path) -> str:
    """Compile JmsClient.java into ``out_dir``; returns the class path to run it with."""
    javac = shutil.which("javac")
    if javac is None:
        raise JavaUnavailable("no javac: scripts/setup installs openjdk-17-jdk-headless")
    jars = [JAR_DIR / jar for jar in JARS]
    missing = [str(jar) for jar in jars if not jar.exists()]
    if missing:
        raise JavaUnavailable(f"ActiveMQ's client jars are missing: {', '.join(missing)}")
    classpath = os.pathsep.join(str(jar) for jar in jars)
    result = subprocess.run(
        [javac, "-d", str(out_dir), "-cp", classpath, str(SOURCE)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"javac failed:\n{result.stderr}")
    return classpath + os.pathsep + str(out_dir)


def openwire_url() -> str:
    """The OpenWire URL of the test broker (the one ``scripts/activemq`` runs)."""
    external = os.environ.get(OPENWIRE_ENV)
    if external:
        return external
    result = subprocess.run(
        ["bash", str(REPO / "scripts" / "activemq"), "openwire-url"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    return result.stdout.strip()


class JavaClient:
    """Runs JmsClient commands against one broker; queue names get the test's prefix."""

    def __init__(self, classpath: str, url: str, prefix: str = "") -> None:
        self.classpath = classpath
        self.url = url
        self.prefix = prefix

    def command(self, name: str, *args: str) -> list[str]:
        java = shutil.which("java") or "java"
        return [java, "-cp", self.classpath, "JmsClient", name, self.url, *args]

    def run(self, name: str, *args: str, timeout: float = 120) -> dict[str, Any]:
        result = subprocess.run(
            self.command(name, *args), capture_output=True, text=True, timeout=timeout
        )
        if result.returncode != 0:
            raise RuntimeError(f"JmsClient {name} failed ({result.returncode}):\n{result.stderr}")
        out: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
        return out

    def start(self, name: str, *args: str) -> subprocess.Popen[str]:
        """Start a command in the background (a requester or responder)."""
        return subprocess.Popen(
            self.command(name, *args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )

    @staticmethod
    def result(process: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
        out, err = process.communicate(timeout=timeout)
        if process.returncode != 0:
            raise RuntimeError(f"JmsClient failed ({process.returncode}):\n{err}")
        found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
        return found

    def queue(self, name: str) -> str:
        """The broker's name of a queue of the test (its prefix)."""
        return self.prefix + name
