"""Every Projects failure is a `ProjectsApiError` (issue 22 item 7, spec §12: the transport
reason, the HTTP status and the action wrapped), against the real reference service with a
real session (BearerAuth, the credential manager): a 401 after the one refresh, a failed
refresh, Projects scopes that cannot be added, and a token the allowlist keeps back. The
credential error stays reachable as `__cause__` (the panel's sign-in guidance reads it),
and no token is in any message or repr."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from jupyter_design_projects.embedded import EmbeddedService
from jupyter_design_projects.errors import (
    AuthError,
    OriginNotAllowed,
    ProjectsApiError,
    ProjectsAuthFailed,
    ProjectsOriginRefused,
    ScopeExpansionFailed,
)
from jupyter_design_projects.errors.remedy import Remedy
from jupyter_design_projects.projects.client import ProjectsClient
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.auth import BearerAuth
from jupyter_design_projects.transport.http import make_client


@pytest.fixture
def session(service, tmp_path) -> Iterator[Session]:
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "credentials_file": str(service.credentials_file),
        "org_uuid": service.org_uuid, "project_uuid": service.project_uuid})
    opened = Session.open(settings, data_dir=tmp_path / f"data-{uuid.uuid4().hex[:6]}")
    try:
        yield opened
    finally:
        opened.close()


def org_api(service: EmbeddedService) -> str:
    return f"/api/organizations/{service.org_uuid}/projects/{service.project_uuid}"


def tokens(service: EmbeddedService) -> list[str]:
    stored = json.loads(Path(service.credentials_file).read_text())
    return [stored["access_token"], stored["refresh_token"]]


def failure(session: Session, call) -> ProjectsApiError:
    with pytest.raises(ProjectsApiError) as caught:
        session.run(call)
    return caught.value


def assert_no_token(error: Exception, service: EmbeddedService) -> None:
    for token in tokens(service):
        assert token not in str(error) and token not in repr(error)
        assert token not in json.dumps(error.to_dict())  # type: ignore[attr-defined]


def test_s12_a_401_after_the_refresh_is_a_projects_api_error_with_its_status(
        service, switches, session) -> None:
    session.run(session.projects.info())
    before = switches.counts().get("POST /v1/oauth/token", 0)
    switches.fail(org_api(service) + "/detail", status=401, count=2)
    error = failure(session, session.projects.info())
    assert isinstance(error, ProjectsAuthFailed) and not isinstance(error, AuthError)
    assert (error.action, error.status, error.route, error.reason) == (
        "detail", 401, "org", "unauthorized_after_refresh")
    assert type(error.__cause__) is AuthError and error.cause == "auth_error"
    assert switches.counts()["POST /v1/oauth/token"] - before == 1  # one refresh, no more
    assert error.remedy == Remedy("login") and "session.auth.login_begin()" in str(error)
    assert_no_token(error, service)


def test_s12_a_single_401_is_refreshed_and_the_call_succeeds(
        service, switches, session) -> None:
    session.run(session.projects.info())
    switches.fail(org_api(service) + "/detail", status=401, count=1)
    assert session.run(session.projects.info())["project"]["uuid"] == service.project_uuid


def test_s12_a_failed_refresh_is_a_projects_api_error(service, switches, session) -> None:
    session.run(session.projects.info())
    switches.expire_tokens()
    switches.fail("/v1/oauth/token", status=400, body={"error": "invalid_grant"})
    error = failure(session, session.projects.info())
    assert isinstance(error, ProjectsAuthFailed) and isinstance(error.__cause__, AuthError)
    assert (error.action, error.route) == ("detail", "org")
    assert error.status is None  # no second answer was read
    assert error.reason == error.__cause__.reason
    assert_no_token(error, service)


def test_s12_projects_scopes_that_cannot_be_added_are_a_projects_api_error(
        service, switches, tmp_path) -> None:
    stored = json.loads(Path(service.credentials_file).read_text())
    stored["scopes"] = [s for s in stored["scopes"] if not s.startswith("user:projects")]
    narrow = tmp_path / "narrow-credentials.json"
    narrow.write_text(json.dumps(stored))
    narrow.chmod(0o600)
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "credentials_file": str(narrow),
        "org_uuid": service.org_uuid, "project_uuid": service.project_uuid})
    switches.fail("/v1/oauth/token", status=400, body={"error": "invalid_grant"})
    with Session.open(settings, data_dir=tmp_path / "data") as session:
        error = failure(session, session.projects.info())
    assert isinstance(error, ProjectsAuthFailed)
    assert isinstance(error.__cause__, ScopeExpansionFailed)
    assert (error.action, error.cause) == ("add the Projects scopes", "scope_expansion_failed")
    assert error.reason == error.__cause__.reason
    assert_no_token(error, service)


@pytest.mark.asyncio
async def test_s12_a_token_kept_back_by_the_allowlist_is_a_projects_api_error(
        service, session, tmp_path) -> None:
    # the org API on another origin than the one allowed: nothing leaves with a token
    other = service.base_url.replace("127.0.0.1", "localhost")
    settings = Settings.resolve({}, {
        "api_base_url": service.base_url, "web_base_url": other,
        "org_uuid": service.org_uuid, "project_uuid": service.project_uuid})
    http = make_client(auth=BearerAuth(session.credentials, {service.base_url}))
    try:
        client = ProjectsClient(http, settings, ensure_scopes=_no_notice,
                                temp_dir=tmp_path / "downloads")
        with pytest.raises(ProjectsApiError) as caught:
            await client.info()
    finally:
        await http.aclose()
    error = caught.value
    assert isinstance(error, ProjectsOriginRefused)
    assert isinstance(error.__cause__, OriginNotAllowed)
    assert (error.action, error.route, error.origin) == ("detail", "org", other)


async def _no_notice() -> None:
    return None


@pytest.mark.parametrize(("cause", "kind"), [
    (ScopeExpansionFailed("refresh_refused"), "not_signed_in"),
    (ScopeExpansionFailed("lock_contended"), "scope_expansion_failed"),
    (AuthError("unauthorized_after_refresh"), "not_signed_in"),
])
def test_the_panels_sign_in_guidance_reads_the_wrapped_credential_error(cause, kind) -> None:
    from jupyter_design_projects.labserver.failures import failure as panel_failure
    from jupyter_design_projects.projects.api import auth_failed

    try:
        raise auth_failed(cause, "detail", "org") from cause
    except ProjectsAuthFailed as wrapped:
        assert panel_failure(wrapped, (), "http://127.0.0.1:1")["error"] == kind
