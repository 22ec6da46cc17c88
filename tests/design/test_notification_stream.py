"""The Design session's event stream against httpx.MockTransport (design/
notification_stream.py): what it keeps (redacted), the headers of its GET, 405 and 404
said honestly, polite reconnects that stop with a reason, the service's `retry`,
tools/list_changed, a ping answered, the caps, and closing with the session."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.design.notification_stream import (
    MAX_FAILURES,
    NO_NOTIFICATIONS,
    NotificationStream,
)
from jupyter_design_projects.design.session import McpSession
from tests.design.mcp_fake import ENDPOINT, FakeMcp

pytestmark = pytest.mark.asyncio

TOKEN = "sk-ant-oat01-streamsecret-0123456789"
SSE = {"content-type": "text/event-stream"}


def event(message: dict, extra: bytes = b"") -> bytes:
    return extra + b"data: " + json.dumps(message).encode() + b"\n\n"


def log(data: object, level: str = "info") -> bytes:
    return event({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": level, "logger": "design.operations", "data": data}})


class Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes], hold: asyncio.Event | None = None) -> None:
        self.chunks = chunks
        self.hold = hold

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        if self.hold is not None:  # a stream that stays open until the test lets it go
            await self.hold.wait()


class Service(FakeMcp):
    """The fake endpoint, with GETs answered from `gets` (405 once they run out) and the
    client's JSON-RPC responses (to a request on the stream) kept in `replies`."""

    def __init__(self) -> None:
        super().__init__()
        self.gets: list[httpx.Response] = []
        self.get_requests: list[httpx.Request] = []
        self.replies: list[dict] = []

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            self.get_requests.append(request)
            return self.gets.pop(0) if self.gets else httpx.Response(405)
        if request.method == "POST":
            body = json.loads(request.content)
            if "method" not in body:
                self.replies.append(body)
                return httpx.Response(202)
        return await super().handle(request)

    def stream(self, *chunks: bytes, status: int = 200, headers: dict | None = None,
               hold: asyncio.Event | None = None) -> None:
        self.gets.append(httpx.Response(status, headers=SSE if headers is None else headers,
                                        stream=Chunks(list(chunks), hold)))


def opened(service: Service, **kwargs) -> tuple[McpSession, NotificationStream, list[float]]:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    session = McpSession(service.client(), ENDPOINT)
    stream = NotificationStream(session, service.client(), secrets=lambda: [Secret(TOKEN)],
                                sleep=sleep, **kwargs)
    return session, stream, waits


async def run(stream: NotificationStream) -> None:
    stream.start()
    async with asyncio.timeout(10):
        await stream.finished()


async def test_a_log_message_is_kept_redacted_with_its_level_and_logger() -> None:
    service = Service()
    service.stream(b": ping\n\n", log({"said": f"token {TOKEN}", "plan_token": "dpt_abcdefgh"}))
    session, stream, _ = opened(service)
    await run(stream)
    (record,) = stream.records()
    assert (record["kind"], record["level"], record["logger"]) == (
        "log", "info", "design.operations")
    assert TOKEN not in json.dumps(record) and "dpt_abcdefgh" not in json.dumps(record)
    assert record["data"]["said"].startswith("token [redacted")


async def test_the_get_names_the_session_and_asks_for_an_event_stream() -> None:
    service = Service()
    session, stream, _ = opened(service)
    await run(stream)
    (get,) = service.get_requests
    assert get.headers["mcp-session-id"] == "session-1"
    assert get.headers["accept"] == "text/event-stream"
    assert get.headers["anthropic-version"] and get.headers["mcp-protocol-version"]
    assert "content-type" not in get.headers


async def test_a_405_says_the_service_sends_no_notifications_and_tries_nothing_more() -> None:
    service = Service()
    session, stream, waits = opened(service)
    await run(stream)
    assert stream.status == f"stopped: {NO_NOTIFICATIONS} (HTTP 405 on GET)"
    assert len(service.get_requests) == 1 and waits == []


async def test_a_404_reinitializes_once_and_a_second_says_no_notifications() -> None:
    service = Service()
    service.gets = [httpx.Response(404), httpx.Response(404)]
    session, stream, _ = opened(service)
    await run(stream)
    assert service.counts["initialize"] == 2
    assert stream.status.startswith(f"stopped: {NO_NOTIFICATIONS} (HTTP 404")


async def test_after_a_404_the_fresh_session_streams() -> None:
    service = Service()
    service.gets = [httpx.Response(404)]
    service.stream(log("after"))
    session, stream, _ = opened(service)
    await run(stream)
    assert [r["data"] for r in stream.records()] == ["after"]
    assert service.get_requests[-1].headers["mcp-session-id"] == "session-2"


