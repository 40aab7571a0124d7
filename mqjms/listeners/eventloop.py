"""The worker's asyncio event loop, on a thread of its own, for ``async def`` listeners.

Consumer threads do the blocking MQ work (get, commit, backout) and hand each message's
coroutine to this loop with ``run_coroutine_threadsafe``, then wait for it; so a
listener with ``concurrency=N`` has at most N coroutines running at once, all on one loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from mqjms.logs import get_logger

if TYPE_CHECKING:  # asyncio is imported when a loop starts, not with mqjms
    import asyncio
    import concurrent.futures

log = get_logger("mqjms.listeners")
T = TypeVar("T")


class EventLoopThread:
    """One event loop running forever on a daemon thread until :meth:`stop`."""

    def __init__(self, name: str = "mqjms-event-loop") -> None:
        self.name = name
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def thread(self) -> threading.Thread | None:
        return self._thread

    def start(self) -> None:
        if self._thread is not None:
            return
        import asyncio

        loop = asyncio.new_event_loop()
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        self.loop = loop
        self._thread = threading.Thread(target=run, name=self.name, daemon=True)
        self._thread.start()
        ready.wait()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if self.loop is None:
            coro.close()
            raise RuntimeError("the event loop is not running")
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self.loop)

    def stop(self, timeout: float = 5.0) -> None:
        """Cancel what is still running, stop the loop and close it, in ``timeout`` seconds
        at most: a loop that a listener blocks (a blocking call in an ``async def``) is
        left to its daemon thread then, and the worker's stop keeps its deadline."""
        loop, thread = self.loop, self._thread
        if loop is None or thread is None:
            return
        import asyncio

        deadline = time.monotonic() + timeout

        async def cancel_all() -> None:  # then stops the loop, whenever the loop runs it
            try:
                tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
                for task in tasks:
                    task.cancel()
                if tasks:
                    await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
                await loop.shutdown_asyncgens()
            finally:  # after this task's done callbacks, which give stop() its result
                loop.call_soon(loop.stop)

        if loop.is_running():
            try:
                cancelled = asyncio.run_coroutine_threadsafe(cancel_all(), loop)
                cancelled.result(max(0.0, deadline - time.monotonic()))
            except Exception as exc:  # a listener that ignores cancellation must not hang stop
                log.warning("worker.event_loop_cancel_failed", error=repr(exc))
        thread.join(max(0.0, deadline - time.monotonic()))
        if not thread.is_alive():
            loop.close()
        self.loop = None
        self._thread = None
