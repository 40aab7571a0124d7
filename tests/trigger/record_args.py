"""A program for the trigger monitor tests to start: it appends one JSON line with its
arguments, MQJMS_URL and pid to ``$RECORD_ARGS_FILE``, prints a line on each of stdout
and stderr, sleeps ``$RECORD_ARGS_SLEEP`` seconds and exits with ``$RECORD_ARGS_EXIT``."""

from __future__ import annotations

import json
import os
import sys
import time

path = os.environ.get("RECORD_ARGS_FILE", "")
if path:
    with open(path, "a", encoding="utf-8") as out:
        out.write(
            json.dumps(
                {"argv": sys.argv[1:], "url": os.environ.get("MQJMS_URL"), "pid": os.getpid()}
            )
            + "\n"
        )
print(f"hello from {os.getpid()}", flush=True)
print("a line on stderr", file=sys.stderr, flush=True)
time.sleep(float(os.environ.get("RECORD_ARGS_SLEEP", "0")))
sys.exit(int(os.environ.get("RECORD_ARGS_EXIT", "0")))
