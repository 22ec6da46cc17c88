"""Single-use plan tokens through the real MCP endpoint (PROTOCOL §3, issue 32.2): a token
naming a reserved target is spent by the first call it authorizes; a membership or sharing
change takes only a token finalized with no paths, spent by that call; a token naming paths
never authorizes one; of two calls racing with one single-use token exactly one wins; an
ordinary path token still serves its paths again and again until it expires. And the
project's own client, answered by the service, asks and finalizes afresh for each such
call, so it never presents a spent token."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from typing import Any

import pytest

from jupyter_design_projects.design.approval import DesignOutcome, PendingApproval
from tests.server.design.harness import (
    DECK_ID,
    Harness,
    McpClient,
    design_client,
    error_text,
    files_of,
    plan,
)

_REASON = re.compile(r"^Plan token refused \(([a-z_]+)\)")

MEMBERSHIP_AND_SHARING: dict[str, dict[str, Any]] = {
    "add_member": {"role": "viewer", "email": "new@acme-research.example"},
    "update_sharing": {"link_permission": "comment"},
    "update_member_role": {"role": "editor"},
    "remove_member": {},
}


def refusal(result: dict[str, Any]) -> str:
    """The reason of a plan refusal (the word in brackets the client reads)."""
    found = _REASON.match(error_text(result))
    assert found is not None, result
    return found.group(1)


def member_arguments(m: McpClient, name: str) -> dict[str, Any]:
    """Arguments `name` succeeds with once: a role change or a removal acts on a member
    added for it."""
    arguments = dict(MEMBERSHIP_AND_SHARING[name])
    if name in ("update_member_role", "remove_member"):
        added = m.ok("add_member", project_id=DECK_ID, role="viewer",
                     email=f"{name}@acme-research.example", plan_token=plan(m))
        arguments["account_uuid"] = added["account_uuid"]
    return arguments


# ---------------------------------------------------------------- reserved targets


@pytest.mark.parametrize("path", ["CLAUDE.md", ".claude/settings.json", "docs/claude.MD"])
def test_a_reserved_target_token_writes_once_and_is_then_spent(m: McpClient,
                                                               path: str) -> None:
    token = plan(m, writes=(path,))
    first = m.ok("write_files", project_id=DECK_ID, plan_token=token,
                 files=[{"path": path, "data": "first"}])
    assert first["written"] == 1
    etag = files_of(m)[path]
    again = m.tool("write_files", project_id=DECK_ID, plan_token=token,
                   files=[{"path": path, "data": "second"}])
    assert refusal(again) == "spent"
    assert files_of(m)[path] == etag  # the refused call wrote nothing


def test_a_token_naming_a_reserved_target_beside_ordinary_paths_is_single_use(
        m: McpClient) -> None:
    token = plan(m, writes=("CLAUDE.md", "notes/a.html"))
    m.ok("write_files", project_id=DECK_ID, plan_token=token,
         files=[{"path": "notes/a.html", "data": "a"}])
    # the reserved target was not written yet, but the token has been used
    assert refusal(m.tool("write_files", project_id=DECK_ID, plan_token=token,
                          files=[{"path": "CLAUDE.md", "data": "x"}])) == "spent"
    assert "CLAUDE.md" not in files_of(m)


def test_a_reserved_delete_token_deletes_once(m: McpClient) -> None:
    m.ok("write_files", project_id=DECK_ID, plan_token=plan(m, writes=("CLAUDE.md",)),
         files=[{"path": "CLAUDE.md", "data": "x"}])
    token = plan(m, deletes=("CLAUDE.md",))
    assert m.ok("delete_files", project_id=DECK_ID, plan_token=token,
                paths=["CLAUDE.md"]) == {"deleted": 1}
    assert refusal(m.tool("delete_files", project_id=DECK_ID, plan_token=token,
                          paths=["CLAUDE.md"])) == "spent"


def test_a_reserved_copy_token_copies_once(m: McpClient) -> None:
    token = plan(m, writes=(".claude/index.html",))
    copy = {"src": "index.html", "dest": ".claude/index.html"}
    assert m.ok("copy_files", project_id=DECK_ID, plan_token=token,
                files=[copy])["copied"] == 1
    assert refusal(m.tool("copy_files", project_id=DECK_ID, plan_token=token,
                          files=[copy])) == "spent"


def test_a_call_a_reserved_token_does_not_cover_leaves_it_unspent(m: McpClient) -> None:
    token = plan(m, writes=("CLAUDE.md",))
    assert refusal(m.tool("write_files", project_id=DECK_ID, plan_token=token,
                          files=[{"path": "notes/b.html", "data": "b"}])) == "not_covered"
    assert m.ok("write_files", project_id=DECK_ID, plan_token=token,
                files=[{"path": "CLAUDE.md", "data": "x"}])["written"] == 1


def test_an_ordinary_path_token_keeps_serving_until_it_expires(h: Harness,
                                                               m: McpClient) -> None:
    answer = m.ok("finalize_plan", project_id=DECK_ID, writes=["notes/a.html"])
    for data in ("one", "two", "three"):
        m.ok("write_files", project_id=DECK_ID, plan_token=answer["plan_token"],
             files=[{"path": "notes/a.html", "data": data}])
    h.clock.now = answer["expires_at"] - 0.001
    m.ok("write_files", project_id=DECK_ID, plan_token=answer["plan_token"],
         files=[{"path": "notes/a.html", "data": "four"}])
    h.clock.now = answer["expires_at"]
    assert refusal(m.tool("write_files", project_id=DECK_ID, plan_token=answer["plan_token"],
                          files=[{"path": "notes/a.html", "data": "five"}])) == "expired"


# ---------------------------------------------------------------- membership and sharing


@pytest.mark.parametrize("name", sorted(MEMBERSHIP_AND_SHARING))
def test_a_pathless_token_authorizes_one_membership_change_then_is_spent(
        m: McpClient, name: str) -> None:
    arguments = member_arguments(m, name)
    token = plan(m)
    m.ok(name, project_id=DECK_ID, plan_token=token, **arguments)
    assert refusal(m.tool(name, project_id=DECK_ID, plan_token=token, **arguments)) == "spent"


@pytest.mark.parametrize("name", sorted(MEMBERSHIP_AND_SHARING))
@pytest.mark.parametrize(("writes", "deletes"), [
    (("slides/01-intro.html",), ()), ((), ("index.html",)), (("CLAUDE.md",), ())])
def test_a_token_naming_paths_never_authorizes_a_membership_change(
        m: McpClient, name: str, writes: tuple[str, ...], deletes: tuple[str, ...]) -> None:
    arguments = member_arguments(m, name)
    members = m.ok("list_members", project_id=DECK_ID)
    sharing = m.ok("get_project", project_id=DECK_ID)["sharing"]
    token = plan(m, writes=writes, deletes=deletes)
    assert refusal(m.tool(name, project_id=DECK_ID, plan_token=token,
                          **arguments)) == "paths_not_allowed"
    assert m.ok("list_members", project_id=DECK_ID) == members
    assert m.ok("get_project", project_id=DECK_ID)["sharing"] == sharing


def test_a_refused_path_token_is_not_spent_for_its_own_paths(m: McpClient) -> None:
    token = plan(m, writes=("CLAUDE.md",))
    assert refusal(m.tool("update_sharing", project_id=DECK_ID, plan_token=token,
                          scope="private")) == "paths_not_allowed"
    assert m.ok("write_files", project_id=DECK_ID, plan_token=token,
                files=[{"path": "CLAUDE.md", "data": "x"}])["written"] == 1


def test_a_pathless_token_writes_nothing(m: McpClient) -> None:
    token = plan(m)
    assert refusal(m.tool("write_files", project_id=DECK_ID, plan_token=token,
                          files=[{"path": "notes/a.html", "data": "a"}])) == "not_covered"
    # and that refusal did not spend it
    m.ok("update_sharing", project_id=DECK_ID, plan_token=token, scope="private")


def test_list_members_needs_no_token(m: McpClient) -> None:
    assert m.ok("list_members", project_id=DECK_ID)


def test_a_spent_token_is_spent_for_every_membership_operation(m: McpClient) -> None:
    token = plan(m)
    m.ok("update_sharing", project_id=DECK_ID, plan_token=token, scope="org")
    assert refusal(m.tool("add_member", project_id=DECK_ID, plan_token=token, role="viewer",
                          email="late@acme-research.example")) == "spent"
    emails = [member["email"] for member in m.ok("list_members", project_id=DECK_ID)]
    assert "late@acme-research.example" not in emails


# ---------------------------------------------------------------- racing calls


def race(h: Harness, call: Callable[[McpClient], dict[str, Any]]) -> list[dict[str, Any]]:
    """`call` made at once from two threads, each on its own MCP session; both results."""
    clients = [h.mcp().initialize(), h.mcp().initialize()]
    start = threading.Barrier(2, timeout=30)
    results: list[dict[str, Any] | None] = [None, None]

    def run(index: int) -> None:
        start.wait()
        results[index] = call(clients[index])

    threads = [threading.Thread(target=run, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(result is not None for result in results), results
    return [result for result in results if result is not None]


def test_two_racing_writes_with_a_reserved_token_write_once(h: Harness,
                                                            m: McpClient) -> None:
    token = plan(m, writes=("CLAUDE.md",))
    results = race(h, lambda c: c.tool("write_files", project_id=DECK_ID, plan_token=token,
                                       files=[{"path": "CLAUDE.md", "data": "x"}]))
    assert sorted(bool(r.get("isError")) for r in results) == [False, True]
    assert refusal(next(r for r in results if r.get("isError"))) == "spent"


def test_two_racing_sharing_changes_with_one_token_change_once(h: Harness,
                                                               m: McpClient) -> None:
    token = plan(m)
    results = race(h, lambda c: c.tool("update_sharing", project_id=DECK_ID,
                                       plan_token=token, scope="private"))
    assert sorted(bool(r.get("isError")) for r in results) == [False, True]
    assert refusal(next(r for r in results if r.get("isError"))) == "spent"


# ---------------------------------------------------------------- the project's own client


async def approved(client: Any, name: str, arguments: dict[str, Any]) -> Any:
    """`name` called through the client, its card approved as a person would."""
    card = await client.call(name, arguments)
    assert isinstance(card, PendingApproval), card
    outcome = await client.resume(card, approved=True)
    assert isinstance(outcome, DesignOutcome) and not outcome.is_error, outcome
    return outcome


@pytest.mark.asyncio
async def test_the_client_finalizes_a_pathless_plan_for_each_sharing_change(
        consented: Harness) -> None:
    async with design_client(consented) as (client, calls):
        for permission in ("comment", "edit"):
            await approved(client, "update_sharing",
                           {"project_id": DECK_ID, "link_permission": permission})
    assert (calls["finalize_plan"], calls["update_sharing"]) == (2, 2)
    spent = consented.ctx.db.read().execute(
        "SELECT count(*) FROM design_spent_plans").fetchone()[0]
    assert spent == 2


@pytest.mark.asyncio
async def test_the_client_asks_again_for_each_reserved_write_under_a_grant(
        consented: Harness) -> None:
    consented.grant(DECK_ID)
    async with design_client(consented) as (client, calls):
        for text in ("one", "two"):
            await approved(client, "write_files", {
                "project_id": DECK_ID, "files": [{"path": "CLAUDE.md", "data": text}]})
    assert (calls["finalize_plan"], calls["write_files"]) == (2, 2)
