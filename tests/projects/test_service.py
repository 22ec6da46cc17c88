"""The Projects pipeline on both routes against the real reference service on loopback:
reads (inline, spilled, raw, extracted), search and its 403 fallback, writes and the
namespace rule, replace on each route (and the half-done one), deletes, the knowledge
budget at its exact boundary, raw size misreports, and journal + restore."""

from __future__ import annotations

import base64
import os
import stat
import uuid
from pathlib import Path

import pytest

from jupyter_design_projects.core.budgets import INLINE_MAX_BYTES
from jupyter_design_projects.core.project_paths import RULE_UPLOAD
from jupyter_design_projects.core.redaction import REDACTED
from jupyter_design_projects.errors import (
    DocNotFound,
    DownloadSizeMismatch,
    KnowledgeBudgetExceeded,
    PathRejected,
    ProjectsApiError,
    ReplaceIncomplete,
)
from tests.projects.projects_harness import NOTICE, Arming

ROUTES = ["org", "remote-session"]
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def unique(stem: str) -> str:
    return f"{stem}-{uuid.uuid4().hex[:8]}.md"


def writes_counted(counts: dict[str, int]) -> int:
    """Doc-changing requests on either route (the remote-session route counts every op)."""
    return sum(n for key, n in counts.items()
               if key.startswith(("POST /api/", "PATCH /api/", "DELETE /api/"))
               or key.startswith("POST /v2/ccr-sessions"))


# ---------------------------------------------------------------- info and reads


