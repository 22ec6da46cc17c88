"""ProjectsClient against the in-memory fake: info, read (inline and spilled text,
extracted text, raw downloads and their checks, not-found listings) and search (n, hits,
the 403 fallback)."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import httpx
import pytest

from jupyter_design_projects.core.budgets import INLINE_MAX_BYTES, RAW_MAX_BYTES
from jupyter_design_projects.errors import (
    DocNotFound,
    DownloadFailed,
    DownloadSizeMismatch,
    InvalidProjectsArgument,
    MalformedProjectsAnswer,
    ProjectsApiError,
)
from jupyter_design_projects.projects.reading import RAW_MAX_BASE64_CHARS, decode_raw
from tests.fakes.projects import (
    PROJECT,
    ROUTES,
    FakeProjects,
    error,
    flat,
    raw_body,
)

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
    assert saved.name.startswith("project-doc-") and saved.suffix == ".md"
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
@pytest.mark.parametrize(("docs", "uploads", "listed"), [
    (0, 0, 0), (30, 0, 30), (31, 0, 30), (29, 1, 30), (29, 2, 30), (40, 5, 30),
])
async def test_a_missing_path_lists_at_most_30_available_paths(
        make, fake, docs, uploads, listed) -> None:
    for i in range(docs):
        fake.add_doc(f"doc-{i:02}.md", "x")
    for i in range(uploads):
        fake.add_file(f"up-{i:02}.png", "image", b"x")
    with pytest.raises(DocNotFound) as caught:
        await make().read("nope.md")
    expected = [f"doc-{i:02}.md" for i in range(docs)] + [f"up-{i:02}.png" for i in range(uploads)]
    assert caught.value.path == "nope.md"
    assert caught.value.available == expected[:listed]


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_every_read_starts_from_a_fresh_detail(make, fake, route) -> None:
    client = make(route)
    with pytest.raises(DocNotFound):
        await client.read("late.md")
    fake.add_doc("late.md", "written by another session")
    assert (await client.read("late.md"))["content"] == "written by another session"
    kinds = ["detail" if (b or {}).get("op") == "detail" or p.endswith("/detail") else "doc"
             for _m, p, b in fake.requests]
    assert kinds == ["detail", "detail", "doc"]


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
    file_uuid = fake.add_file("huge.bin", "other", b"x", listed_size=RAW_MAX_BYTES + 1)
    with pytest.raises(DownloadFailed) as caught:
        await make().read("huge.bin")
    assert type(caught.value) is DownloadFailed and caught.value.file_uuid == file_uuid
    assert [p for _m, p, _b in fake.requests if p.endswith("/raw")] == []


@pytest.mark.asyncio
async def test_an_upload_listed_at_exactly_20_mib_is_downloaded(make, fake) -> None:
    # the listing says 20 MiB; the raw answer (which reports its own size) is small
    fake.add_file("big.bin", "other", b"x", listed_size=RAW_MAX_BYTES)
    result = await make().read("big.bin")
    assert Path(result["local_file"]).read_bytes() == b"x"


@pytest.mark.asyncio
async def test_a_413_download_is_a_download_failure(make, fake) -> None:
    fake.add_file("huge.bin", "other", b"x")
    fake.intercept = lambda m, p, b: (error(413, "request_too_large", "too big")
                                      if p.endswith("/raw") else None)
    with pytest.raises(DownloadFailed):
        await make().read("huge.bin")


def _misreport(fake: FakeProjects, times: int):
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
    with pytest.raises(DownloadSizeMismatch) as caught:
        await make(route).read("p.png")
    assert caught.value.file_uuid == file_uuid
    assert caught.value.sizes == [(len(b"pixels") + 7, len(b"pixels"))] * 2
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
    downloads = tmp_path / "downloads"  # received as it arrives: what was written is gone
    assert not downloads.exists() or list(downloads.iterdir()) == []


UID = "0f8fad5b-d9cb-469f-a165-70867728950e"


def test_exactly_20_mib_decodes_and_one_byte_more_does_not() -> None:
    uid = UID
    exact = bytes(RAW_MAX_BYTES)
    data, reported = decode_raw(raw_body(uid, "f", exact), uid)
    assert len(data) == reported == RAW_MAX_BYTES
    with pytest.raises(DownloadFailed):
        decode_raw(raw_body(uid, "f", exact + b"\0"), uid)


@pytest.mark.parametrize(("answer", "expected"), [
    (raw_body(UID, "f", b"pixels"), (b"pixels", 6)),
    (raw_body(UID, "f", b"pixels", size=9), (b"pixels", 9)),  # compared by the caller
    ({**raw_body(UID, "f", b"pixels"), "file_uuid": None}, (b"pixels", 6)),
    (raw_body(UID, "f", b""), (b"", 0)),
])
def test_a_raw_answer_decodes_to_bytes_and_the_reported_size(answer, expected) -> None:
    assert decode_raw(answer, UID) == expected


@pytest.mark.parametrize("answer", [
    {**raw_body(UID, "f", b"x"), "file_uuid": "11111111-2222-4333-8444-555555555555"},
    {**raw_body(UID, "f", b"x"), "encoding": "hex"},
    {**raw_body(UID, "f", b"x"), "encoding": None},
    {**raw_body(UID, "f", b"x"), "data": None},
    {**raw_body(UID, "f", b"x"), "data": 12},
    {**raw_body(UID, "f", b"x"), "file_size_bytes": None},
    {**raw_body(UID, "f", b"x"), "file_size_bytes": "1"},
    {**raw_body(UID, "f", b"x"), "file_size_bytes": True},
    raw_body(UID, "f", b"x", encoded="eA"),
    raw_body(UID, "f", b"x", encoded="eA==\n"),
    raw_body(UID, "f", b"x", encoded="e A=="),
    raw_body(UID, "f", b"x", encoded="eA==eA=="),
    raw_body(UID, "f", b"x", encoded="A" * (RAW_MAX_BASE64_CHARS + 4)),
])
def test_a_raw_answer_of_the_wrong_shape_is_refused(answer) -> None:
    with pytest.raises(DownloadFailed) as caught:
        decode_raw(answer, UID)
    assert type(caught.value) is DownloadFailed and caught.value.file_uuid == UID


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
    assert fake.queries[-1] == {"query": "q", "n": str(n)}


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ROUTES)
async def test_search_n_defaults_to_5(make, fake, route) -> None:
    await make(route).search("q")
    sent = fake.queries[-1] if route == "org" else fake.requests[-1][2]
    assert (sent["query"], str(sent["n"])) == ("q", "5")


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
    assert (result["query"], result["rag"]) == ("q", True)
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
    assert (result["query"], result["rag"]) == ("q", False) and "hits" not in result
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
