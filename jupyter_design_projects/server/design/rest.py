"""The Design REST routes of PROTOCOL §2: consent (GET/POST/DELETE) and durable project
grants (GET/POST, DELETE by project). Errors use the §0 envelope, except the two flat
answers PROTOCOL pins: `403 {"error":"needs_consent"}` and `404 {"error":"grant_ineligible"}`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import paths
from ..bodies import parse_object
from ..context import Principal, ServiceContext
from ..envelopes import ApiError, JsonAnswer, envelope
from ..request_body import Disconnected, read_body
from .errors import NotFound
from .gate import WWW_AUTHENTICATE, authenticate, has_design_scopes
from .store import DesignStore

CONSENT_NAME = "agent_design_projects"
#: Design REST bodies are tiny; anything larger is refused before parsing
MAX_BODY_BYTES = 64 * 1024

#: an endpoint's handler: (the Design store, the request, its checked principal)
Handler = Callable[[DesignStore, Request, Principal], Awaitable[Response]]


def guarded(ctx: ServiceContext, store: DesignStore,
            handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The endpoint of `handler`: a bearer with the Design scopes, or a 401 envelope."""
    async def endpoint(request: Request) -> Response:
        try:
            principal = await authenticate(ctx, request.scope)
            if not has_design_scopes(principal):
                raise ApiError("authentication_error",
                               "A bearer token with the Design scopes is required.",
                               headers={"www-authenticate": WWW_AUTHENTICATE})
            assert principal is not None
            return await handler(store, request, principal)
        except ApiError as error:
            return envelope(error)
    return endpoint


async def get_consent(store: DesignStore, request: Request, principal: Principal) -> Response:
    return JsonAnswer({CONSENT_NAME: store.consent(principal.user_id)})


async def post_consent(store: DesignStore, request: Request, principal: Principal) -> Response:
    await _consent_body(request, required=True)
    store.give_consent(principal.user_id)
    return Response(status_code=204)


async def delete_consent(store: DesignStore, request: Request,
                         principal: Principal) -> Response:
    await _consent_body(request, required=False)
    if not store.revoke_consent(principal.user_id):
        raise ApiError("not_found_error", "No Design consent was given.")
    return Response(status_code=204)


async def get_grants(store: DesignStore, request: Request, principal: Principal) -> Response:
    return JsonAnswer({"grants": store.grants(principal.user_id)})


async def post_grant(store: DesignStore, request: Request, principal: Principal) -> Response:
    body = await _body(request, required=True)
    project_id = body.get("project_id")
    if not isinstance(project_id, str) or not 1 <= len(project_id) <= 4096:
        raise ApiError("invalid_request_error", "'project_id' must be a string.")
    if not store.consent(principal.user_id):
        return JsonAnswer({"error": "needs_consent"}, status_code=403)
    try:
        grant = store.grant(principal.user_id, project_id)
    except NotFound:
        raise ApiError("not_found_error", "No such Design project.") from None
    if grant is None:
        return JsonAnswer({"error": "grant_ineligible"}, status_code=404)
    return JsonAnswer(grant, status_code=201)


async def delete_grant(store: DesignStore, request: Request, principal: Principal) -> Response:
    if not store.revoke_grant(principal.user_id, request.path_params["project_id"]):
        raise ApiError("not_found_error", "There is no grant for this project.")
    return Response(status_code=204)


def routes(ctx: ServiceContext) -> list[Route]:
    store = DesignStore(ctx.db, ctx.clock)
    return [Route(path, guarded(ctx, store, handler), methods=[method])
            for path, method, handler in (
                (paths.DESIGN_CONSENT, "GET", get_consent),
                (paths.DESIGN_CONSENT, "POST", post_consent),
                (paths.DESIGN_CONSENT, "DELETE", delete_consent),
                (paths.DESIGN_GRANTS, "GET", get_grants),
                (paths.DESIGN_GRANTS, "POST", post_grant),
                (paths.DESIGN_GRANT, "DELETE", delete_grant),
            )]


async def _body(request: Request, *, required: bool) -> dict[str, Any]:
    """The JSON object body (an empty body is `{}` unless required)."""
    try:
        raw = await read_body(request.receive, MAX_BODY_BYTES)
    except Disconnected:
        raise ApiError("invalid_request_error", "The client went away mid-body.") from None
    if raw is None:
        raise ApiError("request_too_large",
                       f"The request body is larger than {MAX_BODY_BYTES:,} bytes.")
    if not raw.strip() and not required:
        return {}
    return parse_object(raw)


async def _consent_body(request: Request, *, required: bool) -> None:
    body = await _body(request, required=required)
    if (required or body) and body.get("consent") != CONSENT_NAME:
        raise ApiError("invalid_request_error", f"'consent' must be {CONSENT_NAME!r}.")
