"""The /_faults control routes (only with --faults; `switches.FaultMiddleware` keeps them to
loopback clients): each validates its JSON body and sets one switch of `ctx.faults`.

Answer-replacing rules (`fail`, `sse`, `latency`, `drip`, `oversize`, `gzip-bomb`) take a
`path` (a trailing `*` makes it a prefix), `count` (default 1) and the optional matchers
`method`, `rpc_method` and `tool` (a POST to the Design MCP endpoint) and `op` (a POST to
the remote-session route).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, oauth, paths
from ..context import ServiceContext
from ..envelopes import STATUS_KINDS, ApiError, JsonAnswer, envelope_body
from ..projects import store as projects_store
from . import hostile
from .state import FaultState, Rule

MAX_UPLOAD_BYTES = 24 * 1024 * 1024


def _rule(kind: str, request_body: dict[str, Any], **params: Any) -> Rule:
    """A rule from its control request; `params` are the kind's own settings (a `body`
    among them is the answer a `fail` rule sends, hence the parameter's name)."""
    body = request_body
    path = bodies.string(body, "path", max_len=2048)
    assert path is not None
    if not path.startswith("/"):
        raise ApiError("invalid_request_error", "'path' must start with '/'.")
    return Rule(
        kind=kind, path=path,
        count=bodies.integer(body.get("count", 1), "count", low=1, high=100_000),
        method=bodies.string(body, "method", max_len=16, required=False),
        rpc_method=bodies.string(body, "rpc_method", max_len=256, required=False),
        tool=bodies.string(body, "tool", max_len=256, required=False),
        op=bodies.string(body, "op", max_len=64, required=False),
        params=params,
    )


def _fail_rule(body: dict[str, Any]) -> Rule:
    status = bodies.integer(body.get("status"), "status", low=100, high=599)
    headers = body.get("headers", {})
    if not isinstance(headers, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k.isascii() and v.isascii()
            for k, v in headers.items()):
        raise ApiError("invalid_request_error", "'headers' must map ASCII names to ASCII values.")
    kind = STATUS_KINDS.get(status, "api_error")
    answer = body["body"] if "body" in body else envelope_body(kind, f"Injected HTTP {status}.")
    echo_id = body.get("echo_id", True)
    if not isinstance(echo_id, bool):
        raise ApiError("invalid_request_error", "'echo_id' must be a boolean.")
    return _rule("fail", body, status=status, body=answer, headers=headers, echo_id=echo_id)


#: route name -> how its body becomes a rule
RULES: dict[str, Callable[[dict[str, Any]], Rule]] = {
    "fail": _fail_rule,
    "sse": lambda b: _rule("sse", b),
    "latency": lambda b: _rule("latency", b,
                               ms=bodies.integer(b.get("ms"), "ms", low=0, high=600_000)),
    "drip": lambda b: _rule(
        "drip", b,
        bytes_per_tick=bodies.integer(b.get("bytes_per_tick"), "bytes_per_tick", low=1,
                                      high=1 << 30),
        tick_ms=bodies.integer(b.get("tick_ms"), "tick_ms", low=0, high=60_000)),
    "oversize": lambda b: _rule("oversize", b, bytes=bodies.integer(
        b.get("bytes"), "bytes", low=16, high=256 * 1024 * 1024)),
    "gzip-bomb": lambda b: _rule("gzip-bomb", b),
}


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


