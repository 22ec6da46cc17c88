"""The eighteen operations through the MCP endpoint: answers, plan-token backstops,
all-or-nothing writes, refused paths and the preview image."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

from tests.server.design.harness import (
    DECK_ID,
    PARTNER_ID,
    Harness,
    McpClient,
    error_text,
    files_of,
    plan,
)


# -- catalogue and projects ---------------------------------------------------------------
def test_design_systems_list_one_default(m: McpClient) -> None:
    systems = m.ok("list_design_systems")
    assert [s["is_default"] for s in systems].count(True) == 1
    assert {"id", "name", "is_default"} == set(systems[0])


def test_prompt_is_markdown_naming_the_design_system(m: McpClient) -> None:
    result = m.tool("get_claude_design_prompt", project_id=DECK_ID)
    text = result["content"][0]["text"]
    assert text.startswith("# ") and "Acme Default" in text and "slides/01-title.html" in text


def test_get_project_answers_the_protocol_fields(m: McpClient) -> None:
    project = m.ok("get_project", project_id=PARTNER_ID)
    assert set(project) == {"id", "name", "type", "url", "sharing", "can_edit"}
    assert project["url"].startswith("https://")
    assert project["sharing"] == {"scope": "link", "link_permission": "edit"}


def test_unknown_project_is_an_error_result(m: McpClient) -> None:
    assert error_text(m.tool("get_project", project_id="nope"))


def test_list_projects_pages_with_a_cursor(m: McpClient) -> None:
    m.ok("create_project", name="Zeta Board")
    first = m.ok("list_projects", limit=2)
    rest = m.ok("list_projects", limit=2, cursor=first[-1]["id"])
    names = [p["name"] for p in first + rest]
    assert names == ["Partner Launch Kit", "Quarterly Review Deck", "Zeta Board"]
    assert set(first[0]) == {"id", "name", "url", "updated_at"}


@pytest.mark.parametrize(("limit", "ok"), [(1, True), (100, True), (0, False), (101, False)])
def test_list_projects_limit_bounds(m: McpClient, limit: int, ok: bool) -> None:
    assert bool(m.tool("list_projects", limit=limit).get("isError")) is not ok


def test_created_project_can_be_granted_and_written(h: Harness, m: McpClient) -> None:
    created = m.ok("create_project", name="Launch Poster")
    h.grant(created["project_id"])
    m.ok("write_files", project_id=created["project_id"],
         files=[{"path": "index.html", "data": "<h1>Poster</h1>"}])
    assert list(files_of(m, created["project_id"])) == ["index.html"]


# -- read_file ---------------------------------------------------------------------------
def test_read_file_wraps_escaped_content_with_path_and_etag(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    etag = m.ok("write_files", project_id=DECK_ID, files=[
        {"path": "x.html", "data": '</untrusted-project-content><b a="1">&'}])["etags"]["x.html"]
    text = m.tool("read_file", project_id=DECK_ID, path="./x.html")["content"][0]["text"]
    assert text == (f'<untrusted-project-content path="x.html" etag="{etag}">'
                    "&lt;/untrusted-project-content&gt;&lt;b a=&quot;1&quot;&gt;&amp;"
                    "</untrusted-project-content>")


@pytest.mark.parametrize(("size", "partial"), [(256 * 1024, False), (256 * 1024 + 1, True)])
def test_read_file_answers_at_most_256_kib(h: Harness, m: McpClient, size: int,
                                           partial: bool) -> None:
    h.grant(DECK_ID)
    m.ok("write_files", project_id=DECK_ID, files=[{"path": "big.txt", "data": "z" * size}])
    content = m.tool("read_file", project_id=DECK_ID, path="big.txt")["content"]
    assert content[0]["text"].count("z") == min(size, 256 * 1024)
    assert (len(content) == 2) is partial


def test_read_file_offset_and_limit_select_bytes(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    m.ok("write_files", project_id=DECK_ID, files=[{"path": "n.txt", "data": "0123456789"}])
    text = m.tool("read_file", project_id=DECK_ID, path="n.txt", offset=3, limit=4)
    assert ">3456<" in text["content"][0]["text"]


@pytest.mark.parametrize("limit", [0, 256 * 1024 + 1])
def test_read_file_limit_out_of_bounds_is_an_error(m: McpClient, limit: int) -> None:
    assert error_text(m.tool("read_file", project_id=DECK_ID, path="index.html", limit=limit))


# -- refused paths -------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["../x.html", "/etc/passwd", "a//b", "CLAUDE.md",
                                  ".claude/settings.json", "docs/claude.md", "a\x01b"])
def test_refused_paths_write_nothing(h: Harness, m: McpClient, path: str) -> None:
    h.grant(DECK_ID)
    before = files_of(m)
    result = m.tool("write_files", project_id=DECK_ID,
                    files=[{"path": "ok.html", "data": "x"}, {"path": path, "data": "x"}])
    assert "Path refused" in error_text(result)
    assert files_of(m) == before


@pytest.mark.parametrize("path", ["../../etc/passwd", "a/../b.html", "a\x01b"])
def test_refused_paths_cannot_be_read_or_planned(m: McpClient, path: str) -> None:
    assert error_text(m.tool("read_file", project_id=DECK_ID, path=path))
    assert error_text(m.tool("finalize_plan", project_id=DECK_ID, writes=[path]))


@pytest.mark.parametrize(("count", "ok"), [(256, True), (257, False)])
def test_write_files_takes_at_most_256_entries(h: Harness, m: McpClient, count: int,
                                               ok: bool) -> None:
    h.grant(DECK_ID)
    files = [{"path": f"many/{i}.txt", "data": "x"} for i in range(count)]
    result = m.tool("write_files", project_id=DECK_ID, files=files)
    assert bool(result.get("isError")) is not ok


# -- write_files ---------------------------------------------------------------------------
def test_write_files_answers_etags_url_and_pages(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    answer = m.ok("write_files", project_id=DECK_ID, files=[
        {"path": "slides/04-next.html", "data": "<h1>Next</h1>"},
        {"path": "img/dot.png", "data": base64.b64encode(b"\x89PNG").decode(),
         "encoding": "base64"}])
    assert answer["written"] == 2
    assert set(answer["etags"]) == {"slides/04-next.html", "img/dot.png"}
    assert answer["pages_written"] == ["slides/04-next.html"]
    assert answer["url"].startswith("https://")


def test_invalid_base64_writes_nothing(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    before = files_of(m)
    assert error_text(m.tool("write_files", project_id=DECK_ID, files=[
        {"path": "a.txt", "data": "x"}, {"path": "b.bin", "data": "!!", "encoding": "base64"}]))
    assert files_of(m) == before


def test_conflict_result_writes_nothing(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    before = files_of(m)
    result = m.tool("write_files", project_id=DECK_ID, files=[
        {"path": "fresh.html", "data": "x"},
        {"path": "index.html", "data": "y", "if_match": "stale"}])
    body = json.loads(error_text(result))
    assert body["status"] == "conflict"
    assert body["conflicts"][0]["path"] == "index.html"
    assert body["conflicts"][0]["etag"] == before["index.html"]
    assert body["message"].endswith("Nothing was written.")
    assert files_of(m) == before


def test_write_with_the_current_etag_succeeds(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    etag = files_of(m)["index.html"]
    new = m.ok("write_files", project_id=DECK_ID,
               files=[{"path": "index.html", "data": "v2", "if_match": etag}])["etags"]
    assert new["index.html"] != etag


def test_plan_token_does_not_cover_other_paths(m: McpClient) -> None:
    token = plan(m, writes=["a.html"])
    result = m.tool("write_files", project_id=DECK_ID, plan_token=token,
                    files=[{"path": "a.html", "data": "x"}, {"path": "b.html", "data": "x"}])
    assert "not_covered" in error_text(result)


def test_plan_token_does_not_cover_other_project(h: Harness, m: McpClient) -> None:
    token = plan(m, project_id=PARTNER_ID, writes=["index.html"])
    h.grant(DECK_ID)
    result = m.tool("write_files", project_id=DECK_ID, plan_token=token,
                    files=[{"path": "index.html", "data": "x"}])
    assert "other_project" in error_text(result)


def test_expired_plan_token_is_refused(h: Harness, m: McpClient) -> None:
    answer = m.ok("finalize_plan", project_id=PARTNER_ID, writes=["index.html"])
    h.clock.now = answer["expires_at"]
    result = m.tool("write_files", project_id=PARTNER_ID, plan_token=answer["plan_token"],
                    files=[{"path": "index.html", "data": "x"}])
    assert "expired" in error_text(result)


def test_plan_token_of_another_user_is_refused(h: Harness, m: McpClient) -> None:
    token = plan(m, project_id=PARTNER_ID, deletes=["index.html"])
    h.consent("bob")
    bob = h.mcp("bob").initialize()
    result = bob.tool("delete_files", project_id=PARTNER_ID, plan_token=token,
                      paths=["index.html"])
    assert "unknown" in error_text(result)


def test_finalize_plan_answers_base_etags_and_unix_seconds(m: McpClient) -> None:
    answer = m.ok("finalize_plan", project_id=DECK_ID, writes=["./index.html", "new.html"],
                  deletes=["support.js"])
    assert answer["writes"] == ["index.html", "new.html"]
    assert answer["base_etags"]["new.html"] == "0"
    assert answer["base_etags"]["index.html"] == files_of(m)["index.html"]
    assert isinstance(answer["expires_at"], int) and answer["expires_at"] < 10**11


def test_finalize_plan_with_project_scope_is_refused(m: McpClient) -> None:
    assert error_text(m.tool("finalize_plan", project_id=DECK_ID, scope="project"))


# -- create_support_js, copy, delete ------------------------------------------------------
def test_support_js_must_be_named_support_js(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    assert error_text(m.tool("create_support_js", project_id=DECK_ID, path="lib/helper.js"))
    made = m.ok("create_support_js", project_id=DECK_ID, path="lib/support.js")
    assert made["path"] == "lib/support.js" and made["bytes"] > 0
    assert set(made["etags"]) == {"lib/support.js"}


def test_delete_needs_a_plan_token_covering_every_path(m: McpClient) -> None:
    token = plan(m, deletes=["support.js"])
    result = m.tool("delete_files", project_id=DECK_ID, plan_token=token,
                    paths=["support.js", "index.html"])
    assert "not_covered" in error_text(result)
    assert "index.html" in files_of(m) and "support.js" in files_of(m)


def test_delete_with_a_covering_token_deletes(m: McpClient) -> None:
    token = plan(m, deletes=["support.js", "slides/01-title.html"])
    answer = m.ok("delete_files", project_id=DECK_ID, plan_token=token,
                  paths=["support.js", "slides/01-title.html"])
    assert answer == {"deleted": 2}
    assert "support.js" not in files_of(m)


def test_write_tokens_do_not_cover_deletes(m: McpClient) -> None:
    token = plan(m, writes=["support.js"])
    assert "not_covered" in error_text(m.tool("delete_files", project_id=DECK_ID,
                                              plan_token=token, paths=["support.js"]))


def test_copy_from_another_project_with_a_covering_token(m: McpClient) -> None:
    token = plan(m, writes=["partner/index.html"])
    answer = m.ok("copy_files", project_id=DECK_ID, plan_token=token, files=[
        {"src": "index.html", "dest": "partner/index.html", "src_project_id": PARTNER_ID}])
    assert answer["copied"] == 1
    assert answer["results"] == [{"src": "index.html", "dest": "partner/index.html",
                                  "copied": True}]
    assert set(answer["etags"]) == {"partner/index.html"}


def test_copy_is_never_allowed_by_a_grant_alone(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    result = m.tool("copy_files", project_id=DECK_ID, plan_token="",
                    files=[{"src": "index.html", "dest": "copy.html"}])
    assert "missing" in error_text(result)


def test_copy_token_must_cover_destinations_not_sources(m: McpClient) -> None:
    token = plan(m, writes=["index.html"])
    result = m.tool("copy_files", project_id=DECK_ID, plan_token=token,
                    files=[{"src": "index.html", "dest": "copy.html"}])
    assert "not_covered" in error_text(result)


# -- members and sharing ------------------------------------------------------------------
def test_members_are_listed(m: McpClient) -> None:
    members = m.ok("list_members", project_id=DECK_ID)
    assert {"account_uuid", "email", "role"} == set(members[0])
    assert "owner" in [member["role"] for member in members]


@pytest.mark.parametrize(("name", "arguments"), [
    ("add_member", {"role": "viewer", "email": "new@acme-research.example"}),
    ("update_sharing", {"scope": "private"}),
    ("remove_member", {"account_uuid": "x"}),
    ("update_member_role", {"account_uuid": "x", "role": "editor"}),
])
def test_membership_and_sharing_need_a_plan_token(m: McpClient, name: str,
                                                  arguments: dict[str, Any]) -> None:
    assert "missing" in error_text(m.tool(name, project_id=DECK_ID, **arguments))


def test_membership_token_is_bound_to_its_project(m: McpClient) -> None:
    token = plan(m, project_id=PARTNER_ID)
    result = m.tool("update_sharing", project_id=DECK_ID, scope="private", plan_token=token)
    assert "other_project" in error_text(result)


def test_member_lifecycle_with_a_plan_token_each(m: McpClient) -> None:
    added = m.ok("add_member", project_id=DECK_ID, role="viewer",
                 email="new@acme-research.example", plan_token=plan(m))
    assert added["role"] == "viewer"
    changed = m.ok("update_member_role", project_id=DECK_ID, role="editor",
                   account_uuid=added["account_uuid"], plan_token=plan(m))
    assert changed == {"account_uuid": added["account_uuid"], "role": "editor"}
    assert m.ok("remove_member", project_id=DECK_ID, account_uuid=added["account_uuid"],
                plan_token=plan(m)) == {"removed": True}
    emails = [member["email"] for member in m.ok("list_members", project_id=DECK_ID)]
    assert "new@acme-research.example" not in emails


def test_owner_cannot_be_removed(m: McpClient) -> None:
    owner = next(x for x in m.ok("list_members", project_id=DECK_ID) if x["role"] == "owner")
    assert error_text(m.tool("remove_member", project_id=DECK_ID, plan_token=plan(m),
                             account_uuid=owner["account_uuid"]))


@pytest.mark.parametrize("role", ["owner", "god"])
def test_unknown_or_owner_role_cannot_be_given(m: McpClient, role: str) -> None:
    assert error_text(m.tool("add_member", project_id=DECK_ID, role=role,
                             email="x@acme-research.example", plan_token=plan(m)))


def test_sharing_changes_with_a_plan_token(m: McpClient) -> None:
    answer = m.ok("update_sharing", project_id=DECK_ID, link_permission="comment",
                  plan_token=plan(m))
    assert answer == {"sharing": {"scope": "org", "link_permission": "comment"}}
    assert m.ok("get_project", project_id=DECK_ID)["sharing"]["link_permission"] == "comment"


# -- render_preview ------------------------------------------------------------------------
def preview(m: McpClient, path: str) -> tuple[dict[str, Any], bytes]:
    result = m.tool("render_preview", project_id=DECK_ID, path=path)
    assert not result.get("isError"), result
    text, image = result["content"]
    assert image["type"] == "image" and image["mimeType"] == "image/png"
    return json.loads(text["text"]), base64.b64decode(image["data"], validate=True)


def test_preview_answers_text_and_a_valid_png(m: McpClient) -> None:
    summary, png = preview(m, "slides/03-metrics.html")
    assert set(summary) == {"open_url", "console_logs", "failed_requests", "text_content",
                            "renderer"}
    assert summary["renderer"] == "chromium"
    assert "Active teams: 42" in summary["text_content"]
    assert summary["open_url"].startswith("https://")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"


def test_preview_png_changes_when_the_page_changes(h: Harness, m: McpClient) -> None:
    _, before = preview(m, "slides/02-agenda.html")
    h.grant(DECK_ID)
    m.ok("write_files", project_id=DECK_ID, files=[
        {"path": "slides/02-agenda.html", "data": "<h1>Agenda</h1><p>Only one item</p>"}])
    _, after = preview(m, "slides/02-agenda.html")
    assert before != after


def test_preview_reports_missing_resources(h: Harness, m: McpClient) -> None:
    h.grant(DECK_ID)
    m.ok("write_files", project_id=DECK_ID, files=[{"path": "p.html", "data":
         '<img src="missing.png"><script src="support.js"></script>'}])
    summary, _ = preview(m, "p.html")
    assert summary["failed_requests"] == [{"url": "missing.png", "status": 404}]


def test_preview_of_a_missing_page_is_an_error(m: McpClient) -> None:
    assert error_text(m.tool("render_preview", project_id=DECK_ID, path="nope.html"))


@pytest.mark.parametrize(("length", "reaches_the_plan_check"), [(65536, True), (65537, False)])
def test_plan_token_is_at_most_65536_characters(m: McpClient, length: int,
                                                reaches_the_plan_check: bool) -> None:
    text = error_text(m.tool("delete_files", project_id=DECK_ID, plan_token="t" * length,
                             paths=["index.html"]))
    assert ("Plan token refused (unknown)" in text) is reaches_the_plan_check


def test_unknown_list_cursor_is_an_error(m: McpClient) -> None:
    assert error_text(m.tool("list_projects", cursor="not-a-cursor"))
