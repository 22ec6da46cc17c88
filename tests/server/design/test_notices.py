"""What the Design endpoint of the real service process (uvicorn on loopback) sends unasked
on a session's GET event stream: log messages for the calls that change a project, at the
level `logging/setLevel` asked for, never a token; `tools/list_changed` when the catalogue
changes; and the official MCP SDK client hearing them unchanged."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.server.design.demo import PARTNER_ID
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS

MCP = "/v1/design/mcp"
WAIT_S = 20.0


class Listening:
    """A raw MCP session on the service with its GET stream read on a thread."""

    def __init__(self, service: EmbeddedService) -> None:
        token = json.loads(service.credentials_file.read_text())["access_token"]
        self.base = service.base_url
        self.headers = {**DESIGN_HEADERS, "authorization": f"Bearer {token}",
                        "accept": "application/json, text/event-stream"}
        self.http = httpx.Client(base_url=self.base, timeout=30.0, verify=loopback_tls())
        self.raw = bytearray()
        self.messages: list[dict[str, Any]] = []
        self.changed = threading.Condition()
        init = self.rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                       "clientInfo": {"name": "test", "version": "1"}})
        self.capabilities = init.json()["result"]["capabilities"]
        self.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        self.http.post(MCP, headers=self.headers,
                       json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        self.status: int | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        with self.changed:
            assert self.changed.wait_for(lambda: self.status is not None, WAIT_S)

    def _read(self) -> None:
        headers = {**self.headers, "accept": "text/event-stream"}
        with httpx.stream("GET", self.base + MCP, headers=headers, timeout=60.0,
                          verify=loopback_tls()) as answer:
            with self.changed:
                self.status = answer.status_code
                self.changed.notify_all()
            buffer = b""
            for chunk in answer.iter_raw():
                self.raw += chunk
                buffer += chunk.replace(b"\r\n", b"\n")
                while b"\n\n" in buffer:
                    frame, buffer = buffer.split(b"\n\n", 1)
                    data = [line[5:].strip() for line in frame.split(b"\n")
                            if line.startswith(b"data:")]
                    if data:
                        with self.changed:
                            self.messages.append(json.loads(b"\n".join(data)))
                            self.changed.notify_all()

    def rpc(self, method: str, params: dict[str, Any] | None = None) -> httpx.Response:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            body["params"] = params
        return self.http.post(MCP, headers=self.headers, json=body)

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        return self.rpc("tools/call", {"name": name, "arguments": arguments}).json()["result"]

    def wait_for(self, count: int) -> list[dict[str, Any]]:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.messages) >= count, WAIT_S), \
                self.messages
            return list(self.messages)

    def close(self) -> None:
        self.http.request("DELETE", MCP, headers=self.headers)
        self.thread.join(WAIT_S)
        self.http.close()


@pytest.fixture
def listening(service: EmbeddedService) -> Iterator[Listening]:
    session = Listening(service)
    token = json.loads(service.credentials_file.read_text())["access_token"]
    httpx.post(service.base_url + "/v1/design/consent", json={"consent": "agent_design_projects"},
               headers={**DESIGN_HEADERS, "authorization": f"Bearer {token}"},
               verify=loopback_tls())
    try:
        yield session
    finally:
        session.close()


def planned_write(session: Listening, path: str) -> str:
    plan = json.loads(session.tool("finalize_plan", project_id=PARTNER_ID,
                                   writes=[path])["content"][0]["text"])
    result = session.tool("write_files", project_id=PARTNER_ID, plan_token=plan["plan_token"],
                          files=[{"path": path, "data": "<p>hi</p>"}])
    assert not result.get("isError"), result
    return plan["plan_token"]


def test_initialize_declares_logging_and_a_changing_tool_list(listening: Listening) -> None:
    assert listening.capabilities == {"logging": {}, "tools": {"listChanged": True}}
    assert listening.status == 200


def test_a_planned_write_is_logged_on_the_stream_without_its_plan_token(
        listening: Listening) -> None:
    plan_token = planned_write(listening, "notices/a.html")
    plan, write = [m["params"] for m in listening.wait_for(2)]
    assert (plan["level"], plan["data"]["event"], plan["data"]["writes"]) == (
        "info", "plan_finalized", 1)
    assert (write["level"], write["logger"], write["data"]["event"]) == (
        "info", "design.operations", "files_written")
    assert (write["data"]["count"], write["data"]["paths"]) == (1, ["notices/a.html"])
    assert plan_token.encode() not in bytes(listening.raw)
    assert listening.headers["authorization"][7:].encode() not in bytes(listening.raw)


def test_set_level_warning_holds_back_info_and_lets_a_failure_through(
        listening: Listening) -> None:
    assert listening.rpc("logging/setLevel", {"level": "warning"}).json()["result"] == {}
    planned_write(listening, "notices/b.html")  # two info messages: held back
    failed = listening.tool("read_file", project_id=PARTNER_ID, path="no/such/file.html")
    assert failed["isError"]
    (only,) = [m["params"] for m in listening.wait_for(1)]
    assert (only["level"], only["data"]["event"], only["data"]["operation"]) == (
        "warning", "call_failed", "read_file")


def test_set_level_refuses_a_level_that_is_not_one(listening: Listening) -> None:
    answer = listening.rpc("logging/setLevel", {"level": "loud"}).json()
    assert answer["error"]["code"] == -32602


def test_a_catalogue_change_is_told_to_the_session(listening: Listening,
                                                   service: EmbeddedService) -> None:
    switch = service.base_url + "/_faults/design-operation"
    assert httpx.post(switch, json={"name": "notices_extra"},
                      verify=loopback_tls()).json() == {"changed": True}
    try:
        (message,) = listening.wait_for(1)
        assert message == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    finally:
        httpx.post(switch, json={"name": "notices_extra", "remove": True}, verify=loopback_tls())
    listening.wait_for(2)  # and once more as it leaves


@pytest.mark.asyncio
async def test_the_official_sdk_client_hears_a_log_message(service: EmbeddedService) -> None:
    import anyio
    import httpx2
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    token = json.loads(service.credentials_file.read_text())["access_token"]
    heard: list[Any] = []
    arrived = anyio.Event()

    async def on_log(params: Any) -> None:
        heard.append(params)
        arrived.set()

    headers = {**DESIGN_HEADERS, "authorization": f"Bearer {token}"}
    httpx.post(service.base_url + "/v1/design/consent", headers=headers,
               json={"consent": "agent_design_projects"}, verify=loopback_tls())
    async with httpx2.AsyncClient(headers=headers, timeout=30.0) as http, \
            streamable_http_client(service.base_url + MCP, http_client=http) as streams:
        async with ClientSession(streams[0], streams[1], logging_callback=on_log) as mcp:
            await mcp.initialize()
            assert len((await mcp.list_tools()).tools) >= 18
            with anyio.fail_after(WAIT_S):
                while not heard:  # the SDK opens its GET stream in the background
                    await mcp.call_tool("create_project", {"name": "Heard by the SDK"})
                    with anyio.move_on_after(1):
                        await arrived.wait()
    assert heard[0].data["event"] == "project_created"
    assert heard[0].logger == "design.operations"
