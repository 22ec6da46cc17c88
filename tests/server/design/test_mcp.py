"""The Design MCP endpoint over HTTP: the Streamable HTTP handshake, sessions, the gate's
401/403 answers, and the catalogue as tools/list shows it."""

from __future__ import annotations

import ast
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.server.design.operations import DesignOperations
from tests.design_headers import DESIGN_HEADERS
from tests.server.design.harness import DECK_ID, MCP, Harness, build_harness

#: name -> (readOnlyHint, destructiveHint) exactly as PROTOCOL §3's catalogue pins them
CATALOGUE = {
    "get_claude_design_prompt": (True, False), "list_design_systems": (True, False),
    "list_projects": (True, False), "get_project": (True, False),
    "create_project": (False, False), "list_files": (True, False), "read_file": (True, False),
    "finalize_plan": (False, False), "write_files": (False, True),
    "create_support_js": (False, False), "copy_files": (False, True),
    "delete_files": (False, True), "render_preview": (True, False),
    "list_members": (True, False), "add_member": (False, True),
    "update_member_role": (False, True), "remove_member": (False, True),
    "update_sharing": (False, True),
}
#: name -> required inputs, in the catalogue's order
REQUIRED = {
    "get_project": ["project_id"], "create_project": ["name"], "list_files": ["project_id"],
    "read_file": ["project_id", "path"], "finalize_plan": ["project_id"],
    "write_files": ["project_id", "files"], "create_support_js": ["project_id"],
    "copy_files": ["project_id", "files", "plan_token"],
    "delete_files": ["project_id", "plan_token", "paths"],
    "render_preview": ["project_id", "path"], "list_members": ["project_id"],
    "add_member": ["project_id", "role", "email"],
    "update_member_role": ["project_id", "account_uuid", "role"],
    "remove_member": ["project_id", "account_uuid"], "update_sharing": ["project_id"],
}


def test_initialize_answers_json_with_a_session_id(h: Harness) -> None:
    client = h.mcp()
    answer = client.request("initialize", {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}})
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.headers["mcp-session-id"]
    assert answer.json()["result"]["protocolVersion"] == "2025-03-26"


def test_initialized_notification_answers_202(h: Harness) -> None:
    client = h.mcp()
    client.session_id = client.request("initialize", {
        "protocolVersion": "2025-03-26", "capabilities": {},
        "clientInfo": {"name": "claude-cli-design-tool", "version": "1"}}).headers["mcp-session-id"]
    assert client.post({"jsonrpc": "2.0", "method": "notifications/initialized"}).status_code == 202


def test_tools_list_serves_the_protocol_operations_with_their_hints(h: Harness) -> None:
    tools = h.mcp().initialize().request("tools/list").json()["result"]["tools"]
    served = {tool["name"]: tool for tool in tools}
    assert set(CATALOGUE) <= set(served) == set(BY_NAME)
    for name, (read_only, destructive) in CATALOGUE.items():
        hints = served[name]["annotations"]
        assert (hints["readOnlyHint"], hints["destructiveHint"]) == (read_only, destructive)
        assert isinstance(hints["idempotentHint"], bool)
        assert hints["openWorldHint"] is False
        assert served[name]["description"]


def test_tools_list_requires_the_catalogue_inputs(h: Harness) -> None:
    tools = h.mcp().initialize().request("tools/list").json()["result"]["tools"]
    for tool in tools:
        schema = tool["inputSchema"]
        # PROTOCOL §3's operations as it pins them; a row beyond it, as the row declares
        wanted = (REQUIRED.get(tool["name"], []) if tool["name"] in CATALOGUE
                  else [i.name for i in BY_NAME[tool["name"]].inputs if i.required])
        assert schema.get("required", []) == wanted, tool["name"]


SENSITIVE = ("add_member", "update_member_role", "remove_member", "update_sharing")


@pytest.mark.parametrize("name", SENSITIVE)
def test_membership_and_sharing_document_their_extra_plan_token(h: Harness, name: str) -> None:
    """PROTOCOL's table omits their plan_token: the schema lists it (optional, so a call
    without one is a plan refusal, not -32602) and the description says it is needed."""
    tools = h.mcp().initialize().request("tools/list").json()["result"]["tools"]
    tool = next(t for t in tools if t["name"] == name)
    assert "plan_token" in tool["inputSchema"]["properties"]
    assert "plan_token" not in tool["inputSchema"].get("required", [])
    assert tool["inputSchema"]["properties"]["plan_token"].get("description")
    assert "plan_token" in tool["description"]
    assert "finalize_plan" in tool["description"]


