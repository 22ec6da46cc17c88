"""Catalogue: the live tools/list merged with the client's floor, and the `list` view."""

from __future__ import annotations

import asyncio

import pytest

from jupyter_design_projects.core.design_operations import BY_NAME
from jupyter_design_projects.design.catalogue import Catalogue
from jupyter_design_projects.design.session import McpSession
from jupyter_design_projects.errors import InvalidArguments, UnknownOperation
from tests.design.mcp_fake import ENDPOINT, FakeMcp, known_tools, tool


def catalogue_for(fake: FakeMcp) -> Catalogue:
    return Catalogue(McpSession(fake.client(), ENDPOINT), BY_NAME)


def with_tool(replacement: dict) -> list[dict]:
    tools = [t for t in known_tools() if t["name"] != replacement["name"]]
    return tools + [replacement]


@pytest.mark.asyncio
async def test_known_operation_is_discovered_and_merged() -> None:
    fake = FakeMcp()
    entry = await catalogue_for(fake).entry("write_files")
    assert (entry.known, entry.read_only, entry.destructive, entry.write_tier) == (
        True, False, True, True)
    assert "files" in entry.input_schema["properties"]
    assert fake.counts["tools/list"] == 1


@pytest.mark.parametrize(
    ("name", "annotations", "read_only", "destructive"),
    [
        ("write_files", {"readOnlyHint": True, "destructiveHint": False}, False, True),
        ("delete_files", {"readOnlyHint": False, "destructiveHint": False}, False, True),
        ("create_project", {"readOnlyHint": True}, False, False),
        ("create_project", {"readOnlyHint": False, "destructiveHint": True}, False, True),
        ("create_project", {"readOnlyHint": False}, False, True),
        ("get_project", {"readOnlyHint": False, "destructiveHint": False}, False, False),
        ("get_project", {"readOnlyHint": "true"}, False, True),
        ("get_project", {"readOnlyHint": True}, True, False),
    ],
)
@pytest.mark.asyncio
async def test_server_hints_never_lower_the_client_floor(
    name: str, annotations: dict, read_only: bool, destructive: bool
) -> None:
    fake = FakeMcp(with_tool(tool(name, read_only=False, annotations=annotations)))
    entry = await catalogue_for(fake).entry(name)
    assert (entry.read_only, entry.destructive) == (read_only, destructive)


@pytest.mark.asyncio
async def test_unknown_operation_before_discovery_asks_for_list_and_sends_nothing() -> None:
    fake = FakeMcp()
    with pytest.raises(UnknownOperation) as caught:
        await catalogue_for(fake).entry("preview_theme")
    assert caught.value.reason == "call_list_first"
    assert fake.requests == []


@pytest.mark.asyncio
async def test_unknown_operation_absent_from_the_server_is_not_in_catalogue() -> None:
    catalogue = catalogue_for(FakeMcp())
    await catalogue.list_view()
    with pytest.raises(UnknownOperation) as caught:
        await catalogue.entry("preview_theme")
    assert caught.value.reason == "not_in_catalogue"


@pytest.mark.asyncio
async def test_known_operation_the_server_does_not_list_is_not_in_catalogue() -> None:
    fake = FakeMcp([t for t in known_tools() if t["name"] != "remove_member"])
    with pytest.raises(UnknownOperation) as caught:
        await catalogue_for(fake).entry("remove_member")
    assert caught.value.reason == "not_in_catalogue"


@pytest.mark.asyncio
async def test_discovered_read_only_operation_is_callable_with_the_server_schema() -> None:
    new = tool("preview_theme", read_only=True)
    new["inputSchema"] = {"type": "object", "properties": {"theme_id": {"type": "string"}}}
    catalogue = catalogue_for(FakeMcp(with_tool(new)))
    await catalogue.list_view()
    entry = await catalogue.entry("preview_theme")
    assert (entry.known, entry.read_only, entry.destructive) == (False, True, False)
    assert entry.input_schema == new["inputSchema"]


@pytest.mark.parametrize(
    "annotations",
    [{}, {"readOnlyHint": False}, {"readOnlyHint": "true"}, {"readOnlyHint": 1}, None],
)
@pytest.mark.asyncio
async def test_discovered_write_without_local_schema_asks_to_upgrade(annotations) -> None:
    new = tool("publish_site", read_only=False, annotations=annotations or {})
    if annotations is None:
        del new["annotations"]
    catalogue = catalogue_for(FakeMcp(with_tool(new)))
    await catalogue.list_view()
    with pytest.raises(UnknownOperation) as caught:
        await catalogue.entry("publish_site")
    assert caught.value.reason == "upgrade_client"


@pytest.mark.parametrize("name", ["", "a" * 65, "two words", "caf\u00e9", "x/y", "op\n"])
@pytest.mark.asyncio
async def test_invalid_operation_name_is_refused_before_anything_is_sent(name: str) -> None:
    fake = FakeMcp()
    with pytest.raises(InvalidArguments) as caught:
        await catalogue_for(fake).entry(name)
    assert caught.value.field == "operation"
    assert fake.requests == []


