"""Bad input on every route of the composed service — malformed JSON, wrong types,
oversized bodies, unknown ops and methods, traversal paths — gets a 4xx in its route
family's error shape (PROTOCOL §0 envelope, §1 flat OAuth, §3 flat MCP / JSON-RPC error /
isError result, §5 flat), never a 500, and stores nothing: every table of the database and
every fault switch is the same after the request as before it."""

from __future__ import annotations

import collections
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Match
from starlette.testclient import TestClient

from jupyter_design_projects.core.owner_proof import OWNER_FILE, OWNER_HEADER
from jupyter_design_projects.server import oauth
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.context import DEMO_USER_ID, ServiceConfig, ServiceContext
from jupyter_design_projects.server.design.demo import DECK_ID, PARTNER_ID
from jupyter_design_projects.server.projects import remote_session
from tests.design_headers import DESIGN_HEADERS

MAX_BODY = 64 * 1024
OVERSIZE = b"{" + b" " * MAX_BODY + b"}"
ORG_SCOPES = ("user:projects:read", "user:projects:write")
DESIGN_SCOPES = ("user:design:read", "user:design:write")
MCP = "/v1/design/mcp"
SESSION = "/v2/ccr-sessions/-/chat-project"
TOKEN = "/v1/oauth/token"
CLIENT_ID = oauth.FIRST_PARTY_CLIENT_ID


@dataclasses.dataclass
class Service:
    client: TestClient
    ctx: ServiceContext
    ids: dict[str, str]
    auth: dict[str, dict[str, str]]


