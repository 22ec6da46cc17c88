"""Reserved paths on the reference service (spec §8): `CLAUDE.md` and `.claude/` at any
depth and in any case are never written under a durable project grant, but a plan token
that names them (a person saw them on a card) writes, copies and deletes them, and they
can be read back; everything §7 bars outright (`..`, control characters, look-alikes)
stays refused even with a plan."""

from __future__ import annotations

import pytest

from tests.server.design.harness import (
    DECK_ID,
    Harness,
    McpClient,
    error_text,
    files_of,
    plan,
)


@pytest.fixture(autouse=True)
def granted(consented: Harness) -> None:
    """Alice holds a durable grant for the deck: only reserved paths are beyond it."""
    consented.grant(DECK_ID)


@pytest.mark.parametrize("path", ["CLAUDE.md", "docs/claude.MD", ".claude/settings.json",
                                  "CLAUDE.md.", "deep/.Claude/x"])
def test_the_grant_never_writes_a_reserved_path(m: McpClient, path: str) -> None:
    before = files_of(m)
    refused = m.tool("write_files", project_id=DECK_ID, files=[{"path": path, "data": "x"}])
    assert "Path refused (reserved)" in error_text(refused)
    assert files_of(m) == before
    # the same grant writes an ordinary path
    assert m.ok("write_files", project_id=DECK_ID,
                files=[{"path": "notes/ok.html", "data": "x"}])["written"] == 1


def test_a_plan_naming_a_reserved_path_writes_it_and_it_reads_back(m: McpClient) -> None:
    token = plan(m, writes=("./notes/CLAUDE.md",))
    written = m.ok("write_files", project_id=DECK_ID, plan_token=token,
                   files=[{"path": "notes/CLAUDE.md", "data": "be brief"}])
    assert written["written"] == 1
    assert "notes/CLAUDE.md" in files_of(m)
    read = m.tool("read_file", project_id=DECK_ID, path="notes/CLAUDE.md")
    assert "be brief" in read["content"][0]["text"]


def test_a_plan_that_does_not_name_the_reserved_path_does_not_write_it(m: McpClient) -> None:
    token = plan(m, writes=("notes/a.html",))
    refused = m.tool("write_files", project_id=DECK_ID, plan_token=token,
                     files=[{"path": ".claude/settings.json", "data": "{}"}])
    assert "not_covered" in error_text(refused)
    assert ".claude/settings.json" not in files_of(m)


def test_support_js_under_claude_needs_a_plan(m: McpClient) -> None:
    refused = m.tool("create_support_js", project_id=DECK_ID, path=".claude/support.js")
    assert "reserved" in error_text(refused)
    token = plan(m, writes=(".claude/support.js",))
    made = m.ok("create_support_js", project_id=DECK_ID, path=".claude/support.js",
                plan_token=token)
    assert made["path"] == ".claude/support.js"


def test_copies_and_deletes_of_reserved_paths_go_through_their_plan(m: McpClient) -> None:
    token = plan(m, writes=("CLAUDE.md",))
    m.ok("write_files", project_id=DECK_ID, plan_token=token,
         files=[{"path": "CLAUDE.md", "data": "x"}])
    copy = plan(m, writes=("old/CLAUDE.md",))
    assert m.ok("copy_files", project_id=DECK_ID, plan_token=copy,
                files=[{"src": "CLAUDE.md", "dest": "old/CLAUDE.md"}])["copied"] == 1
    unplanned = plan(m, deletes=("index.html",))
    refused = m.tool("delete_files", project_id=DECK_ID, plan_token=unplanned,
                     paths=["CLAUDE.md"])
    assert "not_covered" in error_text(refused)
    gone = plan(m, deletes=("CLAUDE.md", "old/CLAUDE.md"))
    m.ok("delete_files", project_id=DECK_ID, plan_token=gone,
         paths=["CLAUDE.md", "old/CLAUDE.md"])
    assert not {"CLAUDE.md", "old/CLAUDE.md"} & files_of(m).keys()


@pytest.mark.parametrize(("path", "rule"), [
    ("../CLAUDE.md", "traversal"), (".claude/../x", "traversal"),
    ("a\x01/CLAUDE.md", "control_character"), ("p\u0430ypal/CLAUDE.md", "mixed_script"),
])
def test_what_section_7_bars_stays_refused_with_a_plan(m: McpClient, path: str,
                                                       rule: str) -> None:
    assert f"Path refused ({rule})" in error_text(
        m.tool("finalize_plan", project_id=DECK_ID, writes=[path]))
