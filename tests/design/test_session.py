"""McpSession against an in-memory MCP endpoint: handshake, sharing, 404, SSE, errors."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.errors import (
    AuthError,
    DesignRpcError,
    HandshakeCancelled,
    NeedsConsent,
    NeedsProjectGrant,
    ResponseTooLarge,
    TransportError,
    UnexpectedContentType,
    UnknownOperation,
)
from tests.design.mcp_fake import ENDPOINT, FakeMcp, rpc_result


def session_for(fake: FakeMcp, **options) -> McpSession:
    return McpSession(fake.client(), ENDPOINT, **options)


def answering(*answers: httpx.Response) -> McpSession:
    """A session whose tools/call answers are `answers`, in order."""
    fake = FakeMcp()
    fake.canned["tools/call"] = list(answers)
    return session_for(fake)


def methods(fake: FakeMcp) -> list[str]:
    return [json.loads(r.content)["method"] for r in fake.requests if r.method == "POST"]


def sse(status: int = 200) -> httpx.Response:
    return httpx.Response(status, headers={"content-type": "text/event-stream"},
                          content=b'event: message\ndata: {"jsonrpc":"2.0"}\n\n')


@pytest.mark.asyncio
async def test_first_tools_call_runs_initialize_initialized_then_list() -> None:
    fake = FakeMcp()
    tools = await session_for(fake).tools()
    assert methods(fake) == ["initialize", "notifications/initialized", "tools/list"]
    assert len(tools) == len(BY_NAME)
    init = json.loads(fake.requests[0].content)
    assert init["params"] == {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "claude-cli-design-tool", "version": "1"},
    }


@pytest.mark.asyncio
async def test_every_request_after_initialize_carries_session_id_and_headers() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.call_tool("list_design_systems", {})
    assert "mcp-session-id" not in fake.requests[0].headers
    for request in fake.requests[1:]:
        assert request.headers["mcp-session-id"] == "session-1"
        assert request.headers["accept"] == "application/json, text/event-stream"
        assert request.headers["content-type"] == "application/json"
        assert request.headers["mcp-protocol-version"] == "2025-03-26"


@pytest.mark.asyncio
async def test_call_tool_returns_the_raw_result() -> None:
    fake = FakeMcp()
    fake.results["get_project"] = {"content": [{"type": "text", "text": "{}"}], "isError": True}
    result = await session_for(fake).call_tool("get_project", {"project_id": "p"})
    assert result == {"content": [{"type": "text", "text": "{}"}], "isError": True}
    call = json.loads(fake.requests[-1].content)
    assert call["params"] == {"name": "get_project", "arguments": {"project_id": "p"}}


@pytest.mark.asyncio
async def test_call_tool_alone_does_not_discover() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.call_tool("list_design_systems", {})
    assert fake.counts["tools/list"] == 0
    assert session.state.initialized and not session.state.discovered


@pytest.mark.asyncio
async def test_sixty_four_concurrent_first_calls_share_one_handshake() -> None:
    fake = FakeMcp()
    fake.initialize_gate = asyncio.Event()
    session = session_for(fake)
    calls = [asyncio.create_task(session.tools()) for _ in range(64)]
    await fake.initialize_started.wait()
    fake.initialize_gate.set()
    results = await asyncio.gather(*calls)
    assert fake.counts["initialize"] == 1
    assert fake.counts["tools/list"] == 1
    assert all(len(r) == len(BY_NAME) for r in results)


@pytest.mark.asyncio
async def test_tools_list_pages_are_followed() -> None:
    fake = FakeMcp(page_size=5)
    tools = await session_for(fake).tools()
    assert [t["name"] for t in tools] == [t["name"] for t in fake.tools]
    assert fake.counts["tools/list"] == 4


@pytest.mark.asyncio
async def test_repeated_page_cursor_is_refused() -> None:
    fake = FakeMcp()
    page = rpc_result({"tools": [], "nextCursor": "again"})
    fake.canned["tools/list"] = [page, rpc_result({"tools": [], "nextCursor": "again"})]
    with pytest.raises(TransportError) as caught:
        await session_for(fake).tools()
    assert caught.value.action == "design tools/list"


@pytest.mark.asyncio
async def test_cancelled_starter_gives_followers_handshake_cancelled() -> None:
    fake = FakeMcp()
    fake.initialize_gate = asyncio.Event()
    session = session_for(fake)
    starter = asyncio.create_task(session.tools())
    followers = [asyncio.create_task(session.tools()) for _ in range(3)]
    await fake.initialize_started.wait()
    starter.cancel()
    outcomes = await asyncio.gather(*followers, return_exceptions=True)
    assert all(isinstance(o, HandshakeCancelled) for o in outcomes)
    assert outcomes[0].kind == "design_tool_shared_handshake_cancelled"
    assert starter.cancelled()
    fake.initialize_gate.set()
    assert len(await session.tools()) == len(BY_NAME)


@pytest.mark.asyncio
async def test_cancelled_follower_leaves_shared_handshake_running() -> None:
    fake = FakeMcp()
    fake.initialize_gate = asyncio.Event()
    session = session_for(fake)
    starter = asyncio.create_task(session.tools())
    follower = asyncio.create_task(session.tools())
    await fake.initialize_started.wait()
    follower.cancel()
    fake.initialize_gate.set()
    assert len(await starter) == len(BY_NAME)
    assert follower.cancelled()
    assert fake.counts["initialize"] == 1


@pytest.mark.asyncio
async def test_404_on_call_reinitializes_and_retries_once() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    fake.drop_sessions()
    result = await session.call_tool("list_design_systems", {})
    assert result["content"][0]["text"] == "list_design_systems"
    assert fake.counts["initialize"] == 2
    assert fake.counts["tools/call"] == 2
    # the discovery was dropped with the session (spec §2): listed again before the retry
    assert session.state.initialized and session.state.discovered
    assert fake.counts["tools/list"] == 2
    assert methods(fake)[-4:] == ["initialize", "notifications/initialized", "tools/list",
                                  "tools/call"]


@pytest.mark.asyncio
async def test_tools_changed_while_the_session_was_gone_are_seen_after_the_404() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    fake.tools = [t for t in fake.tools if t["name"] != "get_project"] + [
        {"name": "brand_new_reader", "description": "New.", "inputSchema": {},
         "annotations": {"readOnlyHint": True}}]
    fake.drop_sessions()
    await session.call_tool("list_design_systems", {})
    names = {t["name"] for t in await session.tools()}
    assert "brand_new_reader" in names and "get_project" not in names
    assert fake.counts["tools/list"] == 2  # once after the re-initialize, not again


@pytest.mark.asyncio
async def test_a_call_whose_tool_went_away_while_the_session_was_gone_is_not_retried() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    fake.tools = [t for t in fake.tools if t["name"] != "get_project"]
    fake.drop_sessions()
    with pytest.raises(UnknownOperation) as caught:
        await session.call_tool("get_project", {"project_id": "p"})
    assert (caught.value.operation, caught.value.reason) == ("get_project", "not_in_catalogue")
    assert fake.counts["tools/call"] == 1  # the one that met the 404
    assert fake.counts["tools/list"] == 2


@pytest.mark.asyncio
async def test_404_on_tools_list_reinitializes_and_retries_once() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.call_tool("list_design_systems", {})
    fake.drop_sessions()
    assert len(await session.tools()) == len(BY_NAME)
    assert fake.counts["initialize"] == 2
    assert fake.counts["tools/list"] == 2


@pytest.mark.asyncio
async def test_second_404_is_not_retried() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.call_tool("list_design_systems", {})
    lost = httpx.Response(404, json={"jsonrpc": "2.0", "id": None, "error": {"code": 1}})
    fake.canned["tools/call"] = [lost, httpx.Response(404, json={})]
    with pytest.raises(TransportError) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.status == 404
    assert fake.counts["tools/call"] == 3
    assert fake.counts["initialize"] == 2


@pytest.mark.asyncio
async def test_404_without_a_session_id_is_not_retried() -> None:
    fake = FakeMcp()
    fake.canned["initialize"] = [rpc_result({"protocolVersion": "2025-03-26"})]
    session = session_for(fake)
    with pytest.raises(TransportError) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.status == 404
    assert fake.counts["initialize"] == 1


@pytest.mark.asyncio
async def test_concurrent_404s_reinitialize_once() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    fake.drop_sessions()
    results = await asyncio.gather(
        *(session.call_tool("list_design_systems", {}) for _ in range(8))
    )
    assert len(results) == 8
    assert fake.counts["initialize"] == 2


@pytest.mark.parametrize("method", ["initialize", "tools/list", "tools/call"])
@pytest.mark.asyncio
async def test_event_stream_answer_is_refused_unparsed(method: str) -> None:
    fake = FakeMcp()
    fake.canned[method] = [sse()]
    session = session_for(fake)
    with pytest.raises(UnexpectedContentType) as caught:
        await session.tools()
        await session.call_tool("list_design_systems", {})
    assert caught.value.content_type == "text/event-stream"


@pytest.mark.asyncio
async def test_event_stream_404_is_refused_not_retried() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.call_tool("list_design_systems", {})
    fake.canned["tools/call"] = [sse(404)]
    with pytest.raises(UnexpectedContentType):
        await session.call_tool("list_design_systems", {})
    assert fake.counts["initialize"] == 1


@pytest.mark.asyncio
async def test_needs_consent_403_is_needs_consent() -> None:
    session = answering(httpx.Response(403, json={"error": "needs_consent"}))
    with pytest.raises(NeedsConsent):
        await session.call_tool("list_design_systems", {})


@pytest.mark.asyncio
async def test_needs_project_grant_403_carries_project_and_prompt() -> None:
    body = {"error": "needs_project_grant", "project_id": "p-1", "prompt": "Allow \x1b[31mwrites?"}
    session = answering(httpx.Response(403, json=body))
    with pytest.raises(NeedsProjectGrant) as caught:
        await session.call_tool("write_files", {})
    assert caught.value.project_id == "p-1"
    assert caught.value.prompt == "Allow [31mwrites?"


@pytest.mark.asyncio
async def test_other_403_is_a_transport_error() -> None:
    session = answering(httpx.Response(403, json={"error": "something_else"}))
    with pytest.raises(TransportError) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.status == 403


@pytest.mark.asyncio
@pytest.mark.parametrize("answered_id", [2, None])  # initialize is 1; null: id unreadable
async def test_json_rpc_error_is_design_rpc_error(answered_id) -> None:
    session = answering(httpx.Response(200, json={
        "jsonrpc": "2.0", "id": answered_id, "error": {"code": -32602, "message": "bad"}}))
    with pytest.raises(DesignRpcError) as caught:
        await session.call_tool("get_project", {})
    assert (caught.value.operation, caught.value.code) == ("get_project", -32602)


@pytest.mark.asyncio
@pytest.mark.parametrize(("answered", "kind"), [
    ({"id": 2, "result": {"content": []}}, None),            # the call's own id: accepted
    ({"id": 3, "result": {"content": []}}, "result"),        # another request's result
    ({"id": 1, "result": {"content": []}}, "result"),        # the handshake's id, replayed
    ({"result": {"content": []}}, "result"),                 # a result must carry its id
    ({"id": None, "result": {"content": []}}, "result"),
    ({"id": "2", "result": {"content": []}}, "result"),      # the id sent was an int
    ({"id": 2.0, "result": {"content": []}}, "result"),
    ({"id": 7, "error": {"code": -32602, "message": "x"}}, "error"),  # another's error
])
async def test_an_answer_to_another_request_is_refused(answered, kind) -> None:
    session = answering(httpx.Response(200, json={"jsonrpc": "2.0", **answered}))
    if kind is None:
        assert (await session.call_tool("get_project", {}))["content"] == []
        return
    with pytest.raises(TransportError) as caught:
        await session.call_tool("get_project", {})
    assert "not to request 2" in str(caught.value)


@pytest.mark.asyncio
async def test_a_401_that_reaches_the_session_is_an_auth_error() -> None:
    session = answering(httpx.Response(401, json={"error": "unauthorized"}))
    with pytest.raises(AuthError):
        await session.call_tool("list_design_systems", {})


@pytest.mark.asyncio
async def test_other_status_is_a_transport_error_without_the_token() -> None:
    session = answering(httpx.Response(500, text="upstream said Bearer abcdefgh.ijkl"))
    with pytest.raises(TransportError) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.status == 500
    assert "abcdefgh.ijkl" not in str(caught.value) + repr(caught.value)


@pytest.mark.asyncio
async def test_answer_over_the_byte_cap_is_refused() -> None:
    fake = FakeMcp()
    fake.results["list_design_systems"] = {"content": [{"type": "text", "text": "x" * 5000}]}
    session = session_for(fake, max_bytes=4000)
    with pytest.raises(ResponseTooLarge) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.limit == 4000


@pytest.mark.asyncio
async def test_non_json_success_is_refused() -> None:
    session = answering(httpx.Response(200, text="<html>", headers={
        "content-type": "text/html"}))
    with pytest.raises(UnexpectedContentType) as caught:
        await session.call_tool("list_design_systems", {})
    assert caught.value.content_type == "text/html"


@pytest.mark.asyncio
async def test_malformed_session_id_is_refused() -> None:
    fake = FakeMcp()
    fake.canned["initialize"] = [httpx.Response(
        200, json={"jsonrpc": "2.0", "id": 1, "result": {}},
        headers={"mcp-session-id": "two words"})]
    with pytest.raises(TransportError) as caught:
        await session_for(fake).tools()
    assert caught.value.action == "design initialize"


@pytest.mark.asyncio
async def test_failed_handshake_is_retried_by_the_next_call() -> None:
    fake = FakeMcp()
    fake.canned["initialize"] = [httpx.Response(503, text="busy")]
    session = session_for(fake)
    with pytest.raises(TransportError):
        await session.tools()
    assert len(await session.tools()) == len(BY_NAME)
    assert fake.counts["initialize"] == 2


@pytest.mark.asyncio
async def test_refresh_lists_again() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    generation = session.state.generation
    await session.tools(refresh=True)
    assert fake.counts["tools/list"] == 2
    assert session.state.generation == generation + 1


@pytest.mark.asyncio
async def test_close_forgets_the_session_and_tells_the_server() -> None:
    fake = FakeMcp()
    session = session_for(fake)
    await session.tools()
    await session.close()
    assert fake.counts["DELETE"] == 1
    assert fake.requests[-1].headers["mcp-session-id"] == "session-1"
    assert not session.state.has_session_id and not session.state.discovered


# ---------------------------------------------------------------- the real reference service

from jupyter_design_projects.core.results import map_result  # noqa: E402
from tests.design.live_design import MCP_PATH, delta, live_session  # noqa: E402


@pytest.mark.asyncio
async def test_reference_service_lists_every_known_operation(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, _, _):
        names = {t["name"] for t in await session.tools()}
    assert names == set(BY_NAME)


@pytest.mark.asyncio
async def test_dropped_sessions_reinitialize_and_retry_the_call_once(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.call_tool("list_design_systems", {})
        before = switches.counts()
        assert switches.drop_mcp_sessions() >= 1
        result = await session.call_tool("list_design_systems", {})
        after = switches.counts()
    assert result.get("isError") is not True
    assert delta(before, after, "mcp:initialize") == 1
    assert delta(before, after, "mcp:tools/call:list_design_systems") == 2
    assert delta(before, after, "mcp:tools/list") == 1  # the discovery dropped too


@pytest.mark.asyncio
async def test_404_on_tools_list_reinitializes_once(shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.call_tool("list_design_systems", {})
        switches.fail(MCP_PATH, status=404, rpc_method="tools/list",
                      body={"jsonrpc": "2.0", "id": None,
                            "error": {"code": -32600, "message": "Session not found"}})
        before = switches.counts()
        assert len(await session.tools()) == len(BY_NAME)
        after = switches.counts()
    assert delta(before, after, "mcp:initialize") == 1
    assert delta(before, after, "mcp:tools/list") == 2


@pytest.mark.asyncio
async def test_404_on_tools_call_reinitializes_once_and_not_twice(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.call_tool("list_design_systems", {})
        switches.fail(MCP_PATH, status=404, tool="list_design_systems", count=2, body={})
        before = switches.counts()
        with pytest.raises(TransportError) as caught:
            await session.call_tool("list_design_systems", {})
        after = switches.counts()
    assert caught.value.status == 404
    assert delta(before, after, "mcp:initialize") == 1
    assert delta(before, after, "mcp:tools/call:list_design_systems") == 2


@pytest.mark.asyncio
async def test_sse_answer_from_the_service_is_refused(shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.tools()
        switches.sse(MCP_PATH, tool="list_design_systems")
        with pytest.raises(UnexpectedContentType):
            await session.call_tool("list_design_systems", {})


@pytest.mark.asyncio
async def test_sixty_four_concurrent_first_calls_initialize_once_on_the_service(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        before = switches.counts()
        results = await asyncio.gather(*(session.tools() for _ in range(64)))
        after = switches.counts()
    assert all(len(r) == len(BY_NAME) for r in results)
    assert delta(before, after, "mcp:initialize") == 1
    assert delta(before, after, "mcp:tools/list") == 1


@pytest.mark.asyncio
async def test_service_asks_for_consent_when_there_is_none(shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, _, http):
        await http.request("DELETE", shared_reference_service.base_url + "/v1/design/consent",
                           json={"consent": "agent_design_projects"})
        try:
            with pytest.raises(NeedsConsent):
                await session.call_tool("list_design_systems", {})
        finally:
            await http.post(shared_reference_service.base_url + "/v1/design/consent",
                            json={"consent": "agent_design_projects"})


@pytest.mark.asyncio
async def test_tokenless_write_without_grant_needs_a_project_grant(reference_service) -> None:
    async with live_session(reference_service) as (session, _, _):
        listed = await session.call_tool("list_projects", {})
        project_id = json.loads(listed["content"][0]["text"])[0]["id"]
        with pytest.raises(NeedsProjectGrant) as caught:
            await session.call_tool("write_files", {
                "project_id": project_id, "files": [{"path": "a.html", "data": "<p>"}]})
    assert caught.value.project_id == project_id


def _crafted(content: list[dict]) -> dict:
    return {"jsonrpc": "2.0", "id": 1, "result": {"content": content}}


@pytest.mark.parametrize(
    ("content", "kinds"),
    [
        ([{"type": "image", "data": "A" * 130_000, "mimeType": "image/png"}], ["image"]),
        ([{"type": "image", "data": "A" * 130_001, "mimeType": "image/png"}], ["text"]),
        ([{"type": "text", "text": "x" * 100_000},
          {"type": "image", "data": "A" * 30_000, "mimeType": "image/png"}], ["text", "image"]),
        ([{"type": "text", "text": "x" * 100_000},
          {"type": "image", "data": "A" * 30_001, "mimeType": "image/png"}], ["text", "text"]),
        ([{"type": "text", "text": "x" * 100_001}], ["text", "text"]),
    ],
)
@pytest.mark.asyncio
async def test_result_caps_hold_at_their_boundaries_over_the_wire(
        shared_reference_service, content: list[dict], kinds: list[str]) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.tools()
        switches.fail(MCP_PATH, status=200, tool="list_design_systems", body=_crafted(content))
        mapped = map_result(await session.call_tool("list_design_systems", {}))
    assert [b["type"] for b in mapped.blocks] == kinds
    assert sum(len(b["text"]) for b in mapped.blocks if b["type"] == "text") <= 100_000


@pytest.mark.asyncio
async def test_an_answer_the_service_sends_to_another_request_is_refused(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, switches, _):
        await session.tools()
        stale = {"jsonrpc": "2.0", "id": 999_999, "result": {"content": []}}
        switches.fail(MCP_PATH, status=200, tool="list_design_systems", body=stale,
                      echo_id=False)
        with pytest.raises(TransportError) as caught:
            await session.call_tool("list_design_systems", {})
        assert "is not to request" in str(caught.value)
        # the same canned answer, echoing the request's id as a service would, is taken
        switches.fail(MCP_PATH, status=200, tool="list_design_systems", body=stale)
        assert (await session.call_tool("list_design_systems", {}))["content"] == []