@pytest.mark.asyncio
async def test_sixty_four_character_name_passes_the_name_rule() -> None:
    with pytest.raises(UnknownOperation):
        await catalogue_for(FakeMcp()).entry("a" * 64)


@pytest.mark.asyncio
async def test_fresh_tools_list_resets_the_hint_registry() -> None:
    fake = FakeMcp(with_tool(tool("preview_theme", read_only=True)))
    session = McpSession(fake.client(), ENDPOINT)
    catalogue = Catalogue(session, BY_NAME)
    assert (await catalogue.entry("list_members")).read_only
    await catalogue.list_view()
    assert (await catalogue.entry("preview_theme")).read_only
    fake.tools = with_tool(tool("preview_theme", read_only=False))
    fake.tools = [t for t in fake.tools if t["name"] != "list_members"]
    await session.tools(refresh=True)
    with pytest.raises(UnknownOperation) as upgrade:
        await catalogue.entry("preview_theme")
    assert upgrade.value.reason == "upgrade_client"
    with pytest.raises(UnknownOperation) as gone:
        await catalogue.entry("list_members")
    assert gone.value.reason == "not_in_catalogue"


@pytest.mark.asyncio
async def test_a_dropped_session_drops_the_discovery_too() -> None:
    fake = FakeMcp()
    session = McpSession(fake.client(), ENDPOINT)
    catalogue = Catalogue(session, BY_NAME)
    await catalogue.entry("get_project")
    fake.tools = with_tool(tool("preview_theme", read_only=True))  # changed while gone
    fake.drop_sessions()
    await session.call_tool("get_project", {"project_id": "p"})  # 404: re-initialized
    assert (fake.counts["initialize"], fake.counts["tools/list"]) == (2, 2)
    entry = await catalogue.entry("preview_theme")  # seen without another list
    assert entry.read_only and fake.counts["tools/list"] == 2


@pytest.mark.asyncio
async def test_a_services_body_mark_is_not_kept_in_its_schema() -> None:
    new = tool("preview_theme", read_only=True)
    new["inputSchema"] = {"type": "object", "properties": {
        "note": {"type": "string", "x-body": True, "description": "d"}}}
    catalogue = catalogue_for(FakeMcp(with_tool(new)))
    await catalogue.list_view()
    entry = await catalogue.entry("preview_theme")
    assert entry.input_schema == {"type": "object", "properties": {
        "note": {"type": "string", "description": "d"}}}


@pytest.mark.asyncio
async def test_sixty_four_concurrent_first_entries_share_one_handshake() -> None:
    fake = FakeMcp()
    fake.initialize_gate = asyncio.Event()
    catalogue = catalogue_for(fake)
    calls = [asyncio.create_task(catalogue.entry("list_projects")) for _ in range(64)]
    await fake.initialize_started.wait()
    fake.initialize_gate.set()
    entries = await asyncio.gather(*calls)
    assert {e.name for e in entries} == {"list_projects"}
    assert (fake.counts["initialize"], fake.counts["tools/list"]) == (1, 1)


@pytest.mark.asyncio
async def test_list_view_shows_every_operation_with_its_hash() -> None:
    view = await catalogue_for(FakeMcp()).list_view()
    assert set(view) == {"operations", "catalog_hash"}
    assert len(view["operations"]) == len(BY_NAME)
    write = next(op for op in view["operations"] if op["name"] == "write_files")
    assert set(write) == {"name", "description", "input_schema", "read_only", "destructive"}
    data = write["input_schema"]["properties"]["files"]["items"]["properties"]["data"]
    assert data == {"type": "string"}


@pytest.mark.asyncio
async def test_repeat_list_for_the_same_agent_is_unchanged_with_summaries() -> None:
    catalogue = catalogue_for(FakeMcp())
    first = await catalogue.list_view(agent_key="agent-1")
    again = await catalogue.list_view(agent_key="agent-1")
    assert again["catalog_unchanged"] is True
    assert again["catalog_hash"] == first["catalog_hash"]
    assert again["operations"] == {op["name"]: f"{op['name']} does one thing."
                                   for op in first["operations"]}
    assert "full" in again["hint"]


@pytest.mark.asyncio
async def test_unchanged_view_holds_only_what_the_spec_names() -> None:
    """Spec §4: the flag, the hash, each name with its description's first sentence, and
    the hint; a description's later sentences and every schema are left out."""
    fake = FakeMcp(with_tool(tool("preview_theme", read_only=True,
                                  description="Preview a theme. It renders every page.")))
    catalogue = catalogue_for(fake)
    await catalogue.list_view(agent_key="agent-1")
    again = await catalogue.list_view(agent_key="agent-1")
    assert set(again) == {"catalog_unchanged", "catalog_hash", "operations", "hint"}
    assert again["operations"]["preview_theme"] == "Preview a theme."
    assert all(isinstance(summary, str) for summary in again["operations"].values())


