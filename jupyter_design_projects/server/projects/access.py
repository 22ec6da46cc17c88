"""Who may call a Projects org route (PROTOCOL §4): a bearer holding the route's scope
(read for a GET, write otherwise), and a session token only on the org and project it
binds. Each route is built here around a handler that takes the checked request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..context import Principal, ServiceContext
from ..envelopes import ApiError, envelope

READ, WRITE = "user:projects:read", "user:projects:write"

#: a handler of a route on one project: (ctx, request, org, project)
ProjectHandler = Callable[[ServiceContext, Request, str, str], Awaitable[Response]]
#: a handler of a route on the organization itself: (ctx, request, org, principal)
OrgHandler = Callable[[ServiceContext, Request, str, Principal], Awaitable[Response]]


def require(ctx: ServiceContext, request: Request, scope: str) -> Principal:
    """The request's principal, holding `scope`; 401 or 403 envelopes otherwise."""
    principal = ctx.authenticate(request) if ctx.authenticate else None
    if principal is None:
        raise ApiError("authentication_error", "A valid bearer token is required.",
                       headers={"www-authenticate":
                                f'Bearer error="invalid_token", scope="{READ} {WRITE}"'})
    if scope not in principal.scopes:
        raise ApiError("permission_error", f"This token lacks the {scope} scope.",
                       headers={"www-authenticate":
                                f'Bearer error="insufficient_scope", scope="{READ} {WRITE}"'})
    return principal


def project_route(ctx: ServiceContext, path: str, method: str,
                  handler: ProjectHandler) -> Route:
    """A route on one project: a session token bound to another project gets a 404."""
    scope = READ if method == "GET" else WRITE

    async def endpoint(request: Request) -> Response:
        try:
            principal = require(ctx, request, scope)
            org, project = request.path_params["org"], request.path_params["project"]
            if principal.project_uuid is not None and (principal.org_uuid, principal.project_uuid) \
                    != (org, project):
                raise ApiError("not_found_error", "No such project in this organization.")
            return await handler(ctx, request, org, project)
        except ApiError as error:
            return envelope(error)

    return Route(path, endpoint, methods=[method])


def org_route(ctx: ServiceContext, path: str, method: str, handler: OrgHandler) -> Route:
    """A route on the organization itself (its project list, project creation)."""
    scope = READ if method == "GET" else WRITE

    async def endpoint(request: Request) -> Response:
        try:
            principal = require(ctx, request, scope)
            org = request.path_params["org"]
            if principal.org_uuid is not None and principal.org_uuid != org:
                raise ApiError("not_found_error", "No such organization.")
            return await handler(ctx, request, org, principal)
        except ApiError as error:
            return envelope(error)

    return Route(path, endpoint, methods=[method])