def _token(ctx: ServiceContext, scopes: tuple[str, ...]) -> dict[str, str]:
    with ctx.db.transaction() as conn:
        answer = oauth.issue_tokens(ctx, conn, user_id=DEMO_USER_ID, client_id=CLIENT_ID,
                                    scopes=scopes)
    return {"authorization": f"Bearer {answer['access_token']}"}


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """One seeded service for the whole table: every case must leave it as it found it."""
    config = ServiceConfig(data_dir=Path(tmp_path_factory.mktemp("bad-input")), seed="demo",
                           faults=True, max_body_bytes=MAX_BODY)
    app = create_app(config)
    ctx = app.state.ctx
    # as the client does, every request names the Design identity headers (spec §5)
    # as the owner (the pages' refusal of anyone else: test_owner_gate.py)
    owner = {OWNER_HEADER: (config.data_dir / OWNER_FILE).read_text(encoding="ascii")}
    with TestClient(app, base_url="http://127.0.0.1",
                    headers={**DESIGN_HEADERS, **owner}) as client:
        org, project = ctx.demo_org_uuid, ctx.demo_project_uuid
        design = _token(ctx, DESIGN_SCOPES)
        assert client.post("/v1/design/consent", headers=design,
                           json={"consent": "agent_design_projects"}).status_code == 204
        conn = ctx.db.read()
        doc = conn.execute("SELECT uuid FROM docs ORDER BY file_name").fetchone()["uuid"]
        upload = conn.execute("SELECT file_uuid FROM uploads WHERE file_kind = 'image'"
                              ).fetchone()["file_uuid"]
        mcp = {**design, "accept": "application/json, text/event-stream",
               "content-type": "application/json"}
        init = client.post(MCP, headers=mcp, json={
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                       "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}})
        mcp["mcp-session-id"] = init.headers["mcp-session-id"]
        assert client.post(MCP, headers=mcp, json={
            "jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202
        session_token = remote_session.mint_token(ctx, org, project)
        yield Service(
            client=client, ctx=ctx,
            ids={"base": f"/api/organizations/{org}/projects/{project}", "doc": doc,
                 "projects": f"/api/organizations/{org}/projects",
                 "DOC": doc.upper(), "file": upload, "project": project},
            auth={"org": _token(ctx, ORG_SCOPES), "read": _token(ctx, ORG_SCOPES[:1]),
                  "design": design, "mcp": mcp, "none": {},
                  "session": {"authorization": f"Bearer {session_token}"}})


def snapshot(service: Service) -> dict[str, Any]:
    """Every row of every table (each table a multiset of its rows: a repr of each row,
    sorted, cost twice the CPU, the seed's 3 MiB of rows printed for every case), and
    every fault switch."""
    conn = service.ctx.db.read()
    names = [r["name"] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    tables = {name: collections.Counter(tuple(row) for row in
                                        conn.execute(f'SELECT * FROM "{name}"'))
              for name in names}
    faults = service.ctx.faults
    switches = (repr(faults.rules), sorted(faults.misreport), sorted(faults.narrowed),
                sorted(faults.saved_projects), repr(faults.hostile), faults.echo.on)
    return {"tables": tables, "switches": switches}


# ---------------------------------------------------------------- what a refusal looks like


def envelope(kind: str) -> Any:
    def check(answer: Any) -> bool:
        body = answer.json()
        return (body["type"] == "error" and body["error"]["type"] == kind
                and isinstance(body["error"]["message"], str)
                and body["request_id"].startswith("req_"))
    return check


def flat(code: str) -> Any:
    def check(answer: Any) -> bool:
        body = answer.json()
        return set(body) == {"error", "code"} and body["code"] == code
    return check


def oauth_error(error: str) -> Any:
    def check(answer: Any) -> bool:
        body = answer.json()
        return set(body) == {"error", "error_description"} and body["error"] == error
    return check


def mcp_flat(error: str) -> Any:
    return lambda answer: answer.json().get("error") == error and "type" not in answer.json()


def rpc_error(code: int) -> Any:
    return lambda answer: answer.json()["error"]["code"] == code


def tool_error(answer: Any) -> bool:
    result = answer.json()["result"]
    return result["isError"] is True and result["content"][0]["type"] == "text"


def html(answer: Any) -> bool:
    return answer.headers["content-type"].startswith("text/html")


def rpc(method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def call(tool: str, **arguments: Any) -> bytes:
    return rpc("tools/call", {"name": tool, "arguments": arguments})


def js(value: Any) -> bytes:
    return json.dumps(value).encode()


@dataclasses.dataclass(frozen=True)
class Case:
    id: str
    auth: str
    method: str
    path: str
    status: int
    shape: Any
    body: bytes | None = None
    params: dict[str, str] | None = None
    content_type: str = "application/json"


REFRESH = {"grant_type": "refresh_token", "client_id": CLIENT_ID}
CODE = {"grant_type": "authorization_code", "client_id": CLIENT_ID, "code": "x",
        "redirect_uri": "http://127.0.0.1/cb", "state": "s"}
TRAVERSALS = ["../escape.md", "a/../../b.md", "/etc/passwd", "a\\b.md", "a//b.md",
              "a/./b.md", "nul\x00.md", "dots\u2025.md"]

CASES = [
    # -- OAuth token endpoint (flat OAuth, §1)
    Case("token-malformed", "none", "POST", TOKEN, 400, oauth_error("invalid_request"), b"{"),
    Case("token-array", "none", "POST", TOKEN, 400, oauth_error("invalid_request"), b"[]"),
    Case("token-form", "none", "POST", TOKEN, 400, oauth_error("invalid_request"),
         b"grant_type=refresh_token&refresh_token=x", content_type="application/x-www-form-"
         "urlencoded"),
    Case("token-wrong-type", "none", "POST", TOKEN, 400, oauth_error("invalid_request"),
         js({**REFRESH, "refresh_token": 5})),
    Case("token-unknown-grant", "none", "POST", TOKEN, 400, oauth_error("invalid_request"),
         js({"grant_type": "password", "client_id": CLIENT_ID})),
    Case("token-unknown-refresh", "none", "POST", TOKEN, 400, oauth_error("invalid_grant"),
         js({**REFRESH, "refresh_token": "jdp_rt_unknown"})),
    Case("token-short-verifier", "none", "POST", TOKEN, 400, oauth_error("invalid_request"),
         js({**CODE, "code_verifier": "short"})),
    Case("token-unknown-client", "none", "POST", TOKEN, 401, oauth_error("invalid_client"),
         js({**REFRESH, "client_id": "someone-else", "refresh_token": "x"})),
    Case("token-oversize", "none", "POST", TOKEN, 413, oauth_error("invalid_request"),
         OVERSIZE),
    Case("token-get", "none", "GET", TOKEN, 405, oauth_error("invalid_request")),
    Case("authorize-bad", "none", "GET", "/oauth/authorize", 400, html,
         params={"response_type": "token", "client_id": CLIENT_ID}),
    Case("authorize-post-without-form-token", "none", "POST", "/oauth/authorize", 403, html,
         b"decision=approve&client_id=jdp-notebook-client",
         content_type="application/x-www-form-urlencoded"),
    # the authorize form's own limit (8,192 bytes) is below the service's body limit
    Case("authorize-post-at-form-limit", "none", "POST", "/oauth/authorize", 403, html,
         b"pad=" + b"a" * (8192 - 4), content_type="application/x-www-form-urlencoded"),
    Case("authorize-post-over-form-limit", "none", "POST", "/oauth/authorize", 413, html,
         b"pad=" + b"a" * (8192 - 3), content_type="application/x-www-form-urlencoded"),
    Case("revoke-malformed", "none", "POST", "/v1/oauth/revoke", 400,
         oauth_error("invalid_request"), b"{"),
    Case("revoke-no-client", "none", "POST", "/v1/oauth/revoke", 401,
         oauth_error("invalid_client"), b'{"token": "t"}'),
    Case("revoke-oversize", "none", "POST", "/v1/oauth/revoke", 400,
         oauth_error("invalid_request"), b'{"token": "' + b"t" * 20000 + b'"}'),
    Case("code-page-without-code", "none", "GET", "/oauth/code/callback", 400, html),
    # -- the org API (§0 envelope, §4)
    Case("orgs-put", "org", "PUT", "/api/organizations", 405, envelope("invalid_request_error")),
    Case("detail-braced-org", "org", "GET", "/api/organizations/{{x}}/projects/{project}/detail",
         404, envelope("not_found_error")),
    Case("search-no-query", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error")),
    Case("search-no-words", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error"), params={"query": "!!! ???"}),
    Case("search-n-0", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error"), params={"query": "policy", "n": "0"}),
    Case("search-n-16", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error"), params={"query": "policy", "n": "16"}),
    Case("search-n-text", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error"), params={"query": "policy", "n": "five"}),
    Case("search-query-4097", "org", "GET", "{base}/kb/search", 400,
         envelope("invalid_request_error"), params={"query": "a" * 4097}),
    Case("create-project-unnamed", "org", "POST", "{projects}", 400,
         envelope("invalid_request_error"), js({"description": "no name"})),
    Case("create-project-private-type", "org", "POST", "{projects}", 400,
         envelope("invalid_request_error"), js({"name": "a", "is_private": "yes"})),
    Case("list-projects-unknown-org", "org", "GET",
         "/api/organizations/00000000-0000-4000-8000-000000000000/projects", 404,
         envelope("not_found_error")),
    Case("update-project-unknown-field", "org", "PUT", "{base}", 400,
         envelope("invalid_request_error"), js({"uuid": "x"})),
    Case("update-project-name-type", "org", "PUT", "{base}", 400,
         envelope("invalid_request_error"), js({"name": 5})),
    Case("create-malformed", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), b"{"),
    Case("create-nan", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), b'{"file_name": "a.md", "content": NaN}'),
    Case("create-array", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), b"[]"),
    Case("create-name-type", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), js({"file_name": ["a.md"], "content": "x"})),
    Case("create-content-type", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), js({"file_name": "a.md", "content": {"x": 1}})),
    Case("create-no-content", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), js({"file_name": "a.md"})),
    Case("create-unknown-field", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"),
         js({"file_name": "a.md", "content": "x", "project_uuid": "y"})),
    Case("create-name-256", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), js({"file_name": "n" * 256, "content": "x"})),
    Case("create-taken-name", "org", "POST", "{base}/docs", 400,
         envelope("invalid_request_error"), js({"file_name": "glossary.md", "content": "x"})),
    *[Case(f"create-traversal-{i}", "org", "POST", "{base}/docs", 400,
           envelope("invalid_request_error"), js({"file_name": name, "content": "x"}))
      for i, name in enumerate(TRAVERSALS)],
    Case("create-read-scope", "read", "POST", "{base}/docs", 403,
         envelope("permission_error"), js({"file_name": "a.md", "content": "x"})),
    Case("create-oversize", "org", "POST", "{base}/docs", 413,
         envelope("request_too_large"), OVERSIZE),
    Case("create-put", "org", "PUT", "{base}/docs", 405, envelope("invalid_request_error")),
    Case("patch-malformed", "org", "PATCH", "{base}/docs/{doc}", 400,
         envelope("invalid_request_error"), b"{"),
    Case("patch-content-type", "org", "PATCH", "{base}/docs/{doc}", 400,
         envelope("invalid_request_error"), js({"content": 5})),
    Case("patch-rename", "org", "PATCH", "{base}/docs/{doc}", 400,
         envelope("invalid_request_error"), js({"content": "x", "file_name": "../b.md"})),
    Case("patch-upper-case-id", "org", "PATCH", "{base}/docs/{DOC}", 404,
         envelope("not_found_error"), js({"content": "x"})),
    Case("patch-oversize", "org", "PATCH", "{base}/docs/{doc}", 413,
         envelope("request_too_large"), OVERSIZE),
    Case("delete-upper-case-id", "org", "DELETE", "{base}/docs/{DOC}", 404,
         envelope("not_found_error")),
    # `docs/..` is the project itself, whose route takes only PUT (the hosted update)
    Case("delete-dotdot-id", "org", "DELETE", "{base}/docs/..", 405,
         envelope("invalid_request_error")),
    Case("read-unknown-doc", "org", "GET", "{base}/docs/not-a-uuid", 404,
         envelope("not_found_error")),
    Case("extracted-of-image", "org", "GET", "{base}/files/{file}/extracted", 404,
         envelope("not_found_error")),
    Case("raw-unknown-file", "org", "GET", "{base}/files/00000000-0000-0000-0000-000000000000/raw",
         404, envelope("not_found_error")),
    Case("unknown-route", "org", "GET", "{base}/nothing", 404, envelope("not_found_error")),
    # -- the remote-session route (flat, §5)
    Case("session-malformed", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), b"{"),
    Case("session-array", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), b'[{"op": "detail"}]'),
    Case("session-no-op", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({})),
    Case("session-unknown-op", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": "update-doc", "doc_uuid": "x"})),
    Case("session-op-object", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": {"$ne": 1}})),
    *[Case(f"session-write-traversal-{i}", "session", "POST", SESSION, 400,
           flat("invalid_request_error"), js({"op": "write-doc", "file_name": name,
                                              "content": "x"}))
      for i, name in enumerate(TRAVERSALS)],
    Case("session-write-content-type", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": "write-doc", "file_name": "a.md",
                                            "content": ["x"]})),
    Case("session-search-n-16", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": "kb-search", "query": "policy", "n": 16})),
    Case("session-search-n-bool", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": "kb-search", "query": "policy", "n": True})),
    Case("session-read-doc-type", "session", "POST", SESSION, 400,
         flat("invalid_request_error"), js({"op": "read-doc", "doc_uuid": 12})),
    Case("session-delete-upper-case-id", "session", "POST", SESSION, 404,
         flat("not_found_error"), js({"op": "delete-doc", "doc_uuid": "{DOC}"})),
    Case("session-raw-unknown", "session", "POST", SESSION, 404, flat("not_found_error"),
         js({"op": "read-file-raw", "file_uuid": "00000000-0000-0000-0000-000000000000"})),
    Case("session-oauth-token", "org", "POST", SESSION, 401,
         flat("authentication_error"), js({"op": "detail"})),
    Case("session-oversize", "session", "POST", SESSION, 413, flat("request_too_large"),
         OVERSIZE),
    Case("session-get", "session", "GET", SESSION, 405, flat("invalid_request_error")),
    # -- the Design REST routes (§0 envelope and the two flat answers, §2)
    Case("consent-malformed", "design", "POST", "/v1/design/consent", 400,
         envelope("invalid_request_error"), b"{"),
    Case("consent-wrong-name", "design", "POST", "/v1/design/consent", 400,
         envelope("invalid_request_error"), js({"consent": "everything"})),
    Case("consent-delete-wrong-name", "design", "DELETE", "/v1/design/consent", 400,
         envelope("invalid_request_error"), js({"consent": ["agent_design_projects"]})),
    Case("consent-oversize", "design", "POST", "/v1/design/consent", 413,
         envelope("request_too_large"), OVERSIZE),
    Case("consent-put", "design", "PUT", "/v1/design/consent", 405,
         envelope("invalid_request_error")),
    Case("grant-malformed", "design", "POST", "/v1/design/grants", 400,
         envelope("invalid_request_error"), b"{"),
    Case("grant-id-type", "design", "POST", "/v1/design/grants", 400,
         envelope("invalid_request_error"), js({"project_id": 5})),
    Case("grant-unknown-project", "design", "POST", "/v1/design/grants", 404,
         envelope("not_found_error"), js({"project_id": "../" + DECK_ID})),
    Case("grant-ineligible", "design", "POST", "/v1/design/grants", 404,
         lambda answer: answer.json() == {"error": "grant_ineligible"},
         js({"project_id": PARTNER_ID})),
    Case("grant-delete-missing", "design", "DELETE", f"/v1/design/grants/{DECK_ID}", 404,
         envelope("not_found_error")),
    Case("grant-no-token", "none", "POST", "/v1/design/grants", 401,
         envelope("authentication_error"), js({"project_id": DECK_ID})),
    # -- the Design settings page (an HTML form, spec §8)
    Case("settings-put", "none", "PUT", "/design/settings", 405,
         envelope("invalid_request_error")),
    Case("settings-form-no-token", "none", "POST", "/design/settings/grants", 403, html,
         f"project_id={DECK_ID}&action=grant".encode(),
         content_type="application/x-www-form-urlencoded"),
    Case("settings-form-oversize", "none", "POST", "/design/settings/grants", 413, html,
         b"project_id=" + b"x" * 5000, content_type="application/x-www-form-urlencoded"),
    # -- the Design MCP endpoint (§3)
    Case("mcp-malformed", "mcp", "POST", MCP, 400, rpc_error(-32700), b"{"),
    Case("mcp-batch", "mcp", "POST", MCP, 400, lambda answer: "error" in answer.json(),
         js([json.loads(rpc("tools/list"))])),
    Case("mcp-unknown-method", "mcp", "POST", MCP, 200, rpc_error(-32601), rpc("tools/erase")),
    Case("mcp-bad-params", "mcp", "POST", MCP, 200, rpc_error(-32602),
         rpc("tools/call", {"name": 5})),
    Case("mcp-unknown-tool", "mcp", "POST", MCP, 200, tool_error, call("erase_everything")),
    Case("mcp-wrong-type", "mcp", "POST", MCP, 200, tool_error,
         call("write_files", project_id=DECK_ID, plan_token="dpt_x", files="index.html")),
    Case("mcp-missing-argument", "mcp", "POST", MCP, 200, tool_error,
         call("delete_files", project_id=DECK_ID, paths=["slides/01-title.html"])),
    *[Case(f"mcp-write-traversal-{i}", "mcp", "POST", MCP, 200, tool_error,
           call("write_files", project_id=DECK_ID, plan_token="dpt_x",
                files=[{"path": path, "data": "x"}]))
      for i, path in enumerate(TRAVERSALS + ["CLAUDE.md", ".claude/settings.json"])],
    Case("mcp-finalize-traversal", "mcp", "POST", MCP, 200, tool_error,
         call("finalize_plan", project_id=DECK_ID, writes=["../x.html"])),
    Case("mcp-write-257", "mcp", "POST", MCP, 200, tool_error,
         call("write_files", project_id=DECK_ID, plan_token="dpt_x",
              files=[{"path": f"p{i}.html", "data": "x"} for i in range(257)])),
    Case("mcp-bad-base64", "mcp", "POST", MCP, 200, tool_error,
         call("write_files", project_id=DECK_ID, plan_token="dpt_x",
              files=[{"path": "a.png", "data": "!!", "encoding": "base64"}])),
    Case("mcp-bad-role", "mcp", "POST", MCP, 200, tool_error,
         call("add_member", project_id=DECK_ID, role="owner", email="x@y.example",
              plan_token="dpt_x")),
    Case("mcp-tokenless-write", "mcp", "POST", MCP, 403, mcp_flat("needs_project_grant"),
         call("write_files", project_id=DECK_ID, files=[{"path": "a.html", "data": "x"}])),
    Case("mcp-oversize", "mcp", "POST", MCP, 413, mcp_flat("request_too_large"), OVERSIZE),
    # -- the fault control routes (§0 envelope)
    *[Case(f"faults-{route}-malformed", "none", "POST", f"/_faults/{route}", 400,
           envelope("invalid_request_error"), b"{")
      for route in ("fail", "sse", "latency", "drip", "oversize", "gzip-bomb", "misreport-size",
                    "narrow-scopes", "search", "knowledge", "upload", "design-operation",
                    "hostile", "echo-tokens")],
    Case("faults-echo-tokens-not-a-boolean", "none", "POST", "/_faults/echo-tokens", 400,
         envelope("invalid_request_error"), js({"on": "yes"})),
    Case("faults-design-operation-long-name", "none", "POST", "/_faults/design-operation", 400,
         envelope("invalid_request_error"), js({"name": "x" * 65})),
    Case("faults-fail-relative-path", "none", "POST", "/_faults/fail", 400,
         envelope("invalid_request_error"), js({"path": "api/*", "status": 500})),
    Case("faults-fail-op-type", "none", "POST", "/_faults/fail", 400,
         envelope("invalid_request_error"), js({"path": SESSION, "status": 500, "op": 1})),
    Case("faults-knowledge-negative", "none", "POST", "/_faults/knowledge", 400,
         envelope("invalid_request_error"),
         js({"project_uuid": "{project}", "max_knowledge_size": -1})),
    Case("faults-upload-traversal", "none", "POST", "/_faults/upload", 400,
         envelope("invalid_request_error"),
         js({"file_name": "../x.pdf", "file_kind": "document", "mime_type": "a/b",
             "data_b64": ""})),
    Case("faults-upload-kind", "none", "POST", "/_faults/upload", 400,
         envelope("invalid_request_error"),
         js({"file_name": "x.bin", "file_kind": "pdf", "mime_type": "a/b", "data_b64": ""})),
    Case("faults-oversize", "none", "POST", "/_faults/upload", 413,
         envelope("request_too_large"), OVERSIZE),
    Case("faults-counts-post", "none", "POST", "/_faults/counts", 405,
         envelope("invalid_request_error")),
]


def _fill(text: str, ids: dict[str, str]) -> str:
    for key, value in ids.items():
        text = text.replace("{" + key + "}", value)
    return text


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_gets_its_routes_refusal_never_a_500_and_stores_nothing(
        service: Service, case: Case) -> None:
    before = snapshot(service)
    headers = {**service.auth[case.auth]}
    if case.body is not None:
        headers["content-type"] = case.content_type
    body = None if case.body is None else _fill(case.body.decode(), service.ids).encode()
    answer = service.client.request(case.method, _fill(case.path, service.ids),
                                    content=body, params=case.params, headers=headers)
    assert answer.status_code == case.status, answer.text
    assert case.shape(answer), answer.text
    assert snapshot(service) == before


#: routes whose requests carry nothing a caller can get wrong but the token (their 401 and
#: 403 answers are tested in their own modules)
EXEMPT = {"/api/organizations", "/api/organizations/{org}/projects/{project}/kb/stats",
          "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
          "/.well-known/oauth-protected-resource/v1/design/mcp",
          "/_faults/reset", "/_faults/expire-tokens", "/_faults/drop-mcp-sessions"}


def _route_of(routes: list[Any], method: str, path: str) -> str | None:
    scope = {"type": "http", "path": path, "method": method, "root_path": ""}
    for route in routes:
        if route.matches(scope)[0] is not Match.NONE:
            return route.path
    return None


def test_the_table_covers_every_route_of_the_service(service: Service) -> None:
    """A new route fails this test until its bad-input cases join the table."""
    routes = service.client.app.routes  # type: ignore[attr-defined]
    covered = {_route_of(routes, case.method, _fill(case.path, service.ids)) for case in CASES}
    assert {route.path for route in routes} - covered - EXEMPT == set()
