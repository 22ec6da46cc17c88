"""Sign-out everywhere, against the real reference service: a sign-out in one process
revokes the sign-in at the service (RFC 7009) and every other process using the same
credential store stops using the token at its next use (the generation marker beside
the store); a copy of the revoked credential is not refreshed back to life; and a
service that cannot revoke leaves the sign-out standing and says so in the steps."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from jupyter_design_projects.errors import AuthError
from jupyter_design_projects.session import Session
from jupyter_design_projects.settings import Settings
from jupyter_design_projects.transport.http import loopback_tls
from tests.design_headers import DESIGN_HEADERS
from tests.worker_processes import copied_credentials

CONSENT = "/v1/design/consent"


def session_on(service, credentials: Path, data_dir: Path) -> Session:
    return Session(Settings.resolve({}, {
        "api_base_url": service.base_url, "credentials_file": str(credentials)}),
        data_dir=data_dir)


def consent_status(session: Session) -> int:
    async def ask() -> int:
        answer = await session.http.get(session.settings.api_base_url + CONSENT,
                                         headers=DESIGN_HEADERS)
        return answer.status_code

    return session.run(ask(), timeout=30)


def raw_status(service, access_token: str) -> int:
    return httpx.get(service.base_url + CONSENT, headers={
        **DESIGN_HEADERS, "authorization": f"Bearer {access_token}"},
        verify=loopback_tls()).status_code


@pytest.fixture
def two_kernels(reference_service, tmp_path):
    credentials = copied_credentials(reference_service, tmp_path / "shared")
    a = session_on(reference_service, credentials, tmp_path / "a")
    b = session_on(reference_service, credentials, tmp_path / "b")
    yield reference_service, credentials, a, b
    a.close()
    b.close()


def test_a_sign_out_revokes_at_the_service_and_stops_the_other_kernel_at_once(
        two_kernels, tmp_path) -> None:
    service, credentials, a, b = two_kernels
    held = json.loads(credentials.read_text())
    assert consent_status(a) == consent_status(b) == 200  # both hold the token now
    elsewhere = tmp_path / "elsewhere" / "credentials.json"  # a copy another store kept
    elsewhere.parent.mkdir()
    elsewhere.write_text(credentials.read_text())
    elsewhere.chmod(0o600)

    status = a.sign_out()

    assert not status.signed_in
    assert [s.ok for s in status.steps if s.kind == "revoke"] == [True]
    assert raw_status(service, held["access_token"]) == 401  # revoked at the service
    with pytest.raises(AuthError) as stopped:
        consent_status(b)
    assert stopped.value.reason == "no_token"  # at its next use, with no request sent
    other = session_on(service, elsewhere, tmp_path / "c")
    try:
        with pytest.raises(AuthError) as refused:
            consent_status(other)
        assert refused.value.reason == "refresh_failed"  # its refresh token is revoked too
    finally:
        other.close()
    assert raw_status(service, held["access_token"]) == 401
    assert json.loads(elsewhere.read_text())["refresh_token"] == held["refresh_token"]


def test_a_sign_in_elsewhere_is_adopted_at_the_next_use(two_kernels, tmp_path) -> None:
    service, credentials, a, b = two_kernels
    assert consent_status(b) == 200
    first = b.credentials.current().access_token
    a.login_embedded()  # a new sign-in in another kernel
    assert consent_status(b) == 200
    assert b.credentials.current().access_token != first


def test_a_service_that_cannot_revoke_leaves_the_sign_out_standing(tmp_path) -> None:
    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/oauth/revoke":
            return httpx.Response(503, json={"error": "temporarily_unavailable"})
        return httpx.Response(404)

    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({
        "access_token": "jdp_at_x", "refresh_token": "jdp_rt_x",
        "expires_at": 9_999_999_999_999, "scopes": ["user:profile"],
        "client_id": "jdp-notebook-client"}))
    credentials.chmod(0o600)
    session = Session(Settings.resolve({}, {"api_base_url": "http://127.0.0.1:9",
                                            "credentials_file": str(credentials)}),
                      data_dir=tmp_path / "data", transport=httpx.MockTransport(service))
    try:
        status = session.sign_out()
    finally:
        session.close()
    revoke = [s for s in status.steps if s.kind == "revoke"]
    assert not status.signed_in and not credentials.exists()
    assert [(s.ok, s.reason) for s in revoke] == [(False, "revoke_failed")]
    assert "jdp_rt_x" not in repr(status) and "jdp_at_x" not in repr(status)
