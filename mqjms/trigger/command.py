"""The command line a trigger monitor runs for a trigger message, built as IBM's runmqtrm
builds it: the process definition's ApplId, then the MQTMC2 (732 characters) as one
argument, then the EnvData.

Unlike runmqtrm, no shell is involved: ApplId and EnvData are split into words with POSIX
shell quoting rules (``shlex``), so quotes group words but nothing is expanded or
substituted. A trailing ``&`` in EnvData (runmqtrm's way to run a program in the
background) is dropped: every program is started in the background and supervised.

``mqjms ...`` as the program (``APPLICID('mqjms run orders:app')``) runs the mqjms of the
trigger monitor's own Python interpreter: ``<python> -m mqjms run orders:app``.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Sequence

from mqjms.mq import constants as C
from mqjms.mq.tm import MQTM, MQTMC2
from mqjms.transport.url import redact

#: Application types this trigger monitor can start. Like runmqtrm it supports the
#: platform's default application type (MQAT_DEFAULT is MQAT_UNIX on UNIX and Linux).
SUPPORTED_APPL_TYPES: frozenset[int] = (
    frozenset({C.MQAT_WINDOWS_NT, C.MQAT_WINDOWS}) if os.name == "nt" else frozenset({C.MQAT_UNIX})
)


class CommandError(Exception):
    """The trigger message names no program that can be started; the message says why."""

    def __init__(self, feedback: int, detail: str) -> None:
        self.feedback = feedback  # MQFB_APPL_TYPE_ERROR or MQFB_APPL_CANNOT_BE_STARTED
        self.detail = detail
        super().__init__(detail)


def tmc2_argument(tm: MQTM, qmgr_name: str) -> str:
    """The MQTMC2 character structure passed to the started program, 732 characters."""
    return MQTMC2.from_tm(tm, qmgr_name).pack().decode("latin-1")


def command_line(
    tm: MQTM,
    qmgr_name: str,
    *,
    python: str = sys.executable,
    appl_types: Sequence[int] | frozenset[int] = SUPPORTED_APPL_TYPES,
) -> list[str]:
    """``argv`` for the program ``tm`` names: ApplId words, the MQTMC2, EnvData words.

    Raises :class:`CommandError` with MQFB_APPL_TYPE_ERROR for an application type this
    monitor does not start, and MQFB_APPL_CANNOT_BE_STARTED for a blank or unparsable
    ApplId (or EnvData)."""
    if tm.ApplType not in appl_types:
        raise CommandError(
            C.MQFB_APPL_TYPE_ERROR,
            f"ApplType {tm.ApplType} is not one this trigger monitor starts "
            f"({', '.join(str(t) for t in sorted(appl_types))}: APPLTYPE(UNIX) or DEF)",
        )
    applid = tm.ApplId.strip()
    if not applid:
        raise CommandError(
            C.MQFB_APPL_CANNOT_BE_STARTED,
            f"process {tm.ProcessName or '(none)'!r} has a blank APPLICID: no program to start",
        )
    program = _words(applid, "APPLICID")
    envdata = tm.EnvData.strip()
    if envdata.endswith("&"):
        envdata = envdata[:-1].rstrip()
    tail = _words(envdata, "ENVRDATA") if envdata else []
    if program[0] == "mqjms":
        program = [python, "-m", "mqjms", *program[1:]]
    return [*program, tmc2_argument(tm, qmgr_name), *tail]


def _words(text: str, attr: str) -> list[str]:
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise CommandError(
            C.MQFB_APPL_CANNOT_BE_STARTED, f"{attr}({text!r}) cannot be split into words: {exc}"
        ) from None
    if not words:
        raise CommandError(C.MQFB_APPL_CANNOT_BE_STARTED, f"{attr}({text!r}) names no program")
    return words


_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"]+")


def masked(line: str, argv: Sequence[str]) -> str:
    """A line the program wrote, as it is logged: the trigger message it was given
    shortened (its UserData, TriggerData and EnvData may hold secrets, and a program
    that cannot parse its arguments prints them back) and any URL's password masked."""
    for arg in argv:
        if _is_tmc2(arg):
            for form in (arg, arg.rstrip()):
                if form and form in line:
                    line = line.replace(form, f"<MQTMC2 {len(arg)}>")
    return _URL.sub(lambda found: redact(found[0]), line) if "://" in line else line


def _is_tmc2(arg: str) -> bool:
    return arg.startswith("TMC ") and len(arg) == 732


def describe(argv: Sequence[str]) -> str:
    """The command for a log line, with the 732-character MQTMC2 shortened and any URL's
    password masked (EnvData such as ``--url stomp://user:pw@host``)."""
    shown = [f"<MQTMC2 {len(a)}>" if _is_tmc2(a) else redact(a) if "://" in a else a for a in argv]
    return shlex.join(shown)
