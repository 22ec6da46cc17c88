"""The Design MCP endpoint: a fresh official-SDK `MCPServer` per app carrying the Design
operations of PROTOCOL §3 as tools, registered by one generic registration from the table
in `core.design_operations` (each row's name, description, hints and typed inputs, which
become the tool's argument model and published schema); every tool calls the method of
the same name of the service's `operations.DesignOperations`. Served as stateful
Streamable HTTP with JSON answers at POST /v1/design/mcp."""

import base64
import contextlib
import functools
import json
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AbstractAsyncContextManager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field, create_model
from starlette.routing import Route

from ...core.design_operations import (
    DesignOperation,
    Input,
    InputType,
    ListOf,
    Record,
    Text,
    Whole,
)
from ..context import Principal, ServiceContext
from ..paths import DESIGN_MCP
from .errors import ConsentMissing, DesignFailure
from .gate import PRINCIPAL_KEY
from .operations import DesignOperations, Reply

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
#: the tool parameter that receives the SDK's request context
_CONTEXT = "ctx"


def _annotations(operation: DesignOperation) -> ToolAnnotations:
    """The hints the service advertises for one operation, from the shared table."""
    return ToolAnnotations(read_only_hint=operation.floor.read_only,
                           destructive_hint=operation.floor.destructive,
                           idempotent_hint=operation.idempotent, open_world_hint=False)


# ---------------------------------------------------------------- typed inputs → pydantic


def _python_type(kind: InputType) -> Any:
    """The pydantic type of one declared input type (constraints as Field metadata)."""
    if isinstance(kind, Text):
        base: Any = Literal[kind.enum] if kind.enum else str  # type: ignore[valid-type]
        if kind.max_length is None and kind.description is None:
            return base
        return Annotated[base, Field(max_length=kind.max_length, description=kind.description)]
    if isinstance(kind, Whole):
        if kind.minimum is None and kind.maximum is None:
            return int
        return Annotated[int, Field(ge=kind.minimum, le=kind.maximum)]
    if isinstance(kind, ListOf):
        return list[_python_type(kind.item)]  # type: ignore[misc]
    return _record_model(kind)


def _record_model(record: Record) -> type[BaseModel]:
    """A record as a model of its own name that refuses unknown fields."""
    return create_model(record.name, __config__=ConfigDict(extra="forbid"),
                        **_fields(record.fields))


def _fields(inputs: tuple[Input, ...]) -> dict[str, Any]:
    """pydantic field definitions, in declared order: a required input has no default, an
    optional one is `T | None = None`; the input's own description beside its type."""
    fields: dict[str, Any] = {}
    for item in inputs:
        kind = _python_type(item.type)
        info = Field(description=item.description) if item.description else Field()
        if item.required:
            fields[item.name] = Annotated[kind, info]
        else:
            fields[item.name] = (Annotated[kind | None, info], None)
    return fields


@functools.cache
def _arguments(name: str, inputs: tuple[Input, ...]) -> tuple[type[ArgModelBase], str]:
    """The tool's argument model, named as the SDK names one (`<tool>Arguments`), and its
    JSON schema as text. Made once per process (models and schemas are pydantic's slowest
    work, half of building an app, and the tests build one per test); each tool parses
    the schema afresh, so no two apps share a mutable dict."""
    model = create_model(f"{name}Arguments", __base__=ArgModelBase, **_fields(inputs))
    return model, json.dumps(model.model_json_schema(by_alias=True))


def _plain(value: Any) -> Any:
    """A validated argument as the store's operations take it: records as dicts."""
    if isinstance(value, BaseModel):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


# ---------------------------------------------------------------- results


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


# ---------------------------------------------------------------- the one registration


def tools(table: Mapping[str, DesignOperation], ops: DesignOperations) -> list[Tool]:
    """One SDK tool per row of `table`, each validating its typed inputs and calling
    `ops.<name>(user, **arguments)` after the consent backstop."""
    missing = [name for name in table if not callable(getattr(ops, name, None))]
    if missing:
        raise TypeError(f"no service implementation for {', '.join(missing)}")
    return [_tool(operation, ops) for operation in table.values()]


def _tool(operation: DesignOperation, ops: DesignOperations) -> Tool:
    name = operation.name
    implementation = getattr(ops, name)
    model, schema = _arguments(name, operation.inputs)

    def run(**arguments: Any) -> CallToolResult:
        principal = _principal(arguments.pop(_CONTEXT))
        if principal is None:
            return _text("Not authenticated: the Design gate did not admit this call.", True)
        try:
            if not ops.store.consent(principal.user_id):
                raise ConsentMissing()
            plain = {key: _plain(value) for key, value in arguments.items()}
            return _result(implementation(principal.user_id, **plain))
        except DesignFailure as failure:
            return _text(failure.text(), True)

    return Tool(fn=run, name=name, title=None, description=operation.description,
                parameters=json.loads(schema),
                fn_metadata=FuncMetadata(arg_model=model), is_async=False,
                context_kwarg=_CONTEXT, annotations=_annotations(operation))


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
    table = ctx.design_operations
    operations = (ctx.design_service or DesignOperations)(ctx)
    server = MCPServer("claude-design-reference", version="1",
                       tools=tools(table, operations))
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
        if name in table:
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
        if ctx.config.warm_browser:  # in the background: startup does not wait for it
            operations.previews.browser.start()
        try:
            async with manager.run():
                yield
        finally:
            operations.close()

    return route, lifespan