@pytest.mark.asyncio
async def test_full_list_is_given_when_asked_or_for_another_agent() -> None:
    catalogue = catalogue_for(FakeMcp())
    await catalogue.list_view(agent_key="agent-1")
    assert "catalog_unchanged" not in await catalogue.list_view(agent_key="agent-1", full=True)
    assert "catalog_unchanged" not in await catalogue.list_view(agent_key="agent-2")


@pytest.mark.asyncio
async def test_changed_catalogue_is_listed_in_full_again() -> None:
    fake = FakeMcp()
    session = McpSession(fake.client(), ENDPOINT)
    catalogue = Catalogue(session, BY_NAME)
    first = await catalogue.list_view()
    fake.tools = with_tool(tool("preview_theme", read_only=True))
    await session.tools(refresh=True)
    second = await catalogue.list_view()
    assert "catalog_unchanged" not in second
    assert second["catalog_hash"] != first["catalog_hash"]


@pytest.mark.asyncio
async def test_the_person_the_inspector_and_each_model_have_their_own_hash() -> None:
    from jupyter_design_projects.design.catalogue import INSPECTOR, PERSON

    catalogue = catalogue_for(FakeMcp())
    await catalogue.list_view(agent_key=PERSON)
    await catalogue.list_view(agent_key=INSPECTOR, full=True)
    for model in ("agent:one", "agent:two"):  # neither the person nor the inspector
        assert "catalog_unchanged" not in await catalogue.list_view(agent_key=model)
        assert (await catalogue.list_view(agent_key=model))["catalog_unchanged"] is True
    for reader in (PERSON, INSPECTOR):
        assert (await catalogue.list_view(agent_key=reader))["catalog_unchanged"] is True


@pytest.mark.parametrize(("others", "unchanged"), [(63, True), (64, False)])
@pytest.mark.asyncio
async def test_catalogue_hash_memory_keeps_sixty_four_agents(others: int, unchanged: bool) -> None:
    catalogue = catalogue_for(FakeMcp())
    await catalogue.list_view(agent_key="first")
    for index in range(others):
        await catalogue.list_view(agent_key=f"agent-{index}")
    view = await catalogue.list_view(agent_key="first")
    assert view.get("catalog_unchanged", False) is unchanged


# ---------------------------------------------------------------- the real reference service

from tests.design.live_design import MCP_PATH, live_session  # noqa: E402


@pytest.mark.asyncio
async def test_reference_service_hints_agree_with_the_client_floor(
        shared_reference_service) -> None:
    async with live_session(shared_reference_service) as (session, _, _):
        entries = await Catalogue(session, BY_NAME).entries()
    assert {e.name: (e.read_only, e.destructive) for e in entries} == {
        name: (op.floor.read_only, op.floor.destructive)
        for name, op in BY_NAME.items()
    }


@pytest.mark.asyncio
async def test_service_advertising_a_known_write_as_read_only_stays_write_tier(
        shared_reference_service) -> None:
    lying = [tool(name, read_only=True, destructive=False) for name in BY_NAME]
    async with live_session(shared_reference_service) as (session, switches, _):
        switches.fail(MCP_PATH, status=200, rpc_method="tools/list",
                      body={"jsonrpc": "2.0", "id": 1, "result": {"tools": lying}})
        catalogue = Catalogue(session, BY_NAME)
        write = await catalogue.entry("write_files")
        delete = await catalogue.entry("delete_files")
        create = await catalogue.entry("create_project")
    assert (write.write_tier, write.destructive) == (True, True)
    assert (delete.write_tier, delete.destructive) == (True, True)
    assert (create.write_tier, create.destructive) == (True, False)


@pytest.mark.parametrize("size", [4_097, 5_000])  # 4,096 passes: tests/core/test_validation
@pytest.mark.asyncio
async def test_a_served_operation_cannot_mark_its_way_past_the_string_cap(size) -> None:
    from jupyter_design_projects.core.design_operations import BY_NAME
    from jupyter_design_projects.design.client import DesignClient
    from jupyter_design_projects.settings import Settings

    new = tool("stamp_note", read_only=True)
    new["inputSchema"] = {"type": "object", "properties": {
        "note": {"type": "string", "x-body": True}}}
    fake = FakeMcp(with_tool(new))
    client = DesignClient(fake.client(), Settings(api_base_url="http://127.0.0.1:9"),
                          can_ask=lambda: True, operations=BY_NAME)
    await client.list()
    outcome = await client.call("stamp_note", {"note": "n" * size})
    assert (outcome.error.kind, outcome.error.field) == ("invalid_arguments", "note")
    assert fake.counts["tools/call"] == 0  # nothing was sent
