"""Waking the gets that wait: a doorbell for this process.

A get with wait sleeps until something may have changed: a commit, a put outside syncpoint,
a backout, an ALTER, a unit of work ended for a dead process. Writers in this process ring
(:func:`ring`, which a :class:`~.transaction.Transaction` does after its COMMIT); a
waiter wakes at once. Writers in other processes ring it through this process's bell
(:mod:`.bells`); ``getting.py`` also polls SQLite's ``data_version`` as a fallback.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

_doorbell = threading.Condition()
_sleepers = 0  # threads in wait(): a ring finds none mostly, and a notify is pure Python
_rings = 0


def ring() -> None:
    """Something changed: wake every waiter in this process."""
    global _rings
    with _doorbell:
        _rings += 1
        if _sleepers:
            _doorbell.notify_all()


def nudge() -> None:
    """Wake every waiter without a ring: one of them has been told to stop waiting (its
    ``until`` became true), the others look at their ``until`` and sleep again."""
    with _doorbell:
        if _sleepers:
            _doorbell.notify_all()


def wait(seen: int, timeout: float, until: Callable[[], bool] | None = None) -> int:
    """Sleep until a ring after ``seen`` (a :func:`rings` reading) or a :func:`nudge` once
    ``until()`` is true, at most ``timeout`` seconds; returns the current reading.
    ``until`` is read under the doorbell's lock: a nudge that follows its change is never
    missed."""
    global _sleepers
    with _doorbell:
        if _rings == seen and (until is None or not until()):
            _sleepers += 1
            try:
                _doorbell.wait(timeout)
            finally:
                _sleepers -= 1
        return _rings


def rings() -> int:
    """How many times the doorbell has rung: read it before looking, wait on it after."""
    return _rings


def _reset_in_child() -> None:
    """A forked child starts with a doorbell of its own: another thread of the parent may
    have held the lock at the fork, which no thread of the child would ever release."""
    global _doorbell, _sleepers
    _doorbell = threading.Condition()
    _sleepers = 0


os.register_at_fork(after_in_child=_reset_in_child)