@pytest.mark.asyncio
async def test_first_org_result_carries_the_scope_upgrade_notice(
        reference_service, open_projects) -> None:
    async with open_projects(reference_service, "org") as client:
        first = await client.info()
        second = await client.info()
    assert first["notice"] == NOTICE and "notice" not in second
    assert client.expander.calls == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_info_shows_the_attached_project(service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        info = await client.info()
    assert info["project"]["uuid"] == service.project_uuid
    assert info["project"]["name"] == "Team Handbook"
    assert info["instructions"]
    assert "onboarding.md" in [d["path"] for d in info["docs"]]
    assert {u["file_kind"] for u in info["uploads"]} >= {"document", "image", "other"}
    assert [s["type"] for s in info["sync_sources"]] == ["github"]
    stats = info["knowledge_stats"]
    assert 0 < stats["knowledge_size"] <= stats["max_knowledge_size"]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_read_a_text_doc_inline(service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        result = await client.read("./onboarding.md")
    assert (result["kind"], result["path"]) == ("doc", "onboarding.md")
    assert result["content"].startswith("#")


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_doc_over_the_inline_limit_is_read_into_a_0600_file(
        service, switches, open_projects, route) -> None:
    name = f"team/{unique('big')}"
    at_limit, over = "a" * INLINE_MAX_BYTES, "b" * (INLINE_MAX_BYTES + 1)
    async with open_projects(service, route) as client:
        await client.write(name, content=at_limit)
        assert (await client.read(name))["content"] == at_limit
        await client.write(name, content=over)
        result = await client.read(name)
        await client.delete(name)
    saved = Path(result["local_file"])
    assert "content" not in result and saved.read_text() == over
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert stat.S_IMODE(saved.parent.stat().st_mode) == 0o700


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_document_upload_reads_extracted_text(
        service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        result = await client.read("Q3 Research Review.pdf")
    assert result["kind"] == "extracted"
    assert result["content"].startswith("Q3 Research Review")


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_an_image_upload_is_downloaded_raw(service, switches, open_projects, route) -> None:
    name = f"pixel {uuid.uuid4().hex[:6]}.png"
    switches.upload(file_name=name, file_kind="image", mime_type="image/png",
                    data_b64=base64.b64encode(PNG).decode())
    async with open_projects(service, route) as client:
        result = await client.read(name)
    saved = Path(result["local_file"])
    assert saved.read_bytes() == PNG and result["bytes"] == len(PNG)
    assert saved.name.endswith("-pixel" + name[6:12] + ".png")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_write_streamed_in_slices_arrives_exactly_and_a_replace_too(
        service, switches, open_projects, route) -> None:
    """Over several slices of JsonBody (JsonBody.SLICE_CHARS each), non-ASCII and JSON
    escapes cut at slice boundaries: the service stores exactly the text written, on create
    and replace."""
    name = f"team/{unique('streamed')}"
    unit = 'é"\\\n\t€𝄞 plain words '
    first = (unit * (2 * (1 << 20) // len(unit) + 7))[: 2 * (1 << 20) + 3]
    second = first[::-1]
    async with open_projects(service, route) as client:
        created = await client.write(name, content=first)
        assert (await client.read(name))["local_file"]
        assert Path((await client.read(name))["local_file"]).read_text() == first
        replaced = await client.write(name, content=second)
        assert Path((await client.read(name))["local_file"]).read_text() == second
        await client.delete(name)
    assert created["bytes"] == len(first.encode()) and replaced["replaced"] is True


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_raw_download_of_many_chunks_is_decoded_as_it_arrives(
        service, switches, open_projects, route) -> None:
    data = os.urandom(3 * 1024 * 1024 + 1)  # its answer spans many reads
    name = f"blob {uuid.uuid4().hex[:6]}.bin"
    switches.upload(file_name=name, file_kind="other", mime_type="application/octet-stream",
                    data_b64=base64.b64encode(data).decode())
    async with open_projects(service, route) as client:
        result = await client.read(name)
    saved = Path(result["local_file"])
    assert saved.read_bytes() == data and result["bytes"] == len(data)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600


@pytest.mark.asyncio
async def test_a_missing_path_lists_available_paths(service, switches, open_projects) -> None:
    async with open_projects(service) as client:
        with pytest.raises(DocNotFound) as caught:
            await client.read("no-such-doc.md")
    assert "onboarding.md" in caught.value.available
    assert len(caught.value.available) <= 30


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_size_misreported_once_is_retried(service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        upload = next(u for u in (await client.info())["uploads"] if u["file_kind"] == "image")
        switches.misreport_size(upload["file_uuid"])
        result = await client.read(upload["path"])
    assert Path(result["local_file"]).stat().st_size == upload["file_size_bytes"]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_a_size_misreported_twice_fails_with_no_file_left(
        service, switches, open_projects, route, tmp_path) -> None:
    raw_requests = []

    def misreport_every_raw_download(op: str) -> None:
        if op == "read-file-raw" or op.endswith("/raw"):
            raw_requests.append(op)
            switches.misreport_size(file_uuid)

    async with open_projects(service, route, transport=Arming(before=misreport_every_raw_download),
                             temp_dir=tmp_path / "dl") as client:
        upload = next(u for u in (await client.info())["uploads"] if u["file_kind"] == "image")
        file_uuid = upload["file_uuid"]
        with pytest.raises(DownloadSizeMismatch) as caught:
            await client.read(upload["path"])
    assert caught.value.file_uuid == file_uuid and len(raw_requests) == 2
    assert len(caught.value.sizes) == 2
    assert not (tmp_path / "dl").exists() or list((tmp_path / "dl").iterdir()) == []


# ---------------------------------------------------------------- search


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_search_returns_ranked_hits(service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        result = await client.search("incident severity status page", n=3)
    assert result["rag"] is True and 1 <= len(result["hits"]) <= 3
    assert result["hits"][0]["name"] == "incident-runbook.md"
    assert all(set(hit) == {"name", "doc_uuid", "text"} for hit in result["hits"])


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_disabled_search_falls_back_to_the_docs_list(
        service, switches, open_projects, route) -> None:
    switches.search(service.project_uuid, enabled=False)
    async with open_projects(service, route) as client:
        result = await client.search("incident")
    assert result["rag"] is False and "hits" not in result
    assert "onboarding.md" in [d["path"] for d in result["docs"]]


@pytest.mark.asyncio
async def test_a_search_server_error_is_not_a_fallback(service, switches, open_projects) -> None:
    switches.fail("/api/organizations/*", method="GET", status=500, count=1)
    async with open_projects(service) as client:
        await client.expander()  # expand first: the injected failure is the search
        with pytest.raises(ProjectsApiError) as caught:
            await client.search("incident")
    assert caught.value.status == 500


# ---------------------------------------------------------------- writes and deletes


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_write_create_replace_and_delete(service, switches, open_projects, route) -> None:
    name = unique("notes")
    async with open_projects(service, route) as client:
        created = await client.write(name, content="first")
        assert (created["path"], created["replaced"]) == (f"claude/{name}", False)
        switches.reset()
        replaced = await client.write(name, content="second")
        counts = switches.counts()
        assert (replaced["path"], replaced["replaced"]) == (f"claude/{name}", True)
        assert (await client.read(f"claude/{name}"))["content"] == "second"
        spaced = await client.write(f"team/{name}", content="kept")
        assert spaced["path"] == f"team/{name}"
        deleted = await client.delete(f"claude/{name}")
        await client.delete(f"team/{name}")
        assert deleted["deleted"] is True
        paths = [d["path"] for d in (await client.info())["docs"]]
    assert f"claude/{name}" not in paths and f"team/{name}" not in paths
    if route == "org":
        assert sum(n for k, n in counts.items() if k.startswith("PATCH ")) == 1
        assert sum(n for k, n in counts.items() if k.startswith("DELETE ")) == 0
    else:
        assert replaced["doc_uuid"] != created["doc_uuid"]  # delete + create


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_an_upload_cannot_be_deleted(service, switches, open_projects, route) -> None:
    async with open_projects(service, route) as client:
        with pytest.raises(PathRejected) as caught:
            await client.delete("team-palette.png")
    assert caught.value.rule == RULE_UPLOAD


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_the_knowledge_budget_at_its_exact_boundary(
        service, switches, open_projects, route) -> None:
    tokens = 25
    content = "k" * (tokens * 4)
    async with open_projects(service, route) as client:
        size = (await client.info())["knowledge_stats"]["knowledge_size"]
        switches.knowledge(service.project_uuid, max_knowledge_size=size + tokens)
        allowed = await client.write(unique("fits"), content=content)
        size = (await client.info())["knowledge_stats"]["knowledge_size"]
        switches.knowledge(service.project_uuid, max_knowledge_size=size + tokens - 1)
        before = writes_counted(switches.counts())
        with pytest.raises(KnowledgeBudgetExceeded) as caught:
            await client.write(unique("over"), content=content)
        after = writes_counted(switches.counts())
        await client.delete(allowed["path"])
    assert (caught.value.knowledge_size, caught.value.estimate,
            caught.value.max_knowledge_size) == (size, tokens, size + tokens - 1)
    # the refusal sent only the detail (one POST on the remote-session route, none on org)
    assert after - before == (1 if route == "remote-session" else 0)


@pytest.mark.asyncio
async def test_a_remote_session_replace_failing_after_the_delete_is_half_done(
        service, switches, open_projects) -> None:
    name = unique("half")
    async with open_projects(service, "remote-session") as client:
        created = await client.write(name, content="precious")
        # the next write-doc — the create that follows the replace's delete — is refused
        switches.fail("/v2/ccr-sessions/-/chat-project", method="POST", op="write-doc",
                      status=500, body={"error": "injected", "code": "api_error"})
        with pytest.raises(ReplaceIncomplete) as caught:
            await client.write(name, content="replacement")
        paths = [d["path"] for d in (await client.info())["docs"]]
        entry = client.history(limit=1)[0]
        restored = await client.restore(entry["id"])
        content = (await client.read(f"claude/{name}"))["content"]
        await client.delete(f"claude/{name}")
    assert type(caught.value) is ReplaceIncomplete
    assert caught.value.deleted_doc_uuid == created["doc_uuid"]
    assert f"claude/{name}" not in paths  # the truth: the old doc is gone
    assert (entry["action"], entry["has_previous"]) == ("replace_incomplete", True)
    assert restored["path"] == f"claude/{name}" and content == "precious"


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_journal_and_restore_round_trip(service, switches, open_projects, route) -> None:
    name = unique("journal")
    async with open_projects(service, route) as client:
        await client.write(name, content="v1")
        await client.write(name, content="v2")
        await client.delete(f"claude/{name}")
        history = client.history(limit=3)
        assert [e["action"] for e in history] == ["delete", "replace", "create"]
        await client.restore(history[0]["id"])
        assert (await client.read(f"claude/{name}"))["content"] == "v2"
        await client.restore(history[1]["id"])
        assert (await client.read(f"claude/{name}"))["content"] == "v1"
        await client.delete(f"claude/{name}")


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_write_from_a_local_file(service, switches, open_projects, route, tmp_path) -> None:
    (tmp_path / "summary.md").write_text("# Summary\nAll good.\n")
    async with open_projects(service, route) as client:
        result = await client.write(unique("summary"), local_path="summary.md")
        content = (await client.read(result["path"]))["content"]
        await client.delete(result["path"])
    assert result["local_path"] == os.path.realpath(tmp_path / "summary.md")
    assert content == "# Summary\nAll good.\n"


@pytest.mark.asyncio
async def test_a_session_token_echoed_by_the_service_is_redacted(
        service, switches, open_projects) -> None:
    switches.fail("/v2/ccr-sessions/-/chat-project", method="POST", status=400,
                  body={"error": f"bad token {service.session_jwt}", "code": "invalid_request"})
    async with open_projects(service, "remote-session") as client:
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    assert service.session_jwt not in str(caught.value)
    assert service.session_jwt not in repr(caught.value)
    assert REDACTED in caught.value.body
