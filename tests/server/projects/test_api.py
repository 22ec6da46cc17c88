"""The Projects org API against PROTOCOL §4, in-process: shapes, scopes, search, docs CRUD,
knowledge budget at its exact boundary, uploads (extracted and raw, 20 MiB boundary)."""

from __future__ import annotations

import base64
import math

import pytest

from jupyter_design_projects.server.projects import store as projects_store

READ, WRITE = "user:projects:read", "user:projects:write"
RAW_LIMIT = 20 * 1024 * 1024


def detail(client, demo, bearer) -> dict:
    answer = client.get(demo.base + "/detail", headers=bearer(READ))
    assert answer.status_code == 200
    return answer.json()


def file_named(info: dict, name: str) -> dict:
    return next(f for f in info["files"] if f["file_name"] == name)


def test_organizations_lists_the_demo_org(client, bearer, demo) -> None:
    answer = client.get("/api/organizations", headers=bearer(READ))
    assert answer.json() == [{"uuid": demo.org_uuid, "name": "Acme Research",
                             "capabilities": ["chat", "claude_pro"]}]


def test_detail_has_the_protocol_shape_and_the_seeded_content(client, bearer, demo) -> None:
    info = detail(client, demo, bearer)
    assert set(info) == {"uuid", "name", "description", "prompt_template", "documents",
                         "files", "sync_sources", "knowledge_stats"}
    assert info["uuid"] == demo.project_uuid and info["name"] == "Team Handbook"
    assert len(info["documents"]) >= 10
    assert set(info["documents"][0]) == {"uuid", "file_name", "created_at",
                                         "estimated_token_count"}
    assert {f["file_kind"] for f in info["files"]} == {"document", "image", "other"}
    assert set(info["files"][0]) == {"file_uuid", "file_name", "file_kind", "file_size_bytes",
                                     "mime_type", "created_at"}
    assert info["sync_sources"][0]["type"] == "github"
    assert info["documents"][0]["created_at"].endswith("Z")


def test_knowledge_counts_docs_and_document_uploads_only(client, bearer, demo,
                                                         service_app) -> None:
    info = detail(client, demo, bearer)
    conn = service_app[1].db.read()
    extracted = conn.execute("SELECT extracted FROM uploads WHERE file_kind = 'document'"
                             ).fetchone()["extracted"]
    expected = sum(d["estimated_token_count"] for d in info["documents"]) + \
        math.ceil(len(extracted.encode()) / 4)
    stats = info["knowledge_stats"]
    assert stats == client.get(demo.base + "/kb/stats", headers=bearer(READ)).json()
    assert stats["knowledge_size"] == expected
    assert stats["max_knowledge_size"] == 2_000_000
    assert stats["project_knowledge_search_threshold"] == 50_000
    assert stats["use_project_knowledge_search"] is False


def test_search_threshold_is_reflected(client, bearer, demo) -> None:
    size = detail(client, demo, bearer)["knowledge_stats"]["knowledge_size"]
    client.post("/_faults/knowledge", json={"project_uuid": demo.project_uuid,
                                            "threshold": size})
    assert detail(client, demo, bearer)["knowledge_stats"]["use_project_knowledge_search"] \
        is False
    client.post("/_faults/knowledge", json={"project_uuid": demo.project_uuid,
                                            "threshold": size - 1})
    assert detail(client, demo, bearer)["knowledge_stats"]["use_project_knowledge_search"] \
        is True


# ---------------------------------------------------------------- scopes


@pytest.mark.parametrize(("method", "path", "scope"), [
    ("GET", "/detail", WRITE), ("GET", "/kb/stats", WRITE), ("GET", "/kb/search?query=x", WRITE),
    ("POST", "/docs", READ), ("DELETE", "/docs/00000000-0000-4000-8000-000000000000", READ),
    ("PATCH", "/docs/00000000-0000-4000-8000-000000000000", READ),
])
def test_a_token_without_the_needed_scope_is_403(client, bearer, demo, method, path,
                                                 scope) -> None:
    answer = client.request(method, demo.base + path, headers=bearer(scope, "user:profile"),
                            json={"file_name": "a.md", "content": "x"})
    assert answer.status_code == 403
    assert answer.json()["error"]["type"] == "permission_error"


def test_no_token_is_401_envelope(client, demo) -> None:
    answer = client.get(demo.base + "/detail")
    assert answer.status_code == 401
    body = answer.json()
    assert body["type"] == "error" and body["request_id"].startswith("req_")
    assert answer.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("swap", ["org", "project", "both", "case"])
