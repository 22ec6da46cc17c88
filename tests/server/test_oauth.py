"""The token authority against PROTOCOL §1: JSON-only token endpoint, rotating refresh with
the full scope list, narrowed grants, PKCE login through the authorize page, bearer
authentication and the first credential on disk."""

from __future__ import annotations

import html
import json
import re
import stat

import pytest
from starlette.testclient import TestClient

from jupyter_design_projects.server import oauth
from tests.server.authorize_steps import (
    BASE,
    CLIENT,
    CODE_PAGE,
    FULL,
    LOOPBACK,
    TOKEN,
    authorize,
    decide,
    form_of,
    pkce,
    redirected,
)


def first_refresh_token(ctx, client_id: str = CLIENT) -> str:
    with ctx.db.transaction() as conn:
        return oauth.issue_tokens(ctx, conn, user_id="u", client_id=client_id,
                                  scopes=tuple(BASE.split()))["refresh_token"]


def refresh(client: TestClient, token: str, scope: str | None = FULL, **extra) -> object:
    body = {"grant_type": "refresh_token", "refresh_token": token, "client_id": CLIENT,
            **({"scope": scope} if scope is not None else {}), **extra}
    return client.post(TOKEN, json=body)


def test_refresh_answers_the_protocol_shape_with_the_asked_scopes(client, service_app) -> None:
    answer = refresh(client, first_refresh_token(service_app[1]))
    assert answer.status_code == 200
    body = answer.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 28800
    assert body["scope"].split() == FULL.split()
    assert body["access_token"] and body["refresh_token"]


def test_old_refresh_token_is_invalid_grant_after_rotation(client, service_app) -> None:
    old = first_refresh_token(service_app[1])
    new = refresh(client, old).json()["refresh_token"]
    assert refresh(client, old).status_code == 400
    assert refresh(client, old).json()["error"] == "invalid_grant"
    assert refresh(client, new).status_code == 200


def test_omitted_scopes_are_dropped(client, service_app) -> None:
    body = refresh(client, first_refresh_token(service_app[1]), scope="user:profile").json()
    assert body["scope"] == "user:profile"


def test_no_scope_field_keeps_the_granted_scopes(client, service_app) -> None:
    body = refresh(client, first_refresh_token(service_app[1]), scope=None).json()
    assert body["scope"].split() == BASE.split()


def test_narrowed_scopes_are_left_out_of_the_grant(client, service_app) -> None:
    client.post("/_faults/narrow-scopes", json={"drop": ["user:projects:write"]})
    body = refresh(client, first_refresh_token(service_app[1])).json()
    assert "user:projects:write" not in body["scope"].split()
    assert "user:projects:read" in body["scope"].split()


@pytest.mark.parametrize("scope", ["user:everything", "", "user:profile admin"])
def test_unknown_or_empty_scopes_are_invalid_scope(client, service_app, scope: str) -> None:
    answer = refresh(client, first_refresh_token(service_app[1]), scope=scope)
    assert answer.status_code == 400
    assert answer.json()["error"] in ("invalid_scope", "invalid_request")


def test_a_form_body_is_invalid_request(client, service_app) -> None:
    answer = client.post(TOKEN, data={"grant_type": "refresh_token", "client_id": CLIENT,
                                      "refresh_token": first_refresh_token(service_app[1])})
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_request")


def test_unknown_client_is_401_invalid_client(client, service_app) -> None:
    answer = refresh(client, first_refresh_token(service_app[1]), client_id="someone-else")
    assert (answer.status_code, answer.json()["error"]) == (401, "invalid_client")


def test_a_refresh_token_of_another_client_is_invalid_grant(client, service_app) -> None:
    answer = refresh(client, first_refresh_token(service_app[1], client_id="other-client"))
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_grant")


@pytest.mark.parametrize("body", [
    {}, {"grant_type": "password", "client_id": CLIENT},
    {"grant_type": "refresh_token", "client_id": CLIENT},
    {"grant_type": "refresh_token", "client_id": CLIENT, "refresh_token": 7},
    {"grant_type": "refresh_token", "client_id": CLIENT, "refresh_token": "x" * 5000},
    {"grant_type": "authorization_code", "client_id": CLIENT, "code": "c"},
])
def test_malformed_token_requests_are_400_and_never_500(client, body: dict) -> None:
    answer = client.post(TOKEN, json=body)
    assert answer.status_code in (400, 401)
    assert answer.json()["error"] in ("invalid_request", "invalid_grant", "invalid_client")


def test_malformed_json_is_invalid_request(client) -> None:
    answer = client.post(TOKEN, content=b"{not json",
                         headers={"content-type": "application/json"})
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_request")


# ---------------------------------------------------------------- login with PKCE




def approved_code(client: TestClient, challenge: str, **overrides: str) -> str:
    target, fields = redirected(decide(client, authorize(client, challenge, **overrides).text))
    assert fields["state"] == overrides.get("state", "st4te")
    return fields["code"]


