"""The composed app: envelopes for unknown routes and methods, the body limit at its exact
boundary, the Host check, the catch-all 500, and the Design MCP endpoint mounted inside."""

from __future__ import annotations

import dataclasses

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.projects import store as projects_store

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream",
               "content-type": "application/json"}
#: a tools/call before consent: the gate answers it with a flat 403
INIT_TOOLS_CALL = (b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
                   b'"params": {"name": "list_projects", "arguments": {}}}')


def is_envelope(body: dict, kind: str) -> bool:
    return (body["type"] == "error" and body["error"]["type"] == kind
            and isinstance(body["error"]["message"], str)
            and body["request_id"].startswith("req_"))


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/"), ("GET", "/api"), ("POST", "/api/organizations/x/projects/y/nothing"),
    ("GET", "/v1/design"), ("GET", "/_faultsx"),
])
def test_unknown_routes_are_404_envelopes(client, method, path) -> None:
    answer = client.request(method, path)
    assert answer.status_code == 404
    assert is_envelope(answer.json(), "not_found_error")


def is_flat(body: dict, code: str) -> bool:
    """PROTOCOL §5: the remote-session route's errors are {"error": <message>, "code"}."""
    return set(body) == {"error", "code"} and body["code"] == code \
        and isinstance(body["error"], str)


def is_oauth(body: dict, error: str) -> bool:
    """PROTOCOL §1: the token endpoint's errors are flat OAuth."""
    return set(body) == {"error", "error_description"} and body["error"] == error


def test_wrong_methods_are_405_envelopes(client) -> None:
    answer = client.request("PUT", "/api/organizations")
    assert answer.status_code == 405
    assert is_envelope(answer.json(), "invalid_request_error")


def test_a_wrong_method_on_the_remote_session_route_is_a_flat_405(client) -> None:
    answer = client.get("/v2/ccr-sessions/-/chat-project")
    assert answer.status_code == 405
    assert is_flat(answer.json(), "invalid_request_error")


def test_a_wrong_method_on_the_token_endpoint_is_a_flat_oauth_405(client) -> None:
    answer = client.get("/v1/oauth/token")
    assert answer.status_code == 405
    assert is_oauth(answer.json(), "invalid_request")


@pytest.fixture
def small_body_client(service_config):
    app = create_app(dataclasses.replace(service_config, max_body_bytes=1000))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        yield test_client


@pytest.mark.parametrize(("size", "status"), [(1000, 401), (1001, 413)])
def test_the_body_limit_is_exact(small_body_client, size: int, status: int) -> None:
    """At the limit the body reaches the route (which wants a token); one byte over, not."""
    answer = small_body_client.post("/api/organizations/x/projects/y/docs",
                                    content=b"x" * size)
    assert answer.status_code == status
    if status == 413:
        assert is_envelope(answer.json(), "request_too_large")


@pytest.mark.parametrize(("path", "shape"), [
    ("/api/organizations/x/projects/y/docs", is_envelope),
    ("/v1/design/grants", is_envelope),
    ("/v2/ccr-sessions/-/chat-project", is_flat),
    ("/v1/oauth/token", lambda body, kind: is_oauth(body, "invalid_request")),
    ("/v1/design/mcp", lambda body, kind: body == {"error": kind}),
])
def test_an_oversize_body_is_413_in_the_routes_own_error_shape(small_body_client, path,
                                                              shape) -> None:
    answer = small_body_client.post(path, content=b"x" * 1001)
    assert answer.status_code == 413
    assert shape(answer.json(), "request_too_large")


def test_an_undeclared_oversize_body_is_413(small_body_client) -> None:
    def chunks():
        for _ in range(5):
            yield b"x" * 300

    answer = small_body_client.post("/v1/oauth/token", content=chunks())
    assert answer.status_code == 413


@pytest.mark.parametrize(("host", "ok"), [
    ("127.0.0.1", True), ("127.0.0.1:8123", True), ("localhost:1", True), ("[::1]:9", True),
    ("testserver", True), ("evil.example", False), ("127.0.0.1.evil.example", False),
    ("", False),
])
def test_only_loopback_hosts_are_served(client, host: str, ok: bool) -> None:
    answer = client.get("/api/organizations", headers={"host": host})
    assert (answer.status_code == 401) is ok
    if not ok:
        assert is_envelope(answer.json(), "invalid_request_error")


def test_a_real_bug_is_a_logged_500_envelope(service_app, bearer, demo, monkeypatch,
                                             caplog) -> None:
    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(projects_store, "detail", broken)
    with TestClient(service_app[0], base_url="http://127.0.0.1",
                    raise_server_exceptions=False) as test_client:
        answer = test_client.get(demo.base + "/detail", headers=bearer())
    assert answer.status_code == 500
    assert is_envelope(answer.json(), "api_error")
    assert "boom" not in answer.text
    assert any(record.exc_info for record in caplog.records)


