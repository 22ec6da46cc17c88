"""The /_faults control routes (only with --faults; `switches.FaultMiddleware` keeps them to
loopback clients): each validates its JSON body and sets one switch of `ctx.faults`. The
answer-replacing rules' bodies are read by `rules.py`; the other switches are the
endpoints of `Controls` below, one method per route.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, oauth, paths
from ..context import ServiceContext
from ..envelopes import ApiError, JsonAnswer
from ..projects import store as projects_store
from . import hostile
from .rules import RULES
from .state import FaultState

MAX_UPLOAD_BYTES = 24 * 1024 * 1024


def _project_uuid(ctx: ServiceContext, body: dict[str, Any]) -> str:
    value = body.get("project_uuid")
    if not isinstance(value, str):
        raise ApiError("not_found_error", "No such project.")
    row = None
    if projects_store.is_uuid(value):
        row = ctx.db.read().execute("SELECT uuid FROM projects WHERE uuid = ?",
                                    (value,)).fetchone()
    if row is None:
        raise ApiError("not_found_error", "No such project.")
    return value


def _remember(ctx: ServiceContext, state: FaultState, project_uuid: str) -> None:
    if project_uuid not in state.saved_projects:
        row = ctx.db.read().execute(
            "SELECT max_knowledge_size, search_threshold, search_enabled FROM projects "
            "WHERE uuid = ?", (project_uuid,)).fetchone()
        state.saved_projects[project_uuid] = tuple(row)


def _reset(ctx: ServiceContext, state: FaultState) -> None:
    with ctx.db.transaction() as conn:
        for project_uuid, (maximum, threshold, enabled) in state.saved_projects.items():
            projects_store.set_limits(conn, project_uuid, max_knowledge_size=maximum,
                                      threshold=threshold)
            projects_store.set_search_enabled(conn, project_uuid, bool(enabled))
    if ctx.extra_design_operation is not None:
        for name in state.extra_operations:
            ctx.extra_design_operation(name, None)
    state.extra_operations.clear()
    state.rules.clear()
    state.counts.clear()
    state.misreport.clear()
    state.narrowed.clear()
    state.saved_projects.clear()
    state.hostile = None
    state.echo.on = False


def _upload(ctx: ServiceContext, body: dict[str, Any]) -> dict[str, Any]:
    project_uuid = (_project_uuid(ctx, body) if "project_uuid" in body
                    else ctx.demo_project_uuid)
    if project_uuid is None:
        raise ApiError("not_found_error", "No such project.")
    try:
        data = base64.b64decode(bodies.string(body, "data_b64", min_len=0, max_len=1 << 40),
                                validate=True)
    except (binascii.Error, ValueError):
        raise ApiError("invalid_request_error", "'data_b64' must be base64.") from None
    if len(data) > MAX_UPLOAD_BYTES:
        raise ApiError("request_too_large", "Uploads are limited to 24 MiB here.")
    with ctx.db.transaction() as conn:
        file_uuid = projects_store.add_upload(
            conn, project_uuid,
            file_name=bodies.doc_name(body.get("file_name")),
            file_kind=bodies.string(body, "file_kind", max_len=16),
            mime_type=bodies.string(body, "mime_type", max_len=255),
            data=data,
            extracted=bodies.string(body, "extracted", min_len=0, max_len=1 << 40,
                                    required=False),
            now=ctx.clock())
    return {"file_uuid": file_uuid, "project_uuid": project_uuid}


class Controls:
    """The endpoints of the control routes over one run's context and its switches."""

    def __init__(self, ctx: ServiceContext) -> None:
        state = ctx.faults
        assert state is not None, "the fault routes exist only with --faults"
        self.ctx, self.state = ctx, state

    def adder(self, kind: str) -> Any:
        """The endpoint that adds a rule of `kind` (`rules.RULES`)."""
        async def add_rule(request: Request) -> Response:
            rule = RULES[kind](await bodies.read_object(request))
            self.state.rules.append(rule)
            return JsonAnswer({"ok": True, "kind": rule.kind, "path": rule.path,
                                 "count": rule.count})
        return add_rule

    async def drop_sessions(self, request: Request) -> Response:
        if self.ctx.drop_mcp_sessions is None:
            raise ApiError("not_found_error", "The MCP endpoint is not running.")
        return JsonAnswer({"dropped": self.ctx.drop_mcp_sessions()})

    async def design_operation(self, request: Request) -> Response:
        """Serve one more read-only Design operation (or stop: "remove": true)."""
        if self.ctx.extra_design_operation is None:
            raise ApiError("not_found_error", "The MCP endpoint is not running.")
        body = await bodies.read_object(request)
        name = bodies.string(body, "name", max_len=64)
        assert name is not None
        description = None if body.get("remove") is True else (
            bodies.string(body, "description", max_len=2048, required=False) or name)
        if description is not None:
            self.state.extra_operations.add(name)
        else:
            self.state.extra_operations.discard(name)
        return JsonAnswer({"changed": self.ctx.extra_design_operation(name, description)})

    async def misreport(self, request: Request) -> Response:
        body = await bodies.read_object(request)
        self.state.misreport.add(bodies.string(body, "file_uuid", max_len=64))
        return JsonAnswer({"ok": True})

    async def narrow(self, request: Request) -> Response:
        drop = (await bodies.read_object(request)).get("drop")
        if not isinstance(drop, list) or not all(isinstance(s, str) for s in drop):
            raise ApiError("invalid_request_error", "'drop' must be a list of scopes.")
        self.state.narrowed.update(drop)
        return JsonAnswer({"narrowed": sorted(self.state.narrowed)})

    async def expire(self, request: Request) -> Response:
        return JsonAnswer({"expired": oauth.expire_access_tokens(self.ctx)})

    async def search_switch(self, request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(self.ctx, body)
        enabled = body.get("enabled")
        if not isinstance(enabled, bool):
            raise ApiError("invalid_request_error", "'enabled' must be true or false.")
        _remember(self.ctx, self.state, project_uuid)
        with self.ctx.db.transaction() as conn:
            projects_store.set_search_enabled(conn, project_uuid, enabled)
        return JsonAnswer({"project_uuid": project_uuid, "enabled": enabled})

    async def knowledge(self, request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(self.ctx, body)
        limits = {name: bodies.integer(body[name], name, low=0, high=1 << 40)
                  for name in ("max_knowledge_size", "threshold") if name in body}
        _remember(self.ctx, self.state, project_uuid)
        with self.ctx.db.transaction() as conn:
            projects_store.set_limits(conn, project_uuid,
                                      max_knowledge_size=limits.get("max_knowledge_size"),
                                      threshold=limits.get("threshold"))
            return JsonAnswer(projects_store.knowledge_stats(
                conn, conn.execute("SELECT * FROM projects WHERE uuid = ?",
                                   (project_uuid,)).fetchone()))

    async def upload(self, request: Request) -> Response:
        return JsonAnswer(_upload(self.ctx, await bodies.read_object(request)),
                          status_code=201)

    async def hostile_switch(self, request: Request) -> Response:
        """Turn the hostile-content switch on (`payload`, `names`, `keep`) or off (no
        payload); see `faults/hostile.py`."""
        body = await bodies.read_object(request)
        payload = bodies.string(body, "payload", min_len=1,
                                max_len=hostile.MAX_PAYLOAD_CHARS, required=False)
        names = body.get("names", False)
        if not isinstance(names, bool):
            raise ApiError("invalid_request_error", "'names' must be true or false.")
        keep = body.get("keep", [])
        if not (isinstance(keep, list) and len(keep) <= hostile.MAX_KEEP
                and all(isinstance(k, str) and 0 < len(k) <= 64 for k in keep)):
            raise ApiError("invalid_request_error", "'keep' must be a short list of keys.")
        self.state.hostile = (None if payload is None
                              else hostile.Hostile(payload, names, frozenset(keep)))
        return JsonAnswer({"hostile": self.state.hostile is not None, "names": names,
                           "keep": sorted(keep)})

    async def echo_switch(self, request: Request) -> Response:
        """Turn the echo switch on or off (`on`); see `faults/echo.py`."""
        on = (await bodies.read_object(request)).get("on")
        if not isinstance(on, bool):
            raise ApiError("invalid_request_error", "'on' must be true or false.")
        self.state.echo.on = on
        return JsonAnswer({"echo": on, "tokens_known": len(self.state.echo.tokens)})

    async def counts(self, request: Request) -> Response:
        return JsonAnswer(dict(self.state.counts))

    async def reset(self, request: Request) -> Response:
        _reset(self.ctx, self.state)
        return JsonAnswer({"ok": True})


def routes(ctx: ServiceContext) -> list[Route]:
    controls = Controls(ctx)
    control = [
        ("counts", controls.counts, "GET"),
        ("reset", controls.reset, "POST"),
        ("drop-mcp-sessions", controls.drop_sessions, "POST"),
        ("design-operation", controls.design_operation, "POST"),
        ("misreport-size", controls.misreport, "POST"),
        ("narrow-scopes", controls.narrow, "POST"),
        ("expire-tokens", controls.expire, "POST"),
        ("search", controls.search_switch, "POST"),
        ("knowledge", controls.knowledge, "POST"),
        ("upload", controls.upload, "POST"),
        ("hostile", controls.hostile_switch, "POST"),
        ("echo-tokens", controls.echo_switch, "POST"),
    ] + [(kind, controls.adder(kind), "POST") for kind in RULES]
    return [Route(f"{paths.FAULTS}/{name}", endpoint, methods=[method])
            for name, endpoint, method in control]
