"""Only the owner of a reference service reaches its owner-only pages (the authorize page,
the Design settings page and its grant form): with the run's secret (the Jupyter server's
proxy), an authorize link bound to its attempt, or a settings link and its cookie.
Anyone else gets a 403 page and no form token, code, consent or grant."""

from __future__ import annotations

import base64
import hashlib
import re
import stat

import pytest

from jupyter_design_projects.core import owner_proof
from jupyter_design_projects.server.app import create_app
from jupyter_design_projects.server.design.demo import DECK_ID
from jupyter_design_projects.server.owner import OwnerKey

CLIENT = "jdp-notebook-client"
VERIFIER = "v" * 43
CHALLENGE = base64.urlsafe_b64encode(
    hashlib.sha256(VERIFIER.encode()).digest()).decode().rstrip("=")
STATE = "state-1"
PUBLIC = "https://hub.example/user/alice/jupyter-design-projects"


def query(redirect: str = "http://127.0.0.1:5555/callback", state: str = STATE,
          **extra: str) -> dict[str, str]:
    return {"response_type": "code", "client_id": CLIENT, "redirect_uri": redirect,
            "state": state, "code_challenge": CHALLENGE, "code_challenge_method": "S256",
            **extra}


def secret_of(service_config) -> str:
    return (service_config.data_dir / owner_proof.OWNER_FILE).read_text(encoding="ascii")


def codes(ctx) -> int:
    return ctx.db.read().execute("SELECT COUNT(*) FROM oauth_codes").fetchone()[0]


def test_the_secret_is_owner_only_and_new_each_run(service_app, service_config) -> None:
    first = secret_of(service_config)
    path = service_config.data_dir / owner_proof.OWNER_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(service_config.data_dir.stat().st_mode) == 0o700
    create_app(service_config)
    assert secret_of(service_config) != first and len(first) >= 40
    assert repr(OwnerKey(first)) == "OwnerKey([redacted-owner-secret])"


def test_a_stranger_gets_no_authorize_page_and_no_form_token(stranger) -> None:
    page = stranger.get("/oauth/authorize", params=query())
    assert page.status_code == 403
    assert 'data-jdp' not in page.text and "form_token" not in page.text
    assert page.headers["cache-control"] == "no-store"


def test_a_stranger_cannot_post_the_authorize_form_even_with_its_token(
        client, stranger, service_app) -> None:
    token = re.search(r'name="form_token" value="([^"]+)"',
                      client.get("/oauth/authorize", params=query()).text).group(1)
    answer = stranger.post("/oauth/authorize", data={**query(), "form_token": token,
                                                     "decision": "approve"},
                           headers={"origin": "http://127.0.0.1"}, follow_redirects=False)
    assert answer.status_code == 403 and "location" not in answer.headers
    assert codes(service_app[1]) == 0


def test_an_authorize_link_carries_a_proof_bound_to_its_own_attempt(
        stranger, service_config) -> None:
    secret = secret_of(service_config)
    good = owner_proof.authorize_proof(secret, STATE, CHALLENGE)
    assert stranger.get("/oauth/authorize",
                        params=query(owner_proof=good)).status_code == 200
    other_state = owner_proof.authorize_proof(secret, "another", CHALLENGE)
    assert stranger.get("/oauth/authorize",
                        params=query(owner_proof=other_state)).status_code == 403
    altered = good[:-1] + ("B" if good[-1] == "A" else "A")  # never the proof itself
    assert stranger.get("/oauth/authorize",
                        params=query(owner_proof=altered)).status_code == 403
    assert stranger.get("/oauth/authorize",
                        params=query(owner_proof="é" * 43)).status_code == 403


def test_the_form_of_a_proved_link_posts_and_issues_a_code(stranger, service_app,
                                                          service_config) -> None:
    proof = owner_proof.authorize_proof(secret_of(service_config), STATE, CHALLENGE)
    page = stranger.get("/oauth/authorize", params=query(owner_proof=proof)).text
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page))
    assert fields["owner_proof"] == proof
    answer = stranger.post("/oauth/authorize", data={**fields, "decision": "approve"},
                           headers={"origin": "http://127.0.0.1"}, follow_redirects=False)
    assert answer.status_code == 303 and "code=" in answer.headers["location"]
    assert codes(service_app[1]) == 1


def test_a_stranger_sees_no_consent_or_grants_and_changes_none(stranger, client) -> None:
    page = stranger.get("/design/settings")
    assert page.status_code == 403
    assert "Consent" not in page.text and DECK_ID not in page.text
    token = re.search(r'name="form_token" value="([^"]+)"',
                      client.get("/design/settings").text).group(1)
    answer = stranger.post("/design/settings/grants", data={
        "form_token": token, "project_id": DECK_ID, "action": "revoke"},
        headers={"origin": "http://127.0.0.1"}, follow_redirects=False)
    assert answer.status_code == 403


def test_a_settings_link_leaves_the_owner_cookie_until_it_expires(
        stranger, service_app, service_config, monkeypatch) -> None:
    ctx = service_app[1]
    monkeypatch.setattr(ctx, "clock", lambda: 1_000_000.0)
    link = owner_proof.link_proof(secret_of(service_config), 1_000_000)
    expired = owner_proof.link_proof(secret_of(service_config), 999_999)
    assert stranger.get("/design/settings", params={"owner_link": expired}).status_code == 403
    assert stranger.get("/design/settings").status_code == 403
    opened = stranger.get("/design/settings", params={"owner_link": link},
                          follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == "/design/settings"
    cookie = opened.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert stranger.get("/design/settings").status_code == 200  # the cookie now


@pytest.mark.parametrize("link", ["", "x", "1.abc", "abc.def", "9" * 300,
                                  "99999999999.AAAA"])
def test_a_malformed_settings_link_is_refused(stranger, link: str) -> None:
    assert stranger.get("/design/settings", params={"owner_link": link}).status_code == 403


def test_the_public_prefix_is_honoured_only_with_the_secret(client, stranger) -> None:
    ours = query(redirect=PUBLIC + "/oauth/callback")
    page = client.get("/oauth/authorize", params=ours,
                      headers={owner_proof.PUBLIC_BASE_HEADER: PUBLIC})
    assert page.status_code == 200
    assert 'action="/user/alice/jupyter-design-projects/oauth/authorize"' in page.text
    code_page = query(redirect=PUBLIC + "/oauth/code/callback")
    assert client.get("/oauth/authorize", params=code_page,
                      headers={owner_proof.PUBLIC_BASE_HEADER: PUBLIC}).status_code == 200
    elsewhere = query(redirect=PUBLIC + "/elsewhere")
    assert client.get("/oauth/authorize", params=elsewhere,
                      headers={owner_proof.PUBLIC_BASE_HEADER: PUBLIC}).status_code == 400
    # without the prefix header the public callback is not a registered redirect
    assert client.get("/oauth/authorize", params=ours).status_code == 400
    assert stranger.get("/oauth/authorize", params=ours,
                        headers={owner_proof.PUBLIC_BASE_HEADER: PUBLIC}).status_code == 403


def test_the_settings_page_links_through_the_public_prefix(client) -> None:
    page = client.get("/design/settings", headers={owner_proof.PUBLIC_BASE_HEADER: PUBLIC})
    assert 'action="/user/alice/jupyter-design-projects/design/settings/grants"' in page.text
