"""ProjectsClient against the in-memory fake: the gates and the attached project checked
at every call, scope expansion and its notice, the two routes, the dispatcher (framing,
result cap, no project-id input), one call at a time, the 30 s deadline, redaction."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from jupyter_design_projects.core.budgets import RESULT_MAX_CHARS
from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import (
    ConfigError,
    GateClosed,
    InvalidProjectsArgument,
    NoAttachedProject,
    ProjectsApiError,
    ProjectsTransportFailed,
)
from jupyter_design_projects.projects import api as api_module
from jupyter_design_projects.projects.client import FRAMING, ProjectsClient
from tests.fakes.projects import (
    JWT,
    PROJECT,
    SESSION_PATH,
    Scopes,
    error,
    flat,
)

# ---------------------------------------------------------------- gates and attachment


@pytest.mark.asyncio
@pytest.mark.parametrize("call", ["info", "read", "search", "write", "delete"])
async def test_a_closed_gate_refuses_every_method_at_call_time(make, fake, call) -> None:
    client = make(allow_projects_tool=False)
    assert client.enabled is False
    with pytest.raises(GateClosed) as caught:
        await _invoke(client, call)
    assert (caught.value.tool, caught.value.gate) == ("Projects", "allow_projects_tool")
    assert fake.requests == []


@pytest.mark.parametrize(("gate", "project_uuid", "enabled"), [
    (True, PROJECT, True), (False, PROJECT, False), (True, "", False), (False, "", False),
])
def test_the_tool_is_enabled_only_with_the_gate_and_an_attached_project(
        make, gate, project_uuid, enabled) -> None:
    assert make(allow_projects_tool=gate, project_uuid=project_uuid).enabled is enabled


@pytest.mark.asyncio
@pytest.mark.parametrize("call", ["info", "read", "search", "write", "delete"])
async def test_no_attached_project_is_refused_at_call_time(make, fake, call) -> None:
    client = make(project_uuid="")
    with pytest.raises(NoAttachedProject):
        await _invoke(client, call)
    with pytest.raises(NoAttachedProject):
        client.history()
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("call", "args"), [
    ("read", {"path": ""}), ("search", {"query": "q", "n": 99}), ("write", {"path": "a"}),
    ("delete", {"path": "x" * 300}),
])
async def test_the_gate_is_checked_before_the_arguments(make, call, args) -> None:
    with pytest.raises(GateClosed):
        await getattr(make(allow_projects_tool=False), call)(**args)


@pytest.mark.asyncio
@pytest.mark.parametrize(("settings", "refusal"), [
    ({"allow_projects_tool": False}, GateClosed), ({"project_uuid": ""}, NoAttachedProject),
])
async def test_the_dispatcher_checks_the_gate_and_the_project_before_the_arguments(
        make, fake, settings, refusal) -> None:
    with pytest.raises(refusal):
        await make(**settings).call("project_list", {"project_id": PROJECT})
    assert fake.requests == []


async def _invoke(client: ProjectsClient, call: str) -> dict:
    args = {"info": {}, "read": {"path": "a.md"}, "search": {"query": "q"},
            "write": {"path": "a.md", "content": "x"}, "delete": {"path": "a.md"}}[call]
    return await getattr(client, call)(**args)


# ---------------------------------------------------------------- scopes and routes


@pytest.mark.asyncio
async def test_org_route_expands_scopes_once_before_its_first_request(make, fake) -> None:
    scopes = Scopes()
    order: list[str] = []
    original = scopes.__call__

    async def tracked() -> str | None:
        order.append(f"scopes after {len(fake.requests)} requests")
        return await original()

    client = make(scopes=scopes, org_uuid="")
    client._ensure_scopes = tracked
    first = await client.info()
    second = await client.info()
    assert order == ["scopes after 0 requests"]
    assert fake.requests[0][1] == "/api/organizations"  # the org is the first listed
    assert first["notice"] == "scopes added"
    assert "notice" not in second


@pytest.mark.asyncio
async def test_the_notice_waits_for_the_first_successful_result(make, fake) -> None:
    client = make(scopes=Scopes())
    fake.intercept = lambda m, p, b: error(500, "api_error", "boom")
    with pytest.raises(ProjectsApiError):
        await client.info()
    fake.intercept = None
    assert (await client.info())["notice"] == "scopes added"


@pytest.mark.asyncio
async def test_remote_session_route_sends_the_session_token_and_never_expands(make, fake) -> None:
    scopes = Scopes()
    client = make("remote-session", scopes=scopes)
    result = await client.info()
    assert scopes.calls == 0 and "notice" not in result
    assert result["route"] == "remote-session"
    assert fake.requests == [("POST", SESSION_PATH, {"op": "detail"})]
    assert fake.headers[0]["authorization"] == f"Bearer {JWT}"


@pytest.mark.asyncio
async def test_a_project_id_that_is_not_a_canonical_uuid_is_a_config_error(make, fake) -> None:

    client = make(project_uuid="../../other")
    with pytest.raises(ConfigError) as caught:
        await client.info()
    assert caught.value.setting == "project_uuid"
    assert fake.requests == []


# ---------------------------------------------------------------- dispatcher


@pytest.mark.asyncio
@pytest.mark.parametrize("method", ["project_info", "info"])
async def test_call_frames_results_as_data(make, fake, method) -> None:
    result = await make().call(method, {})
    assert result["framing"] == FRAMING and result["method"] == "project_info"


@pytest.mark.asyncio
@pytest.mark.parametrize(("method", "args", "field"), [
    ("project_list", {}, "method"),
    ("project_project_info", {}, "method"),
    ("project_read", {}, "path"),
    ("project_read", {"path": "a", "project_id": PROJECT}, "project_id"),
    ("project_info", {"project_uuid": PROJECT}, "project_uuid"),
    ("project_read", "a.md", "args"),
])
async def test_call_refuses_unknown_methods_and_arguments(make, fake, method, args, field) -> None:
    with pytest.raises(InvalidProjectsArgument) as caught:
        await make().call(method, args)
    assert caught.value.field == field
    assert fake.requests == []


@pytest.mark.asyncio
async def test_call_saves_a_result_over_300000_chars_whole(make, fake, tmp_path) -> None:
    for i in range(6000):
        fake.add_doc(f"a-very-long-document-name-number-{i:05}.md", "x")
    result = await make().call("project_info", {})

    assert len(json.dumps(result, ensure_ascii=False)) <= RESULT_MAX_CHARS
    assert result["spilled"] is True and result["framing"] == FRAMING
    saved = Path(result["local_file"])
    assert saved.parent == tmp_path / "downloads" and saved.suffix == ".json"
    whole = json.loads(saved.read_text(encoding="utf-8"))
    assert len(whole["docs"]) == 6000 and whole["method"] == "project_info"


# ---------------------------------------------------------------- transport properties


@pytest.mark.asyncio
async def test_calls_run_one_at_a_time(make, fake) -> None:
    in_flight = [0]
    peak = [0]

    async def slow(method: str, path: str, body: Any) -> None:
        in_flight[0] += 1
        peak[0] = max(peak[0], in_flight[0])
        for _ in range(3):
            await asyncio.sleep(0)
        in_flight[0] -= 1
        return None

    fake.intercept = slow
    client = make()
    await asyncio.gather(client.info(), client.search("q"), client.info(), client.info())
    assert peak[0] == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ["org", "remote-session"])
@pytest.mark.parametrize("call", ["info", "read", "search", "write", "delete"])
async def test_each_projects_request_is_sent_with_a_30_second_deadline(
        make, fake, monkeypatch, route, call) -> None:
    deadlines: list[float] = []
    real_send = api_module.send

    async def recorded(*args: Any, **kwargs: Any) -> Any:
        deadlines.append(kwargs["deadline_s"])
        return await real_send(*args, **kwargs)

    monkeypatch.setattr(api_module, "send", recorded)
    fake.add_doc("a.md", "x")
    await _invoke(make(route), call)
    assert deadlines and deadlines == [30.0] * len(deadlines)
    assert len(deadlines) == len(fake.requests)


@pytest.mark.asyncio
async def test_a_request_that_never_answers_hits_the_deadline(make, fake, monkeypatch) -> None:
    monkeypatch.setattr(api_module, "DEADLINE_S", 0.05)
    never = asyncio.Event()

    async def hang(method: str, path: str, body: Any) -> None:
        await never.wait()

    fake.intercept = hang
    with pytest.raises(ProjectsTransportFailed) as caught:
        await make().info()
    assert (caught.value.reason, caught.value.status, caught.value.route) == (
        "deadline", None, "org")


@pytest.mark.asyncio
async def test_a_token_echoed_in_an_error_is_redacted(make, fake) -> None:
    fake.intercept = lambda m, p, b: flat(400, f"bad token {JWT} and Bearer abc.def.ghi")
    with pytest.raises(ProjectsApiError) as caught:
        await make("remote-session").info()
    for text in (str(caught.value), repr(caught.value), caught.value.body):
        assert JWT not in text and "abc.def.ghi" not in text
    assert REDACTED in caught.value.body


@pytest.mark.asyncio
async def test_secrets_from_the_provider_are_redacted_on_the_org_route(make, fake) -> None:
    fake.intercept = lambda m, p, b: error(403, "permission_error", "token oauth-access-123456")
    client = make()
    client._secrets = lambda: [Secret("oauth-access-123456")]
    with pytest.raises(ProjectsApiError) as caught:
        await client.info()
    assert "oauth-access-123456" not in caught.value.body
    assert caught.value.status == 403


# ---------------------------------------------------------------- refused arguments, exactly


@pytest.mark.asyncio
@pytest.mark.parametrize(("call", "args", "refusal"), [
    ("search", {"query": ""}, ("search", "query", "must be a non-empty string")),
    ("search", {"query": " \t"}, ("search", "query", "must be a non-empty string")),
    ("search", {"query": 7}, ("search", "query", "must be a non-empty string")),
    ("search", {"query": "q", "n": 0}, ("search", "n", "must be an integer from 1 to 15")),
    ("search", {"query": "q", "n": 16}, ("search", "n", "must be an integer from 1 to 15")),
    ("write", {"path": "a.md"},
     ("write", "content/local_path", "needs exactly one of content and local_path")),
    ("write", {"path": "a.md", "content": "x", "local_path": "a.md"},
     ("write", "content/local_path", "needs exactly one of content and local_path")),
    ("write", {"path": "a.md", "content": "x", "encoding": "latin-1"},
     ("write", "encoding", "applies only to local_path")),
    ("write", {"path": "a.md", "content": b"x"}, ("write", "content", "must be a string")),
])
async def test_each_refused_argument_names_its_method_field_and_rule(
        make, fake, call, args, refusal) -> None:
    with pytest.raises(InvalidProjectsArgument) as caught:
        await getattr(make(), call)(**args)
    assert (caught.value.method, caught.value.field, caught.value.rule) == refusal
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("method", "args", "refusal"), [
    ("project_nope", {}, ("project_nope", "method",
                          "must be one of project_info, project_read, project_search, "
                          "project_write, project_delete")),
    (None, {}, ("None", "method", "must be one of project_info, project_read, "
                                  "project_search, project_write, project_delete")),
    ("project_search", [], ("search", "args", "must be an object")),
    ("project_search", {"query": "q", "limit": 3},
     ("search", "limit", "is not an argument of project_search")),
    ("project_read", {}, ("read", "path", "is required")),
])
async def test_the_dispatcher_names_each_refusal_exactly(make, fake, method, args,
                                                         refusal) -> None:
    with pytest.raises(InvalidProjectsArgument) as caught:
        await make().call(method, args)
    assert (caught.value.method, caught.value.field, caught.value.rule) == refusal
    assert fake.requests == []


@pytest.mark.asyncio
async def test_info_answers_every_field_by_its_protocol_name(make, fake) -> None:
    doc = fake.add_doc("notes/a.md", "12345")
    upload = fake.add_file("deck.pdf", "document", b"%PDF-1.4")
    info = await make().info()
    assert info["project"] == {"uuid": PROJECT, "name": "Fake", "description": "d"}
    assert (info["route"], info["instructions"]) == ("org", "be kind")
    [listed] = info["docs"]
    assert set(listed) == {"path", "doc_uuid", "created_at", "estimated_token_count"}
    assert (listed["path"], listed["doc_uuid"], listed["estimated_token_count"]) == \
        ("notes/a.md", doc, 2)
    assert info["uploads"] == [{"path": "deck.pdf", "file_uuid": upload,
                                "file_kind": "document", "file_size_bytes": 8,
                                "mime_type": "application/octet-stream", "created_at": "x"}]
    assert info["sync_sources"] == [{"type": "github", "config": {}}]
    assert info["knowledge_stats"]["knowledge_size"] == 2


@pytest.mark.asyncio
async def test_info_without_instructions_or_sources_answers_empty_ones(make, fake,
                                                                       monkeypatch) -> None:
    plain = fake.detail

    def bare() -> dict[str, Any]:
        return {**plain(), "prompt_template": None, "sync_sources": None}

    monkeypatch.setattr(fake, "detail", bare)
    info = await make().info()
    assert (info["instructions"], info["sync_sources"]) == ("", [])