# ---------------------------------------------------------------- the Design part, composed


def design_headers(bearer) -> dict[str, str]:
    return {**MCP_HEADERS, **bearer("user:design:read", "user:design:write")}


def test_mcp_initialize_answers_a_session_id(client, bearer) -> None:
    answer = client.post("/v1/design/mcp", json=INIT, headers=design_headers(bearer))
    assert answer.status_code == 200
    assert answer.headers["mcp-session-id"]
    assert answer.headers["content-type"].startswith("application/json")


def test_mcp_sessions_dropped_by_the_fault_route_answer_404(client, bearer) -> None:
    headers = design_headers(bearer)
    session = client.post("/v1/design/mcp", json=INIT, headers=headers).headers["mcp-session-id"]
    headers["mcp-session-id"] = session
    note = client.post("/v1/design/mcp", headers=headers,
                       json={"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert note.status_code == 202
    assert client.post("/_faults/drop-mcp-sessions").json()["dropped"] >= 1
    answer = client.post("/v1/design/mcp", headers=headers,
                         json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert answer.status_code == 404


def test_mcp_without_a_token_is_401(client) -> None:
    answer = client.post("/v1/design/mcp", json=INIT, headers=MCP_HEADERS)
    assert answer.status_code == 401
    assert "user:design:read" in answer.headers["www-authenticate"]


def test_design_consent_route_is_composed(client, bearer) -> None:
    answer = client.get("/v1/design/consent", headers=design_headers(bearer))
    assert answer.json() == {"agent_design_projects": False}


BAD_BODIES = [b"", b"{", b"[]", b"null", b"\xff\xfe", b'{"a": NaN}', b"[" * 50_000,
              b'{"file_name": ["x"], "content": {"a": 1}}', b'{"op": {"$ne": 1}}',
              b'{"file_name": "../../etc/passwd", "content": "x"}',
              b'{"file_name": "a\\u0000b", "content": "x"}', b'"' + b"x" * 5000 + b'"']


@pytest.mark.parametrize("raw", BAD_BODIES)
@pytest.mark.parametrize(("method", "path"), [
    ("POST", "{base}/docs"), ("PATCH", "{base}/docs/{doc}"),
    ("POST", "/v2/ccr-sessions/-/chat-project"), ("POST", "/v1/oauth/token"),
    ("POST", "/v1/design/consent"), ("POST", "/v1/design/grants"),
    ("POST", "/_faults/fail"), ("POST", "/_faults/upload"),
])
def test_bad_input_never_500s_and_stores_nothing(client, bearer, demo, service_app, method,
                                                 path, raw) -> None:
    from jupyter_design_projects.server.projects import remote_session

    conn = service_app[1].db.read()
    doc = conn.execute("SELECT uuid FROM docs ORDER BY file_name").fetchone()["uuid"]
    before = conn.execute("SELECT uuid, content FROM docs ORDER BY uuid").fetchall()
    token = (remote_session.mint_token(service_app[1], demo.org_uuid, demo.project_uuid)
             if "ccr" in path else bearer()["authorization"].removeprefix("Bearer "))
    answer = client.request(method, path.format(base=demo.base, doc=doc), content=raw,
                            headers={"authorization": f"Bearer {token}",
                                     "content-type": "application/json"})
    assert 400 <= answer.status_code < 500
    assert answer.json()
    after = conn.execute("SELECT uuid, content FROM docs ORDER BY uuid").fetchall()
    assert [tuple(r) for r in after] == [tuple(r) for r in before]


@pytest.mark.parametrize(("method", "path", "auth", "body", "status"), [
    ("GET", "{base}/detail", "org", None, 200),
    ("GET", "{base}/nothing", "org", None, 404),
    ("POST", "/v2/ccr-sessions/-/chat-project", "org", b"{}", 401),
    ("POST", "/v1/oauth/token", None, b"{", 400),
    ("GET", "/v1/design/consent", "design", None, 200),
    ("POST", "/v1/design/mcp", "design", INIT_TOOLS_CALL, 403),
    ("GET", "/api/organizations", "org", None, 200),
    ("GET", "/_faults/counts", None, None, 200),
])
def test_json_answers_are_labelled_utf_8(client, bearer, demo, method, path, auth, body,
                                         status) -> None:
    """PROTOCOL §0: requests and responses are `application/json; charset=utf-8`."""
    headers = {"content-type": "application/json", "accept": MCP_HEADERS["accept"]}
    if auth == "org":
        headers.update(bearer())
    elif auth == "design":
        headers.update(bearer("user:design:read", "user:design:write"))
    answer = client.request(method, path.format(base=demo.base), content=body, headers=headers)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json; charset=utf-8"
