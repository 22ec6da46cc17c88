"""An in-memory Design MCP endpoint behind httpx.MockTransport, for the session and
catalogue unit tests: counts methods, issues and drops session ids, and answers with
canned responses when a test queues them."""

from __future__ import annotations

import asyncio
import collections
import itertools
import json

import httpx

from jupyter_design_projects.core.design_operations import BY_NAME

ENDPOINT = "http://127.0.0.1:9/v1/design/mcp"


def tool(name: str, *, read_only: bool, destructive: bool | None = None,
         description: str = "", annotations: dict | None = None) -> dict:
    if annotations is None:
        annotations = {"readOnlyHint": read_only}
        if destructive is not None:
            annotations["destructiveHint"] = destructive
    return {
        "name": name,
        "description": description or f"{name} does one thing. More detail follows.",
        "inputSchema": {"type": "object", "properties": {}},
        "annotations": annotations,
    }


def known_tools() -> list[dict]:
    """The 18 operations of PROTOCOL §3, annotated as the reference service does."""
    return [
        tool(op.name, read_only=op.floor.read_only, destructive=op.floor.destructive)
        for op in BY_NAME.values()
    ]


class FakeMcp:
    def __init__(self, tools: list[dict] | None = None, *, page_size: int = 0) -> None:
        self.tools = known_tools() if tools is None else tools
        self.page_size = page_size
        self.counts: collections.Counter[str] = collections.Counter()
        self.requests: list[httpx.Request] = []
        self.sessions: set[str] = set()
        self._ids = itertools.count(1)
        #: method -> responses to give (in order) instead of the normal answer
        self.canned: dict[str, list[httpx.Response]] = collections.defaultdict(list)
        #: awaited before answering initialize (lets a test hold the handshake open)
        self.initialize_gate: asyncio.Event | None = None
        self.initialize_started = asyncio.Event()
        self.results: dict[str, dict] = {}

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self.handle))

    def drop_sessions(self) -> None:
        self.sessions.clear()

    async def handle(self, request: httpx.Request) -> httpx.Response:
        return streamed(await self._answer(request))

    async def _answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.method == "DELETE":
            self.counts["DELETE"] += 1
            return httpx.Response(204)
        body = json.loads(request.content)
        method = body["method"]
        self.counts[method] += 1
        if self.canned[method]:
            return self.canned[method].pop(0)
        if method == "initialize":
            self.initialize_started.set()
            if self.initialize_gate is not None:
                await self.initialize_gate.wait()
            session_id = f"session-{next(self._ids)}"
            self.sessions.add(session_id)
            return self._result(body, {"protocolVersion": "2025-03-26", "capabilities": {},
                                       "serverInfo": {"name": "fake", "version": "0"}},
                                headers={"mcp-session-id": session_id})
        if request.headers.get("mcp-session-id") not in self.sessions:
            return httpx.Response(404, json={"jsonrpc": "2.0", "id": None,
                                             "error": {"code": -32600,
                                                       "message": "Session not found"}})
        if method == "notifications/initialized":
            return httpx.Response(202)
        if method == "tools/list":
            return self._result(body, self._page(body.get("params") or {}))
        if method == "tools/call":
            name = body["params"]["name"]
            result = self.results.get(name, {"content": [{"type": "text", "text": name}]})
            return self._result(body, result)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body.get("id"),
                                         "error": {"code": -32601, "message": "no"}})

    def _page(self, params: dict) -> dict:
        if not self.page_size:
            return {"tools": self.tools}
        start = int(params.get("cursor", "0"))
        end = start + self.page_size
        page: dict = {"tools": self.tools[start:end]}
        if end < len(self.tools):
            page["nextCursor"] = str(end)
        return page

    @staticmethod
    def _result(body: dict, result: dict, headers: dict | None = None) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": result},
                              headers=headers)


def rpc_result(result: dict, status: int = 200) -> httpx.Response:
    return httpx.Response(status, json={"jsonrpc": "2.0", "id": 1, "result": result})


def streamed(response: httpx.Response) -> httpx.Response:
    """The same answer as an unread stream: `transport.http.send` reads raw bytes, which a
    Response built from `content=`/`json=` no longer has (httpx reads it at construction)."""
    return httpx.Response(response.status_code, headers=response.headers,
                          stream=httpx.ByteStream(response.content))
