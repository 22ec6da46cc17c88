"""The Design MCP session: JSON-RPC framing over Streamable HTTP (JSON answers only), the
shared initialize → initialized → tools/list handshake, and the one re-initialize after a
404 on a request that carried a session id: the session id, the initialized state and the
discovery are all dropped (spec §2), so the re-initialize is followed by a fresh
tools/list before the request is sent again — a service that changed its tools while the
session was gone is seen, and a call whose tool it no longer offers is not retried."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx

from ..errors import HandshakeCancelled, TransportError, UnknownOperation
from ..settings import DEFAULT_CLIENT_PLATFORM
from ..transport.http import Answer, send
from . import wire

PROTOCOL_VERSION = "2025-03-26"
#: the Anthropic API version every Design request names (spec §5)
ANTHROPIC_VERSION = "2023-06-01"
#: the spec's transport limits for one Design MCP request (spec §5)
TIMEOUT_S = 60.0
MAX_BYTES = 16 * 130_000  # 2,080,000
CLIENT_INFO = {"name": "claude-cli-design-tool", "version": "1"}
#: a hostile server cannot keep the client paging forever
MAX_LIST_PAGES = 100

T = TypeVar("T")


def identity_headers(platform: str) -> dict[str, str]:
    """The headers that say who is calling, on every Design request, MCP and REST (spec §5):
    beside the bearer (transport/auth.py) and the session id."""
    return {"anthropic-version": ANTHROPIC_VERSION, "anthropic-client-platform": platform}


@dataclasses.dataclass(frozen=True)
class SessionState:
    has_session_id: bool
    initialized: bool
    discovered: bool
    #: how many tools/list rounds have completed (a new round resets the hint registry)
    generation: int
    #: the service said its catalogue changed (tools/list_changed): the next call relists
    tools_stale: bool = False


class McpSession:
    """One MCP session with the Design endpoint, shared by every Design call of a process."""

    def __init__(
        self,
        http: httpx.AsyncClient,
        endpoint: str,
        *,
        platform: str = DEFAULT_CLIENT_PLATFORM,
        timeout_s: float = TIMEOUT_S,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        self._http = http
        self._identity = identity_headers(platform)
        self._endpoint = endpoint
        self._timeout_s = timeout_s
        self._max_bytes = max_bytes
        self._ids = itertools.count(1)
        self._session_id: str | None = None
        self._initialized = False
        self._tools: list[dict] | None = None
        self._generation = 0
        self._initializing: asyncio.Task | None = None
        self._discovering: asyncio.Task | None = None
        self._tools_stale = False
        #: the event stream listening on this session (design/notification_stream.py),
        #: once something asked for notifications; None until then
        self.listener: Any = None

    @property
    def state(self) -> SessionState:
        return SessionState(
            has_session_id=self._session_id is not None,
            initialized=self._initialized,
            discovered=self._tools is not None,
            generation=self._generation,
            tools_stale=self._tools_stale,
        )

    async def tools(self, refresh: bool = False) -> list[dict]:
        """The server's tools (discovering them first if needed); `refresh` re-lists, and
        so does the first call after the service said its catalogue changed."""
        if (refresh or self._tools_stale) and self._discovering is None:
            self._tools = None
            self._tools_stale = False
        while self._tools is None:
            await self._shared("_discovering", self._discover)
        return [dict(tool) for tool in self._tools]

    async def call_tool(self, name: str, arguments: dict) -> dict:
        """The raw MCP result `{content: [...], isError?}` of one tools/call."""
        return await self._request("tools/call", {"name": name, "arguments": arguments}, name)

    async def raw(self, method: str, params: dict | None = None, *,
                  notification: bool = False) -> tuple[dict, dict[str, str], Answer]:
        """One JSON-RPC message as given, on this session (initialized first), its answer
        not interpreted (`design.raw_rpc`): the envelope, the headers sent beside the
        bearer, and the answer. No re-initialize after a 404: what came back is shown."""
        await self._ensure_initialized()
        session_id = self._session_id
        if notification:
            envelope: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
            if params is not None:
                envelope["params"] = params
        else:
            envelope = self._envelope(method, params if params is not None else {})
        answer = await self._post(envelope, session_id=session_id, action=f"design rpc {method}")
        return envelope, self._headers(session_id), answer

    async def close(self) -> None:
        """Forget the session (and tell the server, if it kept one; failures are ignored)."""
        if self.listener is not None:
            await self.listener.stop()
        session_id = self._session_id
        self._reset(session_id)
        self._tools = None
        if session_id is None:
            return
        try:
            await send(
                self._http, "DELETE", self._endpoint, action="design close",
                max_bytes=self._max_bytes, deadline_s=min(self._timeout_s, 5.0),
                headers=self._headers(session_id),
            )
        except TransportError:
            pass

    # ------------------------------------------------------------ handshake

    async def _shared(self, slot: str, run: Callable[[], Awaitable[T]]) -> T:
        """Run `run` once for every concurrent caller. The first caller owns the task: if
        it is cancelled the task is too, and the others get HandshakeCancelled."""
        task = getattr(self, slot)
        if task is None:
            task = asyncio.ensure_future(run())
            setattr(self, slot, task)
            task.add_done_callback(lambda done: self._clear_slot(slot, done))
            return await task
        await asyncio.wait({task})
        if task.cancelled():
            raise HandshakeCancelled()
        return task.result()

    def _clear_slot(self, slot: str, done: asyncio.Task) -> None:
        if getattr(self, slot) is done:
            setattr(self, slot, None)

    async def _ensure_initialized(self) -> None:
        while not self._initialized:
            await self._shared("_initializing", self._initialize)

    async def _initialize(self) -> None:
        envelope = self._envelope(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": dict(CLIENT_INFO),
            },
        )
        answer = await self._post(envelope, session_id=None, action="design initialize")
        wire.rpc_result(answer, "initialize", envelope["id"])
        session_id = wire.session_id_of(answer)
        notified = await self._post(
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            session_id=session_id,
            action="design notifications/initialized",
        )
        wire.check_status(notified)
        self._session_id = session_id
        self._initialized = True
        if self.listener is not None:
            self.listener.session_changed()

    async def _discover(self) -> None:
        tools: list[dict] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_LIST_PAGES):
            params = {"cursor": cursor} if cursor is not None else {}
            result = await self._request("tools/list", params, "tools/list")
            page = result.get("tools")
            if not isinstance(page, list):
                raise TransportError("design tools/list", "malformed",
                                     detail="the answer has no tools list")
            tools.extend(t for t in page if isinstance(t, dict) and isinstance(t.get("name"), str))
            cursor = result.get("nextCursor")
            if not isinstance(cursor, str) or not cursor:
                self._tools = tools
                self._generation += 1
                return
            if cursor in seen:
                raise TransportError("design tools/list", "malformed",
                                     detail="the service repeated a page cursor")
            seen.add(cursor)
        raise TransportError("design tools/list", "malformed",
                             detail=f"more than {MAX_LIST_PAGES} pages")

    # ------------------------------------------------------------ requests

    async def _request(self, method: str, params: dict, operation: str) -> dict:
        """One JSON-RPC request on the session; a 404 on a session id re-initializes,
        lists the tools again (a tools/call) and retries once."""
        for attempt in (1, 2):
            await self._ensure_initialized()
            if attempt == 2 and method == "tools/call":
                await self._rediscovered(str(params.get("name")))
            session_id = self._session_id
            envelope = self._envelope(method, params)
            answer = await self._post(envelope, session_id=session_id,
                                      action=f"design {operation}")
            if answer.status == 404 and session_id is not None:
                wire.refuse_event_stream(answer)
                # a tools/list met it: the retry below is the fresh listing
                self._reset(session_id, rediscover=method != "tools/list")
                if attempt == 1:
                    continue
                raise TransportError(
                    answer.action, "http_status", 404,
                    detail="the Design session was lost again after re-initializing",
                )
            return wire.rpc_result(answer, operation, envelope["id"])
        raise AssertionError("unreachable")

    async def _rediscovered(self, name: str) -> None:
        """After a re-initialize: the tools listed again (once for every caller that met
        the 404); UnknownOperation when the service no longer offers `name`."""
        tools = await self.tools()
        if not any(tool.get("name") == name for tool in tools):
            raise UnknownOperation(name, "not_in_catalogue")

    def _reset(self, session_id: str | None, *, rediscover: bool = True) -> None:
        """Drop the session id, the initialized state and the discovery (spec §2), unless
        another caller already replaced the session that failed. The tools discovered
        stay readable until the fresh tools/list completes (the hint registry is rebuilt
        then), which the next use of the tools runs first."""
        if session_id != self._session_id:
            return
        self._session_id = None
        self._initialized = False
        self._tools_stale = self._tools_stale or rediscover

    def _envelope(self, method: str, params: dict[str, Any]) -> dict:
        return {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": params}

    def _headers(self, session_id: str | None) -> dict[str, str]:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": PROTOCOL_VERSION,
            **self._identity,
        }
        if session_id is not None:
            headers["Mcp-Session-Id"] = session_id
        return headers

    async def _post(self, body: dict, *, session_id: str | None, action: str) -> Answer:
        return await send(
            self._http, "POST", self._endpoint, action=action, max_bytes=self._max_bytes,
            deadline_s=self._timeout_s, json=body, headers=self._headers(session_id),
            refuse_content_type=wire.EVENT_STREAM,
        )

    # ------------------------------------------------------------ the event stream

    @property
    def endpoint(self) -> str:
        return self._endpoint

    @property
    def session_id(self) -> str | None:
        return self._session_id

    def mark_tools_stale(self) -> None:
        """The service said its catalogue changed: the next `tools()` lists it again."""
        self._tools_stale = True

    async def stream_headers(self) -> tuple[str | None, dict[str, str]]:
        """The session id (initializing first) and the headers of the GET that opens its
        event stream."""
        await self._ensure_initialized()
        headers = self._headers(self._session_id)
        del headers["Content-Type"]
        headers["Accept"] = wire.EVENT_STREAM
        return self._session_id, headers

    def lose(self, session_id: str | None) -> None:
        """The service no longer knows `session_id` (a 404): the next use re-initializes."""
        self._reset(session_id)

    async def reply(self, message: dict, session_id: str | None) -> Answer:
        """POST a JSON-RPC response (to a request the service sent) on `session_id`."""
        return await self._post(message, session_id=session_id,
                                action="design notifications reply")
