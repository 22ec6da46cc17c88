"""The Projects org API (PROTOCOL §4) under /api/organizations/{org}/projects/{project},
plus GET /api/organizations, and the operations it shares with the remote-session route.

Beside the attached-project routes the notebook client uses, the org routes existing
claude.ai Projects clients use, in their shapes: the org's project list and create
(`…/projects`), update (`PUT …/projects/{p}`), and every doc with its content
(`GET …/projects/{p}/docs`); organizations carry `capabilities`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, paths
from ..context import Principal, ServiceContext
from ..envelopes import ApiError, JsonAnswer, envelope
from . import search as kb_search
from . import store as projects_store

DEFAULT_N, MAX_N = 5, 15
#: the longest description or prompt_template a project takes here
PROMPT_MAX = 200_000
READ, WRITE = "user:projects:read", "user:projects:write"


# ---------------------------------------------------------------- operations (both routes)


def detail(ctx: ServiceContext, org: str, project: str) -> dict[str, Any]:
    conn = ctx.db.read()
    return projects_store.detail(conn, projects_store.project(conn, org, project))


def stats(ctx: ServiceContext, org: str, project: str) -> dict[str, Any]:
    conn = ctx.db.read()
    return projects_store.knowledge_stats(conn, projects_store.project(conn, org, project))


def search(ctx: ServiceContext, org: str, project: str, query: str, n: int) -> dict[str, Any]:
    conn = ctx.db.read()
    proj = projects_store.project(conn, org, project)
    if not proj["search_enabled"]:
        raise ApiError("permission_error", "Knowledge search is disabled for this project.")
    return kb_search.search(conn, proj["uuid"], query, n)


def read_doc(ctx: ServiceContext, org: str, project: str, doc_uuid: str) -> dict[str, Any]:
    conn = ctx.db.read()
    proj = projects_store.project(conn, org, project)
    return projects_store.doc_json(projects_store.doc(conn, proj["uuid"], doc_uuid))


def create_doc(ctx: ServiceContext, org: str, project: str, file_name: str,
               content: str) -> dict[str, Any]:
    with ctx.db.transaction() as conn:
        proj = projects_store.project(conn, org, project)
        row = projects_store.create_doc(conn, proj, file_name, content, ctx.clock())
        return projects_store.doc_json(row)


def write_doc(ctx: ServiceContext, org: str, project: str, file_name: str,
              content: str) -> tuple[dict[str, Any], bool]:
    """Create a doc; (doc, True). Writing the same content to an existing name again is an
    idempotent retry: (existing doc, False). Different content under a taken name is a 400."""
    with ctx.db.transaction() as conn:
        proj = projects_store.project(conn, org, project)
        existing = projects_store.doc_by_name(conn, proj["uuid"], file_name)
        if existing is not None and existing["content"] == content:
            return projects_store.doc_json(existing), False
        row = projects_store.create_doc(conn, proj, file_name, content, ctx.clock())
        return projects_store.doc_json(row), True


def replace_doc(ctx: ServiceContext, org: str, project: str, doc_uuid: str,
                content: str) -> dict[str, Any]:
    with ctx.db.transaction() as conn:
        proj = projects_store.project(conn, org, project)
        return projects_store.doc_json(
            projects_store.replace_doc(conn, proj, doc_uuid, content, ctx.clock()))


def delete_doc(ctx: ServiceContext, org: str, project: str, doc_uuid: str) -> None:
    with ctx.db.transaction() as conn:
        projects_store.delete_doc(conn, projects_store.project(conn, org, project), doc_uuid)


def read_extracted(ctx: ServiceContext, org: str, project: str,
                   file_uuid: str) -> dict[str, Any]:
    conn = ctx.db.read()
    proj = projects_store.project(conn, org, project)
    return projects_store.extracted_json(projects_store.upload(conn, proj["uuid"], file_uuid))


def read_raw(ctx: ServiceContext, org: str, project: str, file_uuid: str) -> dict[str, Any]:
    conn = ctx.db.read()
    proj = projects_store.project(conn, org, project)
    row = projects_store.upload(conn, proj["uuid"], file_uuid)
    misreport = ctx.faults is not None and ctx.faults.take_misreport(row["file_uuid"])
    return projects_store.raw_json(row, misreport=misreport)


# ---------------------------------------------------------------- the HTTP layer


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


Handler = Callable[[Request, str, str], Awaitable[Response]]


def _route(ctx: ServiceContext, path: str, method: str, handler: Handler) -> Route:
    scope = READ if method == "GET" else WRITE

    async def endpoint(request: Request) -> Response:
        try:
            principal = require(ctx, request, scope)
            org, project = request.path_params["org"], request.path_params["project"]
            if principal.project_uuid is not None and (principal.org_uuid, principal.project_uuid) \
                    != (org, project):
                raise ApiError("not_found_error", "No such project in this organization.")
            return await handler(request, org, project)
        except ApiError as error:
            return envelope(error)

    return Route(path, endpoint, methods=[method])


OrgHandler = Callable[[Request, str, Principal], Awaitable[Response]]


def _org_route(ctx: ServiceContext, path: str, method: str, handler: OrgHandler) -> Route:
    """A route on the organization itself (its project list, project creation)."""
    scope = READ if method == "GET" else WRITE

    async def endpoint(request: Request) -> Response:
        try:
            principal = require(ctx, request, scope)
            org = request.path_params["org"]
            if principal.org_uuid is not None and principal.org_uuid != org:
                raise ApiError("not_found_error", "No such organization.")
            return await handler(request, org, principal)
        except ApiError as error:
            return envelope(error)

    return Route(path, endpoint, methods=[method])


def routes(ctx: ServiceContext) -> list[Route]:
    async def get_detail(request: Request, org: str, project: str) -> Response:
        return JsonAnswer(detail(ctx, org, project))

    async def get_stats(request: Request, org: str, project: str) -> Response:
        return JsonAnswer(stats(ctx, org, project))

    async def get_search(request: Request, org: str, project: str) -> Response:
        q = request.query_params
        query = bodies.string({"query": q.get("query")}, "query", max_len=4096)
        n = bodies.integer(q.get("n", str(DEFAULT_N)), "n", low=1, high=MAX_N)
        return JsonAnswer(search(ctx, org, project, query, n))

    async def get_doc(request: Request, org: str, project: str) -> Response:
        return JsonAnswer(read_doc(ctx, org, project, request.path_params["doc"]))

    async def post_doc(request: Request, org: str, project: str) -> Response:
        body = bodies.only(await bodies.read_object(request), "file_name", "content")
        name = bodies.doc_name(body.get("file_name"))
        content = bodies.string(body, "content", min_len=0, max_len=1 << 40)
        return JsonAnswer(create_doc(ctx, org, project, name, content), status_code=201)

    async def patch_doc(request: Request, org: str, project: str) -> Response:
        body = bodies.only(await bodies.read_object(request), "content")
        content = bodies.string(body, "content", min_len=0, max_len=1 << 40)
        return JsonAnswer(replace_doc(ctx, org, project, request.path_params["doc"], content))

    async def del_doc(request: Request, org: str, project: str) -> Response:
        delete_doc(ctx, org, project, request.path_params["doc"])
        return Response(status_code=204)

    async def get_extracted(request: Request, org: str, project: str) -> Response:
        return JsonAnswer(read_extracted(ctx, org, project, request.path_params["file"]))

    async def get_raw(request: Request, org: str, project: str) -> Response:
        return JsonAnswer(read_raw(ctx, org, project, request.path_params["file"]))

    async def get_docs(request: Request, org: str, project: str) -> Response:
        conn = ctx.db.read()
        proj = projects_store.project(conn, org, project)
        return JsonAnswer(projects_store.list_docs(conn, proj["uuid"]))

    async def put_project(request: Request, org: str, project: str) -> Response:
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

    async def get_projects(request: Request, org: str, principal: Principal) -> Response:
        rows = projects_store.list_projects(ctx.db.read(), org)
        if principal.project_uuid is not None:  # a session token sees its own project
            rows = [r for r in rows if r["uuid"] == principal.project_uuid]
        return JsonAnswer([projects_store.project_json(r) for r in rows])

    async def post_project(request: Request, org: str, principal: Principal) -> Response:
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

    async def organizations(request: Request) -> Response:
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

    return [
        Route(paths.ORGANIZATIONS, organizations, methods=["GET"]),
        _org_route(ctx, paths.PROJECTS, "GET", get_projects),
        _org_route(ctx, paths.PROJECTS, "POST", post_project),
        _route(ctx, paths.PROJECT, "PUT", put_project),
        _route(ctx, paths.PROJECT_DOCS, "GET", get_docs),
        _route(ctx, paths.PROJECT_DETAIL, "GET", get_detail),
        _route(ctx, paths.PROJECT_KB_STATS, "GET", get_stats),
        _route(ctx, paths.PROJECT_KB_SEARCH, "GET", get_search),
        _route(ctx, paths.PROJECT_DOCS, "POST", post_doc),
        _route(ctx, paths.PROJECT_DOC, "GET", get_doc),
        _route(ctx, paths.PROJECT_DOC, "PATCH", patch_doc),
        _route(ctx, paths.PROJECT_DOC, "DELETE", del_doc),
        _route(ctx, paths.PROJECT_FILE_EXTRACTED, "GET", get_extracted),
        _route(ctx, paths.PROJECT_FILE_RAW, "GET", get_raw),
    ]