def test_tools_list_serves_the_shared_table(h: Harness) -> None:
    """What the service advertises comes from core.design_operations, the table the
    client's floor also reads: descriptions, hints, and the handlers' inputs."""
    from jupyter_design_projects.core.design_operations import DESIGN_OPERATIONS

    tools = h.mcp().initialize().request("tools/list").json()["result"]["tools"]
    assert [t["name"] for t in tools] == [op.name for op in DESIGN_OPERATIONS]
    for tool, op in zip(tools, DESIGN_OPERATIONS, strict=True):
        extra = ["plan_token"] if op.name in SENSITIVE else []
        assert tool["description"] == op.description
        assert list(tool["inputSchema"]["properties"]) == [i.name for i in op.inputs]
        assert list(tool["inputSchema"]["properties"]) == list(op.schema["properties"]) + extra
        assert tool["inputSchema"].get("required", []) == op.schema["required"]
        assert (tool["annotations"]["readOnlyHint"], tool["annotations"]["destructiveHint"],
                tool["annotations"]["idempotentHint"]) == (
            op.floor.read_only, op.floor.destructive, op.idempotent)


def test_tools_list_needs_no_consent(h: Harness) -> None:
    assert h.mcp().initialize().request("tools/list").status_code == 200


def test_dropped_sessions_answer_404(h: Harness) -> None:
    client = h.mcp().initialize()
    assert h.ctx.drop_mcp_sessions is not None
    assert h.ctx.drop_mcp_sessions() == 1
    assert client.request("tools/list").status_code == 404


def test_a_new_session_works_after_a_drop(h: Harness) -> None:
    client = h.mcp().initialize()
    h.ctx.drop_mcp_sessions()
    client.session_id = None
    assert client.initialize().request("tools/list").status_code == 200


def test_a_drop_counts_the_open_sessions_only_and_spares_later_ones(h: Harness) -> None:
    assert h.ctx.drop_mcp_sessions is not None
    kept, ended = h.mcp().initialize(), h.mcp().initialize()
    assert h.client.delete(MCP, headers=ended.headers()).status_code == 200
    assert h.ctx.drop_mcp_sessions() == 1
    later = h.mcp().initialize()
    assert h.ctx.drop_mcp_sessions() == 1
    assert h.ctx.drop_mcp_sessions() == 0
    for dropped in (kept, later):
        answer = dropped.request("tools/list")
        assert answer.status_code == 404
        assert answer.json() == {"jsonrpc": "2.0", "id": None,
                                 "error": {"code": -32600, "message": "Session not found"}}
        assert h.client.delete(MCP, headers=dropped.headers()).status_code == 404


def test_a_dropped_session_answers_as_the_sdk_answers_an_unknown_one(h: Harness) -> None:
    unknown = h.mcp()
    unknown.session_id = "f" * 32
    sdk = unknown.request("tools/list")
    dropped = h.mcp().initialize()
    h.ctx.drop_mcp_sessions()
    ours = dropped.request("tools/list")
    assert (ours.status_code, ours.json()) == (sdk.status_code, sdk.json())
    assert ours.headers["content-type"] == sdk.headers["content-type"]


def test_unknown_session_id_answers_404(h: Harness) -> None:
    client = h.mcp()
    client.session_id = "0" * 32
    assert client.request("tools/list").status_code == 404


def test_request_without_a_session_id_answers_400(h: Harness) -> None:
    assert h.mcp().request("tools/list").status_code == 400


def test_batch_answers_400(h: Harness) -> None:
    client = h.mcp().initialize()
    assert client.post([{"jsonrpc": "2.0", "id": 9, "method": "tools/list"}]).status_code == 400


def test_unknown_method_is_a_jsonrpc_method_not_found(h: Harness) -> None:
    answer = h.mcp().initialize().request("design/teleport")
    assert answer.status_code == 200
    assert answer.json()["error"]["code"] == -32601


