"""The Projects client on the session's real transport stack (FileCredentialStore,
OAuthClient, CredentialManager, BearerAuth): the first org call really expands the stored
credential and carries the notice; the remote-session call keeps its own bearer."""

from __future__ import annotations

from pathlib import Path

import pytest

from jupyter_design_projects.projects.client import ProjectsClient
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.credential_manager import CredentialManager
from jupyter_design_projects.transport.credentials import FileCredentialStore
from jupyter_design_projects.transport.http import make_client
from jupyter_design_projects.transport.oauth import OAuthClient


@pytest.mark.asyncio
@pytest.mark.parametrize("route", ["org", "remote-session"])
async def test_projects_on_the_real_transport(reference_service, shared_credentials: Path,
                                             tmp_path: Path, route) -> None:
    credentials = shared_credentials
    overrides = {"api_base_url": reference_service.base_url,
                 "project_uuid": reference_service.project_uuid}
    if route == "remote-session":
        overrides["session_jwt"] = reference_service.session_jwt
    settings = Settings.resolve({}, overrides)
    token_http = make_client()
    oauth = OAuthClient(token_http, settings.oauth_token_url, settings.oauth_authorize_url,
                        settings.oauth_client_id)
    manager = CredentialManager(FileCredentialStore(credentials), oauth,
                                client_id=settings.oauth_client_id,
                                lock_path=tmp_path / "credentials.lock")
    http = make_client(auth=BearerAuth(manager, settings.allowed_origins))
    try:
        client = ProjectsClient(http, settings, ensure_scopes=manager.ensure_project_scopes,
                                temp_dir=tmp_path / "dl", cwd=tmp_path,
                                secrets=manager.known_secrets)
        first = await client.info()
        second = await client.search("incident")
    finally:
        await http.aclose()
        await token_http.aclose()
    assert first["project"]["uuid"] == reference_service.project_uuid
    assert second["rag"] is True
    if route == "org":
        assert first["notice"] and "notice" not in second
        assert "user:projects:write" in FileCredentialStore(credentials).load().scopes
    else:
        assert "notice" not in first
