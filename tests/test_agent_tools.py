"""The model-facing surface (issue 13, spec §10 and §17): the Anthropic tool definitions of
the two tools and `AgentTools.handle_tool_use`, run against the real reference service —
a person's approval for every Projects write and delete, Design's consent and grant cards,
no project id, and a `tool_result` (never an exception) for whatever the model sends."""

from __future__ import annotations

import dataclasses
import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest

from jupyter_design_projects.agent_tools import (
    CONTENT_PREVIEW_CHARS,
    DESIGN_TOOL,
    PROJECTS_TOOL,
    TOOL_TRAITS,
    AgentTools,
    tool_definitions,
)
from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from tests.faults_client import FaultsClient


def open_session(service: EmbeddedService, tmp_path: Path, **overrides) -> Session:
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "credentials_file": str(service.credentials_file),
        "org_uuid": service.org_uuid, "project_uuid": service.project_uuid, **overrides})
    return Session.open(settings, data_dir=tmp_path / f"data-{uuid.uuid4().hex[:6]}",
                        can_ask=lambda: True)


@pytest.fixture
def session(service, tmp_path) -> Iterator[Session]:
    s = open_session(service, tmp_path)
    try:
        yield s
    finally:
        s.close()


def use(name: str, **tool_input) -> dict:
    return {"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:12]}", "name": name,
            "input": tool_input}


def body(result: dict) -> dict:
    return json.loads(result["content"][0]["text"])


def doc_changes(switches: FaultsClient) -> int:
    return sum(n for k, n in switches.counts().items()
               if k.startswith(("POST /api/", "PATCH /api/", "DELETE /api/")))


# ---------------------------------------------------------------- the definitions

#: every gate open and a Project attached
OPEN = Settings(api_base_url="https://claude.example", project_uuid="p-1")


def test_s10_the_definitions_are_what_the_messages_api_takes() -> None:
    tools = tool_definitions(OPEN)
    assert [t["name"] for t in tools] == [DESIGN_TOOL, PROJECTS_TOOL]
    for tool in tools:
        assert set(tool) == {"name", "description", "input_schema"}
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", tool["name"])
        assert tool["input_schema"]["type"] == "object"
        assert tool["input_schema"]["additionalProperties"] is False


def test_s10_the_projects_schema_has_five_methods_and_no_project_id() -> None:
    schema = tool_definitions(OPEN)[1]["input_schema"]
    assert schema["properties"]["method"]["enum"] == [
        "project_info", "project_read", "project_search", "project_write", "project_delete"]
    assert not [k for k in schema["properties"] if "project" in k or k.endswith("id")]
    assert (schema["properties"]["n"]["minimum"], schema["properties"]["n"]["maximum"],
            schema["properties"]["n"]["default"]) == (1, 15, 5)


def test_s10_write_and_delete_are_destructive_and_neither_tool_is_concurrency_safe() -> None:
    assert TOOL_TRAITS[PROJECTS_TOOL]["destructive"] == ["project_write", "project_delete"]
    assert all(not traits["concurrency_safe"] for traits in TOOL_TRAITS.values())


def test_s17_the_projects_description_frames_content_as_data() -> None:
    assert "not instructions" in tool_definitions(OPEN)[1]["description"]


@pytest.mark.parametrize(("closed", "offered"), [
    ({}, [DESIGN_TOOL, PROJECTS_TOOL]),
    ({"project_uuid": ""}, [DESIGN_TOOL]),                       # no Project attached
    ({"allow_projects_tool": False}, [DESIGN_TOOL]),
    ({"allow_design_sync": False}, [PROJECTS_TOOL]),
    ({"design_feature_flag": False}, [PROJECTS_TOOL]),
    ({"essential_traffic_only": True}, []),                      # closes both
    ({"api_base_url": ""}, []),                                  # no first-party service
    ({"allow_design_sync": False, "allow_projects_tool": False}, []),
])
def test_s1_s10_only_tools_whose_gates_are_open_are_offered(closed, offered) -> None:
    settings = dataclasses.replace(OPEN, **closed)
    assert [t["name"] for t in tool_definitions(settings)] == offered


def test_s1_the_definitions_follow_the_sessions_gates_at_each_turn() -> None:
    session = SimpleNamespace(settings=OPEN)
    tools = AgentTools(session)
    assert [t["name"] for t in tools.tool_definitions()] == [DESIGN_TOOL, PROJECTS_TOOL]
    session.settings = dataclasses.replace(OPEN, allow_projects_tool=False)
    assert [t["name"] for t in tools.tool_definitions()] == [DESIGN_TOOL]