def test_unknown_tool_is_an_error_result(h: Harness) -> None:
    h.consent()
    result = h.mcp().initialize().tool("paint_everything")
    assert result["isError"] is True


def test_bad_arguments_are_an_error_result(h: Harness) -> None:
    h.consent()
    result = h.mcp().initialize().tool("read_file", project_id=DECK_ID)
    assert result["isError"] is True


SECRET = "dpt_" + "s3cr3t" * 7


@pytest.mark.parametrize(("name", "arguments", "field"), [
    ("delete_files", {"project_id": DECK_ID, "plan_token": SECRET}, "paths"),
    ("delete_files", {"project_id": DECK_ID, "plan_token": [SECRET], "paths": ["a"]},
     "plan_token"),
    ("write_files", {"project_id": DECK_ID, "plan_token": SECRET,
                     "files": [{"path": "a.html", "data": SECRET, "mode": SECRET}]},
     "files.0.mode"),
])
def test_an_argument_error_names_the_field_and_never_echoes_a_value(
        h: Harness, name: str, arguments: dict[str, Any], field: str) -> None:
    h.consent()
    result = h.mcp().initialize().tool(name, **arguments)
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert f"{field}: " in text
    assert "s3cr3t" not in text


def test_a_list_sent_as_json_text_is_taken_as_the_list(h: Harness) -> None:
    h.consent()
    client = h.mcp().initialize()
    token = client.ok("finalize_plan", project_id=DECK_ID, writes='["notes/a.html"]')
    assert token["writes"] == ["notes/a.html"]
    written = client.ok("write_files", project_id=DECK_ID, plan_token=token["plan_token"],
                        files=json.dumps([{"path": "notes/a.html", "data": "x"}]))
    assert written["written"] == 1


def test_a_string_input_keeps_json_text_as_text(h: Harness) -> None:
    h.consent()
    result = h.mcp().initialize().tool("get_project", project_id='["x"]')
    assert result["isError"] is True
    assert result["content"][0]["text"] == "No such project: '[\"x\"]'"


class FailingOperations(DesignOperations):
    def list_design_systems(self, user: str) -> list[dict[str, Any]]:
        raise RuntimeError("internal detail: /srv/secret/path")


def test_an_unexpected_failure_is_an_error_result_without_its_detail(tmp_path: Path) -> None:
    with build_harness(tmp_path, design_service=FailingOperations) as harness:
        harness.consent()
        result = harness.mcp().initialize().tool("list_design_systems")
    assert result == {"content": [{"type": "text",
                                   "text": "Error executing tool list_design_systems"}],
                      "isError": True}


def test_each_call_runs_on_a_worker_thread_not_the_event_loop(tmp_path: Path) -> None:
    seen: list[str] = []

    class Recording(DesignOperations):
        def list_design_systems(self, user: str) -> list[dict[str, Any]]:
            seen.append(threading.current_thread().name)
            return super().list_design_systems(user)

    with build_harness(tmp_path, design_service=Recording) as harness:
        harness.consent()
        loop_thread = harness.client.portal.call(_thread_name)  # type: ignore[union-attr]
        harness.mcp().initialize().ok("list_design_systems")
    assert seen and seen[0] != loop_thread


async def _thread_name() -> str:
    return threading.current_thread().name


#: the MCP SDK modules the service may import: the package's public surface (names its
#: `__init__` exports, the transport security settings, the wire types)
PUBLIC_SDK_MODULES = {"mcp.server", "mcp.server.transport_security", "mcp_types",
                      "mcp.server.streamable_http_manager"}


def test_the_service_registers_through_the_sdk_public_surface_only() -> None:
    """No module of the service imports the SDK's internals (`mcpserver.utilities`,
    `mcpserver.tools`, ...) or a private name; `mcp.server` names come from its
    `__all__`."""
    import mcp.server

    import jupyter_design_projects.server as service

    root = Path(service.__file__).parent
    for source in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom | ast.Import):
                continue
            modules = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                       else [alias.name for alias in node.names])
            for module in modules:
                if module.split(".")[0] not in ("mcp", "mcp_types"):
                    continue
                assert module in PUBLIC_SDK_MODULES, (source.name, module)
                names = [alias.name for alias in getattr(node, "names", [])]
                assert not any(name.startswith("_") for name in names), (source.name, names)
                if module == "mcp.server":
                    assert set(names) <= set(mcp.server.__all__), (source.name, names)
    # and the endpoint reads no private attribute of what the SDK hands it
    endpoint = ast.parse((root / "design" / "mcp.py").read_text(encoding="utf-8"))
    private = [node.attr for node in ast.walk(endpoint) if isinstance(node, ast.Attribute)
               and node.attr.startswith("_") and not node.attr.startswith("__")]
    assert private == []


