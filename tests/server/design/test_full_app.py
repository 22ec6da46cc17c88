"""The Design half inside the whole reference service (create_app): real OAuth tokens, the
demo seed, the fault route that drops MCP sessions, and the gate composed by app.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID

MCP = "/v1/design/mcp"
INIT = {"protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}


class Rpc:
    def __init__(self, client: TestClient, auth: dict[str, str]) -> None:
        self.client, self.auth = client, auth
        self.session: str | None = None

    def post(self, method: str, params: dict[str, Any] | None = None, *,
             notify: bool = False) -> Any:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if not notify:
            message["id"] = 1
        if params is not None:
            message["params"] = params
        headers = {**self.auth, "accept": "application/json, text/event-stream",
                   "content-type": "application/json"}
        if self.session:
            headers["mcp-session-id"] = self.session
        return self.client.post(MCP, headers=headers, content=json.dumps(message))

    def handshake(self) -> Rpc:
        answer = self.post("initialize", INIT)
        assert answer.status_code == 200
        self.session = answer.headers["mcp-session-id"]
        assert self.post("notifications/initialized", notify=True).status_code == 202
        return self


def test_full_app_serves_the_catalogue_to_a_real_token(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    rpc = Rpc(client, bearer("user:design:read", "user:design:write")).handshake()
    tools = rpc.post("tools/list").json()["result"]["tools"]
    assert [tool["name"] for tool in tools] == list(BY_NAME)


def test_full_app_gates_tools_call_until_consent(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    auth = bearer()
    rpc = Rpc(client, auth).handshake()
    call = {"name": "list_projects", "arguments": {}}
    assert rpc.post("tools/call", call).json() == {"error": "needs_consent"}
    consent = client.post("/v1/design/consent", headers=auth,
                          json={"consent": "agent_design_projects"})
    assert consent.status_code == 204
    result = rpc.post("tools/call", call).json()["result"]
    names = {project["name"] for project in json.loads(result["content"][0]["text"])}
    assert {"Quarterly Review Deck", "Partner Launch Kit"} <= names


def test_full_app_refuses_a_token_without_design_scopes(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    answer = Rpc(client, bearer("user:profile")).post("initialize", INIT)
    assert answer.status_code == 401
    # the scope challenge, and where standard MCP clients find the OAuth metadata (RFC 9728)
    assert answer.headers["www-authenticate"] == (
        'Bearer scope="user:design:read user:design:write", resource_metadata='
        '"http://127.0.0.1/.well-known/oauth-protected-resource/v1/design/mcp"')


def test_full_app_fault_route_drops_sessions_to_404(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    rpc = Rpc(client, bearer()).handshake()
    assert client.post("/_faults/drop-mcp-sessions").json()["dropped"] >= 1
    assert rpc.post("tools/list").status_code == 404


def test_full_app_seed_has_one_grantable_and_one_ineligible_project(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    auth = bearer()
    client.post("/v1/design/consent", headers=auth, json={"consent": "agent_design_projects"})
    assert client.post("/v1/design/grants", headers=auth,
                       json={"project_id": DECK_ID}).status_code == 201
    ineligible = client.post("/v1/design/grants", headers=auth, json={"project_id": PARTNER_ID})
    assert (ineligible.status_code, ineligible.json()) == (404, {"error": "grant_ineligible"})


def test_full_app_spends_the_pathless_token_of_a_sharing_change(
        client: TestClient, bearer: Callable[..., dict[str, str]]) -> None:
    auth = bearer()
    client.post("/v1/design/consent", headers=auth, json={"consent": "agent_design_projects"})
    rpc = Rpc(client, auth).handshake()

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        answer = rpc.post("tools/call", {"name": name, "arguments": arguments})
        assert answer.status_code == 200
        result: dict[str, Any] = answer.json()["result"]
        return result

    def token(**paths: list[str]) -> str:
        plan = call("finalize_plan", project_id=DECK_ID, **paths)
        return str(json.loads(plan["content"][0]["text"])["plan_token"])

    slides = token(writes=["slides/01-title.html"])
    refused = call("update_sharing", project_id=DECK_ID, scope="private", plan_token=slides)
    assert refused["isError"] is True
    assert refused["content"][0]["text"].startswith("Plan token refused (paths_not_allowed)")
    pathless = token()
    assert call("update_sharing", project_id=DECK_ID, scope="private",
                plan_token=pathless).get("isError") is not True
    again = call("update_sharing", project_id=DECK_ID, scope="org", plan_token=pathless)
    assert again["content"][0]["text"].startswith("Plan token refused (spent)")
