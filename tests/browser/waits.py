"""How the browser tests wait for a condition in a page: every `wait_for_function` goes
through `wait_until`, which re-evaluates the condition every POLL_MS rather than on every
animation frame (Playwright's default, `polling="raf"`).

Measured here (tests/browser, one JupyterLab page with a notebook open and its kernel idle):
a pending wait on every frame keeps Chromium drawing about 60 frames a second for as long
as it lasts, 0.12 CPU-seconds for each second waited (renderer 0.10, GPU process 0.02),
against 0.006 when it re-evaluates every 200 ms, the same as no wait at all. The browser
tests spend most of their time waiting on kernels, so the frames were a tenth of the whole
suite's CPU. A condition met is seen at most POLL_MS later."""

from __future__ import annotations

from typing import Any

#: how often a wait re-evaluates its condition (milliseconds)
POLL_MS = 100


def wait_until(target: Any, expression: str, arg: Any = None, *,
               timeout: float | None = None) -> Any:
    """`target.wait_for_function(expression, arg=arg, timeout=timeout)` (a page or a
    frame; `timeout` None: the page's default), re-evaluated every POLL_MS; the value's
    handle, as Playwright returns it."""
    return target.wait_for_function(expression, arg=arg, timeout=timeout, polling=POLL_MS)