def test_get_without_a_session_is_refused_and_without_a_bearer_is_challenged(
        h: Harness) -> None:
    """GET opens a session's event stream (tests/server/design/test_notices.py): without
    a session id the SDK refuses it (400), without a bearer the gate challenges it."""
    asks = {"accept": "text/event-stream", **DESIGN_HEADERS}
    answer = h.client.get(MCP, headers={"authorization": "Bearer alice", **asks})
    assert answer.status_code == 400
    assert h.client.get(MCP, headers=asks).status_code == 401


@pytest.mark.parametrize("user", [None, "stranger", "no-design"])
def test_missing_or_narrow_token_answers_401_with_the_scope_challenge(
        h: Harness, user: str | None) -> None:
    answer = h.mcp(user).request("initialize", {})
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"].startswith(
        'Bearer scope="user:design:read user:design:write", resource_metadata="')


def test_mcp_servers_scope_is_admitted(h: Harness) -> None:
    assert h.mcp("mcp-only").initialize().request("tools/list").status_code == 200


def test_tools_call_without_consent_is_a_flat_403(h: Harness) -> None:
    answer = h.mcp().initialize().call("list_projects")
    assert answer.status_code == 403
    assert answer.json() == {"error": "needs_consent"}


def test_consent_of_one_user_does_not_admit_another(h: Harness) -> None:
    h.consent("alice")
    assert h.mcp("bob").initialize().call("list_projects").status_code == 403


def test_tokenless_write_without_a_grant_is_a_flat_403_with_prompt(h: Harness) -> None:
    h.consent()
    answer = h.mcp().initialize().call("write_files", project_id=DECK_ID,
                                        files=[{"path": "a.html", "data": "x"}])
    assert answer.status_code == 403
    body = answer.json()
    assert body["error"] == "needs_project_grant" and body["project_id"] == DECK_ID
    assert "Quarterly Review Deck" in body["prompt"]


def test_tokenless_support_js_without_a_grant_is_a_flat_403(h: Harness) -> None:
    h.consent()
    answer = h.mcp().initialize().call("create_support_js", project_id=DECK_ID)
    assert answer.status_code == 403
    assert answer.json()["error"] == "needs_project_grant"


def test_write_with_a_plan_token_passes_the_gate_without_a_grant(h: Harness) -> None:
    h.consent()
    client = h.mcp().initialize()
    plan = client.ok("finalize_plan", project_id=DECK_ID, writes=["a.html"])
    written = client.ok("write_files", project_id=DECK_ID, plan_token=plan["plan_token"],
                        files=[{"path": "a.html", "data": "x"}])
    assert written["written"] == 1


def test_gate_replays_the_body_unchanged(h: Harness) -> None:
    h.consent()
    h.grant(DECK_ID)
    client = h.mcp().initialize()
    data = "<p>" + "é" * 5000 + "</p>"
    client.ok("write_files", project_id=DECK_ID, files=[{"path": "big.html", "data": data}])
    text = client.tool("read_file", project_id=DECK_ID, path="big.html")["content"][0]["text"]
    assert "é" * 5000 in text


def test_oversized_body_is_refused_before_mcp(h: Harness) -> None:
    limit = h.ctx.config.max_body_bytes
    answer = h.client.post(MCP, content=b" " * (limit + 1),
                           headers={"authorization": "Bearer alice",
                                    "content-type": "application/json"})
    assert answer.status_code == 413


def test_session_idle_timeout_comes_from_the_config(tmp_path: Path) -> None:
    with build_harness(tmp_path, idle_timeout=7.5) as harness:
        assert harness.ctx.mcp_session_manager.session_idle_timeout == 7.5