def exchange(client: TestClient, code: str, verifier: str, **overrides: str):
    body = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier,
            "client_id": CLIENT, "redirect_uri": LOOPBACK, "state": "st4te",
            **overrides}
    return client.post(TOKEN, json=body)


def test_the_authorize_page_asks_before_issuing_anything(client) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert 'id="authorize"' in page.text and 'id="deny"' in page.text
    assert html.escape(LOOPBACK) in page.text  # the person sees where the browser goes
    assert "form-action 'self' http://127.0.0.1:53682" in page.headers[
        "content-security-policy"]
    assert client.app.state.ctx.db.read().execute(
        "SELECT COUNT(*) FROM oauth_codes").fetchone()[0] == 0


def test_login_with_pkce_issues_the_asked_scopes(client) -> None:
    verifier, challenge = pkce()
    target, fields = redirected(decide(client, authorize(client, challenge).text))
    assert target == LOOPBACK and set(fields) == {"code", "state"}
    assert fields["state"] == "st4te"
    answer = exchange(client, fields["code"], verifier)
    assert answer.status_code == 200
    assert answer.json()["scope"].split() == FULL.split()


def test_deny_redirects_with_access_denied_and_issues_no_code(client) -> None:
    _, challenge = pkce()
    target, fields = redirected(decide(client, authorize(client, challenge).text, "deny"))
    assert (target, fields) == (LOOPBACK, {"error": "access_denied", "state": "st4te"})
    assert client.app.state.ctx.db.read().execute(
        "SELECT COUNT(*) FROM oauth_codes").fetchone()[0] == 0


@pytest.mark.parametrize("redirect_uri", [
    "http://127.0.0.1:1/callback", "http://127.0.0.1:65535/x?keep=1", "http://127.0.0.1/cb",
    "http://[::1]:8080/callback", CODE_PAGE,
])
def test_loopback_any_port_and_the_registered_code_page_are_redirected_to(
        client, redirect_uri: str) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge, redirect_uri=redirect_uri)
    target, fields = redirected(decide(client, page.text))
    assert redirect_uri.startswith(target) and fields["state"] == "st4te"
    if "keep=1" in redirect_uri:
        assert fields["keep"] == "1"


@pytest.mark.parametrize("redirect_uri", [
    "https://evil.example/callback", "http://localhost:8080/callback",
    "https://127.0.0.1:8080/callback", "http://127.0.0.2:8080/callback",
    "http://127.0.0.1.evil.example/callback", "http://127.0.0.1@evil.example/callback",
    "http://evil.example@127.0.0.1:8080/callback", "http://127.0.0.1:8080\\@evil.example/",
    "http://127.0.0.1:99999/callback", "http://127.0.0.1:8080/callback#frag",
    "javascript:alert(1)", "//127.0.0.1:8080/callback", "urn:ietf:wg:oauth:2.0:oob",
    "http://testserver/oauth/code/callback/", "http://testserver/elsewhere",
    "http://127.0.0.1:8080/call back", "http://127.0.0.1:" + "1" * 2050,
])
def test_a_redirect_uri_that_is_neither_loopback_nor_registered_is_refused_with_a_page(
        client, redirect_uri: str) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge, redirect_uri=redirect_uri)
    assert page.status_code == 400 and "Sign-in request refused" in page.text
    assert "<form" not in page.text and "location" not in page.headers


def test_a_tampered_form_is_checked_again_and_never_redirected_elsewhere(client) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge).text
    answer = decide(client, page, redirect_uri="https://evil.example/callback")
    assert answer.status_code == 400 and "location" not in answer.headers


def test_a_form_from_another_site_or_without_the_token_authorizes_nothing(client) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge).text
    other_site = client.post("/oauth/authorize", data={**form_of(page), "decision": "approve"},
                             headers={"origin": "https://evil.example"},
                             follow_redirects=False)
    assert other_site.status_code == 403
    assert decide(client, page, form_token="guessed").status_code == 403
    assert decide(client, page, form_token="ünïcode").status_code == 403  # not a 500
    assert client.app.state.ctx.db.read().execute(
        "SELECT COUNT(*) FROM oauth_codes").fetchone()[0] == 0


def test_the_code_page_shows_code_and_state_for_the_paste_fallback(client) -> None:
    verifier, challenge = pkce()
    target, fields = redirected(decide(client, authorize(
        client, challenge, redirect_uri=CODE_PAGE).text))
    assert target == CODE_PAGE
    shown = client.get(CODE_PAGE, params=fields)
    code, state = re.search(r'<pre id="code">([^<]+)</pre>', shown.text).group(1).split("#")
    assert (code, state) == (fields["code"], "st4te")
    assert exchange(client, code, verifier, redirect_uri=CODE_PAGE).status_code == 200


