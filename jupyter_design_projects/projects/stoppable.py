"""A batch run on the session's loop that a KeyboardInterrupt (the kernel's interrupt) in
the waiting thread stops after its write in flight, instead of leaving it running unseen:
the interrupt sets the batch's stop flag, and the wait goes on until the batch has
stopped and said what it wrote and what it did not. A second interrupt while it finishes
its write leaves the wait (the batch still stops at its next write)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

#: an interrupt that comes before the batch has begun on the loop waits this long for it
STARTED_WITHIN_S = 1.0

Run = Callable[[Coroutine[Any, Any, Any]], Any]


def run_stoppable(run: Run, batch: Callable[[Callable[[], bool]], Coroutine[Any, Any, T]],
                  *, stop: threading.Event | None = None) -> T:
    """`run(batch(stop_asked))`, where an interrupt while waiting asks the batch to stop
    (`stop_asked()` turns True) and waits for what it returns."""
    flag = stop if stop is not None else threading.Event()
    started, finished = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}

    async def body() -> T:
        started.set()
        try:
            outcome["value"] = value = await batch(flag.is_set)
            return value
        except BaseException as exc:
            outcome["error"] = exc
            raise
        finally:
            finished.set()

    try:
        return run(body())  # type: ignore[no-any-return]
    except KeyboardInterrupt:
        flag.set()
        if not started.wait(STARTED_WITHIN_S):
            raise  # interrupted before the batch began: it sends nothing
        finished.wait()
        if "error" in outcome:
            raise outcome["error"] from None
        return outcome["value"]  # type: ignore[no-any-return]
