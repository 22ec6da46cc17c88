"""A minimal app for the Design tests: the Design REST routes and MCP endpoint behind
DesignGate, a stub `ctx.authenticate`, an injectable clock, a raw JSON-RPC client, and the
project's own DesignClient answered by the harness. (Holds no tests itself; the other
test_design_* modules import it.)"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
from collections.abc import AsyncIterator, Iterable, Iterator
from pathlib import Path
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.testclient import TestClient

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.client import DesignClient
from jupyter_design_projects.server.context import (
    Principal,
    ServiceConfig,
    ServiceContext,
)
from jupyter_design_projects.server.database import Database
from jupyter_design_projects.server.design import mcp as design_mcp
from jupyter_design_projects.server.design import rest as design_rest
from jupyter_design_projects.server.design import store as design_store
from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID
from jupyter_design_projects.server.design.gate import DesignGate
from jupyter_design_projects.settings import Settings
from tests.design_headers import DESIGN_HEADERS

MCP = "/v1/design/mcp"
DESIGN = frozenset({"user:design:read", "user:design:write"})
#: bearer value -> principal the stub authenticator answers
USERS = {
    "alice": Principal("alice", DESIGN),
    "bob": Principal("bob", DESIGN),
    "mcp-only": Principal("carol", frozenset({"user:mcp_servers"})),
    "no-design": Principal("dave", frozenset({"user:profile", "user:projects:read"})),
}
ACCEPT = "application/json, text/event-stream"

__all__ = ["DECK_ID", "PARTNER_ID", "Clock", "Harness", "McpClient", "build_harness"]


class Clock:
    """An injectable clock: `clock.now` is what ctx.clock() answers."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def stub_authenticate(request: Any) -> Principal | None:
    header = request.headers.get("authorization", "")
    if not header.startswith("Bearer "):
        return None
    return USERS.get(header.removeprefix("Bearer "))


class Harness:
    def __init__(self, ctx: ServiceContext, client: TestClient, clock: Clock) -> None:
        self.ctx = ctx
        self.client = client
        self.clock = clock

    def mcp(self, user: str = "alice") -> McpClient:
        return McpClient(self.client, user)

    def rest(self, method: str, path: str, user: str | None = "alice",
             body: Any = None) -> Any:
        headers = {} if user is None else {"authorization": f"Bearer {user}"}
        if body is not None:
            headers["content-type"] = "application/json"
            return self.client.request(method, path, headers=headers, content=json.dumps(body))
        return self.client.request(method, path, headers=headers)

    def consent(self, user: str = "alice") -> None:
        assert self.rest("POST", "/v1/design/consent", user,
                         {"consent": "agent_design_projects"}).status_code == 204

    def grant(self, project_id: str, user: str = "alice") -> None:
        assert self.rest("POST", "/v1/design/grants", user,
                         {"project_id": project_id}).status_code == 201


class McpClient:
    """A raw JSON-RPC client over the TestClient, framing requests by hand."""

    def __init__(self, client: TestClient, user: str | None) -> None:
        self.client = client
        self.user = user
        self.session_id: str | None = None
        self._next_id = 0

    def headers(self) -> dict[str, str]:
        headers = {"accept": ACCEPT, "content-type": "application/json"}
        if self.user is not None:
            headers["authorization"] = f"Bearer {self.user}"
        if self.session_id is not None:
            headers["mcp-session-id"] = self.session_id
        return headers

    def post(self, payload: Any) -> Any:
        return self.client.post(MCP, headers=self.headers(), content=json.dumps(payload))

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.post(message)

    def initialize(self) -> McpClient:
        answer = self.request("initialize", {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}})
        assert answer.status_code == 200, answer.text
        self.session_id = answer.headers["mcp-session-id"]
        notified = self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert notified.status_code == 202
        return self

    def call(self, tool: str, /, **arguments: Any) -> Any:
        """The HTTP answer of one tools/call."""
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def tool(self, tool: str, /, **arguments: Any) -> dict[str, Any]:
        """The `result` of one tools/call that HTTP-succeeded."""
        answer = self.call(tool, **arguments)
        assert answer.status_code == 200, answer.text
        return answer.json()["result"]

    def ok(self, tool: str, /, **arguments: Any) -> Any:
        """The parsed JSON text of a successful tool result."""
        result = self.tool(tool, **arguments)
        assert not result.get("isError"), result
        return json.loads(result["content"][0]["text"])