@pytest.mark.parametrize("override", [
    {"code_verifier": "w" * 43}, {"redirect_uri": "http://127.0.0.1:53683/callback"},
    {"redirect_uri": CODE_PAGE}, {"state": "other"},
])
def test_login_with_a_mismatch_is_invalid_grant(client, override: dict) -> None:
    verifier, challenge = pkce()
    code = approved_code(client, challenge)
    answer = exchange(client, code, override.pop("code_verifier", verifier), **override)
    assert (answer.status_code, answer.json()["error"]) == (400, "invalid_grant")


def test_a_code_works_once(client) -> None:
    verifier, challenge = pkce()
    code = approved_code(client, challenge)
    assert exchange(client, code, verifier).status_code == 200
    assert exchange(client, code, verifier).json()["error"] == "invalid_grant"


@pytest.mark.parametrize("override", [
    {"response_type": "token"}, {"client_id": "nope"}, {"code_challenge_method": "plain"},
    {"code_challenge": "short"}, {"state": ""}, {"state": "s" * 513}, {"scope": "user:root"},
    {"redirect_uri": ""},
])
def test_the_authorize_page_refuses_bad_requests(client, override: dict) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge, **override)
    assert page.status_code == 400
    assert "<form" not in page.text


@pytest.mark.parametrize(("length", "ok"), [(2048, True), (2049, False)])
def test_a_redirect_uri_is_at_most_2048_characters(client, length: int, ok: bool) -> None:
    _, challenge = pkce()
    uri = "http://127.0.0.1:8080/" + "a" * (length - len("http://127.0.0.1:8080/"))
    page = authorize(client, challenge, redirect_uri=uri)
    assert page.status_code == (200 if ok else 400)


def test_a_state_of_512_characters_is_accepted(client) -> None:
    _, challenge = pkce()
    assert approved_code(client, challenge, state="s" * 512)


def test_the_authorize_page_escapes_the_state(client) -> None:
    _, challenge = pkce()
    page = authorize(client, challenge, state="<script>x</script>")
    assert "<script>x" not in page.text
    assert redirected(decide(client, page.text))[1]["state"] == "<script>x</script>"


# ---------------------------------------------------------------- bearer authentication


def test_an_expired_access_token_is_401_with_www_authenticate(client, bearer, demo) -> None:
    headers = bearer()
    assert client.get(demo.base + "/detail", headers=headers).status_code == 200
    client.post("/_faults/expire-tokens")
    answer = client.get(demo.base + "/detail", headers=headers)
    assert answer.status_code == 401
    assert answer.json()["error"]["type"] == "authentication_error"
    assert answer.headers["www-authenticate"].startswith("Bearer")


@pytest.mark.parametrize("header", [
    "", "Bearer", "Bearer ", "Basic abc", "Bearer not-a-token", "Bearer a.b.c",
    "Bearer " + "x" * 9000,
])
def test_bad_authorization_headers_are_401(client, demo, header: str) -> None:
    answer = client.get(demo.base + "/detail", headers={"authorization": header})
    assert answer.status_code == 401


def test_tokens_are_stored_hashed(service_app, bearer) -> None:
    token = bearer()["authorization"].removeprefix("Bearer ")
    rows = service_app[1].db.read().execute("SELECT token_hash FROM oauth_tokens").fetchall()
    assert all(token not in row["token_hash"] for row in rows)
    assert any(row["token_hash"] == oauth.token_hash(token) for row in rows)


# ---------------------------------------------------------------- the first credential


def test_first_credential_has_no_project_scopes_and_mode_0600(service_app, tmp_path) -> None:
    path = oauth.ensure_credential_file(service_app[1], tmp_path / "creds.json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    stored = json.loads(path.read_text())
    assert set(stored) == {"access_token", "refresh_token", "expires_at", "scopes", "client_id"}
    assert stored["client_id"] == CLIENT
    assert not {"user:projects:read", "user:projects:write"} & set(stored["scopes"])
    assert {"user:design:read", "user:design:write"} <= set(stored["scopes"])
    assert stored["expires_at"] > 10**12  # unix milliseconds


def test_a_valid_credential_file_is_kept(service_app, tmp_path) -> None:
    path = oauth.ensure_credential_file(service_app[1], tmp_path / "creds.json")
    before = path.read_text()
    oauth.ensure_credential_file(service_app[1], path)
    assert path.read_text() == before


def test_a_credential_whose_refresh_token_was_used_is_replaced(client, service_app,
                                                               tmp_path) -> None:
    path = oauth.ensure_credential_file(service_app[1], tmp_path / "creds.json")
    old = json.loads(path.read_text())
    assert refresh(client, old["refresh_token"]).status_code == 200
    oauth.ensure_credential_file(service_app[1], path)
    assert json.loads(path.read_text())["refresh_token"] != old["refresh_token"]


@pytest.mark.parametrize("content", ["", "{", "[]", '{"refresh_token": 5}'])
def test_a_broken_credential_file_is_replaced(service_app, tmp_path, content: str) -> None:
    path = tmp_path / "creds.json"
    path.write_text(content)
    oauth.ensure_credential_file(service_app[1], path)
    assert json.loads(path.read_text())["client_id"] == CLIENT