@pytest.mark.parametrize(("overrides", "offered"), [
    ({}, [DESIGN_TOOL, PROJECTS_TOOL]),
    ({"essential_traffic_only": True}, []),
    ({"allow_design_sync": False}, [PROJECTS_TOOL]),
])
def test_s1_a_session_on_the_reference_service_offers_the_tools_its_gates_allow(
        service, tmp_path, overrides, offered) -> None:
    session = open_session(service, tmp_path, **overrides)
    try:
        assert [t["name"] for t in AgentTools(session).tool_definitions()] == offered
    finally:
        session.close()


def test_s1_the_definitions_are_fresh_copies() -> None:
    tool_definitions(OPEN)[0]["input_schema"]["properties"].clear()
    assert tool_definitions(OPEN)[0]["input_schema"]["properties"]


# ---------------------------------------------------------------- Projects through a person


def test_s10_a_write_goes_to_a_person_first_and_lands_when_approved(
        service, switches, session) -> None:
    cards = []
    tools = AgentTools(session, approve=lambda request: cards.append(request) or "once")
    name = f"agent-{uuid.uuid4().hex[:8]}.md"
    content = "z" * (CONTENT_PREVIEW_CHARS + 50)
    result = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_write", path=name,
                                       content=content))
    assert result["is_error"] is False and result["type"] == "tool_result"
    written = body(result)
    assert (written["path"], written["present_to_user"]) == (f"claude/{name}", True)
    [card] = cards
    assert (card.kind, card.operation, card.writes) == ("operation", "project_write",
                                                        (f"claude/{name}",))
    assert card.title.startswith("Create") and not card.allows_durable
    assert card.project_id == service.project_uuid
    assert f"({len(content):,} characters)" in card.text and "z" * 400 + " …" in card.text
    again = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_write",
                                      path=f"claude/{name}", content="new"))
    assert body(again)["replaced"] is True and cards[-1].title.startswith("Replace")


@pytest.mark.parametrize("approve", [None, lambda request: None, lambda request: "no"])
def test_s10_a_write_or_delete_nobody_approved_sends_nothing(
        service, switches, session, approve) -> None:
    tools = AgentTools(session, approve=approve)
    before = doc_changes(switches)
    for tool_input in ({"method": "project_write", "path": "x.md", "content": "x"},
                       {"method": "project_delete", "path": "onboarding.md"}):
        result = tools.handle_tool_use(use(PROJECTS_TOOL, **tool_input))
        assert result["is_error"] is True
        error = body(result)
        assert error["error"] == "projects_change_denied"
        assert error["reason"] == ("nobody_can_approve" if approve is None else "denied_on_card")
    assert doc_changes(switches) == before


def test_s10_an_approved_delete_deletes(service, switches, session) -> None:
    cards = []
    tools = AgentTools(session, approve=lambda request: cards.append(request) or "once")
    path = body(tools.handle_tool_use(use(PROJECTS_TOOL, method="project_write",
                                          path=f"gone-{uuid.uuid4().hex[:6]}.md",
                                          content="bye")))["path"]
    result = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_delete", path=path))
    assert body(result)["deleted"] is True
    assert (cards[-1].operation, cards[-1].deletes) == ("project_delete", (path,))


def test_s10_reads_need_no_person(service, switches, session) -> None:
    tools = AgentTools(session)  # nobody can approve: reads still run
    info = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_info"))
    assert body(info)["project"]["uuid"] == service.project_uuid
    hits = body(tools.handle_tool_use(use(PROJECTS_TOOL, method="project_search",
                                          query="on-call", n=2)))
    assert hits["rag"] is True and len(hits["hits"]) <= 2


@pytest.mark.parametrize("extra", [{"project_id": "x"}, {"project_uuid": "x"},
                                   {"encoding": "latin-1"}, {"org_uuid": "x"}])
def test_s10_the_model_cannot_name_a_project_or_any_argument_the_schema_lacks(
        service, switches, session, extra) -> None:
    asked = []
    tools = AgentTools(session, approve=lambda request: asked.append(request) or "once")
    before = sum(switches.counts().values())
    result = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_write", path="a.md",
                                       content="x", **extra))
    assert result["is_error"] is True
    assert body(result)["error"] == "invalid_projects_argument"
    assert body(result)["field"] == next(iter(extra))
    assert asked == [] and sum(switches.counts().values()) == before


