"""The Design endpoint of the real service process on loopback (uvicorn, a real Host
header with a port): handshake, consent, a planned write and a preview."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.server.design.demo import PARTNER_ID
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS


def test_loopback_handshake_consent_plan_write_and_preview(
        reference_service: EmbeddedService) -> None:
    token = json.loads(reference_service.credentials_file.read_text())["access_token"]
    auth = {"authorization": f"Bearer {token}"}
    headers = {**auth, "accept": "application/json, text/event-stream",
               "content-type": "application/json", "accept-encoding": "identity"}
    with httpx.Client(base_url=reference_service.base_url, timeout=30.0,
                      headers=DESIGN_HEADERS, verify=loopback_tls()) as http:
        def rpc(method: str, params: dict[str, Any] | None = None) -> httpx.Response:
            body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "method": method}
            if params is not None:
                body["params"] = params
            return http.post("/v1/design/mcp", headers=headers, json=body)

        def tool(name: str, **arguments: Any) -> list[dict[str, Any]]:
            result = rpc("tools/call", {"name": name, "arguments": arguments}).json()["result"]
            assert not result.get("isError"), result
            return result["content"]

        init = rpc("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                  "clientInfo": {"name": "claude-cli-design-tool",
                                                 "version": "1"}})
        assert init.status_code == 200
        headers["mcp-session-id"] = init.headers["mcp-session-id"]
        assert http.post("/v1/design/mcp", headers=headers, json={
            "jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        assert rpc("tools/call", {"name": "list_projects", "arguments": {}}).status_code == 403
        assert http.post("/v1/design/consent", headers=auth,
                         json={"consent": "agent_design_projects"}).status_code == 204

        plan = json.loads(tool("finalize_plan", project_id=PARTNER_ID,
                               writes=["index.html"])[0]["text"])
        tool("write_files", project_id=PARTNER_ID, plan_token=plan["plan_token"],
             files=[{"path": "index.html", "data": "<h1>Launch moved to May</h1>"}])
        summary, image = tool("render_preview", project_id=PARTNER_ID, path="index.html")
        assert "Launch moved to May" in json.loads(summary["text"])["text_content"]
        assert base64.b64decode(image["data"])[:8] == b"\x89PNG\r\n\x1a\n"
