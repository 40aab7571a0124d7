"""A program's exit as IBM's MQI libraries have it: a daemon thread in an MQ call never
returns from it.

With pymqi or ibmmq, a daemon thread blocked in MQGET (or connecting) when the program
ends stays in IBM's C library until the process is gone: nothing is printed. Here the
at-exit MQDISC (hconn.py) and the transport's close wake such a call with an error
(MQRC_Q_MGR_STOPPING), and its traceback reached the terminal. Once the exit has begun,
an MQ error in any thread but the main one parks that thread instead: at exit every other
thread still running is a daemon thread (non-daemon ones were joined before), and the
interpreter ends without waiting for it.
"""

from __future__ import annotations

import threading

_exiting = threading.Event()
_never = threading.Event()


def begin() -> None:
    """The program's exit has begun (hconn's at-exit MQDISC calls this first)."""
    _exiting.set()


def park_if_exiting() -> None:
    """In a daemon thread during the exit: wait for the process to end, as a thread
    inside IBM's library does. Elsewhere: return at once."""
    if _exiting.is_set() and threading.current_thread() is not threading.main_thread():
        _never.wait()
