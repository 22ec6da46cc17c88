"""ProjectsClient against an in-memory fake of both routes: gates, scope expansion and
its notice, reads and their limits, search and its 403 fallback, writes, the budget,
deletes, the journal, the dispatcher, serialisation and redaction."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_projects import ORG, PROJECT, SESSION_PATH, WEB, FakeProjects, error, flat, raw_body

from jupyter_design_projects.core.budgets import INLINE_MAX_BYTES, RAW_MAX_BYTES, RESULT_MAX_CHARS
from jupyter_design_projects.core.project_paths import RULE_UPLOAD
from jupyter_design_projects.core.redaction import REDACTED, Secret
from jupyter_design_projects.errors import (
    DeadlineExceeded,
    DocNotFound,
    DownloadFailed,
    GateClosed,
    InvalidProjectsArgument,
    KnowledgeBudgetExceeded,
    MalformedProjectsAnswer,
    NoAttachedProject,
    PathRejected,
    ProjectsApiError,
    ReplaceIncomplete,
    UploadRejected,
)
from jupyter_design_projects.projects import api as api_module
from jupyter_design_projects.projects.client import FRAMING, ProjectsClient
from jupyter_design_projects.projects.journal import Journal
from jupyter_design_projects.settings import Settings

JWT = "eyJhbGciOiJIUzI1NiJ9.session-token-value-0123456789"
ROUTES = ["org", "remote-session"]


class Scopes:
    def __init__(self, notice: str | None = "scopes added") -> None:
        self.calls = 0
        self.notice = notice

    async def __call__(self) -> str | None:
        self.calls += 1
        return self.notice


@pytest.fixture
def fake() -> FakeProjects:
    return FakeProjects()


@pytest.fixture
def make(fake: FakeProjects, tmp_path: Path):
    def build(route: str = "org", *, journal: bool = True, scopes: Scopes | None = None,
              **settings: Any) -> ProjectsClient:
        values: dict[str, Any] = {"api_base_url": WEB, "web_base_url": WEB,
                                  "project_uuid": PROJECT, "org_uuid": ORG}
        if route == "remote-session":
            values["session_jwt"] = Secret(JWT)
        values.update(settings)
        http = httpx.AsyncClient(transport=fake.transport())  # MockTransport holds no sockets
        client = ProjectsClient(
            http, Settings(**values), ensure_scopes=scopes or Scopes(None),
            temp_dir=tmp_path / "downloads", cwd=tmp_path / "work",
            journal=Journal(tmp_path / "journal.db") if journal else None,
        )
        return client

    return build


def ops(fake: FakeProjects) -> list[str]:
    """What was asked, as `METHOD path` (org) or `op` (remote session)."""
    return [body["op"] if path == SESSION_PATH else f"{method} {path.rsplit('/', 2)[-2:]}"
            for method, path, body in fake.requests]


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
    from jupyter_design_projects.errors import ConfigError

    client = make(project_uuid="../../other")
    with pytest.raises(ConfigError) as caught:
        await client.info()
    assert caught.value.setting == "project_uuid"
    assert fake.requests == []


# ---------------------------------------------------------------- info and read


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_info_shows_metadata_instructions_docs_uploads_sources_and_stats(
        make, fake, route) -> None:
    fake.add_doc("a.md", "abcd")
    fake.add_file("r.pdf", "document", b"%PDF", extracted="text")
    info = await make(route).info()
    assert info["project"]["uuid"] == PROJECT
    assert info["instructions"] == "be kind"
    assert [d["path"] for d in info["docs"]] == ["a.md"]
    assert [(u["path"], u["file_kind"]) for u in info["uploads"]] == [("r.pdf", "document")]
    assert info["sync_sources"] == [{"type": "github", "config": {}}]
    assert info["knowledge_stats"]["knowledge_size"] == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_text_doc_of_exactly_the_inline_limit_is_inline(make, fake, route) -> None:
    content = "é" * (INLINE_MAX_BYTES // 2)
    fake.add_doc("big.md", content)
    result = await make(route).read("./big.md")
    assert (result["kind"], result["path"], result["content"]) == ("doc", "big.md", content)
    assert "local_file" not in result


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_one_byte_over_the_inline_limit_is_saved_to_a_0600_file(
        make, fake, route, tmp_path) -> None:
    content = "x" * (INLINE_MAX_BYTES + 1)
    fake.add_doc("big.md", content)
    result = await make(route).read("big.md")
    saved = Path(result["local_file"])
    assert "content" not in result and result["bytes"] == INLINE_MAX_BYTES + 1
    assert saved.name.startswith("project-doc-") and saved.suffix == ".txt"
    assert saved.parent == tmp_path / "downloads"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700
    assert saved.read_text() == content


@pytest.mark.asyncio
async def test_a_text_doc_wins_over_an_upload_of_the_same_path(make, fake) -> None:
    fake.add_doc("same.md", "the doc")
    fake.add_file("same.md", "other", b"bytes")
    assert (await make().read("same.md"))["content"] == "the doc"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_document_upload_reads_its_extracted_text(make, fake, route) -> None:
    file_uuid = fake.add_file("r.pdf", "document", b"%PDF", extracted="Quarterly review")
    result = await make(route).read("r.pdf")
    assert result == {"path": "r.pdf", "kind": "extracted", "file_uuid": file_uuid,
                      "bytes": 16, "content": "Quarterly review"}


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_an_image_upload_is_downloaded_raw_to_a_0600_file(make, fake, route) -> None:
    data = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    fake.add_file("../../evil name?.png", "image", data)
    seen: list[tuple] = []
    client = make(route)
    client._progress = lambda label, done, total: seen.append((done, total))
    result = await client.read("../../evil name?.png")
    saved = Path(result["local_file"])
    assert saved.read_bytes() == data and result["bytes"] == len(data)
    assert saved.name.startswith("project-file-") and saved.name.endswith("-evilname.png")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert seen == [(0, len(data)), (len(data), len(data))]


@pytest.mark.asyncio
async def test_a_missing_path_lists_at_most_30_available_paths(make, fake) -> None:
    for i in range(40):
        fake.add_doc(f"doc-{i:02}.md", "x")
    with pytest.raises(DocNotFound) as caught:
        await make().read("nope.md")
    assert caught.value.path == "nope.md"
    assert caught.value.available == [f"doc-{i:02}.md" for i in range(30)]


@pytest.mark.asyncio
@pytest.mark.parametrize("file_uuid", ["0F8FAD5B-D9CB-469F-A165-70867728950E",
                                       "{0f8fad5b-d9cb-469f-a165-70867728950e}",
                                       "../../../admin"])
async def test_a_file_id_that_is_not_canonical_is_never_requested(make, fake, file_uuid) -> None:
    fake.add_file("x.png", "image", b"x", file_uuid=file_uuid)
    with pytest.raises(DownloadFailed) as caught:
        await make().read("x.png")
    assert caught.value.file_uuid == file_uuid
    assert [p for _m, p, _b in fake.requests if "/files/" in p] == []


@pytest.mark.asyncio
async def test_an_upload_listed_over_20_mib_is_not_downloaded(make, fake) -> None:
    fake.add_file("huge.bin", "other", b"x", listed_size=RAW_MAX_BYTES + 1)
    with pytest.raises(DownloadFailed):
        await make().read("huge.bin")
    assert [p for _m, p, _b in fake.requests if p.endswith("/raw")] == []


@pytest.mark.asyncio
async def test_a_413_download_is_a_download_failure(make, fake) -> None:
    fake.add_file("huge.bin", "other", b"x")
    fake.intercept = lambda m, p, b: (error(413, "request_too_large", "too big")
                                      if p.endswith("/raw") else None)
    with pytest.raises(DownloadFailed):
        await make().read("huge.bin")


def _misreport(fake: FakeProjects, times: int, op_or_suffix: str = "/raw"):
    left = [times]

    def intercept(method: str, path: str, body: Any) -> httpx.Response | None:
        is_raw = path.endswith("/raw") or (body or {}).get("op") == "read-file-raw"
        if is_raw and left[0] > 0:
            left[0] -= 1
            file_uuid = body["file_uuid"] if body else path.split("/")[-2]
            f = fake.files[file_uuid]
            return httpx.Response(200, json=raw_body(file_uuid, f["file_name"], f["data"],
                                                     size=len(f["data"]) + 7))
        return None

    return intercept


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_size_misreported_once_is_retried_in_full(make, fake, route) -> None:
    fake.add_file("p.png", "image", b"pixels")
    fake.intercept = _misreport(fake, 1)
    result = await make(route).read("p.png")
    assert Path(result["local_file"]).read_bytes() == b"pixels"
    raw_requests = [r for r in fake.requests
                    if r[1].endswith("/raw") or (r[2] or {}).get("op") == "read-file-raw"]
    assert len(raw_requests) == 2


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_size_misreported_twice_fails_and_leaves_no_file(
        make, fake, route, tmp_path) -> None:
    file_uuid = fake.add_file("p.png", "image", b"pixels")
    fake.intercept = _misreport(fake, 2)
    with pytest.raises(DownloadFailed) as caught:
        await make(route).read("p.png")
    assert caught.value.file_uuid == file_uuid
    assert "concurrent modification" in caught.value.reason
    downloads = tmp_path / "downloads"
    assert not downloads.exists() or list(downloads.iterdir()) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("encoded", ["cGl4ZWxz\n", "cGl4ZWxz!!", "cGl4ZWx", "cGl4 ZWxz", "пиксели"])
async def test_base64_is_decoded_strictly(make, fake, encoded, tmp_path) -> None:
    file_uuid = fake.add_file("p.png", "image", b"pixels")
    fake.intercept = lambda m, p, b: (httpx.Response(200, json=raw_body(
        file_uuid, "p.png", b"pixels", encoded=encoded)) if p.endswith("/raw") else None)
    with pytest.raises(DownloadFailed):
        await make().read("p.png")
    assert not (tmp_path / "downloads").exists()


def test_exactly_20_mib_decodes_and_one_byte_more_does_not() -> None:
    from jupyter_design_projects.projects.reading import decode_raw

    uid = "0f8fad5b-d9cb-469f-a165-70867728950e"
    exact = bytes(RAW_MAX_BYTES)
    data, reported = decode_raw(raw_body(uid, "f", exact), uid)
    assert len(data) == reported == RAW_MAX_BYTES
    with pytest.raises(DownloadFailed):
        decode_raw(raw_body(uid, "f", exact + b"\0"), uid)


@pytest.mark.asyncio
async def test_a_detail_of_the_wrong_shape_is_a_malformed_answer(make, fake) -> None:
    fake.intercept = lambda m, p, b: httpx.Response(200, json={"documents": "nope"})
    with pytest.raises(MalformedProjectsAnswer):
        await make().info()


# ---------------------------------------------------------------- search


@pytest.mark.asyncio
@pytest.mark.parametrize("n", [0, 16, -1, True, 2.5, "5"])
async def test_search_n_outside_1_to_15_is_refused_before_any_request(make, fake, n) -> None:
    with pytest.raises(InvalidProjectsArgument) as caught:
        await make().search("q", n)
    assert caught.value.field == "n"
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("n", [1, 15])
async def test_search_n_at_the_bounds_is_sent(make, fake, n) -> None:
    await make().search("q", n)
    assert fake.requests[-1][1].endswith("/kb/search")


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_search_projects_hits_best_first_and_at_most_n(make, fake, route) -> None:
    fake.search_answer = {
        "text_results": [{"doc_uuid": "d1", "name": "a.md", "score": 1.0, "chunk": {"text": "A"}},
                         {"doc_uuid": "d2", "name": "b.md", "score": 3.0, "chunk": {"text": "B"}}],
        "rich_content_results": [{"file_uuid": "f1", "name": "r.pdf", "score": 2.0,
                                  "chunk": {"text": "R"}}],
    }
    result = await make(route).search("q", 2)
    assert result["rag"] is True
    assert result["hits"] == [{"name": "b.md", "doc_uuid": "d2", "text": "B"},
                              {"name": "r.pdf", "doc_uuid": "f1", "text": "R"}]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_only_a_403_falls_back_to_the_docs_list(make, fake, route) -> None:
    fake.add_doc("a.md", "x")
    fake.intercept = lambda m, p, b: (
        (flat(403, "disabled") if route != "org" else error(403, "permission_error", "off"))
        if p.endswith("/kb/search") or (b or {}).get("op") == "kb-search" else None)
    result = await make(route).search("q")
    assert result["rag"] is False and "hits" not in result
    assert [d["path"] for d in result["docs"]] == ["a.md"]
    assert "not hits" in result["note"]


@pytest.mark.asyncio
@pytest.mark.parametrize("status", [400, 401, 404, 429, 500, 529])
async def test_other_search_errors_raise(make, fake, status) -> None:
    fake.intercept = lambda m, p, b: (error(status, "api_error", "no")
                                      if p.endswith("/kb/search") else None)
    with pytest.raises(ProjectsApiError) as caught:
        await make().search("q")
    assert caught.value.status == status


# ---------------------------------------------------------------- write and delete


@pytest.mark.asyncio
@pytest.mark.parametrize("kwargs", [{}, {"content": "a", "local_path": "b"}])
async def test_write_needs_exactly_one_of_content_and_local_path(make, fake, kwargs) -> None:
    with pytest.raises(InvalidProjectsArgument):
        await make().write("a.md", **kwargs)
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("path", "existing", "final", "replaced"), [
    ("notes.md", None, "claude/notes.md", False),
    ("./notes.md", None, "claude/notes.md", False),
    ("team/notes.md", None, "team/notes.md", False),
    ("notes.md", "notes.md", "notes.md", True),
    ("notes.md", "claude/notes.md", "claude/notes.md", True),
])
async def test_write_resolves_the_path(make, fake, route, path, existing, final, replaced) -> None:
    if existing:
        fake.add_doc(existing, "old")
    result = await make(route).write(path, content="new")
    assert (result["path"], result["replaced"], result["bytes"]) == (final, replaced, 3)
    assert [d["content"] for d in fake.docs.values() if d["file_name"] == final] == ["new"]
    assert len(fake.docs) == 1


@pytest.mark.asyncio
async def test_org_replace_is_one_patch(make, fake) -> None:
    doc_uuid = fake.add_doc("a.md", "old")
    result = await make(journal=False).write("a.md", content="new")
    assert result["doc_uuid"] == doc_uuid
    assert [m for m, _p, _b in fake.requests] == ["GET", "PATCH"]


@pytest.mark.asyncio
async def test_remote_session_replace_is_delete_then_create(make, fake) -> None:
    fake.add_doc("a.md", "old")
    await make("remote-session", journal=False).write("a.md", content="new")
    assert [b["op"] for _m, _p, b in fake.requests] == ["detail", "delete-doc", "write-doc"]


@pytest.mark.asyncio
async def test_a_create_failing_after_the_delete_is_a_half_done_replace(make, fake) -> None:
    doc_uuid = fake.add_doc("a.md", "old content")
    fake.intercept = lambda m, p, b: (flat(500, "create failed")
                                      if b.get("op") == "write-doc" else None)
    client = make("remote-session")
    with pytest.raises(ReplaceIncomplete) as caught:
        await client.write("a.md", content="new")
    assert (caught.value.path, caught.value.deleted_doc_uuid) == ("a.md", doc_uuid)
    assert fake.docs == {}
    entry = client.history()[0]
    assert (entry["action"], entry["previous_doc_uuid"], entry["has_previous"]) == (
        "replace_incomplete", doc_uuid, True)
    fake.intercept = None
    restored = await client.restore(entry["id"])
    assert (restored["path"], restored["replaced"]) == ("a.md", False)
    assert [d["content"] for d in fake.docs.values()] == ["old content"]


@pytest.mark.asyncio
async def test_a_failed_delete_of_a_remote_session_replace_changes_nothing(make, fake) -> None:
    fake.add_doc("a.md", "old")
    fake.intercept = lambda m, p, b: flat(500, "no") if b.get("op") == "delete-doc" else None
    with pytest.raises(ProjectsApiError):
        await make("remote-session").write("a.md", content="new")
    assert [d["content"] for d in fake.docs.values()] == ["old"]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_the_knowledge_budget_allows_exactly_the_maximum(make, fake, route) -> None:
    fake.add_doc("a.md", "x" * 40)  # 10 tokens
    fake.max_knowledge_size = 10 + 3
    result = await make(route).write("b.md", content="y" * 12)  # 3 tokens
    assert result["path"] == "claude/b.md"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_one_token_over_the_budget_is_refused_before_any_write(make, fake, route) -> None:
    fake.add_doc("a.md", "x" * 40)
    fake.max_knowledge_size = 10 + 3
    with pytest.raises(KnowledgeBudgetExceeded) as caught:
        await make(route).write("a.md", content="y" * 13)  # 4 tokens, a replace
    assert (caught.value.knowledge_size, caught.value.estimate,
            caught.value.max_knowledge_size) == (10, 4, 13)
    assert len(fake.requests) == 1  # the detail only
    assert [d["content"] for d in fake.docs.values()] == ["x" * 40]


@pytest.mark.asyncio
async def test_write_from_local_path_uploads_the_file_text(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "report.md").write_text("# Report\n")
    result = await make().write("report.md", local_path="report.md")
    assert result["local_path"] == os.path.realpath(tmp_path / "work" / "report.md")
    assert [d["content"] for d in fake.docs.values()] == ["# Report\n"]


@pytest.mark.asyncio
async def test_a_refused_local_path_sends_nothing(make, fake, tmp_path) -> None:
    (tmp_path / "work").mkdir()
    with pytest.raises(UploadRejected) as caught:
        await make().write("x.md", local_path="../journal.db")
    assert caught.value.rule == "outside_cwd"
    assert fake.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_delete_removes_a_text_doc(make, fake, route) -> None:
    doc_uuid = fake.add_doc("a.md", "x")
    result = await make(route).delete("./a.md")
    assert (result["path"], result["doc_uuid"], result["deleted"]) == ("a.md", doc_uuid, True)
    assert fake.docs == {}


@pytest.mark.asyncio
async def test_an_upload_cannot_be_deleted(make, fake) -> None:
    fake.add_file("r.pdf", "document", b"x")
    with pytest.raises(PathRejected) as caught:
        await make().delete("r.pdf")
    assert caught.value.rule == RULE_UPLOAD
    assert [m for m, _p, _b in fake.requests] == ["GET"]


@pytest.mark.asyncio
async def test_deleting_a_missing_doc_lists_what_exists(make, fake) -> None:
    fake.add_doc("a.md", "x")
    with pytest.raises(DocNotFound) as caught:
        await make().delete("b.md")
    assert caught.value.available == ["a.md"]


# ---------------------------------------------------------------- journal and restore


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_journal_and_restore_round_trip(make, fake, route) -> None:
    client = make(route)
    created = await client.write("notes.md", content="v1")
    await client.write("notes.md", content="v2")
    await client.delete("claude/notes.md")
    history = client.history()
    assert [e["action"] for e in history] == ["delete", "replace", "create"]
    assert history[2]["doc_uuid"] == created["doc_uuid"] and history[2]["bytes"] == 2
    assert [e["has_previous"] for e in history] == [True, True, False]
    restored = await client.restore(history[0]["id"])  # brings back v2
    assert (restored["path"], restored["restored_from"]) == ("claude/notes.md", history[0]["id"])
    assert [d["content"] for d in fake.docs.values()] == ["v2"]
    await client.restore(history[1]["id"])  # the replace removed v1
    assert [d["content"] for d in fake.docs.values()] == ["v1"]
    assert client.history(limit=1)[0]["restored_from"] == history[1]["id"]


@pytest.mark.asyncio
async def test_restore_keeps_a_bare_path_bare(make, fake) -> None:
    fake.add_doc("README.md", "original")
    client = make()
    await client.delete("README.md")
    result = await client.restore(client.history()[0]["id"])
    assert result["path"] == "README.md"


@pytest.mark.asyncio
async def test_an_entry_without_previous_content_cannot_be_restored(make, fake) -> None:
    client = make()
    await client.write("a.md", content="x")
    with pytest.raises(InvalidProjectsArgument) as caught:
        await client.restore(client.history()[0]["id"])
    assert caught.value.field == "entry_id"


@pytest.mark.asyncio
async def test_another_projects_entry_cannot_be_restored(make, fake, tmp_path) -> None:
    other = Journal(tmp_path / "journal.db").record(
        project_uuid="99999999-2222-4333-8444-555555555555", action="delete", path="a.md",
        doc_uuid=None, previous_content="theirs")
    with pytest.raises(InvalidProjectsArgument):
        await make().restore(other)
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
async def test_call_caps_the_result_at_300000_chars(make, fake) -> None:
    for i in range(6000):
        fake.add_doc(f"a-very-long-document-name-number-{i:05}.md", "x")
    result = await make().call("project_info", {})
    import json

    assert len(json.dumps(result, ensure_ascii=False)) <= RESULT_MAX_CHARS
    assert result["truncated"] is True and result["framing"] == FRAMING


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
async def test_a_request_that_never_answers_hits_the_deadline(make, fake, monkeypatch) -> None:
    monkeypatch.setattr(api_module, "DEADLINE_S", 0.05)
    never = asyncio.Event()

    async def hang(method: str, path: str, body: Any) -> None:
        await never.wait()

    fake.intercept = hang
    with pytest.raises(DeadlineExceeded) as caught:
        await make().info()
    assert caught.value.seconds == 0.05


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
