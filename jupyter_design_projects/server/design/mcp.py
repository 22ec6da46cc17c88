"""The Design MCP endpoint: a fresh official-SDK `MCPServer` per app carrying the eighteen
operations of PROTOCOL §3 as tools (names, descriptions and hints from the one table in
`core.design_operations`; each handler's parameters are its inputs),
served as stateful Streamable HTTP with JSON answers at POST /v1/design/mcp."""

import base64
import contextlib
import json
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field
from starlette.routing import Route

from ...core.design_operations import BY_NAME, DESIGN_OPERATIONS, DesignOperation
from ..context import Principal, ServiceContext
from ..paths import DESIGN_MCP
from .errors import ConsentMissing, DesignFailure
from .gate import PRINCIPAL_KEY
from .operations import DesignOperations, Reply

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")

ProjectId = Annotated[str, Field(description="The Design project's id.", max_length=4096)]
PlanToken = Annotated[str, Field(description="A token from finalize_plan covering the targets.",
                                 max_length=65536)]
#: membership and sharing: optional in the schema (so a call without one is a plan refusal,
#: not a schema error), checked always (see core.design_operations.SENSITIVE_PLAN_TOKEN)
SensitivePlanToken = Annotated[Annotated[str, Field(max_length=65536)] | None, Field(
    description="A finalize_plan token for this project; required, though optional in this "
    "schema.")]
Role = Literal["viewer", "commenter", "editor", "admin"]


class WriteEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    data: str
    encoding: Literal["base64"] | None = None
    if_match: Annotated[str | None, Field(description='An etag, or "0": must not exist.')] = None


class CopyEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    src: str
    dest: str
    src_project_id: str | None = None


class Viewport(BaseModel):
    model_config = ConfigDict(extra="forbid")
    width: Annotated[int, Field(ge=1, le=10_000)]
    height: Annotated[int, Field(ge=1, le=10_000)]


def _annotations(operation: DesignOperation) -> ToolAnnotations:
    """The hints the service advertises for one operation, from the shared table."""
    return ToolAnnotations(read_only_hint=operation.floor.read_only,
                           destructive_hint=operation.floor.destructive,
                           idempotent_hint=operation.idempotent, open_world_hint=False)


def _text(text: str, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _result(value: Any) -> CallToolResult:
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, Reply):
        content: list[Any] = [TextContent(type="text", text=value.text)]
        if value.note:
            content.append(TextContent(type="text", text=value.note))
        if value.png is not None:
            content.append(ImageContent(type="image", mime_type="image/png",
                                        data=base64.b64encode(value.png).decode("ascii")))
        return CallToolResult(content=content, is_error=False)
    return _text(json.dumps(value))


def _principal(ctx: Context) -> Principal | None:
    request = ctx.request_context.request
    scope = getattr(request, "scope", None) or {}
    return scope.get(PRINCIPAL_KEY)


