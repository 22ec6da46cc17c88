"""The session's background event loop: one asyncio loop on a daemon thread, so the
notebook's synchronous magics can await the async clients without touching the kernel's
own loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import traceback
from collections.abc import Coroutine
from typing import Any, TypeVar

from ..errors import DeadlineExceeded, JdpError, SessionClosed

T = TypeVar("T")

#: close() waits at most this long for the loop's tasks to finish cancelling
CLOSE_TIMEOUT_S = 5.0
#: how many times close() looks again for tasks started while the last ones were ending
CANCEL_ROUNDS = 10
#: loop turns close() lets pass before each look: a connection accepted in the turn
#: close() starts in becomes a task one turn later and a transport the turn after that
SETTLE_TURNS = 3


class BackgroundLoop:
    def __init__(self, name: str = "jdp-loop") -> None:
        self._loop = asyncio.new_event_loop()
        self._state = threading.Lock()
        self._closed = False
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        try:
            self._loop.run_forever()  # returns only once close() stopped it
        finally:
            self._loop.close()

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule `coro` on the loop; the future resolves with its result or exception."""
        with self._state:
            if self._closed:
                coro.close()  # never awaited on purpose: do not warn about it
                raise SessionClosed("background loop")
            return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run `coro` and wait for it; its exception is raised here. A timeout cancels it.

        The hand-off is one `call_soon_threadsafe` that starts a task and one lock the
        task's done-callback releases: no `concurrent.futures.Future` to chain and no
        condition variable, which is most of the hop's cost (`submit` keeps the future).
        """
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError("BackgroundLoop.run() called from its own loop: await instead")
        done = threading.Lock()
        done.acquire()
        started: list[asyncio.Task[T]] = []

        def start() -> None:
            task = self._loop.create_task(coro)
            started.append(task)
            task.add_done_callback(lambda _task: done.release())

        with self._state:
            if self._closed:
                coro.close()  # never awaited on purpose: do not warn about it
                raise SessionClosed("background loop")
            self._loop.call_soon_threadsafe(start)
        if not done.acquire(timeout=-1 if timeout is None else timeout):
            # the task exists once `start` ran; cancel it there, in the loop's order
            self._loop.call_soon_threadsafe(lambda: started and started[0].cancel())
            raise DeadlineExceeded("background call", timeout or 0.0)
        task = started[0]
        if task.cancelled():
            raise concurrent.futures.CancelledError()
        try:
            return task.result()
        except JdpError as exc:
            # an expected failure: the finished frames it passed through may hold a raw
            # answer (which a hostile service can fill with the client's own token), and a
            # traceback that prints locals (%xmode Verbose) must not show it
            traceback.clear_frames(exc.__traceback__)
            raise

    def close(self) -> None:
        """Cancel what is still running, stop the loop and join its thread. Idempotent."""
        with self._state:
            if self._closed:
                return
            self._closed = True
        if threading.current_thread() is self._thread:
            self._loop.stop()  # closing from inside the loop: stop once this task yields
            return
        cleanup = asyncio.run_coroutine_threadsafe(self._cancel_all(), self._loop)
        try:
            cleanup.result(CLOSE_TIMEOUT_S)
        except concurrent.futures.TimeoutError:
            pass  # a stuck worker thread: stop the loop anyway
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CLOSE_TIMEOUT_S)

    async def _cancel_all(self) -> None:
        """Cancel every task, and the ones that start while those end (a connection a
        listener accepted just before it closed starts its handler then): each gets to run
        its cleanup, so no socket is left to the garbage collector. Before each look the
        loop turns SETTLE_TURNS times, so work already queued has started: a task cancelled
        before its first step never runs its cleanup (an accepted connection's task then
        leaves the socket it was handed). Bounded rounds."""
        me = asyncio.current_task()
        for _ in range(CANCEL_ROUNDS):
            for _turn in range(SETTLE_TURNS):
                await asyncio.sleep(0)
            tasks = [t for t in asyncio.all_tasks() if t is not me and not t.done()]
            if not tasks:
                break
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._loop.shutdown_asyncgens()
        await self._loop.shutdown_default_executor()
