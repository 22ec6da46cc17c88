"""The Design MCP endpoint: the official SDK's low-level `Server`, through its public
handlers only (`on_list_tools`, `on_call_tool`), serving the Design operations of PROTOCOL
§3 from the table in `core.design_operations`: each row becomes a tool whose name,
description and hints are the row's and whose input schema and argument check are the
service's own (`tool_arguments`); every call runs the method of the same name of
`operations.DesignOperations` on a worker thread. Served as stateful Streamable HTTP with
JSON answers at POST /v1/design/mcp, with the session's event stream (server
notifications: log messages and `tools/list_changed`, `notices`) at GET."""

import base64
import contextlib
import dataclasses
import json
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Any

from mcp.server import NotificationOptions, Server, ServerRequestContext
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    EmptyResult,
    ImageContent,
    ListToolsResult,
    PaginatedRequestParams,
    SetLevelRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.routing import Route

from ...core.design_operations import DesignOperation
from ..context import Principal, ServiceContext
from ..paths import DESIGN_MCP
from .errors import ConsentMissing, DesignFailure
from .gate import PRINCIPAL_KEY
from .mcp_sessions import SessionBook
from .notices import Listeners, failure_event, log_event, session_id_of
from .operations import DesignOperations, Reply
from .tool_arguments import InvalidArguments, argument_model, checked

log = logging.getLogger(__name__)

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
#: the schema title of an operation served beyond the table (the one the faults hook
#: served before the endpoint left the SDK's function registration, kept so a client's
#: cached catalogue sees no change)
EXTRA_ARGUMENTS_TITLE = "servedArguments"
_READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                             idempotent_hint=True, open_world_hint=False)


def _annotations(operation: DesignOperation) -> ToolAnnotations:
    """The hints the service advertises for one operation, from the shared table."""
    return ToolAnnotations(read_only_hint=operation.floor.read_only,
                           destructive_hint=operation.floor.destructive,
                           idempotent_hint=operation.idempotent, open_world_hint=False)


# ---------------------------------------------------------------- results


def _text(text: str, is_error: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=is_error)


def _result(value: Any) -> CallToolResult:
    if isinstance(value, CallToolResult):
        return value
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


def _principal(ctx: ServerRequestContext[Any, Any]) -> Principal | None:
    """Who the gate admitted for this HTTP request (it left them in the ASGI scope)."""
    scope = getattr(ctx.request, "scope", None) or {}
    principal = scope.get(PRINCIPAL_KEY)
    return principal if isinstance(principal, Principal) else None


# ---------------------------------------------------------------- the served tools


@dataclasses.dataclass(frozen=True)
class ServedTool:
    """One tool as served: its `tools/list` entry, the model its arguments must fit, and
    what answers a call (the caller, the checked arguments) -> a value or a result."""

    listing: Tool
    arguments: type[BaseModel]
    answer: Callable[[Principal | None, dict[str, Any]], Any]


def _listing(name: str, description: str, schema: str,
             annotations: ToolAnnotations) -> Tool:
    return Tool(name=name, description=description, input_schema=json.loads(schema),
                annotations=annotations)


def tools(table: Mapping[str, DesignOperation], ops: DesignOperations) -> dict[str, ServedTool]:
    """One tool per row of `table`, in the table's order, each calling
    `ops.<name>(user, **arguments)` after the consent backstop."""
    missing = [name for name in table if not callable(getattr(ops, name, None))]
    if missing:
        raise TypeError(f"no service implementation for {', '.join(missing)}")
    return {operation.name: _tool(operation, ops) for operation in table.values()}


def _tool(operation: DesignOperation, ops: DesignOperations) -> ServedTool:
    implementation = getattr(ops, operation.name)
    model, schema = argument_model(f"{operation.name}Arguments", operation.inputs)

    def answer(principal: Principal | None, arguments: dict[str, Any]) -> Any:
        if principal is None:
            return _text("Not authenticated: the Design gate did not admit this call.", True)
        try:
            if not ops.store.consent(principal.user_id):
                raise ConsentMissing()
            return implementation(principal.user_id, **arguments)
        except DesignFailure as failure:
            return _text(failure.text(), True)

    return ServedTool(_listing(operation.name, operation.description, schema,
                               _annotations(operation)), model, answer)


def _extra_tool(name: str, description: str) -> ServedTool:
    """A read-only operation beyond the table: it answers `{"operation": name, "ok": true}`."""
    model, schema = argument_model(EXTRA_ARGUMENTS_TITLE, ())
    return ServedTool(_listing(name, description, schema, _READ_ONLY), model,
                      lambda principal, arguments: {"operation": name, "ok": True})


