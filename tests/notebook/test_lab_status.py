"""The side panel's status report: against the real reference service, and against a mock
transport for failures, hostile names and token leaks."""

from __future__ import annotations

import json
import os
from pathlib import Path

import httpx
import pytest
from design_headers import DESIGN_HEADERS

from jupyter_design_projects.notebook import lab_status
from jupyter_design_projects.notebook.lab_status import collect_status, service_part
from jupyter_design_projects.settings import Settings

PROJECT = "0b6f4f0e-3c2a-4d8e-9f10-7a1b2c3d4e5f"
ORG = "1c7a5e2f-4b3d-4e9f-8a01-6b2c3d4e5f60"
TOKEN = "tok-planted-4f9a1c7e2b8d6e3f"
REFRESH = "ref-planted-8e2d4c6a1f3b5e7d"
API = "http://127.0.0.1:9"
ALL_SCOPES = ["user:profile", "user:inference", "user:mcp_servers", "user:file_upload",
              "user:design:read", "user:design:write", "user:projects:read",
              "user:projects:write"]


def service_env(service, **extra: str) -> dict[str, str]:
    return {"JDP_API_BASE_URL": service.base_url,
            "JDP_CREDENTIALS_FILE": str(service.credentials_file),
            "JDP_ORG_UUID": service.org_uuid, "CLAUDE_PROJECT_UUID": service.project_uuid,
            **extra}


def bearer(service) -> dict[str, str]:
    token = json.loads(Path(service.credentials_file).read_text())["access_token"]
    return {"Authorization": f"Bearer {token}", **DESIGN_HEADERS}


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
    return {"uuid": PROJECT, "name": name, "description": "", "prompt_template": "",
            "documents": [{"uuid": "2d8e4f6a-1b3c-4d5e-8f90-a1b2c3d4e5f6",
                           "file_name": "a.md", "created_at": "2026-01-01T00:00:00Z",
                           "estimated_token_count": 5}],
            "files": [], "sync_sources": [],
            "knowledge_stats": {"knowledge_size": 5, "max_knowledge_size": 100,
                                "project_knowledge_search_threshold": 50,
                                "use_project_knowledge_search": False}}


# ---------------------------------------------------------------- the reference service


@pytest.mark.asyncio
async def test_report_shows_the_attached_project_and_no_consent(reference_service, tmp_path):
    report = await collect_status(service_env(reference_service), data_dir=tmp_path)

    assert report["service"] == {"base_url": reference_service.base_url,
                                 "web_base_url": reference_service.base_url, "reference": True}
    project = report["project"]
    assert project["name"] == "Team Handbook"
    assert project["uuid"] == reference_service.project_uuid
    assert project["docs"] > 0 and project["uploads"] > 0
    assert 0 < project["knowledge_size"] <= project["max_knowledge_size"]
    assert report["design"] == {"consent": False, "grants": []}


@pytest.mark.asyncio
async def test_first_report_expands_the_scopes_and_says_so(reference_service, tmp_path):
    first = await collect_status(service_env(reference_service), data_dir=tmp_path)
    second = await collect_status(service_env(reference_service), data_dir=tmp_path)

    assert first["notice"] is not None
    assert second["notice"] is None
    scopes = json.loads(Path(reference_service.credentials_file).read_text())["scopes"]
    assert {"user:projects:read", "user:projects:write"} <= set(scopes)


@pytest.mark.asyncio
async def test_report_shows_consent_and_a_durable_grant(reference_service, tmp_path):
    from jupyter_design_projects.server.design.demo import DECK_ID

    base = reference_service.base_url
    headers = bearer(reference_service)
    async with httpx.AsyncClient(headers=headers) as client:
        consent = await client.post(f"{base}/v1/design/consent",
                                    json={"consent": "agent_design_projects"})
        grant = await client.post(f"{base}/v1/design/grants", json={"project_id": DECK_ID})
    assert (consent.status_code, grant.status_code) == (204, 201)

    report = await collect_status(service_env(reference_service), data_dir=tmp_path)

    assert report["design"]["consent"] is True
    assert [g["project_id"] for g in report["design"]["grants"]] == [DECK_ID]
    assert report["design"]["grants"][0]["created_at"] == grant.json()["created_at"]


@pytest.mark.asyncio
async def test_report_reads_the_project_through_the_remote_session_route(reference_service,
                                                                         tmp_path):
    env = service_env(reference_service, CLAUDE_SESSION_JWT=reference_service.session_jwt)

    report = await collect_status(env, data_dir=tmp_path)

    assert report["project"]["name"] == "Team Handbook"
    assert report["notice"] is None
    assert reference_service.session_jwt not in json.dumps(report)


# ---------------------------------------------------------------- without a service


