"""The Design MCP endpoint, started after the port listens: importing the MCP SDK and
building the server (`mcp.build`) costs 0.5–0.9 s, which a service that only answers
Projects calls never needs. The route at POST/GET /v1/design/mcp is this object; the real
endpoint (the SDK's low-level `Server` behind its session manager, unchanged) is built on
the first request to it, or in the background `WARM_AFTER_S` after the service is ready,
whichever comes first, and runs in the app's lifespan until it ends. The import and the
build run on a worker thread: requests to the other routes are answered meanwhile.

The background build is part of warming the Design side, with the preview browser:
`ServiceConfig.warm_browser` (on for `jdp-server`; off for apps built in-process and for
the tests' many short-lived services, `--no-warm-browser`, which build it at their first
MCP request, if any)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from ..context import ServiceContext
from ..paths import DESIGN_MCP

log = logging.getLogger(__name__)

#: seconds after the service is ready before the endpoint is built unasked: after a first
#: Projects call (which the client makes at once) has had the CPU to itself
WARM_AFTER_S = 1.0

Built = tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]


class LazyEndpoint:
    """The ASGI app at DESIGN_MCP that builds and runs the real endpoint when first needed.
    Until it is built, the fault switches that act on it see no session and no extra
    operation; serving an extra operation builds it first."""

    def __init__(self, ctx: ServiceContext) -> None:
        self.ctx = ctx
        self._lock = threading.Lock()
        self._built: Built | None = None
        self._wanted: asyncio.Event | None = None
        self._running: asyncio.Event | None = None
        self._failure: BaseException | None = None
        ctx.drop_mcp_sessions = lambda: 0  # no session before the endpoint exists
        ctx.extra_design_operation = self._extra_operation

    @property
    def route(self) -> Route:
        return Route(DESIGN_MCP, endpoint=self)

    def built(self) -> Built:
        """The real endpoint (its route and lifespan), built once; `mcp.build` replaces the
        context's fault hooks with its own."""
        with self._lock:
            if self._built is None:
                from . import mcp as design_mcp  # the SDK: the cost this module defers

                self._built = design_mcp.build(self.ctx)
            return self._built

    def _extra_operation(self, name: str, description: str | None) -> bool:
        if description is None:  # nothing served beyond the table before the build
            return False
        self.built()
        serve = self.ctx.extra_design_operation  # the endpoint's own, now it is built
        assert serve is not None and serve != self._extra_operation
        return serve(name, description)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self._wanted is None or self._running is None:
            raise RuntimeError("the Design MCP endpoint runs only inside the app's lifespan")
        self._wanted.set()
        await self._running.wait()
        if self._failure is not None:
            raise RuntimeError("the Design MCP endpoint failed to start") from self._failure
        route, _ = self.built()
        await route.handle(scope, receive, send)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The app's lifespan part: the endpoint starts when wanted and stops with the app."""
        self._wanted, self._running = asyncio.Event(), asyncio.Event()
        stop = asyncio.Event()
        task = asyncio.create_task(self._serve(stop))
        warm = (asyncio.get_running_loop().call_later(WARM_AFTER_S, self._wanted.set)
                if self.ctx.config.warm_browser else None)
        try:
            yield
        finally:
            if warm is not None:
                warm.cancel()
            stop.set()
            if not self._wanted.is_set():
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _serve(self, stop: asyncio.Event) -> None:
        assert self._wanted is not None and self._running is not None
        await self._wanted.wait()
        try:
            _, lifespan = await run_in_threadpool(self.built)
            async with lifespan():
                self._running.set()
                await stop.wait()
        except Exception as exc:  # the requests waiting on it report it; so does the log
            log.exception("the Design MCP endpoint failed to start")
            self._failure = exc
            self._running.set()
