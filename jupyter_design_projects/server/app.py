"""The app factory of the reference service: one context, every route family, the ASGI
wrappers (host check, body limit, faults, Design gate), envelope error handlers and the
lifespan that runs the Design MCP endpoint (built once the service is ready, or at its
first request: `design/endpoint.py`; the MCP SDK is not imported before). The fault
switches and routes are imported only with `--faults`: a user's service never loads them."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from . import authorize_page, oauth, paths, revocation, seed
from .bodies import BodyLimit
from .context import ServiceConfig, ServiceContext
from .database import Database
from .design import endpoint as design_endpoint
from .design import gate as design_gate
from .design import rest as design_rest
from .design import settings_page as design_settings
from .design import store as design_store
from .envelopes import (
    ENVELOPE,
    FLAT,
    MCP,
    OAUTH,
    STATUS_KINDS,
    ApiError,
    JsonAnswer,
    envelope,
    error_payload,
    send_error,
)
from .owner import OwnerKey
from .private_files import private_dir
from .projects import api as projects_api
from .projects import remote_session
from .projects import store as projects_store

log = logging.getLogger("jupyter_design_projects.server")

DB_FILE = "service.sqlite3"
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "testserver"})


def build_context(config: ServiceConfig) -> ServiceContext:
    """Open (or create, owner-only) the data dir and its database, install the token
    authority and the fault switches, and seed once if asked."""
    private_dir(config.data_dir)  # 0700, a loose existing one tightened
    ctx = ServiceContext(config=config, db=Database(config.data_dir / DB_FILE))
    projects_store.migrate(ctx.db)
    ctx.db.migrate(design_store.SCHEMA)
    oauth.install(ctx)
    ctx.owner = OwnerKey.create(config.data_dir)  # a new secret each run, 0600
    if config.faults:  # the switches load only here: a start without --faults never needs them
        from .faults import switches as faults

        faults.install(ctx)
    if config.seed:
        seed.seed(ctx, config.seed)
    org_uuid, project_uuid = seed.demo_ids(ctx)
    ctx.demo_org_uuid, ctx.demo_project_uuid = org_uuid, project_uuid
    return ctx


#: the routes whose errors are not the §0 envelope (PROTOCOL §1, §3, §5)
SHAPES = {paths.REMOTE_SESSION: FLAT, paths.TOKEN: OAUTH, paths.REVOKE: OAUTH,
          paths.DESIGN_MCP: MCP}


def error_shape(path: str) -> str:
    """The error shape of the route family `path` belongs to."""
    return SHAPES.get(path.rstrip("/") or "/", ENVELOPE)


def _host_of(value: str) -> str:
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostCheck:
    """Answers requests whose Host is not loopback (or the configured host) with a 400 in
    the route's error shape: a browser page elsewhere cannot rebind a name to this service."""

    def __init__(self, app: Any, config: ServiceConfig) -> None:
        self.app = app
        self.allowed = LOOPBACK_HOSTS | {config.host}

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
            if _host_of(host).lower() not in self.allowed:
                await send_error(send, 400, "invalid_request_error",
                                 "Unexpected Host header.", error_shape(scope["path"]))
                return
        await self.app(scope, receive, send)


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return envelope(exc)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    kind = STATUS_KINDS.get(exc.status_code, "invalid_request_error")
    message = {404: "No such route.", 405: "Method not allowed on this route."}.get(
        exc.status_code, str(exc.detail))
    return JsonAnswer(error_payload(error_shape(request.url.path), kind, message),
                        status_code=exc.status_code, headers=exc.headers)


async def _bug(request: Request, exc: Exception) -> Response:
    log.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return JsonAnswer(error_payload(error_shape(request.url.path), "api_error",
                                      "Internal error in the reference service."),
                        status_code=500)


def create_app(config: ServiceConfig) -> Starlette:
    """A fresh app (and MCP endpoint) over the data dir; `app.state.ctx` is its context."""
    ctx = build_context(config)
    mcp_endpoint = design_endpoint.LazyEndpoint(ctx)
    routes = (oauth.routes(ctx) + revocation.routes(ctx) + authorize_page.routes(ctx)
              + projects_api.routes(ctx) + remote_session.routes(ctx) + design_rest.routes(ctx)
              + design_settings.routes(ctx) + [mcp_endpoint.route])
    if ctx.faults is not None:
        from .faults import routes as fault_routes

        routes += fault_routes.routes(ctx)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_endpoint.running():
            yield

    middleware = [Middleware(HostCheck, config=config),
                  Middleware(BodyLimit, max_bytes=config.max_body_bytes,
                             shape_of=error_shape)]
    if ctx.faults is not None:
        from .faults import switches as faults

        middleware.append(Middleware(faults.FaultMiddleware, ctx=ctx))
    middleware.append(Middleware(design_gate.DesignGate, ctx=ctx))
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={ApiError: _api_error, HTTPException: _http_error, Exception: _bug},
    )
    app.state.ctx = ctx
    return app