async def test_failures_back_off_then_stop_with_the_last_reason() -> None:
    service = Service()
    service.gets = [httpx.Response(500) for _ in range(MAX_FAILURES)]
    session, stream, waits = opened(service)
    await run(stream)
    assert waits == [1.0, 2.0, 4.0, 8.0]
    assert stream.status == f"stopped: {MAX_FAILURES} failed attempts in a row, the last: HTTP 500"


async def test_a_stream_that_carried_an_event_resets_the_failures() -> None:
    service = Service()
    service.gets = [httpx.Response(503)]
    service.stream(log("one"))
    service.gets.append(httpx.Response(503))
    session, stream, waits = opened(service)
    await run(stream)
    assert waits == [1.0, 1.0]


async def test_the_services_retry_sets_the_wait() -> None:
    service = Service()
    service.stream(b"retry: 3000\n" + log("x"))
    service.gets.append(httpx.Response(502))
    session, stream, waits = opened(service)
    await run(stream)
    assert waits == [3.0]


async def test_a_stream_that_ends_at_once_with_nothing_counts_as_a_failure() -> None:
    service = Service()
    service.stream()
    session, stream, waits = opened(service)
    await run(stream)
    assert waits == [1.0]


@pytest.mark.parametrize(("status", "words"), [
    (401, "refused the stream (HTTP 401)"), (403, "refused the stream (HTTP 403)"),
    (409, "already has a stream open"), (302, "answered the GET with HTTP 302")])
async def test_a_refusal_stops_the_stream_with_its_reason(status: int, words: str) -> None:
    service = Service()
    service.gets = [httpx.Response(status)]
    session, stream, waits = opened(service)
    await run(stream)
    assert words in stream.status and waits == []


async def test_an_answer_that_is_not_an_event_stream_stops_it_unread() -> None:
    service = Service()
    service.stream(log("never read"), headers={"content-type": "application/json"})
    session, stream, _ = opened(service)
    await run(stream)
    assert "application/json, not an event stream" in stream.status
    assert stream.records() == []


async def test_an_event_over_the_cap_stops_the_stream() -> None:
    service = Service()
    service.stream(log("small"), log("x" * 500))
    session, stream, _ = opened(service, max_event_bytes=300)
    await run(stream)
    assert "larger than 300 bytes" in stream.status
    assert [r["data"] for r in stream.records()] == ["small"]


async def test_tools_list_changed_makes_the_next_tools_call_list_again() -> None:
    service = Service()
    session, stream, _ = opened(service)
    await session.tools()
    service.stream(event({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
    await run(stream)
    assert session.state.tools_stale
    await session.tools()
    assert service.counts["tools/list"] == 2 and not session.state.tools_stale
    await session.tools()
    assert service.counts["tools/list"] == 2


async def test_a_ping_is_answered_and_another_request_is_refused() -> None:
    service = Service()
    service.stream(event({"jsonrpc": "2.0", "id": 7, "method": "ping"}),
                   event({"jsonrpc": "2.0", "id": 8, "method": "sampling/createMessage"}))
    session, stream, _ = opened(service)
    await run(stream)
    assert service.replies == [
        {"jsonrpc": "2.0", "id": 7, "result": {}},
        {"jsonrpc": "2.0", "id": 8, "error": {"code": -32601, "message": "Method not found"}}]
    assert [r["kind"] for r in stream.records()] == ["request", "request"]


async def test_closing_the_session_closes_its_open_stream() -> None:
    service = Service()
    hold = asyncio.Event()
    service.stream(log("open"), hold=hold)
    session, stream, _ = opened(service)
    stream.start()
    async with asyncio.timeout(10):
        while not stream.records():
            await asyncio.sleep(0)
    assert stream.listening and stream.status.startswith("listening since")
    await session.close()
    assert not stream.listening and stream.status.startswith("closed")
    hold.set()


async def test_a_reinitialized_session_reopens_the_stream_on_its_new_id() -> None:
    service = Service()
    hold = asyncio.Event()
    service.stream(log("first"), hold=hold)
    service.stream(log("second"))
    session, stream, _ = opened(service)
    stream.start()
    async with asyncio.timeout(10):
        while not stream.records():
            await asyncio.sleep(0)
        service.drop_sessions()
        await session.call_tool("list_projects", {})  # 404, then a new session
        await stream.finished()
    assert [r["data"] for r in stream.records()] == ["first", "second"]
    assert [g.headers["mcp-session-id"] for g in service.get_requests] == [
        "session-1", "session-2", "session-2"]
    hold.set()