def test_unknown_or_mismatched_ids_are_404(client, bearer, demo, swap: str) -> None:
    other = "00000000-0000-4000-8000-000000000000"
    org, project = demo.org_uuid, demo.project_uuid
    if swap in ("org", "both"):
        org = other
    if swap in ("project", "both"):
        project = other
    if swap == "case":
        project = project.upper()
    answer = client.get(f"/api/organizations/{org}/projects/{project}/detail",
                        headers=bearer(READ))
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "not_found_error"


# ---------------------------------------------------------------- search


def test_search_ranks_the_known_best_doc_first(client, bearer, demo) -> None:
    answer = client.get(demo.base + "/kb/search",
                        params={"query": "how long do we keep raw event logs", "n": 5},
                        headers=bearer(READ))
    body = answer.json()
    assert body["text_results"][0]["name"] == "data-retention-policy.md"
    top = body["text_results"][0]
    assert "90 days" in top["chunk"]["text"]
    assert set(top) == {"doc_uuid", "name", "score", "chunk"}
    scores = [hit["score"] for hit in body["text_results"]]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize(("query", "best"), [
    ("what to do when a pipeline is broken roll back", "incident-runbook.md"),
    ("bar charts start at zero palette", "style-guide.md"),
    ("acknowledge a page within 15 minutes", "on-call-handbook.md"),
])
def test_search_relevance_on_the_seeded_docs(client, bearer, demo, query, best) -> None:
    body = client.get(demo.base + "/kb/search", params={"query": query},
                      headers=bearer(READ)).json()
    assert body["text_results"][0]["name"] == best


def test_search_finds_document_uploads_as_rich_content(client, bearer, demo) -> None:
    body = client.get(demo.base + "/kb/search", params={"query": "churn model recall seeds"},
                      headers=bearer(READ)).json()
    assert body["rich_content_results"][0]["name"] == "Q3 Research Review.pdf"
    assert set(body["rich_content_results"][0]) == {"file_uuid", "name", "score", "chunk"}


@pytest.mark.parametrize(("n", "status"), [("0", 400), ("1", 200), ("15", 200), ("16", 400),
                                           ("x", 400), ("", 400)])
def test_search_n_is_1_to_15(client, bearer, demo, n: str, status: int) -> None:
    answer = client.get(demo.base + "/kb/search", params={"query": "the", "n": n},
                        headers=bearer(READ))
    assert answer.status_code == status
    if status == 200:
        body = answer.json()
        assert len(body["text_results"]) + len(body["rich_content_results"]) <= int(n)


def test_search_returns_at_most_n_sources(client, bearer, demo) -> None:
    body = client.get(demo.base + "/kb/search", params={"query": "the team data", "n": "15"},
                      headers=bearer(READ)).json()
    hits = body["text_results"] + body["rich_content_results"]
    assert len(hits) == len({h.get("doc_uuid") or h.get("file_uuid") for h in hits}) > 5


@pytest.mark.parametrize("params", [{}, {"query": ""}, {"query": "!!!"}, {"query": "x" * 4097}])
def test_search_without_a_usable_query_is_400(client, bearer, demo, params) -> None:
    answer = client.get(demo.base + "/kb/search", params=params, headers=bearer(READ))
    assert answer.status_code == 400


def test_search_disabled_for_the_project_is_403(client, bearer, demo) -> None:
    client.post("/_faults/search", json={"project_uuid": demo.project_uuid, "enabled": False})
    answer = client.get(demo.base + "/kb/search", params={"query": "retention"},
                        headers=bearer(READ))
    assert answer.status_code == 403
    assert answer.json()["error"]["type"] == "permission_error"
    client.post("/_faults/reset")
    assert client.get(demo.base + "/kb/search", params={"query": "retention"},
                      headers=bearer(READ)).status_code == 200


# ---------------------------------------------------------------- docs


def test_doc_lifecycle_create_read_replace_delete(client, bearer, demo) -> None:
    created = client.post(demo.base + "/docs", headers=bearer(WRITE),
                          json={"file_name": "claude/notes.md", "content": "first draft"})
    assert created.status_code == 201
    doc = created.json()
    assert set(doc) == {"uuid", "file_name", "content", "created_at", "updated_at",
                        "estimated_token_count"}
    assert doc["estimated_token_count"] == math.ceil(len("first draft") / 4)
    url = f"{demo.base}/docs/{doc['uuid']}"
    assert client.get(url, headers=bearer(READ)).json()["content"] == "first draft"
    patched = client.patch(url, headers=bearer(WRITE), json={"content": "second draft"})
    assert patched.status_code == 200
    assert patched.json()["content"] == "second draft"
    assert patched.json()["created_at"] == doc["created_at"]
    hits = client.get(demo.base + "/kb/search", params={"query": "second draft"},
                      headers=bearer(READ)).json()["text_results"]
    assert hits[0]["doc_uuid"] == doc["uuid"]
    assert client.delete(url, headers=bearer(WRITE)).status_code == 204
    assert client.get(url, headers=bearer(READ)).status_code == 404
    assert client.delete(url, headers=bearer(WRITE)).status_code == 404
    names = [d["file_name"] for d in detail(client, demo, bearer)["documents"]]
    assert "claude/notes.md" not in names