def routes(ctx: ServiceContext) -> list[Route]:
    state = ctx.faults
    assert state is not None, "the fault routes exist only with --faults"

    def adder(kind: str) -> Any:
        async def add_rule(request: Request) -> Response:
            rule = RULES[kind](await bodies.read_object(request))
            state.rules.append(rule)
            return JsonAnswer({"ok": True, "kind": rule.kind, "path": rule.path,
                                 "count": rule.count})
        return add_rule

    async def drop_sessions(request: Request) -> Response:
        if ctx.drop_mcp_sessions is None:
            raise ApiError("not_found_error", "The MCP endpoint is not running.")
        return JsonAnswer({"dropped": ctx.drop_mcp_sessions()})

    async def design_operation(request: Request) -> Response:
        """Serve one more read-only Design operation (or stop: "remove": true)."""
        if ctx.extra_design_operation is None:
            raise ApiError("not_found_error", "The MCP endpoint is not running.")
        body = await bodies.read_object(request)
        name = bodies.string(body, "name", max_len=64)
        assert name is not None
        description = None if body.get("remove") is True else (
            bodies.string(body, "description", max_len=2048, required=False) or name)
        if description is not None:
            state.extra_operations.add(name)
        else:
            state.extra_operations.discard(name)
        return JsonAnswer({"changed": ctx.extra_design_operation(name, description)})

    async def misreport(request: Request) -> Response:
        body = await bodies.read_object(request)
        state.misreport.add(bodies.string(body, "file_uuid", max_len=64))
        return JsonAnswer({"ok": True})

    async def narrow(request: Request) -> Response:
        drop = (await bodies.read_object(request)).get("drop")
        if not isinstance(drop, list) or not all(isinstance(s, str) for s in drop):
            raise ApiError("invalid_request_error", "'drop' must be a list of scopes.")
        state.narrowed.update(drop)
        return JsonAnswer({"narrowed": sorted(state.narrowed)})

    async def expire(request: Request) -> Response:
        return JsonAnswer({"expired": oauth.expire_access_tokens(ctx)})

    async def search_switch(request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(ctx, body)
        enabled = body.get("enabled")
        if not isinstance(enabled, bool):
            raise ApiError("invalid_request_error", "'enabled' must be true or false.")
        _remember(ctx, state, project_uuid)
        with ctx.db.transaction() as conn:
            projects_store.set_search_enabled(conn, project_uuid, enabled)
        return JsonAnswer({"project_uuid": project_uuid, "enabled": enabled})

    async def knowledge(request: Request) -> Response:
        body = await bodies.read_object(request)
        project_uuid = _project_uuid(ctx, body)
        limits = {name: bodies.integer(body[name], name, low=0, high=1 << 40)
                  for name in ("max_knowledge_size", "threshold") if name in body}
        _remember(ctx, state, project_uuid)
        with ctx.db.transaction() as conn:
            projects_store.set_limits(conn, project_uuid,
                                      max_knowledge_size=limits.get("max_knowledge_size"),
                                      threshold=limits.get("threshold"))
            return JsonAnswer(projects_store.knowledge_stats(
                conn, conn.execute("SELECT * FROM projects WHERE uuid = ?",
                                   (project_uuid,)).fetchone()))

    async def upload(request: Request) -> Response:
        return JsonAnswer(_upload(ctx, await bodies.read_object(request)), status_code=201)

    async def hostile_switch(request: Request) -> Response:
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
        state.hostile = (None if payload is None
                         else hostile.Hostile(payload, names, frozenset(keep)))
        return JsonAnswer({"hostile": state.hostile is not None, "names": names,
                           "keep": sorted(keep)})

    async def echo_switch(request: Request) -> Response:
        """Turn the echo switch on or off (`on`); see `faults/echo.py`."""
        on = (await bodies.read_object(request)).get("on")
        if not isinstance(on, bool):
            raise ApiError("invalid_request_error", "'on' must be true or false.")
        state.echo.on = on
        return JsonAnswer({"echo": on, "tokens_known": len(state.echo.tokens)})

    async def counts(request: Request) -> Response:
        return JsonAnswer(dict(state.counts))

    async def reset(request: Request) -> Response:
        _reset(ctx, state)
        return JsonAnswer({"ok": True})

    control = [
        ("counts", counts, "GET"),
        ("reset", reset, "POST"),
        ("drop-mcp-sessions", drop_sessions, "POST"),
        ("design-operation", design_operation, "POST"),
        ("misreport-size", misreport, "POST"),
        ("narrow-scopes", narrow, "POST"),
        ("expire-tokens", expire, "POST"),
        ("search", search_switch, "POST"),
        ("knowledge", knowledge, "POST"),
        ("upload", upload, "POST"),
        ("hostile", hostile_switch, "POST"),
        ("echo-tokens", echo_switch, "POST"),
    ] + [(kind, adder(kind), "POST") for kind in RULES]
    return [Route(f"{paths.FAULTS}/{name}", endpoint, methods=[method])
            for name, endpoint, method in control]
