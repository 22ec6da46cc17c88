"""The side panel's answers (docs/panel-api.md), from the `Panel` the server extension holds:
against the real reference service, and against a mock transport for failures, hostile
names and token leaks."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from jupyter_design_projects import service_file
from jupyter_design_projects.core.owner_proof import OWNER_HEADER, PUBLIC_BASE_HEADER
from jupyter_design_projects.errors import (
    NeedsConsent,
    ScopeExpansionFailed,
    ServiceStartFailed,
    guidance,
)
from jupyter_design_projects.labserver.failures import failure
from jupyter_design_projects.labserver.panel import DOC_MAX_BYTES, Panel
from jupyter_design_projects.labserver.sign_in import ATTEMPT_TTL_S, MAX_ATTEMPTS, PanelSignIn
from jupyter_design_projects.transport.http import loopback_tls
from tests.faults_client import faults

PROJECT = "0b6f4f0e-3c2a-4d8e-9f10-7a1b2c3d4e5f"
ORG = "1c7a5e2f-4b3d-4e9f-8a01-6b2c3d4e5f60"
TOKEN = "tok-planted-4f9a1c7e2b8d6e3f"
REFRESH = "ref-planted-8e2d4c6a1f3b5e7d"
API = "http://127.0.0.1:9"
ALL_SCOPES = ["user:profile", "user:inference", "user:mcp_servers", "user:file_upload",
              "user:design:read", "user:design:write", "user:projects:read",
              "user:projects:write"]


@pytest.fixture
def open_panel(tmp_path) -> Iterator:
    made: list[Panel] = []

    def make(env: dict[str, str], transport: httpx.AsyncBaseTransport | None = None) -> Panel:
        panel = Panel(env, tmp_path / "data", transport=transport)
        made.append(panel)
        return panel

    yield make
    for panel in made:
        panel.close()


def stored_credential(tmp_path: Path) -> Path:
    path = tmp_path / "credentials.json"
    path.write_text(json.dumps({"access_token": TOKEN, "refresh_token": REFRESH,
                                "expires_at": 4_102_444_800_000, "scopes": ALL_SCOPES,
                                "client_id": "jdp-notebook-client"}))
    os.chmod(path, 0o600)
    return path


def mock_env(tmp_path: Path) -> dict[str, str]:
    return {"JDP_API_BASE_URL": API, "JDP_CREDENTIALS_FILE": str(stored_credential(tmp_path)),
            "JDP_ORG_UUID": ORG, "CLAUDE_PROJECT_UUID": PROJECT}


def detail(name: str) -> dict:
    return {"uuid": PROJECT, "name": name, "description": "", "prompt_template": "Be\u202e kind",
            "documents": [{"uuid": "2d8e4f6a-1b3c-4d5e-8f90-a1b2c3d4e5f6",
                           "file_name": "a.md", "created_at": "2026-01-01T00:00:00Z",
                           "estimated_token_count": 5}],
            "files": [], "sync_sources": [],
            "knowledge_stats": {"knowledge_size": 5, "max_knowledge_size": 100,
                                "project_knowledge_search_threshold": 50,
                                "use_project_knowledge_search": False}}


def service_env(service, tmp_path: Path) -> dict[str, str]:
    """The service's own credential file: refresh tokens rotate, so the tests of a module
    share the one stored credential as kernels do."""
    return service.client_env()


# ---------------------------------------------------------------- the reference service


@pytest.mark.asyncio
async def test_status_shows_the_service_the_project_and_no_consent(module_reference_service,
                                                                  tmp_path, open_panel):
    service = module_reference_service
    report = await open_panel(service_env(service, tmp_path)).status()

    assert report["service"] == {"base_url": service.base_url, "reference": True,
                                 "state": "ready", "label": (
                                     "a service on this Jupyter server's machine (loopback "
                                     f"port {service.base_url.rsplit(':', 1)[1]})")}
    project = report["project"]
    assert project["name"] == "Team Handbook"
    assert project["uuid"] == service.project_uuid
    assert project["docs"] == 10 and project["uploads"] > 0
    assert 0 < project["knowledge_size"] <= project["max_knowledge_size"]
    assert project["search_threshold"] > 0 and project["search_enabled"] is False
    assert report["design"] == {"consent": False, "grants": [], "journal_revision": "0-0-0"}
    assert len(report["version"]) == 64


@pytest.mark.asyncio
async def test_the_first_status_expands_the_scopes_and_says_so_once(reference_service,
                                                                   tmp_path, open_panel):
    panel = open_panel(service_env(reference_service, tmp_path))
    first = await panel.status()
    second = await panel.status()

    assert first["notice"] is not None and second["notice"] is None
    assert "notice" not in first["project"]


@pytest.mark.asyncio
async def test_the_version_changes_only_when_something_shown_changed(module_reference_service,
                                                                    tmp_path, open_panel):
    panel = open_panel(service_env(module_reference_service, tmp_path))
    await panel.status()
    before, same = await panel.status(), await panel.status()
    await panel.consent(give=True)
    try:
        after = await panel.status()
    finally:
        await panel.consent(give=False)

    assert before["version"] == same["version"]
    assert after["version"] != before["version"]


@pytest.mark.asyncio
async def test_consent_grants_and_their_revocation(module_reference_service, tmp_path,
                                                   open_panel):
    from jupyter_design_projects.server.design.demo import DECK_ID

    panel = open_panel(service_env(module_reference_service, tmp_path))
    given = await panel.consent(give=True)
    session = panel.session()
    session.run(session.design.engine._rest.post_grant(DECK_ID))
    granted = (await panel.status())["design"]
    revoked_grant = await panel.revoke_grant(DECK_ID)
    revoked = await panel.consent(give=False)

    assert given == {"consent": True, "grants": [], "journal_revision": "0-0-0"}
    [grant] = granted["grants"]
    assert (grant["project_id"], grant["project_name"]) == (DECK_ID, "Quarterly Review Deck")
    assert revoked_grant == {"consent": True, "grants": [], "journal_revision": "0-0-0"}
    assert revoked == {"consent": False, "grants": [], "journal_revision": "0-0-0"}


@pytest.mark.asyncio
async def test_files_list_docs_and_uploads_with_sizes_and_dates(module_reference_service,
                                                                tmp_path, open_panel):
    files = await open_panel(service_env(module_reference_service, tmp_path)).files()

    assert len(files["docs"]) == 10
    assert all(d["bytes"] is None and d["tokens"] > 0 and d["created_at"] for d in files["docs"])
    kinds = {u["kind"] for u in files["uploads"]}
    assert {"document", "image"} <= kinds
    assert all(u["bytes"] > 0 for u in files["uploads"])


@pytest.mark.asyncio
async def test_search_finds_hits_and_says_when_search_is_off(module_reference_service,
                                                             tmp_path, open_panel):
    service = module_reference_service
    panel = open_panel(service_env(service, tmp_path))
    found = await panel.search("incident", 2)
    faults(service).search(service.project_uuid, enabled=False)
    try:
        fallback = await panel.search("incident", 2)
    finally:
        faults(service).search(service.project_uuid, enabled=True)

    assert found["rag"] is True and 1 <= len(found["hits"]) <= 2
    assert all(set(hit) == {"name", "doc_uuid", "text"} for hit in found["hits"])
    assert fallback["rag"] is False and fallback["hits"] == [] and fallback["note"]


@pytest.mark.asyncio
async def test_a_doc_opens_as_text_and_an_image_is_refused(module_reference_service, tmp_path,
                                                           open_panel):
    panel = open_panel(service_env(module_reference_service, tmp_path))
    files = await panel.files()
    image = next(u["path"] for u in files["uploads"] if u["kind"] == "image")
    document = next(u["path"] for u in files["uploads"] if u["kind"] == "document")

    doc = await panel.doc("glossary.md")
    extracted = await panel.doc(document)
    refused = await panel.doc(image)
    missing = await panel.doc("no-such-doc.md")

    assert doc["path"] == "glossary.md" and "Glossary" in doc["content"]
    assert doc["truncated"] is False
    assert extracted["content"]
    assert refused["error"] == "invalid_argument"
    assert missing["error"] == "doc_not_found"


@pytest.mark.asyncio
async def test_a_doc_over_the_viewer_cap_is_cut_at_one_mib(module_reference_service, tmp_path,
                                                           open_panel):
    panel = open_panel(service_env(module_reference_service, tmp_path))
    session = panel.session()
    big = "é" * (DOC_MAX_BYTES // 2 + 10)  # two bytes each: just over the cap
    faults(module_reference_service).knowledge(module_reference_service.project_uuid,
                                               max_knowledge_size=50_000_000)
    session.run(session.projects.write("notes/big.md", content=big))
    try:
        doc = await panel.doc("notes/big.md")
    finally:
        session.run(session.projects.delete("notes/big.md"))

    assert doc["truncated"] is True
    assert len(doc["content"].encode("utf-8")) == DOC_MAX_BYTES


@pytest.mark.asyncio
async def test_the_journal_lists_writes_and_restores_them(module_reference_service, tmp_path,
                                                          open_panel):
    panel = open_panel(service_env(module_reference_service, tmp_path))
    session = panel.session()
    session.run(session.projects.write("notes/j.md", content="first"))
    before = (await panel.status())["project"]["revision"]
    session.run(session.projects.write("notes/j.md", content="second"))
    after = (await panel.status())["project"]["revision"]

    journal = await panel.journal(50)
    newest, oldest = journal["entries"][0], journal["entries"][1]
    restored = await panel.restore(newest["id"])
    unknown = await panel.restore(999_999)
    a_create = await panel.restore(oldest["id"])  # the client's rule: that would delete
    content = session.run(session.projects.read("notes/j.md"))["content"]
    session.run(session.projects.delete("notes/j.md"))

    assert before != after
    assert (newest["action"], newest["path"], newest["bytes"]) == ("replace", "notes/j.md", 6)
    assert "5 bytes" in newest["restore"]
    assert oldest["action"] == "create" and oldest["restore"] is None
    assert (newest["restore_kind"], oldest["restore_kind"]) == ("write_back", "created")
    assert "notes/j.md" in restored["message"]
    assert content == "first"
    assert unknown["error"] == "invalid_argument"
    assert a_create["error"] == "invalid_argument"


@pytest.mark.asyncio
async def test_the_journal_says_who_approved_each_change(module_reference_service, tmp_path,
                                                         open_panel):
    from jupyter_design_projects.projects.journal import APPROVED_BY_CALLBACK, APPROVED_WORDS

    panel = open_panel(service_env(module_reference_service, tmp_path))
    session = panel.session()
    session.run(session.projects.write("notes/who.md", content="unsaid"))  # says nobody
    session.project.write("notes/who.md", content="approved", approve=lambda card: "once")
    try:
        newest, oldest = (await panel.journal(2))["entries"]
    finally:
        session.run(session.projects.delete("notes/who.md"))
    assert newest["approved"] == APPROVED_WORDS[APPROVED_BY_CALLBACK]
    assert newest["approved"] == "a script's approve callback"
    assert oldest["approved"] == "not recorded"


@pytest.mark.asyncio
async def test_sign_in_begins_through_the_public_address_and_a_paste_finishes_it(
        reference_service, tmp_path, open_panel):
    """The panel's sign-in on the server's reference service: the page through this
    server's address, and the code pasted back (the browser's part played against the
    service as the server's proxy forwards it: tests/labserver/test_sign_in_through_server.py
    plays it through a real Jupyter server)."""
    env = service_env(reference_service, tmp_path)
    Path(env["JDP_CREDENTIALS_FILE"]).unlink()
    panel = open_panel(env)
    flow = PanelSignIn(panel)
    base = "https://hub.example/user/alice/jupyter-design-projects"
    before = await panel.status()

    begun = await flow.begin(base, "paste")
    query = urlsplit(begun["url"]).query
    owner = {OWNER_HEADER: reference_service.owner_secret().reveal(),
             PUBLIC_BASE_HEADER: base}
    with httpx.Client(base_url=reference_service.base_url, headers=owner,
                      verify=loopback_tls()) as browser:
        page = browser.get("/oauth/authorize?" + query)
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">',
                                 page.text))
        went = browser.post("/oauth/authorize", data={**fields, "decision": "approve"},
                            headers={"origin": reference_service.base_url})
    code = parse_qs(urlsplit(went.headers["location"]).query)
    pasted = f"{code['code'][0]}#{code['state'][0]}"

    assert before["design"]["error"] == "not_signed_in"
    assert begun["url"].startswith(base + "/oauth/authorize?")
    assert went.headers["location"].startswith(base + "/oauth/code/callback?")
    assert await flow.finish_paste(pasted) == {"signed_in": True}
    assert (await flow.finish_paste(pasted))["error"] == "invalid_argument"  # used once
    after = await open_panel(env).status()
    assert after["design"] == {"consent": False, "grants": [], "journal_revision": "0-0-0"}


@pytest.mark.asyncio
async def test_an_attempt_expires_and_the_oldest_gives_way(reference_service, tmp_path,
                                                           open_panel):
    now = [0.0]
    flow = PanelSignIn(open_panel(service_env(reference_service, tmp_path)),
                       clock=lambda: now[0])
    base = "http://127.0.0.1:8888/jupyter-design-projects"
    states = [(await flow.begin(base, "redirect"))["state"] for _ in range(MAX_ATTEMPTS + 1)]
    assert flow._take(states[0], keep=True) is None  # the oldest gave way
    assert flow._take(states[1], keep=True) is not None
    now[0] = ATTEMPT_TTL_S  # at the limit it still waits
    assert flow._take(states[1], keep=True) is not None
    now[0] = ATTEMPT_TTL_S + 0.001
    assert flow._take(states[1], keep=True) is None
    status, title, _ = await flow.finish_redirect(f"code=x&state={states[2]}")
    assert (status, title) == (400, "Sign-in link is stale")


# ---------------------------------------------------------------- the server's service


@pytest.mark.asyncio
async def test_status_says_starting_until_the_servers_service_is_ready(tmp_path, open_panel,
                                                                      module_reference_service):
    path = tmp_path / "runtime" / "jdp-service-1.json"
    panel = open_panel({service_file.ENV: str(path)})
    starting = await panel.status()
    service_file.write_ready(path, module_reference_service)
    ready = await panel.status()

    assert starting["service"]["state"] == "starting"
    assert starting["project"]["error"] == starting["design"]["error"] == "service_starting"
    assert ready["service"] == {"base_url": module_reference_service.base_url,
                                "reference": True, "state": "ready",
                                "label": "the embedded reference service, on this Jupyter "
                                         "server"}
    assert ready["project"]["name"] == "Team Handbook"


@pytest.mark.asyncio
async def test_a_service_that_did_not_start_is_reported_with_where_to_look(tmp_path,
                                                                          open_panel):
    path = tmp_path / "jdp-service-1.json"
    service_file.write_failed(path, ServiceStartFailed("exited", "Traceback: port in use"))

    report = await open_panel({service_file.ENV: str(path)}).status()

    assert report["project"]["error"] == "service_start_failed"
    assert "reference-service.log" in report["project"]["message"]


@pytest.mark.asyncio
async def test_a_configured_service_that_does_not_answer_is_unreachable(tmp_path, open_panel):
    env = {**mock_env(tmp_path), "JDP_API_BASE_URL": "http://127.0.0.1:9"}

    report = await open_panel(env).status()

    assert report["service"]["state"] == "unreachable"
    assert report["project"]["error"] == "service_unreachable"
    assert "http://127.0.0.1:9" in report["project"]["message"]


# ---------------------------------------------------------------- mock transport


@pytest.mark.asyncio
async def test_no_attached_project_is_a_failure_and_design_still_reads(tmp_path, open_panel):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/design/consent":
            return httpx.Response(200, json={"agent_design_projects": True})
        return httpx.Response(200, json={"grants": []})

    env = {k: v for k, v in mock_env(tmp_path).items() if k != "CLAUDE_PROJECT_UUID"}
    report = await open_panel(env, httpx.MockTransport(answer)).status()

    assert report["project"]["error"] == "no_attached_project"
    assert "CLAUDE_PROJECT_UUID" in report["project"]["message"]
    assert report["design"] == {"consent": True, "grants": [], "journal_revision": "0-0-0"}


@pytest.mark.parametrize(("name", "shown"), [
    ("Team Handbook", "Team Handbook"),
    ("Team\u202eHandbook", None),
    ("Team\u200bHandbook", None),
    ("x" * 121, None),
])
@pytest.mark.asyncio
async def test_names_are_shown_only_when_they_read_as_what_they_are(tmp_path, open_panel, name,
                                                                    shown):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/detail"):
            return httpx.Response(200, json=detail(name))
        if request.url.path == "/v1/design/consent":
            return httpx.Response(200, json={"agent_design_projects": True})
        return httpx.Response(200, json={"grants": [
            {"project_id": "../../etc", "created_at": "2026-01-01T00:00:00Z"}]})

    report = await open_panel(mock_env(tmp_path), httpx.MockTransport(answer)).status()

    if shown is None:
        assert report["project"]["name"].startswith("[not shown: ")
    else:
        assert report["project"]["name"] == shown
    assert report["project"]["instructions"] == "Be kind"  # the bidi override is gone
    [grant] = report["design"]["grants"]
    assert grant["project_id"].startswith("[not shown: ") and grant["project_name"] is None


@pytest.mark.parametrize("status", [400, 401, 403, 404, 500, 529])
@pytest.mark.asyncio
async def test_failed_parts_are_error_kinds_that_never_carry_a_token(tmp_path, open_panel,
                                                                     status):
    def echo(request: httpx.Request) -> httpx.Response:
        leak = f"{request.headers.get('authorization', '')} {TOKEN} {REFRESH}"
        return httpx.Response(status, json={"type": "error", "error": {
            "type": "api_error", "message": leak}, "error_description": leak})

    panel = open_panel(mock_env(tmp_path), httpx.MockTransport(echo))
    answers = [await panel.status(), await panel.files(), await panel.search("x", 3),
               await panel.doc("a.md"), await panel.consent(give=True),
               await panel.consent(give=False), await panel.revoke_grant("abc"),
               await panel.journal(5),
               await PanelSignIn(panel).begin("http://127.0.0.1:1/x", "redirect")]

    assert set(answers[0]["project"]) == {"error", "message"}
    assert set(answers[0]["design"]) == {"error", "message"}
    text = json.dumps(answers)
    assert TOKEN not in text and REFRESH not in text


@pytest.mark.asyncio
async def test_a_group_readable_credential_file_is_refused_and_reported(tmp_path, open_panel):
    env = mock_env(tmp_path)
    os.chmod(env["JDP_CREDENTIALS_FILE"], 0o640)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected request to {request.url}")

    report = await open_panel(env, httpx.MockTransport(refuse)).status()

    assert report["project"]["error"] == "scope_expansion_failed"
    assert report["design"]["error"] == "credential_store_error"
    assert TOKEN not in json.dumps(report)


@pytest.mark.parametrize("error", [NeedsConsent(), ScopeExpansionFailed("lock_contended")],
                         ids=["needs_consent", "scope_expansion_failed"])
def test_a_panel_failure_says_its_next_step_as_the_notebook_does(error):
    said = failure(error, (), "http://127.0.0.1:1")["message"]
    assert said == guidance.with_next(error.message, error.next_step)
    assert said.count("Next:") == 1
