"""A Design session's notification stream that received hostile log messages (each payload
of tests/hostile_content.py everywhere a service can put one), and the Notifications pane
and trace outcome that show them: the notebook test checks the escaping, the browser test
renders them in Chromium."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json

import httpx

from jupyter_design_projects.core.redaction import Secret
from jupyter_design_projects.design.notification_stream import NotificationStream
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.notebook.views.trace import TraceOutcome
from jupyter_design_projects.notebook.widgets.notifications_pane import notifications_html
from tests.hostile_content import payloads

WAIT_S = 20.0


class _Hostile(httpx.AsyncByteStream):
    def __init__(self, body: bytes) -> None:
        self.body = body

    async def __aiter__(self):
        yield self.body


def hostile_stream(payload: str) -> NotificationStream:
    """A stream that received log messages carrying `payload` everywhere a service can."""
    body = b"data: " + json.dumps({
        "jsonrpc": "2.0", "method": "notifications/message",
        "params": {"level": payload, "logger": payload,
                   "data": {payload: payload, "message": payload}}}).encode() + b"\n\n"
    body += b"data: " + json.dumps({"jsonrpc": "2.0", "method": payload}).encode() + b"\n\n"
    gets = [httpx.Response(200, headers={"content-type": "text/event-stream"},
                           stream=_Hostile(body))]

    def handle(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return gets.pop(0) if gets else httpx.Response(405)
        message = json.loads(request.content)
        if message.get("method") == "initialize":
            return httpx.Response(200, headers={"mcp-session-id": "s1"}, json={
                "jsonrpc": "2.0", "id": message["id"], "result": {}})
        return httpx.Response(202)

    async def run() -> NotificationStream:
        client = httpx.AsyncClient(transport=httpx.MockTransport(handle))
        session = McpSession(client, "http://127.0.0.1:9/v1/design/mcp")
        stream = NotificationStream(session, client, secrets=lambda: [Secret("x" * 20)])
        stream.start()
        await stream.finished()
        return stream

    with concurrent.futures.ThreadPoolExecutor(1) as worker:  # a loop of its own, even
        return worker.submit(asyncio.run, run()).result(WAIT_S)  # under Playwright's


def hostile_views(url: str) -> list[str]:
    """The pane and the trace outcome of streams that carried each hostile payload."""
    out = []
    for payload in payloads(url).values():
        stream = hostile_stream(payload)
        assert len(stream.records()) == 2
        out.append(notifications_html(stream))
        out.append(TraceOutcome([], notifications=stream.records())._repr_mimebundle_()[
            "text/html"])
    return out