@contextlib.contextmanager
def build_harness(tmp_path: Path, *, idle_timeout: float = 1800.0,
                  design_operations: Any = None, design_service: Any = None
                  ) -> Iterator[Harness]:
    """The app over a fresh data dir; `design_operations` / `design_service` replace the
    table the endpoint serves and what runs it (None: the real ones)."""
    clock = Clock()
    config = ServiceConfig(data_dir=tmp_path, session_idle_timeout=idle_timeout)
    ctx = ServiceContext(config=config, db=Database(tmp_path / "design.sqlite3"), clock=clock,
                         authenticate=stub_authenticate, design_service=design_service)
    if design_operations is not None:
        ctx.design_operations = design_operations
    ctx.db.migrate(design_store.SCHEMA)
    design_store.seed_demo(ctx)
    route, mcp_lifespan = design_mcp.build(ctx)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with mcp_lifespan():
            yield

    app = Starlette(routes=[*design_rest.routes(ctx), route], lifespan=lifespan)
    with TestClient(DesignGate(app, ctx), base_url="http://127.0.0.1",
                    headers=DESIGN_HEADERS) as client:
        yield Harness(ctx, client, clock)


def error_text(result: dict[str, Any]) -> str:
    """The text of a tool result that must be an error."""
    assert result["isError"] is True, result
    return result["content"][0]["text"]


def plan(m: McpClient, project_id: str = DECK_ID, writes: Iterable[str] = (),
         deletes: Iterable[str] = ()) -> str:
    """A plan token for exactly these writes and deletes (finalize_plan)."""
    return m.ok("finalize_plan", project_id=project_id, writes=list(writes),
                deletes=list(deletes))["plan_token"]


def files_of(m: McpClient, project_id: str = DECK_ID) -> dict[str, str]:
    """Each file of the project → its etag."""
    return {e["path"]: e["etag"] for e in m.ok("list_files", project_id=project_id)
            if e["type"] == "file"}


class ThroughHarness(httpx.AsyncBaseTransport):
    """The client's requests, answered by the harness's app as user alice; each tool call
    that reached the service counted by name in `calls`."""

    def __init__(self, harness: Harness) -> None:
        self._client = harness.client
        self.calls: collections.Counter[str] = collections.Counter()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        if request.url.path.endswith("/mcp") and body:
            message = json.loads(body)
            if isinstance(message, dict) and message.get("method") == "tools/call":
                self.calls[message["params"]["name"]] += 1
        headers = {**request.headers, "authorization": "Bearer alice"}
        answer = await asyncio.to_thread(self._client.request, request.method,
                                         str(request.url), headers=headers, content=body)
        return httpx.Response(answer.status_code, headers=answer.headers,
                              content=answer.content)


@contextlib.asynccontextmanager
async def design_client(harness: Harness, *, can_ask: bool = True, operations: Any = None
                        ) -> AsyncIterator[tuple[DesignClient, collections.Counter[str]]]:
    """The project's DesignClient (with `operations` for a table of its own) talking to the
    harness, and the count of the tool calls that reached the service."""
    transport = ThroughHarness(harness)
    async with httpx.AsyncClient(transport=transport) as http:
        client = DesignClient(http, Settings(api_base_url="http://127.0.0.1"),
                              can_ask=lambda: can_ask,
                              operations=BY_NAME if operations is None else operations)
        try:
            yield client, transport.calls
        finally:
            await client.close()