def test_a_taken_file_name_is_400_and_stores_nothing(client, bearer, demo) -> None:
    before = detail(client, demo, bearer)
    answer = client.post(demo.base + "/docs", headers=bearer(WRITE),
                         json={"file_name": "glossary.md", "content": "hijack"})
    assert answer.status_code == 400
    assert detail(client, demo, bearer)["documents"] == before["documents"]


@pytest.mark.parametrize(("name", "status"), [("n" * 255, 201), ("n" * 256, 400),
                                              ("../escape.md", 400), ("/abs.md", 400),
                                              ("a\\b.md", 400), ("", 400)])
def test_doc_file_name_is_1_to_255_characters_and_relative(client, bearer, demo, name,
                                                           status) -> None:
    answer = client.post(demo.base + "/docs", headers=bearer(WRITE),
                         json={"file_name": name, "content": "x"})
    assert answer.status_code == status


@pytest.mark.parametrize("body", [
    {"file_name": "a.md"}, {"content": "x"}, {"file_name": 1, "content": "x"},
    {"file_name": "a.md", "content": ["x"]}, {"file_name": "a.md", "content": None},
])
def test_wrong_types_are_400_and_store_nothing(client, bearer, demo, body) -> None:
    before = detail(client, demo, bearer)["documents"]
    answer = client.post(demo.base + "/docs", headers=bearer(WRITE), json=body)
    assert answer.status_code == 400
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert detail(client, demo, bearer)["documents"] == before


def budget_to(client, demo, bearer, headroom: int) -> None:
    """Set max_knowledge_size so exactly `headroom` more tokens fit."""
    size = detail(client, demo, bearer)["knowledge_stats"]["knowledge_size"]
    client.post("/_faults/knowledge", json={"project_uuid": demo.project_uuid,
                                            "max_knowledge_size": size + headroom})


@pytest.mark.parametrize(("chars", "status"), [(400, 201), (401, 413)])
def test_create_is_refused_past_the_knowledge_budget(client, bearer, demo, chars,
                                                     status) -> None:
    budget_to(client, demo, bearer, 100)
    answer = client.post(demo.base + "/docs", headers=bearer(WRITE),
                         json={"file_name": "big.md", "content": "x" * chars})
    assert answer.status_code == status
    if status == 413:
        assert answer.json()["error"]["type"] == "request_too_large"
        assert "big.md" not in [d["file_name"] for d in detail(client, demo, bearer)["documents"]]


@pytest.mark.parametrize(("extra_chars", "status"), [(400, 200), (401, 413)])
def test_replace_counts_the_old_doc_out_of_the_budget(client, bearer, demo, extra_chars,
                                                      status) -> None:
    info = detail(client, demo, bearer)
    doc = next(d for d in info["documents"] if d["file_name"] == "glossary.md")
    old = client.get(f"{demo.base}/docs/{doc['uuid']}", headers=bearer(READ)).json()
    budget_to(client, demo, bearer, 100)
    content = "y" * (old["estimated_token_count"] * 4 + extra_chars)
    answer = client.patch(f"{demo.base}/docs/{doc['uuid']}", headers=bearer(WRITE),
                          json={"content": content})
    assert answer.status_code == status
    now = client.get(f"{demo.base}/docs/{doc['uuid']}", headers=bearer(READ)).json()
    assert (now["content"] == content) is (status == 200)


# ---------------------------------------------------------------- uploads


def test_extracted_text_of_the_document_upload(client, bearer, demo) -> None:
    pdf = file_named(detail(client, demo, bearer), "Q3 Research Review.pdf")
    body = client.get(f"{demo.base}/files/{pdf['file_uuid']}/extracted",
                      headers=bearer(READ)).json()
    assert set(body) == {"file_uuid", "file_name", "file_kind", "content", "created_at"}
    assert body["file_kind"] == "document" and "Churn model v2" in body["content"]


def test_extracted_text_of_an_image_is_404(client, bearer, demo) -> None:
    png = file_named(detail(client, demo, bearer), "team-palette.png")
    answer = client.get(f"{demo.base}/files/{png['file_uuid']}/extracted", headers=bearer(READ))
    assert answer.status_code == 404


def test_raw_image_is_a_real_png_with_its_size(client, bearer, demo) -> None:
    png = file_named(detail(client, demo, bearer), "team-palette.png")
    body = client.get(f"{demo.base}/files/{png['file_uuid']}/raw", headers=bearer(READ)).json()
    data = base64.b64decode(body["data"], validate=True)
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR"
    assert body["file_size_bytes"] == len(data) == png["file_size_bytes"]
    assert body["encoding"] == "base64" and body["mime_type"] == "image/png"


