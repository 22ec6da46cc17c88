"""The organization routes existing claude.ai Projects clients use (PROTOCOL §4), in their
shapes: `GET /api/organizations` (each org with its `capabilities`), the org's project
list and create (`…/projects`), a project's update (`PUT …/projects/{p}`) and every doc
of a project with its content (`GET …/projects/{p}/docs`)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, paths
from ..context import Principal, ServiceContext
from ..envelopes import ApiError, JsonAnswer, envelope
from . import store as projects_store
from .access import org_route, project_route

#: the longest description or prompt_template a project takes here
PROMPT_MAX = 200_000


async def list_organizations(ctx: ServiceContext, request: Request) -> Response:
    """Every org, or only its own for a token bound to one (no scope needed)."""
    try:
        principal = ctx.authenticate(request) if ctx.authenticate else None
        if principal is None:
            raise ApiError("authentication_error", "A valid bearer token is required.",
                           headers={"www-authenticate": 'Bearer error="invalid_token"'})
        orgs = projects_store.list_orgs(ctx.db.read())
        if principal.org_uuid is not None:
            orgs = [o for o in orgs if o["uuid"] == principal.org_uuid]
        return JsonAnswer(orgs)
    except ApiError as error:
        return envelope(error)


async def list_projects(ctx: ServiceContext, request: Request, org: str,
                        principal: Principal) -> Response:
    rows = projects_store.list_projects(ctx.db.read(), org)
    if principal.project_uuid is not None:  # a session token sees its own project
        rows = [r for r in rows if r["uuid"] == principal.project_uuid]
    return JsonAnswer([projects_store.project_json(r) for r in rows])


async def create_project(ctx: ServiceContext, request: Request, org: str,
                         principal: Principal) -> Response:
    if principal.project_uuid is not None:
        raise ApiError("permission_error", "A session token cannot create projects.")
    body = bodies.only(await bodies.read_object(request),
                       "name", "description", "prompt_template", "is_private")
    name = bodies.string(body, "name", max_len=255)
    is_private = body.get("is_private", True)
    if not isinstance(is_private, bool):
        raise ApiError("invalid_request_error", "'is_private' must be a boolean.")
    with ctx.db.transaction() as conn:
        projects_store.list_projects(conn, org)  # a 404 for an unknown org
        uuid = projects_store.create_project(
            conn, org, name,
            bodies.string(body, "description", min_len=0, max_len=PROMPT_MAX,
                          required=False) or "",
            bodies.string(body, "prompt_template", min_len=0, max_len=PROMPT_MAX,
                          required=False) or "",
            ctx.clock(), is_private=is_private)
        row = projects_store.project(conn, org, uuid)
        return JsonAnswer(projects_store.project_json(row), status_code=201)


async def update_project(ctx: ServiceContext, request: Request, org: str,
                         project: str) -> Response:
    body = bodies.only(await bodies.read_object(request),
                       "name", "description", "prompt_template")
    changes = {"name": bodies.string(body, "name", max_len=255)} if "name" in body else {}
    for key in ("description", "prompt_template"):
        if key in body:
            changes[key] = bodies.string(body, key, min_len=0, max_len=PROMPT_MAX)
    with ctx.db.transaction() as conn:
        proj = projects_store.project(conn, org, project)
        row = projects_store.update_project(conn, proj, changes, ctx.clock())
        return JsonAnswer(projects_store.project_json(row))


async def list_docs(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    conn = ctx.db.read()
    proj = projects_store.project(conn, org, project)
    return JsonAnswer(projects_store.list_docs(conn, proj["uuid"]))


def routes(ctx: ServiceContext) -> list[Route]:
    async def organizations(request: Request) -> Response:
        return await list_organizations(ctx, request)

    return [
        Route(paths.ORGANIZATIONS, organizations, methods=["GET"]),
        org_route(ctx, paths.PROJECTS, "GET", list_projects),
        org_route(ctx, paths.PROJECTS, "POST", create_project),
        project_route(ctx, paths.PROJECT, "PUT", update_project),
        project_route(ctx, paths.PROJECT_DOCS, "GET", list_docs),
    ]