def _handlers(served: dict[str, ServedTool], listeners: Listeners) -> dict[str, Any]:
    """The low-level server's `tools/list` and `tools/call` handlers over `served` (read
    at each request, so a tool added or removed shows at once); a call that changed a
    project, or failed, is logged to its session (`notices`)."""

    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[tool.listing for tool in served.values()])

    async def call_tool(ctx: ServerRequestContext[Any, Any],
                        params: CallToolRequestParams) -> CallToolResult:
        tool = served.get(params.name)
        if tool is None:
            return _text(f"Unknown tool: {params.name}", True)
        try:
            arguments = checked(tool.arguments, params.arguments or {})
        except InvalidArguments as invalid:
            return _text(f"Error executing tool {params.name}: {invalid}", True)
        principal = _principal(ctx)
        try:  # on a worker thread: an operation blocks on SQLite or the preview browser
            value = await run_in_threadpool(tool.answer, principal, arguments)
        except Exception:
            log.exception("Design tool %r raised an unexpected exception", params.name)
            return _text(f"Error executing tool {params.name}", True)
        result = _result(value)
        event = (failure_event(params.name) if result.is_error
                 else log_event(params.name, arguments, value))
        if event is not None:
            await listeners.log(ctx, *event)
        return result

    def input_schema(name: str) -> dict[str, Any] | None:
        tool = served.get(name)
        return None if tool is None else tool.listing.input_schema

    return {"on_list_tools": list_tools, "on_call_tool": call_tool,
            "get_tool_input_schema": input_schema}


def _transport_security(ctx: ServiceContext) -> TransportSecuritySettings:
    hosts = {*_LOOPBACK, "testserver"}
    if ctx.config.host not in ("0.0.0.0", "::"):
        hosts.add(ctx.config.host)
    allowed_hosts = sorted(hosts | {f"{host}:*" for host in hosts})
    origins = sorted({f"http://{host}" for host in hosts}
                     | {f"http://{host}:*" for host in hosts})
    return TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                     allowed_hosts=allowed_hosts, allowed_origins=origins)


class DesignServer(Server[Any]):
    """The SDK's low-level server, saying in `initialize` that its tool list can change
    (a fault switch serves one more operation, or stops) and that it logs (`logging`,
    from its `logging/setLevel` handler)."""

    def create_initialization_options(self, notification_options: NotificationOptions | None
                                      = None, *args: Any, **kwargs: Any) -> Any:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True), *args, **kwargs)


def _listening(server: Server[Any], listeners: Listeners) -> None:
    """Serve `logging/setLevel` and note every request's session (server middleware)."""

    async def set_level(ctx: ServerRequestContext[Any, Any],
                        params: SetLevelRequestParams) -> EmptyResult:
        listeners.set_level(session_id_of(ctx), params.level)
        return EmptyResult()

    async def note_session(ctx: ServerRequestContext[Any, Any], call_next: Any) -> Any:
        listeners.seen(ctx)
        return await call_next(ctx)

    server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
    server.middleware.append(note_session)


def build(ctx: ServiceContext) -> tuple[Route, Callable[[], AbstractAsyncContextManager[None]]]:
    """The exact-path Route of the endpoint (the SDK's, behind a `SessionBook`) and its
    lifespan (run it once, in the app's lifespan). Sets `ctx.drop_mcp_sessions` and
    `ctx.mcp_session_manager`.
    Call once per app: the SDK's session manager runs only once per instance."""
    table = ctx.design_operations
    operations = (ctx.design_service or DesignOperations)(ctx)
    served = tools(table, operations)
    listeners = Listeners()
    server = DesignServer("claude-design-reference", version="1",
                          **_handlers(served, listeners))
    _listening(server, listeners)
    sdk_app = server.streamable_http_app(
        streamable_http_path=DESIGN_MCP, json_response=True, stateless_http=False,
        session_idle_timeout=ctx.config.session_idle_timeout,
        max_request_body_size=ctx.config.max_body_bytes,
        transport_security=_transport_security(ctx))
    (sdk_route,) = [r for r in sdk_app.routes
                    if isinstance(r, Route) and r.path == DESIGN_MCP]
    sessions = SessionBook(sdk_route.app, on_end=listeners.forget)
    route = Route(DESIGN_MCP, endpoint=sessions)
    manager = server.session_manager

    def extra_design_operation(name: str, description: str | None) -> bool:
        """Serve (or, with description None, stop serving) a read-only operation beyond
        the table: its answer is `{"operation": name, "ok": true}`."""
        if name in table:
            return False
        if description is None:
            if served.pop(name, None) is None:
                return False
        elif name in served:
            return False
        else:
            served[name] = _extra_tool(name, description)
        listeners.tools_changed_soon()
        return True

    ctx.extra_design_operation = extra_design_operation
    ctx.drop_mcp_sessions = sessions.drop_all
    ctx.mcp_session_manager = manager

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        if ctx.config.warm_browser:  # in the background: startup does not wait for it
            operations.previews.browser.start()
        try:
            async with manager.run():
                yield
        finally:
            operations.close()

    return route, lifespan