def test_s11_a_closed_gate_refuses_before_any_card(service, switches, tmp_path) -> None:
    s = open_session(service, tmp_path, essential_traffic_only=True)
    try:
        asked = []
        tools = AgentTools(s, approve=lambda request: asked.append(request) or "once")
        result = tools.handle_tool_use(use(PROJECTS_TOOL, method="project_write",
                                           path="a.md", content="x"))
    finally:
        s.close()
    assert body(result)["error"] == "gate_closed" and body(result)["gate"] == \
        "essential_traffic_only"
    assert asked == []


@pytest.mark.parametrize("block", [
    use("Bash", command="ls"),
    use(PROJECTS_TOOL, method="project_list"),
    {"type": "tool_use", "id": "toolu_x", "name": PROJECTS_TOOL, "input": "project_info"},
    use(DESIGN_TOOL, operation="list", project_id="x"),
])
def test_anything_the_model_sends_comes_back_as_an_error_result(session, block) -> None:
    result = AgentTools(session).handle_tool_use(block)
    assert (result["type"], result["tool_use_id"], result["is_error"]) == (
        "tool_result", block["id"], True)


def test_a_block_that_is_not_a_tool_use_is_the_callers_mistake(session) -> None:
    with pytest.raises(ValueError):
        AgentTools(session).handle_tool_use({"type": "text", "text": "hi"})


def test_sdk_block_objects_are_taken_as_they_are(service, switches, session) -> None:
    block = SimpleNamespace(type="tool_use", id="toolu_sdk", name=PROJECTS_TOOL,
                            input={"method": "project_info"})
    result = AgentTools(session).handle_tool_use(block)
    assert (result["tool_use_id"], result["is_error"]) == ("toolu_sdk", False)


# ---------------------------------------------------------------- Design through its cards


def test_design_calls_take_the_magics_permission_path(reference_service, tmp_path) -> None:
    s = open_session(reference_service, tmp_path)
    try:
        refused = AgentTools(s)  # nobody can answer: consent is not given, nothing written
        listed = refused.handle_tool_use(use(DESIGN_TOOL, operation="list_projects"))
        assert listed["is_error"] is True
        assert body(listed)["error"] == "permission_denied"

        kinds = []
        tools = AgentTools(s, approve=lambda request: kinds.append(request.kind) or "once")
        projects = body(tools.handle_tool_use(use(DESIGN_TOOL, operation="list_projects")))
        deck = next(p["id"] for p in projects if p["name"] == "Quarterly Review Deck")
        files = [{"path": "slides/06-agent.html", "data": "<h1>agent</h1>"}]
        written = tools.handle_tool_use(use(DESIGN_TOOL, operation="write_files",
                                            arguments={"project_id": deck, "files": files}))
        assert written["is_error"] is False, written
        assert kinds == ["consent", "grant"]
        catalogue = tools.handle_tool_use(use(DESIGN_TOOL, operation="list"))
        assert "write_files" in catalogue["content"][0]["text"]
    finally:
        s.close()


def test_a_write_to_a_missing_project_fails_in_the_client_before_any_card(
        reference_service, tmp_path) -> None:
    """The existence check lives in the Design client: a script (and the model) gets it
    too, and no write card is put to the person for a project that is not there."""
    s = open_session(reference_service, tmp_path)
    try:
        kinds: list[str] = []
        approve = lambda request: kinds.append(request.kind) or "once"  # noqa: E731
        s.design_call("list_projects", approve=approve)  # consent, once
        files = [{"path": "slides/x.html", "data": "<p>x</p>"}]
        missing = s.design_call("write_files", {"project_id": "nope", "files": files},
                                approve=approve)
        assert kinds == ["consent"]
        assert missing.is_error and missing.error.kind == "invalid_arguments"
        assert (missing.error.operation, missing.error.field) == ("write_files", "project_id")
        assert s.design.projects_seen == {}

        deck = next(p["id"] for p in s.design_call("list_projects").data
                    if p["name"] == "Quarterly Review Deck")
        written = s.design_call("write_files", {"project_id": deck, "files": files},
                                approve=approve)
        assert not written.is_error and kinds == ["consent", "grant"]
        assert s.design.projects_seen == {deck: "Quarterly Review Deck"}
    finally:
        s.close()
