"""Fault injection: off without --faults, loopback only, each switch does what it says once
per `count`, requests are counted per route and per MCP method, reset restores."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.faults.state import Peek, Rule, peek
from jupyter_design_projects.server.projects import remote_session

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {},
                   "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}}
MCP_HEADERS = {"accept": "application/json, text/event-stream",
               "content-type": "application/json"}


def test_without_the_flag_fault_routes_do_not_exist(service_config) -> None:
    app = create_app(dataclasses.replace(service_config, faults=False))
    with TestClient(app, base_url="http://127.0.0.1") as test_client:
        assert test_client.get("/_faults/counts").status_code == 404
        assert test_client.post("/_faults/reset").status_code == 404
    assert app.state.ctx.faults is None


def test_fault_routes_refuse_non_loopback_clients(service_app) -> None:
    with TestClient(service_app[0], base_url="http://127.0.0.1",
                    client=("192.0.2.7", 5000)) as remote:
        assert remote.get("/_faults/counts").status_code == 404
        assert remote.post("/_faults/expire-tokens").status_code == 404


def test_fail_answers_the_next_count_requests_then_stops(client, bearer, demo) -> None:
    client.post("/_faults/fail", json={"path": demo.base + "/detail", "status": 529,
                                       "body": {"type": "error"}, "count": 2,
                                       "headers": {"retry-after": "3"}})
    answers = [client.get(demo.base + "/detail", headers=bearer()) for _ in range(3)]
    assert [a.status_code for a in answers] == [529, 529, 200]
    assert answers[0].json() == {"type": "error"}
    assert answers[0].headers["retry-after"] == "3"


def test_fail_without_a_body_answers_the_matching_envelope(client, bearer, demo) -> None:
    client.post("/_faults/fail", json={"path": "/api/*", "status": 429})
    answer = client.get(demo.base + "/detail", headers=bearer())
    assert answer.status_code == 429
    assert answer.json()["error"]["type"] == "rate_limit_error"


def test_fail_matches_method_prefix_rpc_method_and_tool(client, bearer) -> None:
    headers = {**MCP_HEADERS, **bearer()}
    client.post("/_faults/fail", json={"path": "/v1/design/*", "method": "POST",
                                       "rpc_method": "tools/call", "tool": "list_projects",
                                       "status": 500})
    assert client.post("/v1/design/mcp", json=INIT, headers=headers).status_code == 200
    call = {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "list_projects", "arguments": {}}}
    assert client.post("/v1/design/mcp", json=call, headers=headers).status_code == 500


SESSION = "/v2/ccr-sessions/-/chat-project"
MCP = "/v1/design/mcp"


@pytest.mark.parametrize(("method", "path", "body", "facts"), [
    ("POST", MCP, b'{"method": "tools/call", "params": {"name": "get_project"}}',
     Peek(rpc_method="tools/call", tool="get_project")),
    ("POST", MCP, b'{"method": "tools/list", "params": {"name": "x"}}',
     Peek(rpc_method="tools/list", tool="x")),
    ("POST", MCP, b'{"method": 7, "params": {"name": "x"}}', Peek()),
    ("POST", MCP, b'{"op": "detail"}', Peek()),
    ("POST", MCP, b"[1]", Peek()),
    ("POST", SESSION, b'{"op": "write-doc", "file_name": "a"}', Peek(op="write-doc")),
    ("POST", SESSION, b'{"op": ["write-doc"]}', Peek()),
    ("POST", SESSION, b'{"method": "tools/call"}', Peek()),
    ("POST", SESSION, b"{", Peek()),
    ("GET", SESSION, b'{"op": "detail"}', Peek()),
    ("POST", "/api/organizations", b'{"op": "detail", "method": "tools/call"}', Peek()),
])
def test_peek_reads_only_the_matchable_facts_of_its_route(method, path, body, facts) -> None:
    assert peek(method, path, body) == facts


@pytest.mark.parametrize(("rule", "method", "path", "facts", "matches"), [
    (Rule("fail", SESSION, 1), "POST", SESSION, Peek(op="detail"), True),
    (Rule("fail", SESSION, 1, op="write-doc"), "POST", SESSION, Peek(op="write-doc"), True),
    (Rule("fail", SESSION, 1, op="write-doc"), "POST", SESSION, Peek(op="delete-doc"), False),
    (Rule("fail", SESSION, 1, op="write-doc"), "POST", SESSION, Peek(), False),
    (Rule("fail", "/v2/*", 1, op="kb-search"), "POST", SESSION, Peek(op="kb-search"), True),
    (Rule("fail", SESSION, 1, op="detail", method="get"), "POST", SESSION, Peek(op="detail"),
     False),
    (Rule("fail", MCP, 1, tool="get_project"), "POST", MCP,
     Peek(rpc_method="tools/call", tool="get_project"), True),
    (Rule("fail", MCP, 1, rpc_method="tools/list"), "POST", MCP,
     Peek(rpc_method="tools/call", tool="get_project"), False),
    (Rule("fail", "/api/*", 1), "GET", "/api/organizations", Peek(), True),
    (Rule("fail", "/api/*", 1), "GET", "/ap", Peek(), False),
    (Rule("fail", "/api", 1), "GET", "/api/organizations", Peek(), False),
])
def test_a_rule_matches_when_every_matcher_it_sets_holds(rule, method, path, facts,
                                                         matches) -> None:
    assert rule.matches(method, path, facts) is matches


def test_fail_with_an_op_fails_only_that_remote_session_op(client, service_app, demo) -> None:
    token = remote_session.mint_token(service_app[1], demo.org_uuid, demo.project_uuid)
    session = {"authorization": f"Bearer {token}"}
    client.post("/_faults/fail", json={"path": SESSION, "op": "write-doc", "status": 500,
                                       "body": {"error": "injected", "code": "api_error"}})
    assert client.post(SESSION, headers=session, json={"op": "detail"}).status_code == 200
    write = {"op": "write-doc", "file_name": "claude/op.md", "content": "x"}
    failed = client.post(SESSION, headers=session, json=write)
    assert (failed.status_code, failed.json()["code"]) == (500, "api_error")
    assert client.post(SESSION, headers=session, json=write).status_code == 201
    counts = client.get("/_faults/counts").json()
    assert counts[f"POST {SESSION}"] == 3
    assert (counts["session:detail"], counts["session:write-doc"]) == (1, 2)


@pytest.mark.parametrize(("length", "status"), [(64, 200), (65, 400)])
def test_an_op_matcher_is_at_most_64_characters(client, length: int, status: int) -> None:
    answer = client.post("/_faults/fail", json={"path": SESSION, "op": "o" * length,
                                                "status": 500})
    assert answer.status_code == status


def test_counts_per_route_and_per_mcp_method(client, bearer, demo) -> None:
    headers = {**MCP_HEADERS, **bearer()}
    client.post("/v1/design/mcp", json=INIT, headers=headers)
    client.post("/v1/design/mcp", headers=headers, json={
        "jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_design_systems", "arguments": {}}})
    client.get(demo.base + "/detail", headers=bearer())
    counts = client.get("/_faults/counts").json()
    assert counts["POST /v1/design/mcp"] == 2
    assert counts["mcp:initialize"] == 1
    assert counts["mcp:tools/call"] == 1
    assert counts["mcp:tools/call:list_design_systems"] == 1
    assert counts[f"GET {demo.base}/detail"] == 1
    assert not any(key.startswith("GET /_faults") for key in counts)


def test_sse_answers_an_event_stream_instead(client, bearer) -> None:
    client.post("/_faults/sse", json={"path": "/v1/design/mcp"})
    answer = client.post("/v1/design/mcp", json=INIT, headers={**MCP_HEADERS, **bearer()})
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert answer.text.startswith("event: message\ndata: ")


def test_oversize_answers_exactly_that_many_bytes(client, bearer, demo) -> None:
    client.post("/_faults/oversize", json={"path": demo.base + "/kb/stats", "bytes": 5000})
    answer = client.get(demo.base + "/kb/stats", headers=bearer())
    assert len(answer.content) == 5000
    assert json.loads(answer.content)["padding"]


def test_gzip_bomb_is_small_on_the_wire_and_huge_inflated(client, bearer, demo) -> None:
    client.post("/_faults/gzip-bomb", json={"path": demo.base + "/kb/stats"})
    with client.stream("GET", demo.base + "/kb/stats", headers=bearer()) as answer:
        wire = b"".join(answer.iter_raw())
        assert answer.headers["content-encoding"] == "gzip"
    assert len(wire) < 1024 * 1024
    assert len(gzip.decompress(wire)) > 50 * 1024 * 1024


def test_drip_delivers_the_real_body_in_small_pieces(client, bearer, demo) -> None:
    real = client.get(demo.base + "/kb/stats", headers=bearer()).json()
    client.post("/_faults/drip", json={"path": demo.base + "/kb/stats", "bytes_per_tick": 7,
                                       "tick_ms": 0})
    with client.stream("GET", demo.base + "/kb/stats", headers=bearer()) as answer:
        pieces = [piece for piece in answer.iter_raw() if piece]
    assert json.loads(b"".join(pieces)) == real
    assert max(len(piece) for piece in pieces) <= 7


def test_latency_still_answers_the_real_body(client, bearer, demo) -> None:
    client.post("/_faults/latency", json={"path": demo.base + "/kb/stats", "ms": 1})
    assert client.get(demo.base + "/kb/stats", headers=bearer()).status_code == 200


def test_upload_adds_a_file_to_the_demo_project(client, bearer, demo) -> None:
    answer = client.post("/_faults/upload", json={
        "file_name": "notes.txt", "file_kind": "document", "mime_type": "text/plain",
        "data_b64": base64.b64encode(b"zebra migration").decode(),
        "extracted": "zebra migration"})
    assert answer.status_code == 201
    hits = client.get(demo.base + "/kb/search", params={"query": "zebra"},
                      headers=bearer()).json()
    assert hits["rich_content_results"][0]["file_uuid"] == answer.json()["file_uuid"]


@pytest.mark.parametrize(("route", "body"), [
    ("fail", {"path": "/x"}), ("fail", {"path": "x", "status": 500}),
    ("fail", {"path": "/x", "status": 99}), ("fail", {"path": "/x", "status": 500, "count": 0}),
    ("fail", {"path": "/x", "status": 500, "headers": {"a": 1}}),
    ("latency", {"path": "/x"}), ("drip", {"path": "/x", "bytes_per_tick": 0, "tick_ms": 1}),
    ("oversize", {"path": "/x", "bytes": 1}), ("narrow-scopes", {"drop": "user:profile"}),
    ("search", {"project_uuid": "nope", "enabled": False}),
    ("upload", {"file_name": "a", "file_kind": "pdf", "mime_type": "x", "data_b64": ""}),
    ("upload", {"file_name": "a", "file_kind": "other", "mime_type": "x", "data_b64": "!!"}),
])
def test_bad_fault_requests_are_refused_with_an_envelope(client, route, body) -> None:
    answer = client.post(f"/_faults/{route}", json=body)
    assert answer.status_code in (400, 404)
    assert answer.json()["type"] == "error"


def test_reset_clears_rules_counts_and_project_switches(client, bearer, demo) -> None:
    client.post("/_faults/fail", json={"path": "/api/*", "status": 500, "count": 5})
    client.post("/_faults/search", json={"project_uuid": demo.project_uuid, "enabled": False})
    client.post("/_faults/knowledge", json={"project_uuid": demo.project_uuid,
                                            "max_knowledge_size": 1})
    client.post("/_faults/reset")
    assert client.get("/_faults/counts").json() == {}
    stats = client.get(demo.base + "/kb/stats", headers=bearer()).json()
    assert stats["max_knowledge_size"] == 2_000_000
    assert client.get(demo.base + "/kb/search", params={"query": "policy"},
                      headers=bearer()).status_code == 200
