"""The Design MCP endpoint starts after the service is ready (server/design/endpoint.py):
a service answering only Projects calls never imports the MCP SDK; the first MCP request
builds the real endpoint and is answered by it; unasked, it is built `WARM_AFTER_S` after
the lifespan starts; the fault switches acting on it work before and after."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server import oauth
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.context import DEMO_USER_ID
from jupyter_design_projects.server.design import endpoint

MCP = "/v1/design/mcp"
VERSION = {"anthropic-version": "2023-06-01"}

#: in a fresh interpreter: the whole app with its lifespan running, one Projects call, then
#: the MCP handshake; prints which SDK modules were loaded before and after the handshake
PROBE = """
import json, shutil, sys, tempfile
from pathlib import Path
from starlette.testclient import TestClient
from jupyter_design_projects.server import app as service, oauth
from jupyter_design_projects.server.context import DEMO_USER_ID, ServiceConfig
from jupyter_design_projects.server import oauth
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.context import DEMO_USER_ID
from jupyter_design_projects.server.design import endpoint
endpoint.WARM_AFTER_S = 3600.0  # only a request builds it here
SDK = ("mcp", "mcp_types", "pydantic")
def loaded():
    return sorted(m for m in SDK if m in sys.modules)
app = service.create_app(ServiceConfig(data_dir=Path(tempfile.mkdtemp()), seed="demo"))
ctx = app.state.ctx
with ctx.db.transaction() as conn:
    token = oauth.issue_tokens(ctx, conn, user_id=DEMO_USER_ID,
                               client_id=oauth.FIRST_PARTY_CLIENT_ID,
                               scopes=tuple(sorted(oauth.KNOWN_SCOPES)))["access_token"]
auth = {"authorization": f"Bearer {token}", "anthropic-version": "2023-06-01"}
with TestClient(app, base_url="http://127.0.0.1") as client:
    projects = client.get(f"/api/organizations/{ctx.demo_org_uuid}/projects", headers=auth)
    before = loaded()
    init = client.post("/v1/design/mcp", headers={
        **auth, "accept": "application/json, text/event-stream",
        "content-type": "application/json"}, content=json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-03-26", "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"}}}))
    print(json.dumps({"projects": projects.status_code, "before": before,
                      "init": init.status_code, "session": "mcp-session-id" in init.headers,
                      "server": init.json()["result"]["serverInfo"]["name"],
                      "after": loaded()}))
"""


class Rpc:
    """An MCP session over the TestClient: the handshake, then requests in it."""

    def __init__(self, client: TestClient, auth: dict[str, str]) -> None:
        self.client = client
        self.headers = {**auth, **VERSION, "accept": "application/json, text/event-stream",
                        "content-type": "application/json"}

    def post(self, method: str, params: dict | None = None, notify: bool = False):
        message = {"jsonrpc": "2.0", "method": method, **({} if notify else {"id": 1}),
                   **({} if params is None else {"params": params})}
        return self.client.post(MCP, headers=self.headers, content=json.dumps(message))

    def handshake(self) -> Rpc:
        answer = self.post("initialize", {"protocolVersion": "2025-03-26", "capabilities": {},
                                          "clientInfo": {"name": "probe", "version": "1"}})
        assert answer.status_code == 200
        self.headers["mcp-session-id"] = answer.headers["mcp-session-id"]
        assert self.post("notifications/initialized", notify=True).status_code == 202
        return self


def test_projects_calls_never_import_the_sdk_and_the_first_mcp_request_builds_it():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["projects"] == 200 and seen["before"] == []
    assert seen["init"] == 200 and seen["session"] is True
    assert seen["server"] == "claude-design-reference"  # the SDK's server answered
    assert seen["after"] == ["mcp", "mcp_types", "pydantic"]


@pytest.fixture
def never_warm(monkeypatch):
    monkeypatch.setattr(endpoint, "WARM_AFTER_S", 3600.0)


def bearer_of(ctx) -> dict[str, str]:
    """A bearer header with every scope, for an app this test built itself."""
    with ctx.db.transaction() as conn:
        answer = oauth.issue_tokens(ctx, conn, user_id=DEMO_USER_ID,
                                    client_id=oauth.FIRST_PARTY_CLIENT_ID,
                                    scopes=tuple(sorted(oauth.KNOWN_SCOPES)))
    return {"authorization": f"Bearer {answer['access_token']}"}


def test_a_service_that_does_not_warm_builds_nothing_unasked_and_has_no_session_to_drop(
        monkeypatch, service_app, client: TestClient) -> None:
    monkeypatch.setattr(endpoint, "WARM_AFTER_S", 0.05)
    ctx = service_app[1]
    assert ctx.config.warm_browser is False  # as the tests' services run
    time.sleep(0.5)
    assert ctx.mcp_session_manager is None
    assert client.post("/_faults/drop-mcp-sessions").json() == {"dropped": 0}
    assert ctx.mcp_session_manager is None  # dropping built nothing


def test_unasked_it_is_built_and_running_soon_after_a_warming_service_is_ready(
        monkeypatch, service_config) -> None:
    monkeypatch.setattr(endpoint, "WARM_AFTER_S", 0.05)
    app = create_app(dataclasses.replace(service_config, warm_browser=True,
                                         preview_browser=None))
    ctx = app.state.ctx
    with TestClient(app, base_url="http://127.0.0.1") as client:
        deadline = time.monotonic() + 60
        while ctx.mcp_session_manager is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ctx.mcp_session_manager is not None
        rpc = Rpc(client, bearer_of(ctx)).handshake()
        assert client.post("/_faults/drop-mcp-sessions").json() == {"dropped": 1}
        assert rpc.post("tools/list").status_code == 404  # the dropped session is gone


def test_serving_an_extra_operation_first_builds_the_endpoint_that_lists_it(
        never_warm, service_app, client: TestClient,
        bearer: Callable[..., dict[str, str]]) -> None:
    ctx = service_app[1]
    added = client.post("/_faults/design-operation", json={"name": "extra_probe"})
    assert added.json() == {"changed": True}
    assert ctx.mcp_session_manager is not None
    rpc = Rpc(client, bearer()).handshake()
    names = [tool["name"] for tool in rpc.post("tools/list").json()["result"]["tools"]]
    assert names[-1] == "extra_probe"
    removed = client.post("/_faults/design-operation", json={"name": "extra_probe",
                                                             "remove": True})
    assert removed.json() == {"changed": True}


def test_stopping_a_service_whose_endpoint_was_never_wanted_builds_nothing(
        never_warm, service_app) -> None:
    app, ctx = service_app
    with TestClient(app, base_url="http://127.0.0.1"):
        pass
    assert ctx.mcp_session_manager is None


def test_a_request_outside_the_lifespan_is_refused_plainly(
        service_app, bearer: Callable[..., dict[str, str]]) -> None:
    """No lifespan (a TestClient used without `with`): an error, not a wait forever."""
    app, _ = service_app
    client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=True)
    with pytest.raises(RuntimeError, match="inside the app's lifespan"):
        Rpc(client, bearer()).handshake()
