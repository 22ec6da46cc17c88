"""The Projects org API (PROTOCOL §4) under /api/organizations/{org}/projects/{project}:
the attached-project routes the notebook client uses, and the operations they share with
the remote-session route. Who may call them is `access.py`; the organization routes
existing claude.ai Projects clients use (org list, project list, create and update, docs
with content) are `organizations.py`, and `routes` serves both."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .. import bodies, paths
from ..context import ServiceContext
from ..envelopes import ApiError, JsonAnswer
from . import organizations
from . import search as kb_search
from . import store as projects_store
from .access import project_route

DEFAULT_N, MAX_N = 5, 15


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


async def get_detail(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    return JsonAnswer(detail(ctx, org, project))


async def get_stats(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    return JsonAnswer(stats(ctx, org, project))


async def get_search(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    q = request.query_params
    query = bodies.string({"query": q.get("query")}, "query", max_len=4096)
    n = bodies.integer(q.get("n", str(DEFAULT_N)), "n", low=1, high=MAX_N)
    return JsonAnswer(search(ctx, org, project, query, n))


async def get_doc(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    return JsonAnswer(read_doc(ctx, org, project, request.path_params["doc"]))


async def post_doc(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    body = bodies.only(await bodies.read_object(request), "file_name", "content")
    name = bodies.doc_name(body.get("file_name"))
    content = bodies.string(body, "content", min_len=0, max_len=1 << 40)
    return JsonAnswer(create_doc(ctx, org, project, name, content), status_code=201)


async def patch_doc(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    body = bodies.only(await bodies.read_object(request), "content")
    content = bodies.string(body, "content", min_len=0, max_len=1 << 40)
    return JsonAnswer(replace_doc(ctx, org, project, request.path_params["doc"], content))


async def del_doc(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    delete_doc(ctx, org, project, request.path_params["doc"])
    return Response(status_code=204)


async def get_extracted(ctx: ServiceContext, request: Request, org: str,
                        project: str) -> Response:
    return JsonAnswer(read_extracted(ctx, org, project, request.path_params["file"]))


async def get_raw(ctx: ServiceContext, request: Request, org: str, project: str) -> Response:
    return JsonAnswer(read_raw(ctx, org, project, request.path_params["file"]))


def routes(ctx: ServiceContext) -> list[Route]:
    """The organization routes, then the attached project's (in the order Starlette
    matches them)."""
    return organizations.routes(ctx) + [
        project_route(ctx, path, method, handler) for path, method, handler in (
            (paths.PROJECT_DETAIL, "GET", get_detail),
            (paths.PROJECT_KB_STATS, "GET", get_stats),
            (paths.PROJECT_KB_SEARCH, "GET", get_search),
            (paths.PROJECT_DOCS, "POST", post_doc),
            (paths.PROJECT_DOC, "GET", get_doc),
            (paths.PROJECT_DOC, "PATCH", patch_doc),
            (paths.PROJECT_DOC, "DELETE", del_doc),
            (paths.PROJECT_FILE_EXTRACTED, "GET", get_extracted),
            (paths.PROJECT_FILE_RAW, "GET", get_raw),
        )
    ]