@pytest.mark.parametrize(("env", "expected"), [
    ({}, {"base_url": None, "web_base_url": None, "reference": True}),
    ({"JDP_API_BASE_URL": "http://127.0.0.1:8123"},
     {"base_url": "http://127.0.0.1:8123", "web_base_url": "http://127.0.0.1:8123",
      "reference": True}),
    ({"JDP_API_BASE_URL": "http://localhost:8123"},
     {"base_url": "http://localhost:8123", "web_base_url": "http://localhost:8123",
      "reference": True}),
    ({"JDP_API_BASE_URL": "https://api.example.com",
      "JDP_WEB_BASE_URL": "https://web.example.com"},
     {"base_url": "https://api.example.com", "web_base_url": "https://web.example.com",
      "reference": False}),
])
def test_service_part_tells_the_reference_service_from_a_remote_one(env, expected):
    assert service_part(Settings.resolve(env)) == expected


@pytest.mark.asyncio
async def test_no_configured_service_sends_nothing(tmp_path):
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected request to {request.url}")

    report = await collect_status({}, data_dir=tmp_path, transport=httpx.MockTransport(refuse))

    assert report["service"]["reference"] is True
    assert (report["project"], report["design"]) == (None, None)
    assert report["notice"]


@pytest.mark.asyncio
async def test_a_bad_setting_is_reported_as_its_error_kind(tmp_path):
    report = await collect_status({"JDP_API_BASE_URL": "http://example.com"}, data_dir=tmp_path)

    assert report["error"] == "config_error"
    assert report["message"]


@pytest.mark.asyncio
async def test_no_attached_project_reports_none_and_still_reads_design(tmp_path):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/design/consent":
            return httpx.Response(200, json={"agent_design_projects": True})
        return httpx.Response(200, json={"grants": []})

    env = {k: v for k, v in mock_env(tmp_path).items() if k != "CLAUDE_PROJECT_UUID"}
    report = await collect_status(env, data_dir=tmp_path, transport=httpx.MockTransport(answer))

    assert report["project"] is None
    assert report["design"] == {"consent": True, "grants": []}


@pytest.mark.parametrize(("name", "shown"), [
    ("Team Handbook", "Team Handbook"),
    ("Team\u202eHandbook", None),
    ("Team\u200bHandbook", None),
    ("x" * 121, None),
])
@pytest.mark.asyncio
async def test_project_names_are_shown_only_when_they_read_as_what_they_are(tmp_path, name,
                                                                           shown):
    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/detail"):
            return httpx.Response(200, json=detail(name))
        if request.url.path == "/v1/design/consent":
            return httpx.Response(200, json={"agent_design_projects": True})
        return httpx.Response(200, json={"grants": [
            {"project_id": "../../etc", "created_at": "2026-01-01T00:00:00Z"}]})

    report = await collect_status(mock_env(tmp_path), data_dir=tmp_path,
                                  transport=httpx.MockTransport(answer))

    if shown is None:
        assert report["project"]["name"].startswith("[not shown: ")
    else:
        assert report["project"]["name"] == shown
    assert report["design"]["grants"][0]["project_id"].startswith("[not shown: ")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 500, 529])
@pytest.mark.asyncio
async def test_failed_parts_are_error_kinds_that_never_carry_a_token(tmp_path, status):
    def echo(request: httpx.Request) -> httpx.Response:
        leak = f"{request.headers.get('authorization', '')} {TOKEN} {REFRESH}"
        return httpx.Response(status, json={"type": "error", "error": {
            "type": "api_error", "message": leak}, "error_description": leak})

    report = await collect_status(mock_env(tmp_path), data_dir=tmp_path,
                                  transport=httpx.MockTransport(echo))

    assert set(report["project"]) == {"error", "message"}
    assert set(report["design"]) == {"error", "message"}
    text = json.dumps(report)
    assert TOKEN not in text and REFRESH not in text


@pytest.mark.asyncio
async def test_a_group_readable_credential_file_is_refused_and_reported(tmp_path):
    env = mock_env(tmp_path)
    os.chmod(env["JDP_CREDENTIALS_FILE"], 0o640)

    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError(f"unexpected request to {request.url}")

    report = await collect_status(env, data_dir=tmp_path, transport=httpx.MockTransport(refuse))

    # the Projects half meets it while adding its scopes, the Design half while reading it
    assert report["project"]["error"] == "scope_expansion_failed"
    assert report["design"]["error"] == "credential_store_error"
    assert TOKEN not in json.dumps(report)


# ---------------------------------------------------------------- the server extension


def test_extension_registers_the_status_route_under_the_base_url():
    class WebApp:
        settings = {"base_url": "/user/ada/"}

        def __init__(self) -> None:
            self.added: list = []

        def add_handlers(self, host: str, handlers: list) -> None:
            self.added.append((host, handlers))

    class ServerApp:
        web_app = WebApp()

    lab_status._load_jupyter_server_extension(ServerApp)

    [(host, [(route, handler)])] = ServerApp.web_app.added
    assert (host, route) == (".*$", "/user/ada/jupyter-design-projects/status")
    assert handler is lab_status.StatusHandler