def test_raw_other_upload_is_about_three_mib(client, bearer, demo) -> None:
    other = file_named(detail(client, demo, bearer), "churn-features-sample.parquet")
    body = client.get(f"{demo.base}/files/{other['file_uuid']}/raw",
                      headers=bearer(READ)).json()
    assert len(base64.b64decode(body["data"])) == body["file_size_bytes"] == 3 * 1024 * 1024


def test_misreported_size_happens_once(client, bearer, demo) -> None:
    png = file_named(detail(client, demo, bearer), "team-palette.png")
    url = f"{demo.base}/files/{png['file_uuid']}/raw"
    client.post("/_faults/misreport-size", json={"file_uuid": png["file_uuid"]})
    first = client.get(url, headers=bearer(READ)).json()
    second = client.get(url, headers=bearer(READ)).json()
    assert first["file_size_bytes"] == png["file_size_bytes"] + 1
    assert second["file_size_bytes"] == png["file_size_bytes"]


@pytest.mark.parametrize(("size", "status"), [(RAW_LIMIT, 200), (RAW_LIMIT + 1, 413)])
def test_raw_download_is_refused_over_20_mib(client, bearer, demo, service_app, size,
                                             status) -> None:
    ctx = service_app[1]
    with ctx.db.transaction() as conn:
        file_uuid = projects_store.add_upload(
            conn, demo.project_uuid, file_name="huge.bin", file_kind="other",
            mime_type="application/octet-stream", data=b"\0" * size, extracted=None, now=0)
    answer = client.get(f"{demo.base}/files/{file_uuid}/raw", headers=bearer(READ))
    assert answer.status_code == status
    if status == 413:
        assert answer.json()["error"]["type"] == "request_too_large"


def test_unknown_file_is_404(client, bearer, demo) -> None:
    answer = client.get(f"{demo.base}/files/00000000-0000-4000-8000-000000000000/raw",
                        headers=bearer(READ))
    assert answer.status_code == 404


@pytest.mark.parametrize(("method", "body"), [
    ("POST", {"file_name": "a.md", "content": "x", "uuid": "mine"}),
    ("PATCH", {"content": "x", "file_name": "renamed.md"}),
])
def test_unknown_fields_are_400(client, bearer, demo, method, body) -> None:
    doc = detail(client, demo, bearer)["documents"][0]["uuid"]
    path = "/docs" if method == "POST" else f"/docs/{doc}"
    answer = client.request(method, demo.base + path, headers=bearer(WRITE), json=body)
    assert answer.status_code == 400


#: the one-table index of services before the split into kb_text and kb_chunk_sources
OLD_INDEX = """
CREATE VIRTUAL TABLE kb_chunks USING fts5(
    name, text,
    project_uuid UNINDEXED, source_kind UNINDEXED, source_uuid UNINDEXED,
    tokenize = 'porter unicode61'
);
INSERT INTO kb_chunks (rowid, name, text, project_uuid, source_kind, source_uuid)
    SELECT t.rowid, t.name, t.text, s.project_uuid, s.source_kind, s.source_uuid
    FROM kb_text AS t JOIN kb_chunk_sources AS s ON s.id = t.rowid;
DROP TABLE kb_text;
DROP TABLE kb_chunk_sources;
"""


def test_a_data_dir_with_the_old_index_is_migrated_at_start(service_config, bearer,
                                                             demo) -> None:
    from starlette.testclient import TestClient

    from jupyter_design_projects.server.app import create_app

    queries = ["how long do we keep raw event logs", "churn model recall seeds",
               "bar charts start at zero palette"]
    first = create_app(service_config)
    with TestClient(first, base_url="http://127.0.0.1") as client:
        headers = bearer(READ)
        before = [client.get(demo.base + "/kb/search", params={"query": q, "n": 15},
                             headers=headers).json() for q in queries]
    conn = first.state.ctx.db.read()
    conn.executescript(OLD_INDEX)  # the data dir now looks as an older service left it
    assert conn.execute("SELECT count(*) FROM kb_chunks").fetchone()[0] > 0
    conn.close()

    again = create_app(service_config)  # a service started on that data dir
    tables = {row[0] for row in again.state.ctx.db.read().execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "kb_chunks" not in tables and {"kb_text", "kb_chunk_sources"} <= tables
    with TestClient(again, base_url="http://127.0.0.1") as client:
        after = [client.get(demo.base + "/kb/search", params={"query": q, "n": 15},
                            headers=headers).json() for q in queries]
    assert after == before
    assert all(answer["text_results"] or answer["rich_content_results"] for answer in after)