def _register(server: MCPServer, ops: DesignOperations) -> None:
    def call(ctx: Context, operation: str, /, **arguments: Any) -> CallToolResult:
        principal = _principal(ctx)
        if principal is None:
            return _text("Not authenticated: the Design gate did not admit this call.", True)
        try:
            if not ops.store.consent(principal.user_id):
                raise ConsentMissing()
            return _result(getattr(ops, operation)(principal.user_id, **arguments))
        except DesignFailure as failure:
            return _text(failure.text(), True)

    def get_claude_design_prompt(ctx: Context, design_system_id: str | None = None,
                                 project_id: str | None = None) -> CallToolResult:
        return call(ctx, "get_claude_design_prompt", design_system_id=design_system_id,
                    project_id=project_id)

    def list_design_systems(ctx: Context) -> CallToolResult:
        return call(ctx, "list_design_systems")

    def list_projects(ctx: Context, limit: int | None = None,
                      cursor: str | None = None) -> CallToolResult:
        return call(ctx, "list_projects", limit=limit, cursor=cursor)

    def get_project(project_id: ProjectId, ctx: Context) -> CallToolResult:
        return call(ctx, "get_project", project_id=project_id)

    def create_project(name: Annotated[str, Field(max_length=4096)], ctx: Context,
                       design_system_id: str | None = None) -> CallToolResult:
        return call(ctx, "create_project", name=name, design_system_id=design_system_id)

    def list_files(project_id: ProjectId, ctx: Context, path: str | None = None,
                   depth: int | None = None) -> CallToolResult:
        return call(ctx, "list_files", project_id=project_id, path=path, depth=depth)

    def read_file(project_id: ProjectId, path: str, ctx: Context, offset: int | None = None,
                  limit: int | None = None) -> CallToolResult:
        return call(ctx, "read_file", project_id=project_id, path=path, offset=offset,
                    limit=limit)

    def finalize_plan(project_id: ProjectId, ctx: Context, writes: list[str] | None = None,
                      deletes: list[str] | None = None,
                      scope: Literal["paths", "project"] | None = None) -> CallToolResult:
        return call(ctx, "finalize_plan", project_id=project_id, writes=writes,
                    deletes=deletes, scope=scope)

    def write_files(project_id: ProjectId, files: list[WriteEntry], ctx: Context,
                    plan_token: PlanToken | None = None) -> CallToolResult:
        return call(ctx, "write_files", project_id=project_id,
                    files=[entry.model_dump() for entry in files], plan_token=plan_token)

    def create_support_js(project_id: ProjectId, ctx: Context, path: str | None = None,
                          plan_token: PlanToken | None = None) -> CallToolResult:
        return call(ctx, "create_support_js", project_id=project_id, path=path,
                    plan_token=plan_token)

    def copy_files(project_id: ProjectId, files: list[CopyEntry], plan_token: PlanToken,
                   ctx: Context) -> CallToolResult:
        return call(ctx, "copy_files", project_id=project_id,
                    files=[entry.model_dump() for entry in files], plan_token=plan_token)

    def delete_files(project_id: ProjectId, plan_token: PlanToken, paths: list[str],
                     ctx: Context) -> CallToolResult:
        return call(ctx, "delete_files", project_id=project_id, plan_token=plan_token,
                    paths=paths)

    def render_preview(project_id: ProjectId, path: str, ctx: Context,
                       viewport: Viewport | None = None) -> CallToolResult:
        size = None if viewport is None else (viewport.width, viewport.height)
        return call(ctx, "render_preview", project_id=project_id, path=path, viewport=size)

    def list_members(project_id: ProjectId, ctx: Context) -> CallToolResult:
        return call(ctx, "list_members", project_id=project_id)

    def add_member(project_id: ProjectId, role: Role, email: Annotated[str, Field(
            max_length=4096)], ctx: Context, plan_token: SensitivePlanToken = None
                   ) -> CallToolResult:
        return call(ctx, "add_member", project_id=project_id, role=role, email=email,
                    plan_token=plan_token)

    def update_member_role(project_id: ProjectId, account_uuid: str, role: Role, ctx: Context,
                           plan_token: SensitivePlanToken = None) -> CallToolResult:
        return call(ctx, "update_member_role", project_id=project_id,
                    account_uuid=account_uuid, role=role, plan_token=plan_token)

    def remove_member(project_id: ProjectId, account_uuid: str, ctx: Context,
                      plan_token: SensitivePlanToken = None) -> CallToolResult:
        return call(ctx, "remove_member", project_id=project_id, account_uuid=account_uuid,
                    plan_token=plan_token)

    def update_sharing(project_id: ProjectId, ctx: Context,
                       scope: Literal["private", "org", "link"] | None = None,
                       link_permission: Literal["view", "comment", "edit"] | None = None,
                       plan_token: SensitivePlanToken = None) -> CallToolResult:
        return call(ctx, "update_sharing", project_id=project_id, scope=scope,
                    link_permission=link_permission, plan_token=plan_token)

    handlers = {fn.__name__: fn for fn in (
        get_claude_design_prompt, list_design_systems, list_projects, get_project,
        create_project, list_files, read_file, finalize_plan, write_files, create_support_js,
        copy_files, delete_files, render_preview, list_members, add_member,
        update_member_role, remove_member, update_sharing)}
    assert set(handlers) == set(BY_NAME), "a handler for every operation of the table"
    for operation in DESIGN_OPERATIONS:
        server.add_tool(handlers[operation.name], name=operation.name,
                        description=operation.description,
                        annotations=_annotations(operation), structured_output=False)


def _transport_security(ctx: ServiceContext) -> TransportSecuritySettings:
    hosts = {*_LOOPBACK, "testserver"}
    if ctx.config.host not in ("0.0.0.0", "::"):
        hosts.add(ctx.config.host)
    allowed_hosts = sorted(hosts | {f"{host}:*" for host in hosts})
    origins = sorted({f"http://{host}" for host in hosts}
                     | {f"http://{host}:*" for host in hosts})
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=allowed_hosts, allowed_origins=origins)


def build(ctx: ServiceContext) -> tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]:
    """The exact-path Route of the endpoint and its lifespan (run it once, in the app's
    lifespan). Sets `ctx.drop_mcp_sessions` and `ctx.mcp_session_manager`.
    Call once per app: the SDK's session manager runs only once per instance."""
    server = MCPServer("claude-design-reference", version="1")
    operations = DesignOperations(ctx)
    _register(server, operations)
    sdk_app = server.streamable_http_app(
        streamable_http_path=DESIGN_MCP, json_response=True, stateless_http=False,
        session_idle_timeout=ctx.config.session_idle_timeout,
        max_request_body_size=ctx.config.max_body_bytes,
        transport_security=_transport_security(ctx))
    (route,) = [r for r in sdk_app.routes if isinstance(r, Route) and r.path == DESIGN_MCP]
    manager = server.session_manager

    def drop_mcp_sessions() -> int:
        """Forget every session, as a restart does: their ids now answer HTTP 404."""
        dropped = len(manager._server_instances)
        manager._server_instances.clear()
        manager._session_owners.clear()
        return dropped

    extra: set[str] = set()

    def extra_design_operation(name: str, description: str | None) -> bool:
        """Serve (or, with description None, stop serving) a read-only operation beyond
        the table: its answer is `{"operation": name, "ok": true}`."""
        if name in BY_NAME:
            return False
        if description is None:
            if name not in extra:
                return False
            server.remove_tool(name)
            extra.discard(name)
            return True
        if name in extra:
            return False

        def served(ctx: Context) -> CallToolResult:
            return _text(json.dumps({"operation": name, "ok": True}))

        server.add_tool(served, name=name, description=description,
                        annotations=ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                                    idempotent_hint=True,
                                                    open_world_hint=False),
                        structured_output=False)
        extra.add(name)
        return True

    ctx.extra_design_operation = extra_design_operation
    ctx.drop_mcp_sessions = drop_mcp_sessions
    ctx.mcp_session_manager = manager

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        try:
            async with manager.run():
                yield
        finally:
            operations.close()

    return route, lifespan
